#!/usr/bin/env python3
"""image.lab (CTest label `image`): the lab image, built and run here without a registry.

1. base:  `debootstrap --variant=minbase bookworm` (cached as a tarball under --workdir, i.e. the
          build tree, between runs) with Debian's bookworm, -updates and -security sources and the
          host's apt proxy, imported as localhost/mrc-base:bookworm;
2. build: `podman build --isolation chroot --build-arg BASE=localhost/mrc-base:bookworm -f
          docker/Dockerfile`, which installs through scripts/install-deps as CI does; prints the
          build time and the image size;
3. run:   the binaries start in a container (--version; mrc-ev --help); `mrc-conform run --tags smoke` exits 0
          and results.json says every case PASS;
4. lab:   docker/compose.yaml's two services (agent, harness) started with podman as compose
          would (podman has no compose): their commands, environment, capabilities, network and
          health check read from the file; the harness runs the wirelab subset
          (tests/harness/wirelab/wire_cases.hpp) over the containers' network against the agent.
          No FAIL and no ERROR (a FAIL runs again, up to 3 runs, as in the wirelab suite), at
          least 20 PASS; what the wire cannot carry may be UNSUPPORTED or INCONCLUSIVE (README
          "Test your NIC"). Then the agent again with a catalog defect
          (MRC_AGENT_BACKEND, wire_cases.hpp's kWireDefects): its case FAILs.

Everything podman makes is in a private folder under --workdir, removed at the end with its
images, containers and networks (podman_env.py). Exit 0 pass, 1 fail, 77 skipped (not root).
"""

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compose_lab import ComposeLab  # noqa: E402
from podman_env import Podman, PodmanError, remove_tree  # noqa: E402

BASE_TAG = "localhost/mrc-base:bookworm"
IMAGE_TAG = "localhost/mrc-conform:lab-test"
DEBOOTSTRAP_BOUND_S = 900
BUILD_BOUND_S = 3300  # measured 2372 s cold on this machine under load 12-19
RUN_BOUND_S = 300


class CheckFailed(Exception):
    pass


def log(msg):
    print("image: " + msg, flush=True)


