#!/usr/bin/python3
"""slurm.campaign_array (label `slurm`): the defect campaign scaled out as a Slurm array job gives
the same report as one process.

1. Runs `mrc-conform campaign` on a subset (--defects) in one process: the reference report.
2. Starts a one-node Slurm cluster in a temp folder (cluster.py: munged, slurmctld, slurmd; bound
   30 s until sinfo shows the node idle).
3. Submits the same command as `sbatch --array=0-1`; each task is one shard, told which by the
   SLURM_ARRAY_TASK_ID/MIN/COUNT that Slurm sets (no --shard flag). Waits for both tasks (bound
   --array-bound) and checks, with `scontrol show job`, that both are COMPLETED with exit 0 (or
   exit 1, a shard's own verdict: merge's exit code is the one that counts, and must be 0).
4. Each shard's shard.json must say it took K/N from SLURM_ARRAY_TASK_ID. `mrc-conform merge` of
   the two shard folders must equal the single report: the command line and shard list are only
   in shard.json, which merge does not carry over, so campaign.json and campaign.html must be
   byte-identical (report_compare.py; on a difference it names the field).
5. Proves the comparison bites: a merged report with one defect's verdict flipped must differ
   there, and a merge given one shard only must be refused.
Always stops the daemons it started, by pid (also on failure, SIGTERM or Ctrl-C), and on failure
prints their log tails. Prints the wall time of the single run and of the array (submit to both
done). Exit 0 pass, 1 fail, 77 skipped (not root: slurmd and munged here need root).
"""

import argparse
import json
import os
import resource
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
from report_compare import compare_folders  # noqa: E402

SKIP = 77
SHARDS = 2
TOOLS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "scancel")


# The single run and the merges must not see an outer Slurm job's variables (this test may itself
# run inside an array task): they would make the single run a shard.
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "JOB_COMPLETION_INDEX"))}


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
    start, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=a.campaign_bound, env=CLEAN_ENV)
    except subprocess.TimeoutExpired:
        raise Failure(f"single-process campaign: not done within its bound of {a.campaign_bound} s")
    wall, after = time.monotonic() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if r.returncode != 0:
        raise Failure(f"single-process campaign exited {r.returncode} (the subset must be all caught, exit 0):\n"
                      f"{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return wall, cpu


def write_job_script(a, workdir):
    # One array task = one shard: mrc-conform reads SLURM_ARRAY_TASK_ID/MIN/COUNT itself.
    out = shlex.quote(os.path.join(workdir, "shards", "shard-")) + '"${SLURM_ARRAY_TASK_ID}"'
    cmd = shlex.join(campaign_argv(a, "OUT")[:-2])  # without "--out OUT": each task has its own
    path = os.path.join(workdir, "shard.sh")
    with open(path, "w") as f:
        # `times` last: this task's CPU (children's user and system), for the timing line.
        f.write(f"#!/bin/sh\n{cmd} --out {out}\nrc=$?\ntimes\nexit $rc\n")
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
    # A shard's exit code speaks for its part only (README "Scale out"): 1 is a verdict (a survivor
    # among the shard's defects), which merge's exit code settles; 2, 3, a signal or no end at all
    # is a failure.
    ok = {("COMPLETED", "0:0"), ("FAILED", "1:0")}
    if sorted(states) != [str(i) for i in range(SHARDS)] or any(v not in ok for v in states.values()):
        raise Failure(f"array job {job}: tasks ended {states} (task: (JobState, ExitCode)); want each "
                      f"COMPLETED 0:0 (or FAILED 1:0, a shard's own verdict)")
    print(f"array job {job}: " + ", ".join(f"task {k} {v[0]} {v[1]}" for k, v in sorted(states.items())))
    return wall


def task_cpu(workdir, i):
    """CPU seconds (user + system) of array task i, from the `times` line its script printed."""
    try:
        with open(os.path.join(workdir, f"task-{i}.out")) as f:
            line = f.read().strip().splitlines()[-1]  # children's "XmY.YYYs XmY.YYYs"
        total = 0.0
        for t in line.split():
            m, sec = t.rstrip("s").split("m")
            total += 60 * float(m) + float(sec)
        return f"{total:.1f}"
    except (OSError, IndexError, ValueError):
        return "?"


def merge(a, shard_dirs, out):
    argv = [a.bin, "merge", *shard_dirs, "-o", out]
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=CLEAN_ENV), shlex.join(argv)
    except subprocess.TimeoutExpired:
        raise Failure(f"{shlex.join(argv)}: not done within its bound of 60 s")


