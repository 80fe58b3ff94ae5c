#!/usr/bin/python3
"""diff.plain_roce / diff.real_roce: `mrc-conform diff F F` on a plain RoCEv2 capture decodes every
frame field-level (no "undecodable") and reports IDENTICAL with exit 0; a copy of F with one BTH
P_Key changed must instead report the difference by field name (bth.pkey) with exit 1, so the
first check cannot pass by decoding nothing.

--gen: F is made now by mrc_cross_gen --profile roce (CM MADs on UD QP 1, WRITE, READ, SEND with
immediate, 62-byte ACKs, UDP source port 69; tests/cross/roce_frames.cpp).
--real: every capture in $MRC_REAL_CAPTURES (tests/tools/real_captures.py); none: skipped (77).
"""

import argparse
import os
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


def run(binary, a, b):
    r = subprocess.run([binary, "diff", a, b], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def as_classic_pcap(pcap, workdir):
    """The capture as classic pcap bytes (pcapng is converted with editcap)."""
    with open(pcap, "rb") as f:
        data = bytearray(f.read())
    if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        return data
    editcap = shutil.which("editcap")
    if editcap is None:
        return None
    out = os.path.join(workdir, "classic_" + os.path.basename(pcap) + ".pcap")
    if subprocess.run([editcap, "-F", "pcap", pcap, out], capture_output=True).returncode != 0:
        return None
    with open(out, "rb") as f:
        return bytearray(f.read())


def bth_offset(frame):
    """Offset of the BTH in an Ethernet [VLAN] IPv4/IPv6 UDP 4791 frame, else None."""
    off, etype = 12, None
    if len(frame) < 14:
        return None
    etype = struct.unpack_from(">H", frame, off)[0]
    off = 14
    if etype == 0x8100 and len(frame) >= 18:
        etype, off = struct.unpack_from(">H", frame, 16)[0], 18
    if etype == 0x0800 and len(frame) > off:
        proto, udp = frame[off + 9] if len(frame) > off + 9 else 0, off + (frame[off] & 0x0F) * 4
    elif etype == 0x86DD and len(frame) >= off + 40:
        proto, udp = frame[off + 6], off + 40
    else:
        return None
    if proto != 17 or len(frame) < udp + 8 + 12 or struct.unpack_from(">H", frame, udp + 2)[0] != 4791:
        return None
    return udp + 8


def with_changed_pkey(pcap, out, workdir):
    """Writes a copy with the last RoCEv2 frame's BTH P_Key flipped; False if there is none."""
    data = as_classic_pcap(pcap, workdir)
    if data is None:
        return False
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    if struct.unpack_from(endian + "I", data, 20)[0] != 1:  # LINKTYPE_ETHERNET only
        return False
    off, target = 24, None
    while off + 16 <= len(data):
        caplen = struct.unpack_from(endian + "I", data, off + 8)[0]
        frame = data[off + 16:off + 16 + caplen]
        bth = bth_offset(frame)
        if bth is not None:
            target = off + 16 + bth
        off += 16 + caplen
    if target is None:
        return False
    data[target + 2] ^= 0x01
    with open(out, "wb") as f:
        f.write(data)
    return True


def check(binary, pcap, workdir, failures, need_pkey):
    name = os.path.basename(pcap)
    rc, out = run(binary, pcap, pcap)
    if rc != 0 or "IDENTICAL" not in out or "undecodable" in out:
        failures.append("diff %s %s: exit %d, expected 0, IDENTICAL and no undecodable frame:\n%s"
                        % (name, name, rc, out))
    changed = os.path.join(workdir, "pkey_" + os.path.splitext(name)[0] + ".pcap")
    if not with_changed_pkey(pcap, changed, workdir):
        if need_pkey:
            failures.append("%s: no Ethernet RoCEv2 frame to change the P_Key of" % name)
        else:
            print("%s: no Ethernet RoCEv2 frame to change: P_Key check skipped for it" % name)
        return out
    rc, out2 = run(binary, pcap, changed)
    if rc != 1 or "bth.pkey" not in out2 or "undecodable" in out2:
        failures.append("diff %s <P_Key changed>: exit %d, expected 1 naming bth.pkey:\n%s" % (name, rc, out2))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="build/bin/mrc-conform")
    ap.add_argument("--gen", help="mrc_cross_gen: diff a capture generated now")
    ap.add_argument("--real", action="store_true", help="diff the captures in $MRC_REAL_CAPTURES")
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
        out = check(a.bin, pcap, a.workdir, failures, need_pkey=not a.real)
        lines = out.strip().split("\n")
        print("%s: %s" % (os.path.basename(pcap), lines[1] if len(lines) > 1 else lines[0]))
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("%s: %d captures IDENTICAL against themselves; a changed P_Key is named" % (test, len(pcaps)))


if __name__ == "__main__":
    main()
