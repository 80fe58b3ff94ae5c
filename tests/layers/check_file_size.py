#!/usr/bin/env python3
"""layers.file_size: no source file in reference/ or harness/ is over 500 lines.

A file that grows past it is split along a seam a reader would name (one concern per file), not
cut at a line count. usage: check_file_size.py --root SRC [--limit N] [--dir D ...] [--expect-over N]
  --dir          look only under these folders (default: reference harness), relative to --root
  --expect-over  the proof that the check bites: exit 0 only when exactly N files are over
Exit 0 when every file is within the limit; 1 and one line per file over it otherwise.
"""
import argparse
import os
import sys

SUFFIXES = (".cpp", ".hpp", ".h", ".c")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--limit", type=int, default=500)
    ap.add_argument("--dir", action="append", default=None)
    ap.add_argument("--expect-over", type=int, default=None)
    a = ap.parse_args()
    over = []
    checked = 0
    for top in a.dir or ["reference", "harness"]:
        for dirpath, _, files in os.walk(os.path.join(a.root, top)):
            for name in sorted(files):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    n = sum(1 for _ in f)
                checked += 1
                if n > a.limit:
                    over.append((n, os.path.relpath(path, a.root)))
    if checked == 0:
        print("layers.file_size: no source file found under", a.dir or ["reference", "harness"])
        return 1
    for n, path in sorted(over, reverse=True):
        print(f"{path}: {n} lines, over the {a.limit}-line limit: split it along a seam (one concern per file)")
    print(f"layers.file_size: {checked} files, {len(over)} over {a.limit} lines")
    if a.expect_over is not None:
        return 0 if len(over) == a.expect_over else 1
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
