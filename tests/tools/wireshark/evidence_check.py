#!/usr/bin/python3
"""dissector.evidence: tshark reads a case's evidence file (evidence/<case-id>.pcapng, one
interface per tap) as written by `mrc-conform run`: every interface by its name, with its
description, every frame on an interface of the file, the direction flag of each frame matching
its tap (.tx outbound, .rx inbound), and the frame count equal to the sum of the taps' packets.

The taps' packet counts come from walking the file's blocks here (an Interface Description Block
per tap, an Enhanced Packet Block per packet): a second reader, independent of both tshark and
mrc-conform's own. The run uses --snaplen auto, so a case of header-only checks is cut to the
header stack: frame.len must stay the wire length there, and with tools/wireshark/mrc.lua loaded
a frame the snap length cut raises no malformed mark and no expert warning or error (mrc.lua reads
lengths and trimming from the wire, not from the captured bytes). The UDP dissector's "Bad length
value" on a trimmed packet (W13 leaves its UDP length stale) is allowed.

Usage: evidence_check.py --mrc-conform BIN --case FILE --workdir DIR
"""

import argparse
import os
import shutil
import struct
import subprocess
import sys

SHB, IDB, EPB = 0x0A0D0D0A, 1, 6
LUA = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                    "tools", "wireshark", "mrc.lua"))
SEP = "\x1f"  # aggregates repeated values; expert messages contain commas


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def walk(path):
    """[(name, description, snaplen)], [(interface, caplen, origlen, flags)] from the blocks."""
    data = open(path, "rb").read()
    ifaces, packets, pos = [], [], 0
    while pos < len(data):
        btype, blen = struct.unpack_from("<II", data, pos)
        body = data[pos + 8:pos + blen - 4]
        if btype == IDB:
            _, _, snap = struct.unpack_from("<HHI", body, 0)
            opts, o = {}, 8
            while o + 4 <= len(body):
                code, olen = struct.unpack_from("<HH", body, o)
                if code == 0:
                    break
                opts[code] = body[o + 4:o + 4 + olen]
                o += 4 + (olen + 3) // 4 * 4
            ifaces.append((opts.get(2, b"").decode(), opts.get(3, b"").decode(), snap))
        elif btype == EPB:
            iface, _, _, cap, orig = struct.unpack_from("<IIIII", body, 0)
            o, flags = 20 + (cap + 3) // 4 * 4, 0
            while o + 4 <= len(body):
                code, olen = struct.unpack_from("<HH", body, o)
                if code == 0:
                    break
                if code == 2:
                    flags = struct.unpack_from("<I", body, o + 4)[0]
                o += 4 + (olen + 3) // 4 * 4
            packets.append((iface, cap, orig, flags))
        pos += blen
    return ifaces, packets


def check_cut_frames(pcap):
    """Frames cut by the snap length, decoded with mrc.lua: returns (how many, problems)."""
    cmd = [shutil.which("tshark"), "-n", "-X", "lua_script:" + LUA, "-o", "udp.try_heuristic_first:TRUE",
           "-o", "udp.ignore_ipv6_zero_checksum:TRUE", "-r", pcap, "-Y", "frame.cap_len < frame.len",
           "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=" + SEP,
           "-e", "frame.number", "-e", "_ws.expert.severity", "-e", "_ws.expert.message",
           "-e", "_ws.malformed"]
    t = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if t.returncode != 0 or "Lua: Error" in t.stderr or "lua_script" in t.stderr:
        fail("%s: %s" % (" ".join(cmd), t.stderr[-2000:]))
    rows = [line.split("\t") for line in t.stdout.split("\n") if line]
    problems = []
    for num, sevs, msgs, malformed in rows:
        items = list(zip(sevs.split(SEP), msgs.split(SEP))) if msgs else []
        bad = [m for s, m in items if int(s) >= 0x00600000 and not m.startswith("Bad length value")]
        if bad or (malformed and not any(m.startswith("Bad length value") for _, m in items)):
            problems.append("frame %s: %s%s" % (num, bad, " (malformed)" if malformed else ""))
    return len(rows), problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mrc-conform", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    if not shutil.which("tshark"):
        print("SKIP: tshark is not installed")
        return 77
    out = os.path.join(a.workdir, "evidence-run")
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([a.mrc_conform, "run", "--cases", a.case, "--out", out, "--no-progress"],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        fail("mrc-conform run exited %d: %s%s" % (r.returncode, r.stdout[-2000:], r.stderr[-2000:]))
    case_id = os.path.splitext(os.path.basename(a.case))[0]
    pcap = os.path.join(out, "evidence", case_id + ".pcapng")
    if not os.path.isfile(pcap):
        fail("no evidence file " + pcap)
    ifaces, packets = walk(pcap)
    if len(ifaces) < 2:
        fail("%s: %d interface(s), expected one per tap" % (pcap, len(ifaces)))
    names = [i[0] for i in ifaces]
    if len(set(names)) != len(names) or not all(n.endswith((".tx", ".rx")) for n in names):
        fail("interface names not unique tap names: %s" % names)
    per_tap = [0] * len(ifaces)
    for p in packets:
        per_tap[p[0]] += 1
    cmd = [shutil.which("tshark"), "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
           "-e", "frame.interface_name", "-e", "frame.interface_description",
           "-e", "frame.packet_flags_direction", "-e", "frame.len", "-e", "frame.cap_len"]
    t = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if t.returncode != 0:
        fail("%s: %s" % (" ".join(cmd), t.stderr[-2000:]))
    rows = [line.split("\t") for line in t.stdout.split("\n") if line]
    if len(rows) != sum(per_tap):
        fail("tshark reads %d frames, the taps hold %d (%s)" % (len(rows), sum(per_tap), per_tap))
    seen = {}
    for n, (row, p) in enumerate(zip(rows, packets)):
        name, desc, direction, wire, cap = row
        want = ifaces[p[0]]
        if name != want[0] or desc != want[1]:
            fail("frame %d: tshark says interface %r (%r), the file %r (%r)" % (n + 1, name, desc, want[0], want[1]))
        if int(direction, 16) != (2 if name.endswith(".tx") else 1):
            fail("frame %d on %s: direction flag %s" % (n + 1, name, direction))
        if int(wire) != p[2] or int(cap) != p[1]:
            fail("frame %d: tshark length %s/%s, the block %d/%d" % (n + 1, cap, wire, p[1], p[2]))
        seen[name] = seen.get(name, 0) + 1
    for name, k in zip(names, per_tap):
        if seen.get(name, 0) != k:
            fail("interface %s: tshark lists %d frames, the file holds %d" % (name, seen.get(name, 0), k))
    if sum(per_tap) == 0:
        fail("the case's taps saw no frame: nothing was checked")
    cut, problems = check_cut_frames(pcap)
    if problems:
        fail("with mrc.lua, %d of %d frames cut by the snap length raise errors: %s"
             % (len(problems), cut, "; ".join(problems[:5])))
    print("ok: %s: %d interfaces (%s), %d frames = the sum of the taps; %d cut by the snap length "
          "decode cleanly with mrc.lua" % (pcap, len(names), ", ".join(names), sum(per_tap), cut))
    return 0


if __name__ == "__main__":
    sys.exit(main())
