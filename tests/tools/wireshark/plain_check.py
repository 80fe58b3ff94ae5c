#!/usr/bin/python3
"""dissector.plain_roce / dissector.real_roce: with tools/wireshark/mrc.lua loaded, Wireshark's
own InfiniBand dissector still decodes every plain RoCEv2 frame (`-Y infiniband` matches every UDP
4791 frame: CM MADs on UD QP 1, 62-byte RC ACKs, SEND with immediate, WRITE, READ request and
responses, frames from UDP source port 69), the MRC subtree agrees with it on opcode / QP / PSN and
finds no MRC-only header, and no frame carries a malformed mark or an expert warning or error.

--gen: the capture is made now by mrc_cross_gen --profile roce (tests/cross/roce_frames.cpp); the
opcode / QP / PSN are also compared with what the generator asked for, and a copy with a payload
byte flipped must raise an error (the ICRC no longer matches), so the expert query can see errors.
A copy written with snap length 60 (the BTH and a few bytes) must decode just as cleanly: the MRC
subtree reads lengths from the UDP/IP headers, so the snap length only hides the ICRC.
--real: the real captures (tests/tools/real_captures.py: ../shared/roce-captures, $MRC_REAL_CAPTURES);
none: skipped (77).
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "cross"))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import crosslib  # noqa: E402
from real_captures import real_captures_or_skip  # noqa: E402

LUA = os.path.join(ROOT, "tools", "wireshark", "mrc.lua")
BAD = "_ws.malformed || _ws.expert.severity >= warning"
# Opcodes the generated capture must hold, so that the check covers the kinds real traffic has.
NEEDED = {0x11: "RC ACKNOWLEDGE", 0x64: "UD SEND ONLY (CM MAD)", 0x0C: "RC READ REQUEST",
          0x0D: "RC READ RESPONSE FIRST", 0x0F: "RC READ RESPONSE LAST",
          0x10: "RC READ RESPONSE ONLY", 0x00: "RC SEND FIRST", 0x03: "RC SEND LAST IMM",
          0x05: "RC SEND ONLY IMM", 0x0A: "RC WRITE ONLY"}
PAIRS = (("bth.opcode", "infiniband.bth.opcode", "mrc.bth.opcode"),
         ("bth.dqpn", "infiniband.bth.destqp", "mrc.bth.dqpn"),
         ("bth.psn", "infiniband.bth.psn", "mrc.bth.psn"))


def tshark(pcap, *args):
    cmd = [shutil.which("tshark"), "-n", "-X", "lua_script:" + LUA,
           "-o", "udp.try_heuristic_first:TRUE", "-r", pcap] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or "Lua: Error" in r.stderr or "lua_script" in r.stderr:
        crosslib.harness_error("%s: %s" % (" ".join(cmd), r.stderr[-2000:]))
    return [line for line in r.stdout.split("\n") if line]


def count(pcap, flt):
    return len(tshark(pcap, "-Y", flt))


def fields(pcap, flt, names):
    args = ["-Y", flt, "-T", "fields", "-E", "separator=/t"]
    for n in names:
        args += ["-e", n]
    return [line.split("\t") for line in tshark(pcap, *args)]


def check_file(pcap, failures, seen_ops, expect=None):
    """Checks one capture; `expect` (generated only) is the side file's frame list."""
    name = os.path.basename(pcap)
    roce = count(pcap, "udp.dstport == 4791")
    if roce == 0:
        failures.append("%s: no RoCEv2 frame" % name)
        return
    if expect is not None and roce != len(expect):
        failures.append("%s: %d RoCEv2 frames, the generator wrote %d" % (name, roce, len(expect)))
    for flt, what in (("infiniband", "decoded by InfiniBand"), ("mrc.bth.opcode", "with an MRC subtree"),
                      ("mrc.mrc_hdrs == 0", "without MRC-only headers")):
        n = count(pcap, flt)
        if n != roce:
            failures.append("%s: %d of %d RoCEv2 frames %s" % (name, n, roce, what))
    bad = count(pcap, BAD)
    if bad:
        failures.append("%s: %d frames with a malformed mark or an expert warning/error" % (name, bad))
    rows = fields(pcap, "udp.dstport == 4791", [n for p in PAIRS for n in p[1:]])
    for i, row in enumerate(rows):
        for k, (side, ib, ours) in enumerate(PAIRS):
            a, b = row[2 * k], row[2 * k + 1]
            if a == "" or b == "" or int(a, 0) != int(b, 0):
                failures.append("%s frame %d: %s=%r but %s=%r" % (name, i + 1, ib, a, ours, b))
            elif expect is not None and i < len(expect) and int(a, 0) != expect[i][side]:
                failures.append("%s frame %d (%s): %s=%r, the generator wrote %s=%d"
                                % (name, i + 1, expect[i]["_kind"], ib, a, side, expect[i][side]))
        if row[0]:
            seen_ops.add(int(row[0], 0))
    print("%s: %d RoCEv2 frames, all decoded by InfiniBand with an agreeing MRC subtree" % (name, roce))


