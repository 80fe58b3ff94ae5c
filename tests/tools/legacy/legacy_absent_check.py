#!/usr/bin/env python3
"""The project's older wire model is gone (issue 26): no code, case, golden or dissector uses it.

Two checks:
  1. No source file under the product folders names a construct of the older model: its feedback
     header (MFEH), its endpoint header and opcodes 0xC0/0xC1, the AETH TRIM syndrome 0x65, or the
     per-frame "MRC framing" of RC opcodes. Tests may name them (to check they are refused) and
     are not scanned; docs are prose and not scanned either.
  2. Every frame of every golden pcap, decoded by Wireshark's own InfiniBand dissector (no MRC
     plugin), has one of the MRC 1.0 opcodes of W3.
--self-test runs check 1 on a scratch tree that holds one legacy token and on one that holds
none, so the check is shown to fail when it should.
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

SCANNED_DIRS = ("reference", "harness", "tools", "cases", "bench", "docker", "scripts")
SCANNED_SUFFIXES = {".cpp", ".hpp", ".h", ".lua", ".py", ".yaml", ".yml", ".cmake", ".txt", ".sh", ".json"}
# Identifiers and vocabulary of the older model, as the code spelled them.
TOKENS = [
    r"\bMfeh\b", r"\bmfeh\b", r"\bMFEH\b", r"\bkMfehLen\b", r"\bFeedbackType\b",
    r"\bEpHdr\b", r"\bkEpHdrFixedLen\b", r"\bkEpDestQp\b", r"\bkMrcEpReq\b", r"\bkMrcEpRsp\b",
    r"\bkNakTrim\b", r"\blegacy_codec\b", r"\bmrc_framing\b", r"\bdetect_framing\b",
    r"\bdetect_mrc_framing\b", r"\brsp_ev_len\b", r"\bep\.req_id\b", r"\bep\.port_status\b",
    r"\bep\.svc_time_ns\b", r"\bep\.rsp_port\b",
    # A case or script naming the retired opcodes as opcodes.
    r"opcode['\"]?\s*[:=]\s*(0[xX][cC][01]\b|19[23]\b)",
]
PATTERN = re.compile("|".join(TOKENS))
W3_OPCODES = {0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xCB, 0xD1, 0xD8, 0xD9, 0xDC, 0xDD, 0xDE}


def scan(root: pathlib.Path) -> list:
    hits = []
    for d in SCANNED_DIRS:
        base = root / d
        if not base.is_dir():
            continue
        for f in sorted(base.rglob("*")):
            if not f.is_file() or f.suffix not in SCANNED_SUFFIXES:
                continue
            try:
                lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError as e:
                hits.append(f"{f}: unreadable: {e}")
                continue
            for n, line in enumerate(lines, 1):
                m = PATTERN.search(line)
                if m:
                    hits.append(f"{f.relative_to(root)}:{n}: '{m.group(0)}' in: {line.strip()[:120]}")
    return hits


def golden_opcodes(root: pathlib.Path) -> list:
    problems = []
    pcaps = sorted(p for p in (root / "pcaps").rglob("*") if p.suffix in (".pcap", ".pcapng"))
    if not pcaps:
        return ["no golden pcap under pcaps/"]
    for p in pcaps:
        # -o: keep Wireshark's own dissectors only; the MRC plugin is not on tshark's default path.
        out = subprocess.run(["tshark", "-n", "-r", str(p), "-T", "fields", "-e", "frame.number",
                              "-e", "infiniband.bth.opcode"], capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            problems.append(f"{p.relative_to(root)}: tshark failed: {out.stderr.strip()[:200]}")
            continue
        rows = [r.split("\t") for r in out.stdout.splitlines() if r.strip()]
        if not rows:
            problems.append(f"{p.relative_to(root)}: no frames")
        for num, *op in rows:
            values = [v for v in (op[0].split(",") if op else []) if v]
            if not values:
                problems.append(f"{p.relative_to(root)} frame {num}: no BTH decoded")
                continue
            for v in values:
                code = int(v, 0)
                if code not in W3_OPCODES:
                    problems.append(f"{p.relative_to(root)} frame {num}: opcode 0x{code:02X} is no MRC 1.0 opcode (W3)")
    return problems


def self_test() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "harness").mkdir()
        (root / "harness" / "clean.cpp").write_text("// SETH + CC_STATE only\nint seth = 1;\n")
        if scan(root):
            print("FAIL: a clean tree was flagged", file=sys.stderr)
            return 1
        (root / "cases").mkdir()
        (root / "cases" / "x.yaml").write_text("frame: {opcode: 0xC1, psn: 0}\n")
        (root / "harness" / "dirty.hpp").write_text("struct Mfeh {};\n")
        hits = scan(root)
        if len(hits) != 2:
            print(f"FAIL: expected 2 hits on the dirty tree, got {hits}", file=sys.stderr)
            return 1
    print("self-test: the scan flags legacy tokens and passes a clean tree")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=pathlib.Path)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if a.root is None:
        ap.error("--root is required")
    problems = scan(a.root)
    if shutil.which("tshark"):
        problems += golden_opcodes(a.root)
    else:
        problems.append("tshark not found: the golden pcaps cannot be checked (scripts/install installs it)")
    for p in problems:
        print(p)
    if problems:
        print(f"FAIL: {len(problems)} uses of the older wire model", file=sys.stderr)
        return 1
    print("no construct of the older wire model in the product tree; every golden frame has a W3 opcode")
    return 0


if __name__ == "__main__":
    sys.exit(main())
