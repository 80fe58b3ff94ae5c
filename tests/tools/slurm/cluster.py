"""A one-node Slurm cluster (munged, slurmctld, slurmd from Debian's slurm-wlm 22.05 and munge)
that lives entirely in one temp folder: its own munge key and socket, its own slurm.conf with
free TCP ports, state, spool, pid and log files there, so it neither needs nor collides with the
system's daemons (the Debian packages' postinst may have started munged/slurmd through init; ours
never talk to them). Each daemon runs in the foreground as our child, so its pid is the one we
started and stop() ends exactly those pids (SIGTERM, a bounded wait, then SIGKILL), then stops
guard.py, which ends whatever else carries this cluster's SLURM_CONF (a slurmstepd). The daemons
and the guard get PR_SET_PDEATHSIG, so a driver killed with SIGKILL (a CTest timeout) leaves
nothing running either.

No cgroup use at all: ProctrackType=proctrack/linuxproc, TaskPlugin=task/none,
JobAcctGatherType=jobacct_gather/none, so it runs on machines without systemd as pid 1 and without
cgroup v2 delegation (22.05 has no CgroupPlugin=disabled; with these plugins it loads none).
"""

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

DAEMON_STOP_BOUND_S = 10.0  # SIGTERM to exit of one daemon before SIGKILL
POLL_S = 0.2
PR_SET_PDEATHSIG = 1


class ClusterError(Exception):
    """A step of the cluster failed; the message names the step and its bound."""


def _die_with_parent():
    # Runs in the child between fork and exec: SIGTERM when the driver dies, however it dies.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def _port_is_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def free_ports(count, first=20000, last=29999):
    """`count` consecutive-free TCP ports in [first, last], probed by binding, starting at a
    pid-dependent offset so two drivers at once rarely probe the same ports."""
    span = last - first + 1
    start = os.getpid() * 7 % span
    found = []
    for i in range(span):
        port = first + (start + i) % span
        if _port_is_free(port):
            found.append(port)
            if len(found) == count:
                return found
    raise ClusterError(f"no {count} free TCP ports in {first}-{last}")


def _memory_mb():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    return 2048


def tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return f"(cannot read: {e})\n"