def corrupted_copy(pcap, workdir):
    """The capture with the last payload byte before the ICRC of its last frame flipped."""
    with open(pcap, "rb") as f:
        data = bytearray(f.read())
    data[len(data) - 5] ^= 0xFF  # the generator's last record ends with the ICRC; 5 back is payload
    out = os.path.join(workdir, "corrupted_" + os.path.basename(pcap))
    with open(out, "wb") as f:
        f.write(data)
    return out


def check_generated(args, failures):
    pcap, expect = crosslib.generate(args, "roce", "plain_roce")
    seen = set()
    check_file(pcap, failures, seen, expect)
    for op, what in NEEDED.items():
        if op not in seen:
            failures.append("no frame with opcode 0x%02x (%s)" % (op, what))
    low = [e for e in expect if e.get("udp.sport", 4791) < 4791]
    if not low:
        failures.append("no frame from a UDP source port below 4791 (the heuristic path)")
    # Negative control: the same query must see an error once the ICRC is wrong.
    bad_copy = corrupted_copy(pcap, args.workdir)
    if count(bad_copy, BAD) == 0:
        failures.append("%s: a flipped payload byte raised no expert error" % os.path.basename(bad_copy))
    # Snap length: no error, no MRC header, no ICRC verdict (it is not captured).
    snap = crosslib.snap_copy(pcap, os.path.join(args.workdir, "snap60_plain_roce.pcap"), 60)
    for flt, want in ((BAD, 0), ("mrc.mrc_hdrs == 0", len(expect)), ("mrc.icrc_ok", 0)):
        n = count(snap, flt)
        if n != want:
            failures.append("%s: %d frames match %r, want %d" % (os.path.basename(snap), n, flt, want))
    return "generated capture, opcodes %s, %d frames from UDP source port < 4791, negative " \
           "control raised an error, snap length 60 copy clean" \
           % (",".join("0x%02x" % o for o in sorted(seen)), len(low))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gen", help="mrc_cross_gen: check a capture generated now")
    ap.add_argument("--real", action="store_true", help="check the real captures (real_captures.py)")
    ap.add_argument("--count", type=int, default=160)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    if bool(args.gen) == args.real:
        crosslib.harness_error("give exactly one of --gen and --real")
    test = "dissector.real_roce" if args.real else "dissector.plain_roce"
    pcaps = real_captures_or_skip(test) if args.real else []
    if shutil.which("tshark") is None:
        crosslib.harness_error("tshark not found")
    os.makedirs(args.workdir, exist_ok=True)
    failures = []
    if args.real:
        for p in pcaps:
            check_file(p, failures, set())
        summary = "%d real captures" % len(pcaps)
    else:
        summary = check_generated(args, failures)
    if failures:
        for f in failures[:20]:
            print("FAIL: " + f)
        print("%s: %d failures" % (test, len(failures)))
        sys.exit(1)
    print("%s: %s" % (test, summary))


if __name__ == "__main__":
    main()