def host_apt_proxy():
    """apt.conf lines for the proxy the host's apt uses, if any (the build's apt needs it too)."""
    try:
        dump = subprocess.run(["apt-config", "dump"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = [ln for ln in dump.splitlines() if re.match(r'Acquire::(https?|ftp)::Proxy(::\S+)? "', ln)]
    return "".join(ln + "\n" for ln in lines)


def make_base_tarball(tarball, scratch, mirror, security_mirror):
    rootfs = os.path.join(scratch, "rootfs")
    log("debootstrap --variant=minbase bookworm from %s (bound %d s)" % (mirror, DEBOOTSTRAP_BOUND_S))
    started = time.monotonic()
    try:
        p = subprocess.run(["debootstrap", "--variant=minbase", "bookworm", rootfs, mirror],
                           capture_output=True, text=True, timeout=DEBOOTSTRAP_BOUND_S)
    except subprocess.TimeoutExpired:
        raise CheckFailed("debootstrap: no end within %d s (debootstrap bound); is %s reachable?"
                          % (DEBOOTSTRAP_BOUND_S, mirror))
    if p.returncode != 0:
        raise CheckFailed("debootstrap failed (exit %d): %s" % (p.returncode, (p.stdout + p.stderr)[-3000:]))
    log("debootstrap: %.0f s" % (time.monotonic() - started))
    # The sources debian:12 carries, so `apt-get install` sees the same versions as on CI's host.
    os.remove(os.path.join(rootfs, "etc/apt/sources.list"))
    with open(os.path.join(rootfs, "etc/apt/sources.list.d/debian.sources"), "w") as f:
        f.write("Types: deb\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: main\n"
                "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
                "Types: deb\nURIs: %s\nSuites: bookworm-security\nComponents: main\n"
                "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n" % (mirror, security_mirror))
    proxy = host_apt_proxy()
    if proxy:
        with open(os.path.join(rootfs, "etc/apt/apt.conf.d/01proxy-from-host"), "w") as f:
            f.write(proxy)
    # Package caches are not part of a base image.
    subprocess.run(["find", os.path.join(rootfs, "var/cache/apt/archives"), "-name", "*.deb", "-delete"], check=False)
    tmp = tarball + ".partial"
    subprocess.run(["tar", "-C", rootfs, "--numeric-owner", "-czf", tmp, "."], check=True, timeout=600)
    os.replace(tmp, tarball)
    problems = remove_tree(rootfs)
    if problems:
        raise CheckFailed("debootstrap's folder: " + "; ".join(problems))


def read_results(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise CheckFailed("cannot read %s: %s" % (path, e))


def verdict_counts(results):
    counts = {}
    for c in results.get("cases", []):
        counts[c.get("verdict", "?")] = counts.get(c.get("verdict", "?"), 0) + 1
    return counts


def check_versions(pod):
    # mrc-ev has no --version; its --help exits 0 as well, after loading every shared library.
    for binary, arg in (("mrc-conform", "--version"), ("mrc-dut-agent", "--version"), ("mrc-ev", "--help")):
        p = pod.run(["run", "--rm", "--network", "none", IMAGE_TAG, binary, arg], RUN_BOUND_S,
                    "%s %s in the image" % (binary, arg))
        log("%s %s: %s" % (binary, arg, p.stdout.strip().splitlines()[0] if p.stdout.strip() else "(empty)"))


def check_smoke(pod, out):
    os.makedirs(out, exist_ok=True)
    p = pod.run(["run", "--rm", "--network", "none", "-v", out + ":/out", IMAGE_TAG,
                 "mrc-conform", "run", "--tags", "smoke", "--out", "/out/smoke"],
                RUN_BOUND_S, "mrc-conform run --tags smoke in the image", check=False)
    if p.returncode != 0:
        raise CheckFailed("mrc-conform run --tags smoke in the image exited %d (0 expected):\n%s"
                          % (p.returncode, p.stdout[-3000:]))
    results = read_results(os.path.join(out, "smoke", "results.json"))
    counts = verdict_counts(results)
    if not results.get("cases") or set(counts) != {"PASS"}:
        raise CheckFailed("smoke run in the image: every case must PASS, got %s (%s)"
                          % (counts, os.path.join(out, "smoke", "results.json")))
    log("smoke in the image: %d case(s), all PASS" % counts["PASS"])


def _array_block(text, name):
    start = text.index(name)
    return re.sub(r"//[^\n]*", "", text[start:text.index("};", start)])


def wire_cases(path):
    """kWireCases of wire_cases.hpp: the cases that give the in-process verdict on the wire."""
    return re.findall(r'"([a-z]+-[a-z]-\d+)"', _array_block(open(path).read(), "kWireCases"))


def wire_defects(path):
    """kWireDefects of wire_cases.hpp: (defect, a case that catches it on the wire)."""
    return re.findall(r'\{"([a-z0-9-]+)",\s*"([a-z]+-[a-z]-\d+)"\}', _array_block(open(path).read(), "kWireDefects"))


def case_files(src, ids):
    files = []
    for cid in ids:
        path = os.path.join("cases", cid.split("-")[0], cid + ".yaml")
        if not os.path.exists(os.path.join(src, path)):
            raise CheckFailed("wire case %s has no file %s" % (cid, path))
        files.append(path)
    return files


# As tests/harness/wirelab/wire_equivalence_test.cpp: a paced fabric on a shared 2-core machine
# has latency spikes the declared budget does not always cover (the netns testbed shows the same
# misses under load), so a case that FAILs on the wire runs again, up to LAB_ATTEMPTS in all; every
# retry is printed. At least LAB_MIN_PASS of the listed cases must PASS (44 of 55 here, load ~18).
LAB_ATTEMPTS = 3
LAB_MIN_PASS = 20
# Cases whose FAIL over the containers' networks comes from the lab network, not the agent: run,
# reported on every run, not gating. Each entry says why.
LAB_KNOWN_FAIL = {
    # Confirmed 2026-11-25 with two namespaces on a Linux bridge: with bridge-nf-call-ip6tables=1
    # (br_netfilter, as Docker and podman set it on the host) the bridge drops an IPv6 frame whose
    # payload length claims more bytes than it carries; with 0 (the sysctl is per namespace) it
    # passes. The case's stub (DSCP 11, cut to 256 bytes, lengths not fixed up) never reaches the
    # agent, so no TRIM NACK comes back; the netns testbed's direct veth pairs PASS it.
    "reorder-v-019": "its stub (IP length longer than the frame) is dropped by the podman bridge's "
                     "br_netfilter (net.bridge.bridge-nf-call-ip6tables=1) before the agent sees it",
}


def lab_run(lab, src, reports, ids, bound_s):
    """One harness run of `ids` against the running agent: (exit status, results, stdout)."""
    lab.volume_override["/reports"] = reports
    os.makedirs(reports, exist_ok=True)
    try:
        p = lab.run_to_end("harness", extra_args=["--cases"] + case_files(src, ids), bound_s=bound_s)
    except (RuntimeError, ValueError) as e:  # PodmanError is a RuntimeError
        raise CheckFailed("compose lab: %s\nagent log:\n%s" % (e, lab.logs("agent")))
    results_path = os.path.join(reports, "interop", "results.json")
    if not os.path.exists(results_path):
        raise CheckFailed("compose lab: the harness exited %d without %s:\n%s\nagent log:\n%s"
                          % (p.returncode, results_path, p.stdout[-4000:], lab.logs("agent")))
    results = read_results(results_path)
    want_rc = (results.get("summary") or {}).get("exit_code")
    if p.returncode != want_rc:
        raise CheckFailed("compose lab: harness exited %d, its results.json says exit_code %s" % (p.returncode, want_rc))
    return p.returncode, {c["id"]: c for c in results.get("cases", [])}, p.stdout


def check_lab(pod, src, out, ids):
    lab = ComposeLab(pod, os.path.join(src, "docker", "compose.yaml"), IMAGE_TAG,
                     env={"MRC_AGENT_TOKEN": secrets.token_hex(16)},
                     volume_override={"/reports": os.path.join(out, "lab")})
    started = time.monotonic()
    try:
        lab.up_until_healthy("agent")
    except (RuntimeError, ValueError) as e:
        raise CheckFailed("compose lab: %s\nagent log:\n%s" % (e, lab.logs("agent")))
    rc, cases, stdout = lab_run(lab, src, os.path.join(out, "lab"), ids, 1500)
    missing = [i for i in ids if i not in cases]
    if missing:
        raise CheckFailed("compose lab: no verdict for %s:\n%s" % (missing, stdout[-3000:]))
    counts = verdict_counts({"cases": list(cases.values())})
    log("compose lab (%d wire cases, %.0f s): exit %d, %s" % (len(ids), time.monotonic() - started, rc, counts))
    for attempt in range(2, LAB_ATTEMPTS + 1):
        bad = [i for i in ids if cases[i].get("verdict") in ("FAIL", "ERROR") and i not in LAB_KNOWN_FAIL]
        if not bad:
            break
        for i in bad:
            log("  attempt %d: %s was %s: %s" % (attempt - 1, i, cases[i]["verdict"], cases[i].get("message", "")[:300]))
        _rc, again, _out = lab_run(lab, src, os.path.join(out, "lab-%d" % attempt), bad, 600)
        cases.update(again)
    for i, why in LAB_KNOWN_FAIL.items():
        if i in cases:
            log("  known on this lab, not gating: %s %s (%s)" % (i, cases[i]["verdict"], why))
    bad = ["%s %s: %s" % (i, cases[i]["verdict"], cases[i].get("message", "")) for i in ids
           if cases[i].get("verdict") in ("FAIL", "ERROR") and i not in LAB_KNOWN_FAIL]
    if bad:
        raise CheckFailed("compose lab: a conformant agent must not FAIL or ERROR (%d runs each):\n  %s"
                          % (LAB_ATTEMPTS, "\n  ".join(bad)))
    passed = {i for i in ids if cases[i].get("verdict") == "PASS"}
    for i in ids:
        if i not in passed:
            log("  lab, not PASS (allowed on the wire): %s %s: %s" % (i, cases[i]["verdict"], cases[i].get("message", "")[:200]))
    log("compose lab: %d of %d wire cases PASS in the end" % (len(passed), len(ids)))
    if len(passed) < LAB_MIN_PASS:
        raise CheckFailed("compose lab: %d of %d cases PASS, at least %d expected; the containers' wire carries too "
                          "little?" % (len(passed), len(ids), LAB_MIN_PASS))
    return lab, passed


def check_lab_bites(lab, src, out, defects, passed):
    """The same lab with a catalog defect in the agent (compose's MRC_AGENT_BACKEND): a case that
    PASSed against the clean agent must FAIL (within LAB_ATTEMPTS runs, as for the clean agent).
    An injection case is preferred: its frames cross the containers' networks, not only the
    control connection."""
    usable = [(d, c) for d, c in defects if c in passed]
    usable.sort(key=lambda dc: not dc[1].startswith("invalid-"))
    if not usable:
        raise CheckFailed("compose lab: none of the wire defects' cases %s PASSed against the clean agent, so "
                          "no defect can be shown to FAIL" % [c for _d, c in defects])
    defect, case = usable[0]
    lab.down("agent")
    lab.env["MRC_AGENT_BACKEND"] = "reference:" + defect
    try:
        lab.up_until_healthy("agent")
    except (RuntimeError, ValueError) as e:
        raise CheckFailed("compose lab with defect %s: %s\nagent log:\n%s" % (defect, e, lab.logs("agent")))
    verdicts = []
    for attempt in range(1, LAB_ATTEMPTS + 1):
        rc, cases, _out = lab_run(lab, src, os.path.join(out, "lab-defect-%d" % attempt), [case], 300)
        verdicts.append(cases.get(case, {}).get("verdict"))
        if verdicts[-1] == "FAIL":
            log("compose lab with MRC_AGENT_BACKEND=reference:%s: %s FAIL, as it must (exit %d, run %d)"
                % (defect, case, rc, attempt))
            return
    raise CheckFailed("compose lab: agent with defect %s: %s was %s in %d runs, FAIL expected"
                      % (defect, case, verdicts, LAB_ATTEMPTS))


def _sigterm_to_exception(signum, _frame):
    raise KeyboardInterrupt("signal %d" % signum)


def main():
    signal.signal(signal.SIGTERM, _sigterm_to_exception)  # CTest's timeout: still clean up
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="the repository checkout (build context)")
    ap.add_argument("--workdir", required=True, help="cache and scratch folder under the build tree")
    ap.add_argument("--wire-cases", required=True, help="tests/harness/wirelab/wire_cases.hpp")
    ap.add_argument("--storage-driver", default=os.environ.get("MRC_IMAGE_STORAGE_DRIVER", "overlay"))
    ap.add_argument("--mirror", default=os.environ.get("MRC_DEBIAN_MIRROR", "http://deb.debian.org/debian"))
    ap.add_argument("--security-mirror",
                    default=os.environ.get("MRC_DEBIAN_SECURITY_MIRROR", "http://deb.debian.org/debian-security"))
    ap.add_argument("--keep", action="store_true",
                    help="leave the private podman store and reports (debugging; prints where)")
    args = ap.parse_args()

    if os.geteuid() != 0:
        print("image: skipped: needs root (podman builds and runs rootful here; debootstrap)")
        return 77
    missing = [t for t in ("podman", "runc", "debootstrap") if shutil.which(t) is None]
    if missing:
        print("image: FAIL: %s not installed; `scripts/install-deps image` installs them" % ", ".join(missing))
        return 1

    os.makedirs(args.workdir, exist_ok=True)
    home = tempfile.mkdtemp(prefix="run-", dir=args.workdir)
    pod = Podman(os.path.join(home, "podman"), args.storage_driver)
    failure = None
    try:
        tarball = os.path.join(args.workdir, "base-bookworm-minbase.tar.gz")
        if not os.path.exists(tarball):
            make_base_tarball(tarball, home, args.mirror, args.security_mirror)
        else:
            log("base: cached %s (delete it to debootstrap again)" % tarball)
        with open(tarball, "rb") as f:
            pod.run(["import", "-", BASE_TAG], 600, "podman import of the base", stdin=f)

        log("podman build --isolation chroot -f docker/Dockerfile (bound %d s)" % BUILD_BOUND_S)
        with open(os.path.join(home, "build.log"), "w") as blog:
            # --network host: apt in RUN steps uses the host's network as is; no CNI bridge made.
            p = pod.run(["build", "--format", "docker", "--isolation", "chroot", "--network", "host",
                         "--build-arg", "BASE=" + BASE_TAG,
                         "--ignorefile", os.path.join(args.src, "docker", "Dockerfile.dockerignore"),
                         "-f", os.path.join(args.src, "docker", "Dockerfile"), "-t", IMAGE_TAG, args.src],
                        BUILD_BOUND_S, "podman build", check=False, stdout=blog)
        if p.returncode != 0:
            tail = open(os.path.join(home, "build.log")).read()[-4000:]
            raise CheckFailed("podman build exited %d:\n%s%s" % (p.returncode, tail, p.stderr[-2000:]))
        size = int(pod.run(["image", "inspect", "--format", "{{.Size}}", IMAGE_TAG], 60, "image inspect").stdout)
        log("image built in %.0f s (wall, nproc %d, load average %.1f), size %.0f MB"
            % (p.elapsed_s, os.cpu_count(), os.getloadavg()[0], size / 1e6))

        check_versions(pod)
        check_smoke(pod, os.path.join(home, "out"))
        lab, passed = check_lab(pod, args.src, os.path.join(home, "out"), wire_cases(args.wire_cases))
        check_lab_bites(lab, args.src, os.path.join(home, "out"), wire_defects(args.wire_cases), passed)
    except (CheckFailed, PodmanError) as e:
        failure = str(e)
    finally:
        if args.keep:
            log("kept: %s (podman --root %s --runroot %s; CONTAINERS_CONF=%s)" % (home, pod.root, pod.runroot, pod.conf))
            problems = []
        else:
            problems = pod.remove_everything() + remove_tree(home)
    if problems:
        failure = (failure + "\n" if failure else "") + "clean-up: " + "; ".join(problems)
    if failure:
        print("image: FAIL: " + failure)
        return 1
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
