#!/usr/bin/python3
"""slurm.campaign_array (label `slurm`): the defect campaign scaled out as a Slurm array job gives
the same report as one process.

1. Runs `mrc-conform campaign` on a subset (--defects) in one process: the reference report.
2. Starts a one-node Slurm cluster in a temp folder (cluster.py: munged, slurmctld, slurmd; bound
   30 s until sinfo shows the node idle).
3. Submits the same command as `sbatch --array=0-1`; each task is one shard, told which by the
   SLURM_ARRAY_TASK_ID/MIN/COUNT that Slurm sets (no --shard flag). Waits for both tasks (bound
   --array-bound) and checks, with `scontrol show job`, that both are COMPLETED with exit 0.
4. `mrc-conform merge` of the two shard folders; the merged campaign.json must equal the single
   one except for the command line and shard list (report_compare.py).
5. Proves the comparison bites: a merged report with one defect's verdict flipped must differ,
   and a merge given one shard only must be refused.
Always stops the daemons it started, by pid (also on failure, SIGTERM or Ctrl-C), and on failure
prints their log tails. Prints the wall time of the single run and of the array (submit to both
done). Exit 0 pass, 1 fail, 77 skipped (not root: slurmd and munged here need root).
"""

import argparse
import copy
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import ClusterError, OneNodeCluster, tail  # noqa: E402
from report_compare import compare_reports, differences, load, strip_invocation  # noqa: E402

SKIP = 77
SHARDS = 2
TOOLS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "scancel")


class Failure(Exception):
    pass


class Terminated(Exception):
    pass


def on_sigterm(signum, _frame):
    # CTest's timeout (or a kill) arrives as SIGTERM: unwind so `finally` stops the daemons.
    raise Terminated(f"signal {signum}")


def campaign_argv(a, out):
    argv = [a.bin, "campaign", "--cases", a.cases, "--defects", a.defects, "--jobs", str(a.jobs), "--no-progress"]
    if a.relevant_only:
        argv.append("--relevant-only")
    return argv + ["--out", out]


def run_single(a, out):
    argv = campaign_argv(a, out)
    print("single-process:", shlex.join(argv), flush=True)
    start = time.monotonic()
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=a.campaign_bound)
    except subprocess.TimeoutExpired:
        raise Failure(f"single-process campaign: not done within its bound of {a.campaign_bound} s")
    wall = time.monotonic() - start
    if r.returncode != 0:
        raise Failure(f"single-process campaign exited {r.returncode} (the subset must be all caught, exit 0):\n"
                      f"{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return wall


def write_job_script(a, workdir):
    # One array task = one shard: mrc-conform reads SLURM_ARRAY_TASK_ID/MIN/COUNT itself.
    out = os.path.join(workdir, "shards", "shard-") + "${SLURM_ARRAY_TASK_ID}"
    cmd = shlex.join(campaign_argv(a, "OUT")[:-2])  # without "--out OUT": each task has its own
    path = os.path.join(workdir, "shard.sh")
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\nexec {cmd} --out "{out}"\n')
    os.chmod(path, 0o755)
    return path


def run_array(a, cluster, workdir):
    os.makedirs(os.path.join(workdir, "shards"))
    script = write_job_script(a, workdir)
    start = time.monotonic()
    job = cluster.submit_array(script, f"0-{SHARDS - 1}", workdir, os.path.join(workdir, "task-%a.out"))
    print(f"submitted array job {job}: sbatch --array=0-{SHARDS - 1} {script}", flush=True)
    cluster.wait_job_gone(job, a.array_bound)
    wall = time.monotonic() - start
    states = cluster.task_states(job)
    want = {str(i): ("COMPLETED", "0:0") for i in range(SHARDS)}
    if states != want:
        raise Failure(f"array job {job}: tasks ended {states}, want {want}")
    return wall


def merge(a, shard_dirs, out):
    argv = [a.bin, "merge", *shard_dirs, "-o", out]
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60), shlex.join(argv)
    except subprocess.TimeoutExpired:
        raise Failure(f"{shlex.join(argv)}: not done within its bound of 60 s")


