#!/usr/bin/python3
"""cross.tshark_rroce: Wireshark's own InfiniBand dissector (RRoCE on UDP 4791) decodes the
project's classic IBA-framed RoCEv2 frames (IPv4, IPv6 STEV/UDP, SRv6 with and without SRH) to
the same BTH, RETH (WRITE FIRST/ONLY, the only opcodes IBA gives a RETH), ImmDt, AETH fields and
ICRC bytes the generator asked for.

Wireshark does not know the MRC model (per-packet RETH, MFEH, EP header), so the generator's
"iba" profile uses IBA framing only; the Lua dissector test covers the model.
"""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crosslib  # noqa: E402

# side-file field -> tshark field (verified with `tshark -G fields` on tshark 4.0).
FIELDS = [
    ("bth.opcode", "infiniband.bth.opcode"),
    ("bth.se", "infiniband.bth.se"),
    ("bth.m", "infiniband.bth.m"),
    ("bth.padcnt", "infiniband.bth.padcnt"),
    ("bth.tver", "infiniband.bth.tver"),
    ("bth.pkey", "infiniband.bth.p_key"),
    ("bth.dqpn", "infiniband.bth.destqp"),
    ("bth.ackreq", "infiniband.bth.a"),
    ("bth.psn", "infiniband.bth.psn"),
    ("reth.va", "infiniband.reth.va"),
    ("reth.rkey", "infiniband.reth.r_key"),
    ("reth.len", "infiniband.reth.dmalen"),
    ("aeth.syndrome", "infiniband.aeth.syndrome"),
    ("aeth.msn", "infiniband.aeth.msn"),
    ("immdt", "infiniband.immdt"),
    ("icrc", "infiniband.invariant.crc"),
    ("udp.dstport", "udp.dstport"),
    ("ev.sport", "udp.srcport"),
]
ALWAYS = {"bth.opcode", "bth.se", "bth.m", "bth.padcnt", "bth.tver", "bth.pkey", "bth.dqpn",
          "bth.ackreq", "bth.psn", "icrc", "udp.dstport", "ev.sport"}


def observed_value(side_name, text):
    first = text.split(",")[0]  # tshark 4.0 adds the ImmDt item twice; take the first
    if side_name == "immdt":
        return int(first.replace(":", ""), 16)
    if side_name == "icrc":
        # Wireshark shows the 4 ICRC bytes read big-endian; the ICRC goes on the wire LSB first.
        return int.from_bytes(crosslib.as_int(first).to_bytes(4, "big"), "little")
    return crosslib.as_int(first)


def main():
    args = crosslib.parse_args(__doc__.splitlines()[0], 2000)
    tshark = shutil.which("tshark")
    if tshark is None:
        crosslib.harness_error("tshark not found")
    pcap, frames = crosslib.generate(args, "iba", "tshark_rroce")
    cmd = [tshark, "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
           "-e", "frame.number"]
    for _, f in FIELDS:
        cmd += ["-e", f]
    # Wireshark hands a UDP datagram to the dissector of the LOWER port first. A random EV source
    # port below 4791 that some other dissector owns (69 TFTP, 524 NCP, ...) would win, so tell
    # tshark, as a user would with "Decode As", that those ports are RoCE too.
    low_ports = sorted({f["ev.sport"] for f in frames if f["ev.sport"] < 4791})
    for port in low_ports:
        cmd += ["-d", "udp.port==%d,infiniband" % port]
    # tshark warns on stderr when run as root; only the exit code and stdout matter.
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        crosslib.harness_error("tshark failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
    rows = r.stdout.rstrip("\n").split("\n")
    if len(rows) != len(frames):
        crosslib.harness_error("tshark printed %d rows for %d frames" % (len(rows), len(frames)))

    m = crosslib.Mismatches("tshark infiniband")
    reth_frames = 0
    for idx, (row, exp) in enumerate(zip(rows, frames)):
        cols = row.split("\t")
        kind = exp["_kind"]
        exp = dict(exp, **{"udp.dstport": 4791})
        for (side, _), text in zip(FIELDS, cols[1:]):
            if side not in exp:
                if text != "":
                    m.fail(idx, kind, side, "(absent)", text)
                continue
            if text == "":
                m.fail(idx, kind, side, exp[side], "(absent)")
                continue
            try:
                obs = observed_value(side, text)
            except ValueError:
                m.fail(idx, kind, side, exp[side], text)
                continue
            m.compare(idx, kind, side, exp[side], obs)
        for side in ALWAYS:
            if side not in exp:
                m.fail(idx, kind, side, "(in side file)", "missing from side file")
        reth_frames += "reth.va" in exp
    if reth_frames < 500:
        crosslib.harness_error("only %d frames carried a RETH" % reth_frames)
    m.finish(len(frames), ", %d frames with RETH" % reth_frames)


if __name__ == "__main__":
    main()
