#!/usr/bin/python3
"""guard.py SLURM_CONF [ROOT]: the one-node cluster's backstop. Started by cluster.py with
PR_SET_PDEATHSIG, it waits; on SIGTERM (the driver stopped it, or the driver died, however: a
CTest timeout is a SIGKILL) it ends every process whose environment holds SLURM_CONF=<that file>.
Only processes of this cluster have it: the daemons get it from the driver, slurmstepd and the job
tasks from slurmd and sbatch, and the path is a fresh temp folder. slurmstepd is reparented to
pid 1 and ignores SIGTERM, and with slurmd gone it retries its completion message for about an
hour: without this sweep a killed driver would leave it and its task running. When the driver
died (we were reparented), it also removes ROOT, the cluster's temp folder, as the driver would.
"""

import os
import shutil
import signal
import sys


def cluster_pids(marker):
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker in f.read().split(b"\0"):
                    yield int(entry)
        except OSError:
            continue  # gone meanwhile, or a kernel thread


def sweep(marker):
    for pid in cluster_pids(marker):
        try:
            os.kill(pid, signal.SIGKILL)
            print(f"guard: killed pid {pid}", file=sys.stderr)
        except OSError:
            pass


def main():
    marker = b"SLURM_CONF=" + os.fsencode(sys.argv[1])
    root = sys.argv[2] if len(sys.argv) > 2 else None
    driver = os.getppid()

    def on_term(*_):
        sweep(marker)
        if root and os.getppid() != driver:
            shutil.rmtree(root, ignore_errors=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, on_term)
    print("guard ready", flush=True)
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
