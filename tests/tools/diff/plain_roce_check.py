#!/usr/bin/python3
"""diff.plain_roce / diff.real_roce: `mrc-conform diff F F` on a plain RoCEv2 capture decodes every
frame field-level (no "undecodable") and reports IDENTICAL with exit 0; a copy of F with one bit of
one frame's BTH PSN flipped (nothing else fixed, so its ICRC no longer matches either) must instead
report bth.psn at that frame's index with exit 1, so the first check cannot pass by decoding
nothing, and normalization cannot hide a real difference.

--gen: F is made now by mrc_cross_gen --profile roce (CM MADs on UD QP 1, WRITE, READ, SEND with
immediate, 62-byte ACKs, UDP source port 69; tests/cross/roce_frames.cpp).
--real: every real capture (tests/tools/real_captures.py); none: skipped (77).
"""

import argparse
import os
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "cross"))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import crosslib  # noqa: E402
from real_captures import real_captures_or_skip  # noqa: E402

PCAP_MAGICS = (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d")
FEEDBACK_OPCODES = (0x11, 0x12)  # RC ACKNOWLEDGE, RC ATOMIC ACKNOWLEDGE: the feedback PSN space


def run(binary, a, b):
    r = subprocess.run([binary, "diff", a, b], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def as_classic_pcap(pcap, workdir):
    """The capture as classic pcap bytes (pcapng is converted with editcap)."""
    with open(pcap, "rb") as f:
        data = bytearray(f.read())
    if data[:4] in PCAP_MAGICS:
        return data
    editcap = shutil.which("editcap")
    if editcap is None:
        return None
    out = os.path.join(workdir, "classic_" + os.path.basename(pcap) + ".pcap")
    if subprocess.run([editcap, "-F", "pcap", pcap, out], capture_output=True).returncode != 0:
        return None
    with open(out, "rb") as f:
        return bytearray(f.read())


def network_offset(frame, linktype):
    """(ethertype, offset of the IP header) for the link types mrc-conform reads, else None."""
    if linktype == 1 and len(frame) >= 14:  # Ethernet [802.1Q]
        etype, off = struct.unpack_from(">H", frame, 12)[0], 14
        if etype == 0x8100 and len(frame) >= 18:
            etype, off = struct.unpack_from(">H", frame, 16)[0], 18
        return etype, off
    if linktype == 113 and len(frame) >= 16:  # Linux cooked v1: protocol at 14
        return struct.unpack_from(">H", frame, 14)[0], 16
    if linktype == 276 and len(frame) >= 20:  # Linux cooked v2: protocol at 0
        return struct.unpack_from(">H", frame, 0)[0], 20
    if linktype in (101, 228, 229) and frame:  # raw IP, raw IPv4, raw IPv6
        return (0x0800 if frame[0] >> 4 == 4 else 0x86DD), 0
    return None


def roce_view(frame, linktype):
    """(offset of the BTH, destination address bytes) of a UDP 4791 frame, else None."""
    net = network_offset(frame, linktype)
    if net is None:
        return None
    etype, off = net
    if etype == 0x0800 and len(frame) >= off + 20:
        proto, udp, dst = frame[off + 9], off + (frame[off] & 0x0F) * 4, bytes(frame[off + 16:off + 20])
    elif etype == 0x86DD and len(frame) >= off + 40:
        proto, udp, dst = frame[off + 6], off + 40, bytes(frame[off + 24:off + 40])
    else:
        return None
    if proto != 17 or len(frame) < udp + 8 + 12 or struct.unpack_from(">H", frame, udp + 2)[0] != 4791:
        return None
    return udp + 8, dst


def with_flipped_psn(pcap, out, workdir):
    """Writes a copy with bit 0 of one frame's BTH PSN flipped; returns that frame's 0-based
    index, or None when no frame qualifies. The frame is the last whose PSN is above the lowest of
    its PSN space (destination address, destination QP, feedback or not), so the flip moves that
    frame's normalized PSN and no other frame's: the diff must name bth.psn there and only there."""
    data = as_classic_pcap(pcap, workdir)
    if data is None:
        return None
    endian = "<" if data[:4] in PCAP_MAGICS[:2] else ">"
    linktype = struct.unpack_from(endian + "I", data, 20)[0] & 0x0FFFFFFF
    off, index, frames = 24, 0, []
    while off + 16 <= len(data):
        caplen = struct.unpack_from(endian + "I", data, off + 8)[0]
        frame = data[off + 16:off + 16 + caplen]
        view = roce_view(frame, linktype)
        if view is not None:
            bth, dst = view
            psn = struct.unpack_from(">I", frame, bth + 8)[0] & 0xFFFFFF
            space = (dst, struct.unpack_from(">I", frame, bth + 4)[0] & 0xFFFFFF, frame[bth] in FEEDBACK_OPCODES)
            frames.append((index, off + 16 + bth, space, psn))
        off += 16 + caplen
        index += 1
    low = {}
    for _, _, space, psn in frames:
        low[space] = min(psn, low.get(space, psn))
    chosen = [f for f in frames if 0 < f[3] - low[f[2]] < (1 << 23)]
    if not chosen:
        return None
    index, bth_at, _, _ = chosen[-1]
    data[bth_at + 11] ^= 0x01
    with open(out, "wb") as f:
        f.write(data)
    return index


def check(binary, pcap, workdir, failures, need_change):
    name = os.path.basename(pcap)
    rc, out = run(binary, pcap, pcap)
    if rc != 0 or "IDENTICAL" not in out or "undecodable" in out:
        failures.append("diff %s %s: exit %d, expected 0, IDENTICAL and no undecodable frame:\n%s"
                        % (name, name, rc, out))
    changed = os.path.join(workdir, "psn_" + os.path.splitext(name)[0] + ".pcap")
    index = with_flipped_psn(pcap, changed, workdir)
    if index is None:
        if need_change:
            failures.append("%s: no RoCEv2 frame whose PSN is above the lowest of its space" % name)
        else:
            print("%s: no RoCEv2 frame whose PSN is above the lowest of its space: PSN check skipped" % name)
        return out
    rc, out2 = run(binary, pcap, changed)
    named = re.search(r"bth\.psn \(exact\): %s\[%d\] " % (re.escape(pcap), index), out2)
    if rc != 1 or not named or "undecodable" in out2:
        failures.append("diff %s <PSN of frame %d flipped>: exit %d, expected 1 naming bth.psn at %s[%d]:\n%s"
                        % (name, index + 1, rc, name, index, out2))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="build/bin/mrc-conform")
    ap.add_argument("--gen", help="mrc_cross_gen: diff a capture generated now")
    ap.add_argument("--real", action="store_true", help="diff the real captures (real_captures.py)")
    ap.add_argument("--count", type=int, default=160)
    ap.add_argument("--seed", type=int, default=51)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    if bool(a.gen) == a.real:
        crosslib.harness_error("give exactly one of --gen and --real")
    test = "diff.real_roce" if a.real else "diff.plain_roce"
    os.makedirs(a.workdir, exist_ok=True)
    pcaps = real_captures_or_skip(test) if a.real else [crosslib.generate(a, "roce", "plain_roce")[0]]
    failures = []
    for pcap in pcaps:
        out = check(a.bin, pcap, a.workdir, failures, need_change=not a.real)
        lines = out.strip().split("\n")
        print("%s: %s" % (os.path.basename(pcap), lines[1] if len(lines) > 1 else lines[0]))
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("%s: %d captures IDENTICAL against themselves; a flipped PSN bit is named at its frame" % (test, len(pcaps)))


if __name__ == "__main__":
    main()
