#!/usr/bin/python3
"""cross.tshark_rroce: Wireshark's own InfiniBand dissector (RRoCE on UDP 4791, no project code
loaded) decodes the project's frames to the BTH fields and ICRC bytes the generator asked for.

MRC 1.0 frames (mrc_cross_gen's default profile; IPv4, IPv6 STEV/UDP, SRv6 with and without SRH):
every BTH field, byte 8's low 7 bits (MRC's R, RTX, TS and reserved bits, IBA's "Reserved (7
bits)"), the UDP ports, and the bytes after the BTH, which Wireshark shows raw as vendor-specific
data: their length is the MRC 1.0 headers' (W3-W10) + payload + pad + ICRC, and they end with the
ICRC. Every opcode must be one of the twelve W3 opcodes, and all twelve must occur. A trimmed data
packet (W13) keeps a stale UDP length, and the raw bytes end where its fixed IP length says.

Plain RoCEv2 frames (the roce profile: CM MADs, WRITE, READ, SEND with immediate, ACK), which
Wireshark decodes in full: BTH, RETH, ImmDt, AETH and ICRC.
"""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crosslib  # noqa: E402

# side-file field -> tshark field (verified with `tshark -G fields` on tshark 4.0).
BTH = [
    ("bth.opcode", "infiniband.bth.opcode"),
    ("bth.se", "infiniband.bth.se"),
    ("bth.m", "infiniband.bth.m"),
    ("bth.padcnt", "infiniband.bth.padcnt"),
    ("bth.tver", "infiniband.bth.tver"),
    ("bth.pkey", "infiniband.bth.p_key"),
    ("bth.dqpn", "infiniband.bth.destqp"),
    ("bth.ackreq", "infiniband.bth.a"),
    ("bth.psn", "infiniband.bth.psn"),
    ("udp.dstport", "udp.dstport"),
]
IBA = BTH + [
    ("reth.va", "infiniband.reth.va"),
    ("reth.rkey", "infiniband.reth.r_key"),
    ("reth.len", "infiniband.reth.dmalen"),
    ("aeth.syndrome", "infiniband.aeth.syndrome"),
    ("aeth.msn", "infiniband.aeth.msn"),
    ("immdt", "infiniband.immdt"),
    ("icrc", "infiniband.invariant.crc"),
    ("udp.sport", "udp.srcport"),
]
MRC = BTH + [
    ("bth.low7", "infiniband.bth.reserved7"),
    ("ev.sport", "udp.srcport"),
    ("udp.length", "udp.length"),
]
VENDOR = ("vendor", "infiniband.vendor")  # after MRC's columns: checked by its length and tail
# Bytes after the BTH per MRC 1.0 control opcode (W5-W10), before the ICRC.
CONTROL_LEN = {0xD1: 4, 0xD8: 16, 0xD9: 36, 0xDC: 36, 0xDD: 20, 0xDE: 16}


def observed_value(side_name, text):
    parts = text.split(",")
    if side_name == "vendor":  # tshark 4.0 adds a 4-byte item first; the whole rest is the longest
        return bytes.fromhex(max(parts, key=len).replace(":", ""))
    first = parts[0]  # tshark 4.0 adds the ImmDt item twice; take the first
    if side_name == "immdt":
        return int(first.replace(":", ""), 16)
    if side_name == "icrc":
        # Wireshark shows the 4 ICRC bytes read big-endian; the ICRC goes on the wire LSB first.
        return int.from_bytes(crosslib.as_int(first).to_bytes(4, "big"), "little")
    return crosslib.as_int(first)


def after_bth(f):
    """Bytes after the BTH of an MRC 1.0 frame on the wire, from the side file's fields."""
    op = f["bth.opcode"]
    if f["trimmed"]:
        return f["_udp_bytes"] - 8 - 12
    if op in CONTROL_LEN:
        return CONTROL_LEN[op] + 4
    imm = 4 if op in (0xC9, 0xCB) else 0
    return 4 + 4 * f["bth.ts"] + 16 + imm + f["payload_len"] + f["bth.padcnt"] + 4


