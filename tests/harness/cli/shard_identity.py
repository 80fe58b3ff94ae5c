#!/usr/bin/env python3
"""shard.identity: a sharded command merged equals the single-process command, byte for byte.

For run, campaign, variants and falsefail, runs the command once whole and again as 2 and 3 (run:
also 4, so one shard has no unit) shards, by --shard K/N, by a Slurm array's variables (campaign)
or by a Kubernetes index with --shard-count (variants), and once balanced by --shard-costs; merges
each set with
`mrc-conform merge`, and compares every report file after removing only the command line (which
names the merge, not the run). run's evidence files must be identical too. Also checks that the
shard set the merge takes is complete: one shard left out must be exit 2 naming it.

usage: shard_identity.py BIN_DIR SRC_DIR [--full]   (--full adds the whole library for run)
"""
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN, SRC = sys.argv[1], sys.argv[2]
FULL = "--full" in sys.argv[3:]
MRC = os.path.join(BIN, "mrc-conform")
CASES = os.path.join(SRC, "cases")
# A scheduler's variables in the test's own environment would shard the single-process runs.
ENV = {k: v for k, v in os.environ.items()
       if not k.startswith("SLURM_") and k not in ("JOB_COMPLETION_INDEX", "MRC_SHARD_COUNT")}
failures = []


def call(args, expect=None, env=None):
    p = subprocess.run([MRC] + args, env=dict(ENV, **(env or {})), cwd=SRC, capture_output=True, text=True,
                       timeout=600)
    if expect is not None and p.returncode not in expect:
        failures.append(f"`mrc-conform {' '.join(args)}` exited {p.returncode}, expected {expect}:\n{p.stderr}")
    return p


def normalise(name, text):
    """The report text without the command line (the only field a merge writes differently)."""
    if name.endswith(".json"):
        doc = json.loads(text)
        doc.get("meta", {}).pop("command_line", None)
        return json.dumps(doc, indent=1, sort_keys=False)
    if name == "junit.xml":
        return re.sub(r'<property name="command_line" value="[^"]*"/>', "", text)
    if name == "index.html":
        return re.sub(r"<dt>Command line</dt><dd><code>.*?</code></dd>", "", text)
    return text


def compare_tree(label, single, merged, tree):
    """Every file under single/tree is in merged/tree with the same bytes, and no other."""
    def files(root):
        out = []
        for d, _, names in os.walk(os.path.join(root, tree)):
            out += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return sorted(out)
    fa, fb = files(single), files(merged)
    if fa != fb:
        failures.append(f"{label}: {tree}/ holds different files: {fa} vs {fb}")
        return
    if not fa:
        failures.append(f"{label}: no {tree}/ to compare")
    for rel in fa:
        if not filecmp.cmp(os.path.join(single, rel), os.path.join(merged, rel), shallow=False):
            failures.append(f"{label}: {rel} differs from the single run's")


def compare(label, single, merged, files, evidence=False):
    for name in files:
        a = os.path.join(single, name)
        b = os.path.join(merged, name)
        if not os.path.exists(b):
            failures.append(f"{label}: the merged report has no {name}")
            continue
        with open(a, encoding="utf-8") as fa, open(b, encoding="utf-8") as fb:
            ta, tb = fa.read(), fb.read()
        if normalise(name, ta) != normalise(name, tb):
            failures.append(f"{label}: {name} differs from the single run's (diff {a} {b})")
    if evidence:
        ea, eb = os.path.join(single, "evidence"), os.path.join(merged, "evidence")
        names_a = sorted(os.listdir(ea)) if os.path.isdir(ea) else []
        names_b = sorted(os.listdir(eb)) if os.path.isdir(eb) else []
        if names_a != names_b:
            failures.append(f"{label}: evidence files differ: {names_a} vs {names_b}")
        else:
            _, mismatch, errors = filecmp.cmpfiles(ea, eb, names_a, shallow=False)
            if mismatch or errors:
                failures.append(f"{label}: evidence files differ in content: {mismatch + errors}")


def shard_how(via, k, n):
    """The arguments and environment that make this process shard k of n, the way `via` does it."""
    if via == "slurm":  # an array --array=3-(3+n-1): the index counts from SLURM_ARRAY_TASK_MIN
        return [], {"SLURM_ARRAY_TASK_ID": str(3 + k), "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_COUNT": str(n)}
    if via == "k8s":
        return ["--shard-count", str(n)], {"JOB_COMPLETION_INDEX": str(k)}
    return ["--shard", f"{k}/{n}"], {}