class OneNodeCluster:
    """Start with start(), submit with submit_array(), always stop() (try/finally)."""

    def __init__(self, root, keep=False):
        self.root = root  # a fresh temp folder that stop() leaves for the caller to remove
        self.host = socket.gethostname().split(".")[0]
        self.conf = os.path.join(root, "etc", "slurm.conf")
        self.munge_socket = os.path.join(root, "munge", "munge.socket")
        self.logs = {n: os.path.join(root, "log", n + ".log") for n in ("munged", "slurmctld", "slurmd")}
        self.procs = {}  # name -> Popen, in start order
        self.jobs = []  # job ids we submitted: cancelled before the daemons stop
        self.guard = None
        self.keep = keep  # the guard leaves root in place after a driver's death too
        self.env = self._client_env()

    def _client_env(self):
        # No SLURM_* of an outer job (the test itself may run inside one): only our SLURM_CONF.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "JOB_COMPLETION_INDEX"))}
        env["SLURM_CONF"] = self.conf
        return env

    def _write_files(self):
        for d in ("etc", "munge", "keydir", "state", "spool", "log", "run"):
            os.makedirs(os.path.join(self.root, d), exist_ok=True)
        # munged wants its socket folder and every parent searchable by all, its key private.
        os.chmod(self.root, 0o755)
        os.chmod(os.path.join(self.root, "munge"), 0o755)
        os.chmod(os.path.join(self.root, "keydir"), 0o700)
        key = os.path.join(self.root, "keydir", "munge.key")
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(1024))
        self.munge_key = key
        ctld_port, d_port = free_ports(2)
        cpus = os.cpu_count() or 1
        mem = max(64, min(1024, _memory_mb() // 2))
        r = self.root
        conf = f"""# one-node test cluster of tests/tools/slurm (written per run, removed after it)
ClusterName=mrcconform
SlurmctldHost={self.host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/munge
AuthInfo=socket={self.munge_socket}
CredType=cred/munge
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/run/slurmctld.pid
SlurmdPidFile={r}/run/slurmd.pid
SlurmctldLogFile={self.logs['slurmctld']}
SlurmdLogFile={self.logs['slurmd']}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MailProg=/bin/true
NodeName={self.host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem} State=UNKNOWN
PartitionName=mrc Nodes={self.host} Default=YES MaxTime=INFINITE State=UP
"""
        with open(self.conf, "w") as f:
            f.write(conf)

    def _spawn(self, name, argv):
        log = open(self.logs[name] + ".stderr", "wb")
        try:
            self.procs[name] = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                                env=self.env, preexec_fn=_die_with_parent)
        finally:
            log.close()

    def _check_alive(self, step):
        for name, p in self.procs.items():
            if p.poll() is not None:
                raise ClusterError(f"{step}: {name} (pid {p.pid}) exited with status {p.returncode}")

    def _wait(self, step, bound_s, ready):
        deadline = time.monotonic() + bound_s
        while True:
            self._check_alive(step)
            if ready():
                return
            if time.monotonic() >= deadline:
                raise ClusterError(f"{step}: not ready within its bound of {bound_s:g} s")
            time.sleep(POLL_S)

    def client(self, *argv, timeout=30):
        return subprocess.run(list(argv), capture_output=True, text=True, env=self.env, timeout=timeout)

    def _start_guard(self):
        log_path = os.path.join(self.root, "log", "guard.log")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}  # it must not sweep itself
        with open(log_path, "wb") as log:
            self.guard = subprocess.Popen([sys.executable, os.path.join(HERE, "guard.py"), self.conf]
                                          + ([] if self.keep else [self.root]),
                                          stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                                          preexec_fn=_die_with_parent)

        def ready():
            if self.guard.poll() is not None:
                raise ClusterError(f"guard.py exited with status {self.guard.returncode}: {tail(log_path)}")
            with open(log_path) as f:
                return "guard ready" in f.read()

        self._wait("guard ready", 10.0, ready)

    def _stop_guard(self, report):
        if self.guard is None:
            return
        self.guard.send_signal(signal.SIGTERM)
        try:
            self.guard.wait(DAEMON_STOP_BOUND_S)
        except subprocess.TimeoutExpired:
            self.guard.kill()
            self.guard.wait()
        swept = tail(os.path.join(self.root, "log", "guard.log")).count("guard: killed")
        report.append(f"guard (pid {self.guard.pid}) stopped; it ended {swept} straggler(s)")
        self.guard = None

    def start(self, idle_bound_s=30.0):
        self._write_files()
        self._start_guard()
        # munged in the foreground logs to stderr (its --log-file is for the daemonized mode).
        self._spawn("munged", ["munged", "--foreground", "--socket=" + self.munge_socket,
                               "--key-file=" + self.munge_key,
                               "--pid-file=" + os.path.join(self.root, "run", "munged.pid"),
                               "--log-file=" + self.logs["munged"],
                               "--seed-file=" + os.path.join(self.root, "munge", "seed")])
        self._wait("munged socket", 10.0, lambda: os.path.exists(self.munge_socket))
        self._spawn("slurmctld", ["slurmctld", "-D", "-f", self.conf])
        self._spawn("slurmd", ["slurmd", "-D", "-f", self.conf, "-N", self.host])

        def node_idle():
            try:
                r = self.client("sinfo", "-h", "-N", "-n", self.host, "-o", "%T", timeout=10)
            except subprocess.TimeoutExpired:
                return False
            return r.returncode == 0 and r.stdout.strip() == "idle"

        self._wait("node idle in sinfo", idle_bound_s, node_idle)

    def submit_array(self, script, array, workdir, output):
        """Job id of `sbatch --array` of `script` (a file), run in `workdir`."""
        r = self.client("sbatch", "--parsable", "--array=" + array, "--chdir=" + workdir, "--output=" + output,
                        "--job-name=mrc-campaign", script)
        if r.returncode != 0:
            raise ClusterError(f"sbatch exited {r.returncode}: {r.stderr.strip()}")
        job_id = r.stdout.strip().split(";")[0]
        self.jobs.append(job_id)
        return job_id

    def wait_job_gone(self, job_id, bound_s):
        """Waits until squeue no longer lists any task of the job; on timeout cancels it."""
        def gone():
            r = self.client("squeue", "-h", "-j", job_id, "-o", "%i %T", timeout=10)
            # squeue says "Invalid job id" (exit 1) once a finished job has been purged.
            return r.returncode == 0 and not r.stdout.strip() or "Invalid job id" in r.stderr
        try:
            self._wait(f"array job {job_id} done", bound_s, gone)
        except ClusterError:
            self.client("scancel", job_id)
            raise

    def task_states(self, job_id):
        """{array task id: (JobState, ExitCode)} from `scontrol show job` (no slurmdbd here)."""
        r = self.client("scontrol", "-o", "show", "job", job_id)
        if r.returncode != 0:
            raise ClusterError(f"scontrol show job {job_id} exited {r.returncode}: {r.stderr.strip()}")
        states = {}
        for line in r.stdout.splitlines():
            fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
            if "ArrayTaskId" in fields:
                states[fields["ArrayTaskId"]] = (fields.get("JobState"), fields.get("ExitCode"))
        return states

    def stop(self):
        """Stops every daemon we started, newest first, by its pid. Returns what it did."""
        report = []
        if self.jobs and self.procs.get("slurmctld") and self.procs["slurmctld"].poll() is None:
            # A job still running when slurmd stops would go on in its slurmstepd: cancel ours.
            try:
                self.client("scancel", *self.jobs, timeout=10)
            except subprocess.TimeoutExpired:
                report.append("scancel timed out after 10 s")
        for name in reversed(list(self.procs)):
            p = self.procs[name]
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(DAEMON_STOP_BOUND_S)
                    report.append(f"{name} (pid {p.pid}) stopped")
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                    report.append(f"{name} (pid {p.pid}) killed after {DAEMON_STOP_BOUND_S:g} s")
            else:
                report.append(f"{name} (pid {p.pid}) had already exited ({p.returncode})")
        self.procs.clear()
        self._stop_guard(report)
        return report

    def log_tails(self, lines=30):
        out = []
        for name, path in self.logs.items():
            # slurmctld/slurmd -D log to their LogFile and stderr; munged -F only to stderr.
            f = path if os.path.exists(path) and os.path.getsize(path) else path + ".stderr"
            if os.path.exists(f):
                out.append(f"--- {name}: last {lines} lines of {f}\n{tail(f, lines)}")
        return "".join(out)