def check_shard_records(workdir):
    """Each task took its shard from Slurm's variables: shard.json says SLURM_ARRAY_TASK_ID, K/N."""
    for i in range(SHARDS):
        path = os.path.join(workdir, "shards", f"shard-{i}", "shard.json")
        try:
            with open(path) as f:
                rec = json.load(f)
        except (OSError, ValueError) as e:
            raise Failure(f"array task {i} left no readable shard record: {e}")
        got = (rec.get("source"), rec.get("index"), rec.get("count"))
        if got != ("SLURM_ARRAY_TASK_ID", i, SHARDS):
            raise Failure(f"{path}: source, index, count are {got}, want ('SLURM_ARRAY_TASK_ID', {i}, {SHARDS})")


def check_merge(a, workdir):
    shard_dirs = [os.path.join(workdir, "shards", f"shard-{i}") for i in range(SHARDS)]
    merged = os.path.join(workdir, "merged")
    r, cmd = merge(a, shard_dirs, merged)
    if r.returncode != 0:
        raise Failure(f"{cmd} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    single = os.path.join(workdir, "single")
    problems = compare_folders(single, merged)
    if problems:
        raise Failure("the merged report differs from the single-process one:\n  " + "\n  ".join(problems) +
                      f"\n(compare {single} with {merged})")
    print(f"merged report is byte-identical to the single-process one: {', '.join(sorted(os.listdir(merged)))} "
          f"in {merged}")
    return single, merged


def check_compare_bites(a, workdir, single, merged):
    """The comparison must see one flipped verdict, and merge must refuse a missing shard."""
    altered = os.path.join(workdir, "merged-altered")
    shutil.copytree(merged, altered)
    path = os.path.join(altered, "campaign.json")
    with open(path) as f:
        text = f.read()
    if '"caught": true' not in text:
        raise Failure(f"{path} has no caught defect: the comparison would prove nothing")
    with open(path, "w") as f:
        f.write(text.replace('"caught": true', '"caught": false', 1))
    problems = compare_folders(single, altered)
    if len(problems) != 1 or not problems[0].startswith("campaign.json.defects[") or ".caught:" not in problems[0]:
        raise Failure(f"the comparison missed a flipped verdict in {path} (it found {problems})")
    r, cmd = merge(a, [os.path.join(workdir, "shards", "shard-0")], os.path.join(workdir, "merged-one-shard"))
    if r.returncode == 0:
        raise Failure(f"{cmd} accepted one shard of {SHARDS}: a lost shard would go unnoticed")
    said = (r.stderr or r.stdout).strip().splitlines()
    print(f"bites: a flipped verdict is found ({problems[0]}); merge of one shard of {SHARDS} is refused "
          f"(exit {r.returncode}: {said[0] if said else 'no message'})")


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
        print(f"FAIL: {', '.join(missing)} not installed: run scripts/install-deps (it installs slurm-wlm and munge)")
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
        single_wall, single_cpu = run_single(a, os.path.join(workdir, "single"))
        cluster = OneNodeCluster(root, keep=a.keep)
        start = time.monotonic()
        cluster.start(idle_bound_s=30.0)
        print(f"cluster up in {time.monotonic() - start:.1f} s: node {cluster.host} idle; SLURM_CONF={cluster.conf}")
        array_wall = run_array(a, cluster, workdir)
        check_shard_records(workdir)
        single, merged = check_merge(a, workdir)
        check_compare_bites(a, workdir, single, merged)
        print(f"timing: single-process campaign {single_wall:.1f} s wall, {single_cpu:.1f} s CPU (--jobs {a.jobs}); "
              f"{SHARDS}-shard array {array_wall:.1f} s wall from submit to both done, task CPU "
              f"{' + '.join(task_cpu(workdir, i) for i in range(SHARDS))} s (--jobs {a.jobs} each); "
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
