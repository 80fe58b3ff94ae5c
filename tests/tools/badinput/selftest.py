#!/usr/bin/env python3
"""The bad-input runner's checks bite: run_catalog.py on selftest/ must FAIL every entry, each with
the reason its `why` names, and exit 1."""
import os
import subprocess
import sys
import tempfile

import yaml

here = os.path.dirname(os.path.abspath(__file__))
catalog = os.path.join(here, "selftest")
with open(os.path.join(catalog, "bites.yaml"), encoding="utf-8") as f:
    entries = yaml.safe_load(f)
# Every entry here fails, so the runner would keep its own scratch folder for diagnosis: give it
# one that goes away with this script.
with tempfile.TemporaryDirectory(prefix="mrc-badinput-selftest-") as work:
    p = subprocess.run([sys.executable, os.path.join(here, "run_catalog.py"), "--catalog", catalog,
                        "--bin", sys.argv[1], "--src", sys.argv[2], "--workdir", work],
                       capture_output=True, text=True, timeout=120)
lines = {l.split()[1]: l for l in p.stdout.splitlines() if l[:4] in ("PASS", "FAIL", "SKIP")}
bad = []
for e in entries:
    line = lines.get(e["name"], "")
    if not line.startswith("FAIL") or e["why"] not in line:
        bad.append("%s: expected FAIL naming %r, got %r" % (e["name"], e["why"], line))
if p.returncode != 1:
    bad.append("run_catalog exit %d, expected 1" % p.returncode)
for b in bad:
    print(b)
print("%d self-test entries, %d wrong" % (len(entries), len(bad)))
sys.exit(1 if bad else 0)
