#!/usr/bin/env python3
"""Checks every #include under reference/ and harness/ against the layer table in harness/README.md.

The table is the authoritative statement of design.md §3: one row per folder, its first cell the
folder in backticks, its last cell the folders it may use (in backticks; anything else in that cell
is an external library and is not checked here). A file belongs to the row of the longest folder
that contains it. A file may include files of its own row and of every row its row may use,
directly or through those rows (the closure). Subfolders with rows of their own are not covered by
their parent's row: `harness/testbed/sim/` is not part of what `harness/testbed/` offers.

Exit status: 0 no violation, 1 violations (one line each: file:line, the include, both layers and
what the includer may use), 2 the table or the tree could not be read.
"""
import argparse
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:reference|harness)/[^"]+)"')
ROW = re.compile(r"^\|\s*`([^`]+/)`\s*\|")
TICKED = re.compile(r"`([^`]+/)`")


def read_table(readme):
    rows = {}
    order = []
    for lineno, line in enumerate(readme.read_text(encoding="utf-8").splitlines(), 1):
        m = ROW.match(line)
        if not m:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        folder = m.group(1)
        if folder in rows:
            raise ValueError(f"{readme}:{lineno}: folder {folder} has two rows")
        rows[folder] = [t for t in TICKED.findall(cells[-1])]
        order.append(folder)
    if not rows:
        raise ValueError(f"{readme}: no layer table (rows start with | `folder/` |)")
    for folder, uses in rows.items():
        for u in uses:
            if u not in rows:
                raise ValueError(f"{readme}: row {folder} may use {u}, which has no row")
    return rows, order


def closure(rows, folder):
    seen = set()
    todo = list(rows[folder])
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        todo.extend(rows[f])
    return seen


def layer_of(rows, path):
    best = None
    for folder in rows:
        if path.startswith(folder) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def check(root, readme):
    rows, _ = read_table(readme)
    allowed = {f: closure(rows, f) for f in rows}
    problems = []
    files = 0
    for top in ("reference", "harness"):
        for p in sorted((root / top).rglob("*")):
            if p.suffix not in (".hpp", ".cpp", ".h") or not p.is_file():
                continue
            files += 1
            rel = p.relative_to(root).as_posix()
            mine = layer_of(rows, rel)
            if mine is None:
                problems.append(f"{rel}: its folder has no row in {readme.name}'s layer table")
                continue
            for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                theirs = layer_of(rows, target)
                if theirs is None:
                    problems.append(f"{rel}:{n}: includes {target}, whose folder has no row in the layer table")
                elif theirs != mine and theirs not in allowed[mine]:
                    may = ", ".join(sorted(allowed[mine])) or "nothing of the project"
                    problems.append(f"{rel}:{n}: includes {target} (layer {theirs}), but layer {mine} may use only: {may}")
    return problems, files


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=".", help="the checkout (default: .)")
    ap.add_argument("--table", default=None, help="the README with the table (default: ROOT/harness/README.md)")
    args = ap.parse_args()
    root = pathlib.Path(args.root)
    readme = pathlib.Path(args.table) if args.table else root / "harness" / "README.md"
    try:
        problems, files = check(root, readme)
    except (OSError, ValueError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    print(f"layers: {files} files checked, {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