def run(pcap, frames, fields):
    cmd = [shutil.which("tshark"), "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
           "-E", "occurrence=a"]
    for _, f in fields:
        cmd += ["-e", f]
    # Wireshark hands a UDP datagram to the dissector of the LOWER port first. A random EV source
    # port below 4791 that some other dissector owns (69 TFTP, 524 NCP, ...) would win, so tell
    # tshark, as a user would with "Decode As", that those ports are RoCE too.
    low = sorted({f.get("ev.sport", f.get("udp.sport")) for f in frames} - {None})
    for port in (p for p in low if p < 4791):
        cmd += ["-d", "udp.port==%d,infiniband" % port]
    # tshark warns on stderr when run as root; only the exit code and stdout matter.
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        crosslib.harness_error("tshark failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
    rows = r.stdout.rstrip("\n").split("\n")
    if len(rows) != len(frames):
        crosslib.harness_error("tshark printed %d rows for %d frames" % (len(rows), len(frames)))
    return [row.split("\t") for row in rows]


def compare(m, idx, exp, fields, cols):
    for (side, _), text in zip(fields, cols):
        if side not in exp:
            if text != "":
                m.fail(idx, exp["_kind"], side, "(absent)", text)
            continue
        if text == "":
            m.fail(idx, exp["_kind"], side, exp[side], "(absent)")
            continue
        try:
            obs = observed_value(side, text)
        except ValueError:
            obs = text
        m.compare(idx, exp["_kind"], side, exp[side], obs)


def check_mrc(m, args):
    pcap, frames = crosslib.generate(args, "mrc", "tshark_mrc")
    seen, trimmed = set(), 0
    for idx, (cols, exp) in enumerate(zip(run(pcap, frames, MRC + [VENDOR]), frames)):
        op = crosslib.as_int(cols[0]) if cols[0] else None
        seen.add(op)
        if op not in crosslib.W3_OPCODES:
            m.fail(idx, exp["_kind"], "bth.opcode in W3", "one of the 12 MRC 1.0 opcodes", op)
        vendor = observed_value("vendor", cols[-1]) if cols[-1] else b""
        m.compare(idx, exp["_kind"], "bytes after the BTH", after_bth(exp), len(vendor))
        e = dict(exp, **{"udp.dstport": 4791, "bth.low7": exp["bth.flags"] & 0x7F})
        if not exp["trimmed"]:  # a trimmed packet's UDP length is the stale one in the side file
            e["udp.length"] = 8 + 12 + after_bth(exp)
            m.compare(idx, exp["_kind"], "ICRC (last 4 raw bytes)", exp["icrc"],
                      int.from_bytes(vendor[-4:], "little"))
        trimmed += exp["trimmed"]
        compare(m, idx, e, MRC, cols)
    if seen != crosslib.W3_OPCODES:
        m.fail(-1, "capture", "opcodes seen", sorted(crosslib.W3_OPCODES),
               sorted(o for o in seen if o is not None))
    if trimmed < len(frames) // 20:
        crosslib.harness_error("only %d trimmed frames" % trimmed)
    return len(frames), trimmed


def check_roce(m, args):
    pcap, frames = crosslib.generate(args, "roce", "tshark_roce", count=max(args.count // 4, 160),
                                     seed=args.seed + 1)
    reth = 0
    for idx, (cols, exp) in enumerate(zip(run(pcap, frames, IBA), frames)):
        compare(m, idx, dict(exp, **{"udp.dstport": 4791}), IBA, cols)
        reth += "reth.va" in exp
    if reth < len(frames) // 10:
        crosslib.harness_error("only %d frames carried a RETH" % reth)
    return len(frames), reth


def main():
    args = crosslib.parse_args(__doc__.splitlines()[0], 2000)
    if shutil.which("tshark") is None:
        crosslib.harness_error("tshark not found")
    m = crosslib.Mismatches("tshark infiniband")
    n_mrc, trimmed = check_mrc(m, args)
    n_roce, reth = check_roce(m, args)
    m.finish(n_mrc + n_roce, "; %d MRC 1.0 frames (%d trimmed, all 12 W3 opcodes), %d plain RoCEv2 "
             "frames (%d with RETH)" % (n_mrc, trimmed, n_roce, reth))


if __name__ == "__main__":
    main()
