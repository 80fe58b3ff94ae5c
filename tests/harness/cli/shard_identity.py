#!/usr/bin/env python3
"""shard.identity: a sharded command merged equals the single-process command, byte for byte.

For run, campaign, variants and falsefail, runs the command once whole and again as 2 and 3 (run:
also 4, so one shard has no unit) shards with --shard K/N, merges each set with
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


def call(args, expect=None):
    p = subprocess.run([MRC] + args, env=ENV, cwd=SRC, capture_output=True, text=True, timeout=600)
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


def identity(tmp, label, args, files, counts, rc, evidence=False):
    single = os.path.join(tmp, label, "single")
    call(args + ["--no-progress", "--out", single], expect=rc)
    for n in counts:
        dirs = [os.path.join(tmp, label, f"{n}-{k}") for k in range(n)]
        for k, d in enumerate(dirs):
            call(args + ["--no-progress", "--shard", f"{k}/{n}", "--out", d])
            if not os.path.exists(os.path.join(d, "shard.json")):
                failures.append(f"{label}: shard {k}/{n} wrote no shard.json")
        merged = os.path.join(tmp, label, f"{n}-merged")
        # Shards in reverse order: merge orders them by their records, not by the command line.
        p = call(["merge"] + dirs[::-1] + ["-o", merged], expect=rc)
        single_rc = call(args + ["--no-progress", "--out", os.path.join(tmp, label, "again")]).returncode
        if p.returncode != single_rc:
            failures.append(f"{label}: merge of {n} exited {p.returncode}, the single run {single_rc}")
        compare(f"{label} in {n} shards", single, merged, files, evidence)
        if n > 1:
            gone = call(["merge"] + dirs[1:] + ["-o", merged + "-missing"], expect=[2])
            if f"shard 0/{n} missing" not in gone.stderr:
                failures.append(f"{label}: merge without shard 0 did not say 'shard 0/{n} missing': {gone.stderr}")
        shutil.rmtree(os.path.join(tmp, label, "again"), ignore_errors=True)


RUN_FILES = ["results.json", "junit.xml", "index.html"]
with tempfile.TemporaryDirectory(prefix="shard-identity-") as tmp:
    base = ["--cases", CASES]
    identity(tmp, "run-smoke", ["run"] + base + ["--tags", "smoke"], RUN_FILES, [2, 3, 4], [0], evidence=True)
    identity(tmp, "run-seeded-failing", ["run"] + base + ["--tags", "spraying", "--dut", "reference:spray-single-ev",
                                                           "--seed", "7", "--evidence", "failures"],
             RUN_FILES, [2, 3], [1, 3], evidence=True)
    if FULL:
        identity(tmp, "run-full", ["run"] + base + ["--evidence", "none", "--jobs", "2"], RUN_FILES, [2], [0])
    identity(tmp, "campaign", ["campaign"] + base + ["--tags", "smoke", "--defects",
                                                     "spray-single-ev,use-denied-ev,sack-off-by-one,wrong-icrc"],
             ["campaign.json", "campaign.html"], [2, 3], [1])
    identity(tmp, "variants", ["variants"] + base + ["--tags", "smoke", "--variants", "reverse-rotation,ack-eager,timers-fast"],
             ["variants.json", "variants.html"], [2, 3], [0])
    identity(tmp, "falsefail", ["falsefail"] + base + ["--tags", "spraying", "--seeds", "3"],
             ["falsefail.json"], [2, 3], [0, 1])

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("shard identity: run, campaign, variants, falsefail merged == single")