def check_merge(a, workdir):
    shard_dirs = [os.path.join(workdir, "shards", f"shard-{i}") for i in range(SHARDS)]
    merged = os.path.join(workdir, "merged")
    r, cmd = merge(a, shard_dirs, merged)
    if r.returncode != 0:
        raise Failure(f"{cmd} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    single_json = os.path.join(workdir, "single", "campaign.json")
    merged_json = os.path.join(merged, "campaign.json")
    diffs = compare_reports(single_json, merged_json)
    if diffs:
        raise Failure("the merged report differs from the single-process one:\n  " + "\n  ".join(diffs) +
                      f"\n(compare {single_json} with {merged_json})")
    print(f"merged report equals the single-process one: {merged_json}")
    return single_json, merged_json


def check_compare_bites(a, workdir, single_json, merged_json):
    """The comparison must see one flipped verdict, and merge must refuse a missing shard."""
    altered = copy.deepcopy(load(merged_json))
    if not altered.get("defects"):
        raise Failure(f"{merged_json} lists no defects: the comparison would prove nothing")
    altered["defects"][0]["caught"] = not altered["defects"][0]["caught"]
    diffs = differences(strip_invocation(load(single_json)), strip_invocation(altered))
    if diffs != [".defects[0].caught: single-process {0}, merged {1}".format(
            json.dumps(not altered["defects"][0]["caught"]), json.dumps(altered["defects"][0]["caught"]))]:
        raise Failure(f"the comparison missed a flipped verdict (found {diffs})")
    r, cmd = merge(a, [os.path.join(workdir, "shards", "shard-0")], os.path.join(workdir, "merged-one-shard"))
    if r.returncode == 0:
        raise Failure(f"{cmd} accepted one shard of {SHARDS}: a lost shard would go unnoticed")
    print(f"bites: a flipped verdict is found; merge of one shard of {SHARDS} is refused (exit {r.returncode}: "
          f"{(r.stderr or r.stdout).strip().splitlines()[0] if (r.stderr or r.stdout).strip() else 'no message'})")


def print_failure_context(cluster, workdir):
    if cluster is not None:
        print(cluster.log_tails(), file=sys.stderr)
    for i in range(SHARDS):
        f = os.path.join(workdir, f"task-{i}.out")
        if os.path.exists(f):
            print(f"--- array task {i} output {f}\n{tail(f)}", file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", required=True, help="mrc-conform")
    p.add_argument("--cases", required=True, help="the cases folder")
    p.add_argument("--defects", required=True, help="comma list of catalog defects, or all")
    p.add_argument("--relevant-only", action="store_true")
    p.add_argument("--jobs", type=int, default=1, help="--jobs of the single run and of each shard")
    p.add_argument("--workdir", required=True, help="reports land here (emptied first)")
    p.add_argument("--campaign-bound", type=float, default=600, help="seconds for the single run")
    p.add_argument("--array-bound", type=float, default=600, help="seconds from submit to both tasks done")
    p.add_argument("--keep", action="store_true", help="keep the cluster's temp folder (its path is printed)")
    a = p.parse_args()

    if os.geteuid() != 0:
        print("SKIP: not root; munged, slurmctld and slurmd with SlurmUser=root need root (CI runs as root)")
        return SKIP
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        print(f"FAIL: {', '.join(missing)} not installed: run scripts/install-deps (slurmctld slurmd slurm-client munge)")
        return 1
    signal.signal(signal.SIGTERM, on_sigterm)
    workdir = os.path.abspath(a.workdir)
    a.bin, a.cases = os.path.abspath(a.bin), os.path.abspath(a.cases)  # the tasks run in workdir
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)

    cluster = None
    root = tempfile.mkdtemp(prefix="mrc-slurm-")
    ok = False
    why = ""
    try:
        single_wall = run_single(a, os.path.join(workdir, "single"))
        cluster = OneNodeCluster(root, keep=a.keep)
        start = time.monotonic()
        cluster.start(idle_bound_s=30.0)
        print(f"cluster up in {time.monotonic() - start:.1f} s: node {cluster.host} idle; SLURM_CONF={cluster.conf}")
        array_wall = run_array(a, cluster, workdir)
        single_json, merged_json = check_merge(a, workdir)
        check_compare_bites(a, workdir, single_json, merged_json)
        print(f"timing: single-process campaign {single_wall:.1f} s wall (--jobs {a.jobs}); "
              f"{SHARDS}-shard array {array_wall:.1f} s wall from submit to both done (--jobs {a.jobs} each); "
              f"defects: {a.defects}")
        ok = True
    except (Failure, ClusterError, Terminated, KeyboardInterrupt) as e:
        why = f"FAIL: {e}"
        print(why, file=sys.stderr)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the cleanup short
        if not ok:
            print_failure_context(cluster, workdir)
        if cluster is not None:
            for line in cluster.stop():
                print("stop:", line)
        if a.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
        if why:
            print(why, file=sys.stderr)  # again, last: the log tails above are long
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
