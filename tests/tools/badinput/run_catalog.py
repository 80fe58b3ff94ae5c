#!/usr/bin/env python3
"""The bad-input catalog: every input a lab may feed the tools that must end in a clear error or a
true report, never a crash, a hang or a silent exit 0.

Each tests/badinput/<area>.yaml file is a list of entries (the format is in tests/badinput/README.md).
An entry runs one command of build/bin in a fresh scratch folder and checks its exit status, what it
printed and what it left behind. On top of each entry's own expectations, every entry must:
  - end within its bound (timeout_s, default 30 s); a command still running then is a "hang";
  - not die of a signal it was not sent (a crash), nor print a C++ runtime abort or a sanitizer report;
  - say something (stderr or stdout) when its exit status is not 0.
With --malformed DIR each malformed case file of the loader's catalog (tests/harness/case/malformed)
becomes an entry too: `mrc-conform list` on it must exit 2 and print each `# expect:` line with the
file's name and line:col.

Exit status: 0 when every entry passed (entries needing root are skipped, with the reason, when not
root), 1 when any failed or the catalog has fewer than --min-entries entries, 2 when the catalog
itself is malformed.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

try:
    import yaml
except ImportError:  # scripts/install-deps installs python3-yaml
    print("run_catalog: python3-yaml is missing (scripts/install-deps installs it)", file=sys.stderr)
    sys.exit(2)

KEYS = {"name", "why", "files", "copy", "cmd", "exit", "stderr", "stdout", "timeout_s", "signals",
        "signal_target", "tmpfs_mb", "after", "stdin"}
AFTER_KEYS = {"exists", "absent", "json", "no_empty_files_under", "unchanged"}
DEFAULT_TIMEOUT_S = 30.0
# What a crash or an abort leaves on stderr even when the exit status looks ordinary.
CRASH_TEXT = re.compile(r"terminate called|std::bad_alloc|Segmentation fault|AddressSanitizer|"
                        r"UndefinedBehaviorSanitizer|runtime error:|Assertion .* failed|core dumped")
SIGNALS = {"INT": signal.SIGINT, "TERM": signal.SIGTERM, "HUP": signal.SIGHUP,
           "QUIT": signal.SIGQUIT, "PIPE": signal.SIGPIPE, "USR1": signal.SIGUSR1}


class CatalogError(Exception):
    pass


def load_catalog(folder):
    entries = []
    names = {}
    files = sorted(f for f in os.listdir(folder) if f.endswith(".yaml"))
    for fname in files:
        path = os.path.join(folder, fname)
        with open(path, encoding="utf-8") as f:
            try:
                data = yaml.safe_load(f)
            except yaml.YAMLError as e:
                raise CatalogError("%s: %s" % (path, e))
        if data is None:
            continue
        if not isinstance(data, list):
            raise CatalogError("%s: the top level must be a list of entries" % path)
        for i, e in enumerate(data):
            where = "%s: entry %d" % (path, i + 1)
            if not isinstance(e, dict):
                raise CatalogError("%s: an entry must be a mapping" % where)
            unknown = set(e) - KEYS
            if unknown:
                raise CatalogError("%s (%s): unknown key(s) %s" % (where, e.get("name"), sorted(unknown)))
            for k in ("name", "why", "cmd", "exit"):
                if k not in e:
                    raise CatalogError("%s (%s): missing key '%s'" % (where, e.get("name"), k))
            if not isinstance(e["cmd"], list) or not e["cmd"]:
                raise CatalogError("%s (%s): cmd must be a non-empty list" % (where, e["name"]))
            if e["name"] in names:
                raise CatalogError("%s: name '%s' already used in %s" % (where, e["name"], names[e["name"]]))
            unknown_after = set(e.get("after") or {}) - AFTER_KEYS
            if unknown_after:
                raise CatalogError("%s (%s): unknown after: key(s) %s" % (where, e["name"], sorted(unknown_after)))
            for s in e.get("signals") or []:
                if s.get("sig") not in SIGNALS:
                    raise CatalogError("%s (%s): unknown signal %r" % (where, e["name"], s.get("sig")))
                if set(s) - {"sig", "after_s", "after_stderr"}:
                    raise CatalogError("%s (%s): unknown signal key(s) %s" % (where, e["name"], sorted(set(s) - {"sig", "after_s", "after_stderr"})))
            names[e["name"]] = path
            e["_file"] = fname
            entries.append(e)
    return entries


def malformed_entries(folder, src):
    """One entry per malformed case file: `mrc-conform list` on it is exit 2 with its diagnostics."""
    out = []
    for root, _, files in os.walk(folder):
        for fname in sorted(files):
            if not fname.endswith(".yaml"):
                continue
            path = os.path.join(root, fname)
            expects = []
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if not line.startswith("# expect: "):
                        break
                    expects.append(line[len("# expect: "):].rstrip("\n"))
            rel = os.path.relpath(path, folder)
            # The case sits in a copy of the suite's layout so that its clause ids resolve.
            dest = os.path.join("cases", "malformed", rel)
            patterns = []
            for x in expects:
                m = re.match(r"^(\d+):(\d+): (.*)$", x)
                text = m.group(3) if m else x
                prefix = re.escape(fname) + ":" + m.group(1) + ":" + m.group(2) + ": " if m else ""
                patterns.append(prefix + re.escape(text))
            out.append({"name": "malformed-case-" + rel.replace("/", "-")[:-5],
                        "why": "malformed case file " + rel + " (the loader's catalog) through the CLI",
                        "copy": {"cases/clauses.yaml": "{src}/cases/clauses.yaml", dest: path},
                        "cmd": ["mrc-conform", "list", "--cases", dest],
                        "exit": 2, "_stderr_all": patterns, "_file": "(malformed catalog)"})
    return out


def expand(text, ctx):
    return text.replace("{src}", ctx["src"]).replace("{tmp}", ctx["tmp"]).replace("{bin}", ctx["bin"])


def dotted(data, path):
    cur = data
    for part in path.split("."):
        if isinstance(cur, list) and part.isdigit():
            idx = int(part)
            if idx >= len(cur):
                return ("<missing>",)
            cur = cur[idx]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return ("<missing>",)
    return cur


def tree_digest(folder):
    """(relative path, size, mtime) of every file under folder, to tell that nothing changed."""
    out = []
    for root, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            st = os.lstat(p)
            out.append((os.path.relpath(p, folder), st.st_size, st.st_mtime_ns))
    return sorted(out)


def check_after(e, ctx, problems):
    after = e.get("after") or {}
    tmp = ctx["tmp"]
    for p in after.get("exists", []):
        if not os.path.exists(os.path.join(tmp, p)):
            problems.append("expected %s to exist" % p)
    for p in after.get("absent", []):
        if os.path.lexists(os.path.join(tmp, p)):
            problems.append("expected %s to be absent" % p)
    j = after.get("json")
    if j:
        jp = os.path.join(tmp, j["file"])
        try:
            with open(jp, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as ex:
            problems.append("%s is not readable JSON: %s" % (j["file"], ex))
        else:
            for k, want in (j.get("equal") or {}).items():
                got = dotted(data, k)
                if got != want:
                    problems.append("%s: %s is %r, expected %r" % (j["file"], k, got, want))
    under = after.get("no_empty_files_under")
    if under:
        base = os.path.join(tmp, under)
        for root, _, files in os.walk(base):
            for f in files:
                p = os.path.join(root, f)
                if os.path.getsize(p) == 0:
                    problems.append("empty file left behind: %s" % os.path.relpath(p, tmp))
                    break
    if "unchanged" in after and ctx.get("before") is not None:
        if tree_digest(os.path.join(tmp, after["unchanged"])) != ctx["before"]:
            problems.append("%s changed although the command should not have touched it" % after["unchanged"])


def mount_tmpfs(path, mb):
    os.makedirs(path, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm" % mb, "tmpfs", path], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def umount(path):
    subprocess.run(["umount", "-l", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_entry(e, args):
    """Returns (status, detail): status PASS, FAIL or SKIP."""
    tmp = os.path.join(args.workdir, e["name"])
    if os.path.lexists(tmp):
        umount(os.path.join(tmp, "full"))
        shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    ctx = {"src": args.src, "tmp": tmp, "bin": args.bin}
    mounted = None
    try:
        for rel, content in (e.get("files") or {}).items():
            p = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8", newline="") as f:
                f.write(expand(str(content), ctx))
        for rel, source in (e.get("copy") or {}).items():
            s = expand(source, ctx)
            d = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(d) or tmp, exist_ok=True)
            if os.path.isdir(s):
                shutil.copytree(s, d)
            else:
                shutil.copyfile(s, d)
        if e.get("tmpfs_mb"):
            if os.geteuid() != 0:
                return "SKIP", "needs root to mount a %d MB tmpfs" % e["tmpfs_mb"]
            mounted = os.path.join(tmp, "full")
            mount_tmpfs(mounted, int(e["tmpfs_mb"]))
        if "unchanged" in (e.get("after") or {}):
            ctx["before"] = tree_digest(os.path.join(tmp, e["after"]["unchanged"]))
        argv = [expand(str(a), ctx) for a in e["cmd"]]
        exe = os.path.join(args.bin, argv[0])
        if os.path.exists(exe):
            argv[0] = exe
        timeout = float(e.get("timeout_s", DEFAULT_TIMEOUT_S))
        stdin = expand(e["stdin"], ctx).encode() if "stdin" in e else b""
        start = time.monotonic()
        proc = subprocess.Popen(argv, cwd=tmp, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        sent = []
        group = e.get("signal_target", "group") == "group"
        try:
            if e.get("signals"):
                # Both streams are drained on threads, so a signal can wait for what the command
                # says (after_stderr) rather than for a time that a faster build outruns.
                got = {"out": bytearray(), "err": bytearray()}
                changed = threading.Condition()

                def drain(stream, key):
                    for chunk in iter(lambda: stream.read1(65536), b""):
                        with changed:
                            got[key] += chunk
                            changed.notify_all()

                readers = [threading.Thread(target=drain, args=(proc.stdout, "out"), daemon=True),
                           threading.Thread(target=drain, args=(proc.stderr, "err"), daemon=True)]
                for t in readers:
                    t.start()
                for s in e["signals"]:
                    if s.get("after_stderr"):
                        pattern = re.compile(s["after_stderr"])
                        with changed:
                            changed.wait_for(lambda: pattern.search(got["err"].decode("utf-8", "replace"))
                                             or proc.poll() is not None,
                                             timeout=max(0.1, timeout - (time.monotonic() - start)))
                    time.sleep(float(s.get("after_s", 0)))
                    if proc.poll() is not None:
                        break
                    (os.killpg if group else os.kill)(proc.pid, SIGNALS[s["sig"]])
                    sent.append(SIGNALS[s["sig"]])
                proc.wait(timeout=max(0.1, timeout - (time.monotonic() - start)))
                for t in readers:
                    t.join(timeout=5)
                out, err = bytes(got["out"]), bytes(got["err"])
            else:
                out, err = proc.communicate(input=stdin or None, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return "FAIL", "hang: still running after %.0f s (timeout_s)" % timeout
        elapsed = time.monotonic() - start
        out = out.decode("utf-8", "replace")
        err = err.decode("utf-8", "replace")
        rc = proc.returncode
        problems = []
        expected = e["exit"] if isinstance(e["exit"], list) else [e["exit"]]
        by_signal = rc < 0
        if rc < 0:
            if -rc in sent and 128 - rc in expected:
                rc = 128 - rc  # ended by a signal it was sent, with that signal's default action
            else:
                problems.append("crash: died of signal %d (%s)" % (-rc, signal.Signals(-rc).name))
        if rc >= 0 and rc not in expected:
            problems.append("exit %d, expected %s" % (rc, " or ".join(map(str, expected))))
        if CRASH_TEXT.search(err) or CRASH_TEXT.search(out):
            problems.append("crash text in the output: %r" % (CRASH_TEXT.search(err) or CRASH_TEXT.search(out)).group(0))
        if rc != 0 and not by_signal and not err.strip() and not out.strip():
            problems.append("exit %d without a word on stderr or stdout" % rc)
        for key, text in (("stderr", err), ("stdout", out)):
            if key in e and not re.search(e[key], text, re.M):
                problems.append("%s does not match %r" % (key, e[key]))
        for pat in e.get("_stderr_all", []):
            if not re.search(pat, err, re.M):
                problems.append("stderr lacks %r" % pat)
        check_after(e, ctx, problems)
        if problems:
            tail = (err.strip().splitlines() or out.strip().splitlines() or ["(no output)"])[-3:]
            return "FAIL", "; ".join(problems) + " | last output: " + " / ".join(tail)
        return "PASS", "exit %d in %.1f s" % (rc, elapsed)
    finally:
        if mounted:
            umount(mounted)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--catalog", required=True, help="folder of <area>.yaml entry lists")
    ap.add_argument("--bin", required=True, help="folder of the built binaries (build/bin)")
    ap.add_argument("--src", required=True, help="source tree (for {src})")
    ap.add_argument("--workdir", help="scratch folder (emptied per entry); default: a new folder under "
                    "the system's temporary folder, outside any suite tree, removed when every entry passed")
    ap.add_argument("--malformed", help="the loader's malformed case catalog, one entry per file")
    ap.add_argument("--min-entries", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="run only the entries whose name matches this regex")
    ap.add_argument("--list", action="store_true", help="print the entries and exit")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    args.src = os.path.abspath(args.src)
    own_workdir = args.workdir is None
    args.workdir = tempfile.mkdtemp(prefix="mrc-badinput-") if own_workdir else os.path.abspath(args.workdir)
    try:
        entries = load_catalog(args.catalog)
    except CatalogError as e:
        print("run_catalog: %s" % e, file=sys.stderr)
        return 2
    if args.malformed:
        entries += malformed_entries(args.malformed, args.src)
    if args.list:
        for e in entries:
            print("%-45s %-22s %s" % (e["name"], e["_file"], e["why"]))
        print("%d entries" % len(entries))
        return 0
    total = len(entries)
    if args.only:
        entries = [e for e in entries if re.search(args.only, e["name"])]
    os.makedirs(args.workdir, exist_ok=True)
    # Entries that send signals or fill a disk are timing-sensitive: they run one at a time, after
    # the others, so the machine is quiet.
    quiet = [e for e in entries if e.get("signals") or e.get("tmpfs_mb")]
    busy = [e for e in entries if not (e.get("signals") or e.get("tmpfs_mb"))]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for e, r in zip(busy, pool.map(lambda x: run_entry(x, args), busy)):
            results[e["name"]] = r
    for e in quiet:
        results[e["name"]] = run_entry(e, args)
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    for e in entries:
        status, detail = results[e["name"]]
        counts[status] += 1
        print("%-4s %-45s %s" % (status, e["name"], detail))
    print("%d entries (%d in the catalog): %d PASS, %d FAIL, %d SKIP"
          % (len(entries), total, counts["PASS"], counts["FAIL"], counts["SKIP"]))
    if own_workdir and not counts["FAIL"]:
        shutil.rmtree(args.workdir, ignore_errors=True)
    elif counts["FAIL"]:
        print("scratch folders of the entries kept in %s" % args.workdir)
    if total < args.min_entries:
        print("run_catalog: the catalog has %d entries, fewer than the %d required" % (total, args.min_entries),
              file=sys.stderr)
        return 1
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
