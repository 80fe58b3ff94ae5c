"""Compares a merged campaign.json with the single-process one. The merge is allowed to differ only
in the fields that say how the run was made (IGNORED_FIELDS: the command line and the shard list);
everything else, every defect, killer, collateral and total, must be equal.
"""

import json

# Top-level fields of campaign.json that describe the invocation, not the result. They are the
# only ones a merged report may differ in (mrc-conform merge, harness/report/campaign_report.cpp).
IGNORED_FIELDS = ("command_line", "shards")


def load(path):
    with open(path) as f:
        return json.load(f)


def strip_invocation(report):
    return {k: v for k, v in report.items() if k not in IGNORED_FIELDS}


def differences(a, b, path="", limit=10):
    """Paths (like `defects[3].caught`) where a and b differ, at most `limit` of them."""
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

    walk(a, b, path)
    return out


def compare_reports(single_path, merged_path):
    """[] when equal up to IGNORED_FIELDS, else the differing paths."""
    return differences(strip_invocation(load(single_path)), strip_invocation(load(merged_path)))