def identity(tmp, label, args, files, counts, rc, evidence=False, via="flag", shard_args=(), trees=()):
    single = os.path.join(tmp, label, "single")
    call(args + ["--no-progress", "--out", single], expect=rc)
    for n in counts:
        dirs = [os.path.join(tmp, label, f"{n}-{k}") for k in range(n)]
        for k, d in enumerate(dirs):
            how, env = shard_how(via, k, n)
            call(args + list(shard_args) + how + ["--out", d], env=env)
            record = os.path.join(d, "shard.json")
            if not os.path.exists(record):
                failures.append(f"{label}: shard {k}/{n} wrote no shard.json")
                continue
            with open(record, encoding="utf-8") as f:
                rec = json.load(f)
            source = {"flag": "--shard", "slurm": "SLURM_ARRAY_TASK_ID", "k8s": "JOB_COMPLETION_INDEX"}[via]
            if (rec["index"], rec["count"], rec["source"]) != (k, n, source):
                failures.append(f"{label}: shard {k}/{n} by {via} recorded {rec['shard']} from {rec['source']}")
            if "--shard-costs" in shard_args and not rec["cost_basis"].startswith("wall-ms:"):
                failures.append(f"{label}: shard {k}/{n} was not costed by --shard-costs: {rec['cost_basis']}")
        merged = os.path.join(tmp, label, f"{n}-merged")
        # Shards in reverse order: merge orders them by their records, not by the command line.
        p = call(["merge"] + dirs[::-1] + ["-o", merged], expect=rc)
        single_rc = call(args + ["--no-progress", "--out", os.path.join(tmp, label, "again")]).returncode
        if p.returncode != single_rc:
            failures.append(f"{label}: merge of {n} exited {p.returncode}, the single run {single_rc}")
        compare(f"{label} in {n} shards", single, merged, files, evidence)
        for tree in trees:
            compare_tree(f"{label} in {n} shards", single, merged, tree)
        if n > 1:
            gone = call(["merge"] + dirs[1:] + ["-o", merged + "-missing"], expect=[2])
            if f"shard 0/{n} missing" not in gone.stderr:
                failures.append(f"{label}: merge without shard 0 did not say 'shard 0/{n} missing': {gone.stderr}")
        shutil.rmtree(os.path.join(tmp, label, "again"), ignore_errors=True)


RUN_FILES = ["results.json", "junit.xml", "index.html"]
with tempfile.TemporaryDirectory(prefix="shard-identity-") as tmp:
    base = ["--cases", CASES]
    identity(tmp, "run-smoke", ["run"] + base + ["--tags", "smoke"], RUN_FILES, [2, 3, 4], [0], evidence=True)
    # Balanced by the wall times of an earlier report (--shard-costs) instead of the estimate.
    costs = os.path.join(tmp, "costs")
    call(["run"] + base + ["--tags", "spraying", "--wall-clock", "--evidence", "none", "--no-progress", "--out", costs],
         expect=[0])
    identity(tmp, "run-costs", ["run"] + base + ["--tags", "spraying", "--evidence", "none"], RUN_FILES, [3], [0],
             shard_args=["--shard-costs", costs])
    identity(tmp, "run-seeded-failing", ["run"] + base + ["--tags", "spraying", "--dut", "reference:spray-single-ev",
                                                           "--seed", "7", "--evidence", "failures"],
             RUN_FILES, [2, 3], [1, 3], evidence=True)
    if FULL:
        identity(tmp, "run-full", ["run"] + base + ["--evidence", "none", "--jobs", "2"], RUN_FILES, [2], [0])
    identity(tmp, "campaign", ["campaign"] + base + ["--tags", "smoke", "--defects",
                                                     "spray-single-ev,use-denied-ev,sack-off-by-one,wrong-icrc"],
             ["campaign.json", "campaign.html"], [2, 3], [1], via="slurm", trees=["kills"])
    identity(tmp, "variants", ["variants"] + base + ["--tags", "smoke", "--variants", "reverse-rotation,sack-eager,timers-fast"],
             ["variants.json", "variants.html"], [2, 3], [0], via="k8s")
    identity(tmp, "falsefail", ["falsefail"] + base + ["--tags", "spraying", "--seeds", "3"],
             ["falsefail.json"], [2, 3], [0, 1])

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("shard identity: run, campaign, variants, falsefail merged == single")
