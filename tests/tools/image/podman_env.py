"""A podman that touches nothing of the machine's own container set-up.

Everything podman makes lives under one private folder: image and container storage (--root),
run state (--runroot), CNI network files (--network-config-dir), and the containers.conf that
picks what runs on this lab's machines (docker/README.md, "What runs here"):

- runc, not crun: crun refuses the hybrid cgroup v1/v2 layout ("cgroups in hybrid mode not
  supported, drop all controllers from cgroupv2"), even with --cgroups disabled.
- cgroupfs, not systemd, as cgroup manager: no dependency on a systemd instance.
- explicit ulimits no higher than this process's: the machine withholds CAP_SYS_RESOURCE, so the
  runtime cannot raise RLIMIT_NOFILE to podman's default 1048576 ("setrlimit RLIMIT_NOFILE:
  Operation not permitted"); RLIMIT_NPROC is set low (4096) because the runtime's own limit is
  below this shell's, and root in the container is not bound by it anyway.

Every call is bounded (a named timeout) and every failure raises with the command and its output.
"""

import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time


class PodmanError(RuntimeError):
    pass


def mounts_under(path):
    path = os.path.abspath(path) + "/"
    found = []
    with open("/proc/self/mounts") as f:
        for line in f:
            mnt = line.split()[1].replace("\\040", " ")
            if (mnt + "/").startswith(path):
                found.append(mnt)
    return found


def remove_tree(path):
    """Unmounts whatever is mounted under `path` (overlay layers, a debootstrap's /proc and /sys
    left by a killed run), deepest first, then removes it; never removes through a mount (that
    would delete the host's files). Returns what could not be done."""
    if not os.path.exists(path):
        return []
    for mnt in sorted(mounts_under(path), key=len, reverse=True):
        subprocess.run(["umount", "-l", mnt], check=False, timeout=60)
    left = mounts_under(path)
    if left:
        return ["still mounted, %s not removed: %s" % (path, ", ".join(left))]
    shutil.rmtree(path, ignore_errors=True)
    return ["could not remove " + path] if os.path.exists(path) else []


def _ulimits():
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    nofile = hard if hard != resource.RLIM_INFINITY and hard < 1048576 else 1048576
    return ["nofile=%d:%d" % (nofile, nofile), "nproc=4096:4096"]


def _has_cni_chains():
    try:
        out = subprocess.run(["iptables", "-S"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "-N CNI-FORWARD" in out


def _kill_session(proc):
    for sig, wait_s in ((signal.SIGTERM, 15), (signal.SIGKILL, 15)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


class Podman:
    def __init__(self, home, storage_driver="overlay"):
        self.home = os.path.abspath(home)
        self.root = os.path.join(self.home, "store")
        # podman refuses a run root longer than 50 characters: a short one in /tmp, removed too.
        self.runroot = tempfile.mkdtemp(prefix="mrc-image-run-")
        self.netdir = os.path.join(self.home, "cni")
        self.tmp = os.path.join(self.home, "tmp")
        for d in (self.root, self.runroot, self.netdir, self.tmp):
            os.makedirs(d, exist_ok=True)
        self.conf = os.path.join(self.home, "containers.conf")
        with open(self.conf, "w") as f:
            f.write("[containers]\n")
            f.write("default_ulimits = [%s]\n" % ", ".join('"%s"' % u for u in _ulimits()))
            f.write("[engine]\n")
            f.write('runtime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n')
            f.write('events_logfile_path = "%s"\n' % os.path.join(self.home, "events.log"))
            f.write('tmp_dir = "%s"\n' % self.tmp)
        self.env = dict(os.environ, CONTAINERS_CONF=self.conf, TMPDIR=self.tmp)
        # CNI's firewall plugin adds chains to the filter table on first use and never removes
        # them: remove them at the end if they were not there before.
        self.cni_chains_before = _has_cni_chains()
        self.base = ["podman", "--root", self.root, "--runroot", self.runroot,
                     "--storage-driver", storage_driver, "--network-config-dir", self.netdir]

    def run(self, args, bound_s, what, check=True, stdin=None, stdout=None):
        """Runs `podman ARGS`; `what` names the wait in a timeout message."""
        cmd = self.base + list(args)
        started = time.monotonic()
        # Its own session: a build's RUN step (compiler, apt) outlives a killed podman otherwise.
        proc = subprocess.Popen(cmd, env=self.env, stdin=stdin, text=True, start_new_session=True,
                                stdout=stdout if stdout is not None else subprocess.PIPE,
                                stderr=subprocess.STDOUT if stdout is None else subprocess.PIPE)
        try:
            out, err = proc.communicate(timeout=bound_s)
        except subprocess.TimeoutExpired:
            _kill_session(proc)
            raise PodmanError("%s: no end within %d s (%s bound): %s" % (what, bound_s, what, " ".join(cmd)))
        except BaseException:  # Ctrl-C, CTest's own timeout (SIGTERM arrives as an exception below)
            _kill_session(proc)
            raise
        p = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
        p.elapsed_s = time.monotonic() - started
        if check and p.returncode != 0:
            out = (p.stdout or "") if stdout is None else (p.stderr or "")
            raise PodmanError("%s failed (exit %d): %s\n%s" % (what, p.returncode, " ".join(cmd), out[-4000:]))
        return p

    def remove_everything(self):
        """Containers, networks and images of this private store, then the store itself.

        Returns what could not be removed (empty when clean)."""
        problems = []
        try:
            nets = self.run(["network", "ls", "--format", "{{.Name}}"], 60, "network list", check=False).stdout.split()
            bridges = self.run(["network", "inspect", "--format", "{{.NetworkInterface}}"] + nets, 60,
                               "network inspect", check=False).stdout.split() if nets else []
        except PodmanError:
            nets, bridges = [], []
        for args, what in ((["rm", "--all", "--force", "--time", "5"], "container removal"),
                           (["network", "prune", "--force"], "network removal"),
                           (["rmi", "--all", "--force"], "image removal")):
            try:
                self.run(args, 120, what, check=False)
            except PodmanError as e:
                problems.append(str(e))
        # podman with CNI leaves a removed network's bridge interface behind.
        for br in bridges:
            if re.fullmatch(r"cni-podman[1-9][0-9]*", br) and os.path.exists("/sys/class/net/" + br):
                subprocess.run(["ip", "link", "delete", br], check=False, timeout=30)
                if os.path.exists("/sys/class/net/" + br):
                    problems.append("bridge %s of a removed network is still there" % br)
        # CNI's address bookkeeping of the networks made here (host-local IPAM keeps it in /var/lib).
        for net in nets:
            if net != "podman" and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", net):
                shutil.rmtree(os.path.join("/var/lib/cni/networks", net), ignore_errors=True)
        if not self.cni_chains_before and _has_cni_chains():
            for cmd in (["-D", "FORWARD", "-m", "comment", "--comment", "CNI firewall plugin rules", "-j", "CNI-FORWARD"],
                        ["-F", "CNI-FORWARD"], ["-X", "CNI-FORWARD"], ["-F", "CNI-ADMIN"], ["-X", "CNI-ADMIN"]):
                subprocess.run(["iptables"] + cmd, check=False, timeout=30, capture_output=True)
            if _has_cni_chains():
                problems.append("iptables chains CNI-FORWARD/CNI-ADMIN made here are still there")
        return problems + remove_tree(self.runroot) + remove_tree(self.home)
