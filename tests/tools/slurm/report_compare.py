"""Compares a merged report folder with the single-process one.

What may differ between them is how the run was made: the command line and the shard list. Both
live only in each shard's shard.json, which `mrc-conform merge` does not carry into the merged
folder; campaign.json and campaign.html hold neither (harness/report/campaign_report.cpp). So the
merged folder must hold the same files as the single one, each byte-identical. On a difference
the JSON files are also compared field by field, so the message names the field that differs.
"""

import json
import os


def differences(a, b, limit=10):
    """Paths (like `.defects[3].caught`) where the decoded JSON values a and b differ."""
    out = []

    def walk(x, y, p):
        if len(out) >= limit:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                if k not in x:
                    out.append(f"{p}.{k}: only in the merged report")
                elif k not in y:
                    out.append(f"{p}.{k}: missing from the merged report")
                else:
                    walk(x[k], y[k], f"{p}.{k}")
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                out.append(f"{p}: {len(x)} entries single-process, {len(y)} merged")
            for i, (u, v) in enumerate(zip(x, y)):
                walk(u, v, f"{p}[{i}]")
        elif x != y or type(x) is not type(y):
            out.append(f"{p}: single-process {json.dumps(x)[:80]}, merged {json.dumps(y)[:80]}")

    walk(a, b, "")
    return out


def _first_byte_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def _files_under(root):
    """Every file under root, as a path relative to it (a campaign keeps its kills in folders)."""
    out = []
    for d, _, names in os.walk(root):
        out += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(out)


def compare_folders(single_dir, merged_dir):
    """[] when both folders hold the same files with the same bytes, else what differs."""
    problems = []
    single_files, merged_files = _files_under(single_dir), _files_under(merged_dir)
    if single_files != merged_files:
        problems.append(f"files: single-process {single_files}, merged {merged_files}")
    for name in sorted(set(single_files) & set(merged_files)):
        with open(os.path.join(single_dir, name), "rb") as f:
            a = f.read()
        with open(os.path.join(merged_dir, name), "rb") as f:
            b = f.read()
        if a == b:
            continue
        if name.endswith(".json"):
            fields = differences(json.loads(a), json.loads(b))
            problems += [f"{name}{d}" for d in fields] or [f"{name}: same fields, different bytes (formatting)"]
        else:
            problems.append(f"{name}: first difference at byte {_first_byte_difference(a, b)} "
                            f"({len(a)} bytes single-process, {len(b)} merged)")
    return problems
