#!/usr/bin/python3
"""dissector.mrc_lua: tshark with tools/wireshark/mrc.lua decodes every kind of project frame
(data in STEV / UDP / SRv6 modes with per-packet RETH, ACK + MFEH of each type, EP request and
response, trimmed stubs) to the field values the generator asked for, labels model fields
"(MODEL Mn)" in its tree, and decodes classic IBA frames both with "MRC v1 framing" off and with
the default per-frame recognition (which must then find no MRC-only header in any of them).
"""

import ipaddress
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "cross"))
import crosslib  # noqa: E402

LUA = os.path.normpath(os.path.join(HERE, "..", "..", "..", "tools", "wireshark", "mrc.lua"))

# Side-file fields the dissector must decode; when the side file lacks one of the STRICT ones for
# a frame, the dissector must not show it either (a header that is not there).
FIELDS = [
    "bth.opcode", "bth.se", "bth.m", "bth.padcnt", "bth.tver", "bth.pkey", "bth.fecn", "bth.becn",
    "bth.dqpn", "bth.ackreq", "bth.psn",
    "reth.va", "reth.rkey", "reth.len", "immdt", "aeth.syndrome", "aeth.msn",
    "mfeh.ver", "mfeh.type", "mfeh.ce", "mfeh.svc_valid", "mfeh.ev_valid", "mfeh.mpr_valid",
    "mfeh.sack_valid", "mfeh.svc_time", "mfeh.trig_psn", "mfeh.ev_echo", "mfeh.ev_port",
    "mfeh.mpr", "mfeh.sack_base_off", "mfeh.sack_bitmap", "mfeh.rcvd_bytes",
    "ep.op", "ep.svc_valid", "ep.req_id", "ep.port_status", "ep.tx_timestamp", "ep.svc_time_ns",
    "ep.rsp_fmt_mode", "ep.rsp_port", "ep.rsp_ev_len", "ep.rsp_ev",
    "ev.mode", "ev.value", "ev.flow_label", "ev.sport", "ev.index", "ev.outer_da",
    "ev.usid_block", "ev.usid_count", "ev.srh_segment",
    "payload_len", "icrc", "icrc_ok", "trimmed", "dscp", "mrc_hdrs",
]
STRICT_PREFIXES = ("reth.", "immdt", "aeth.", "mfeh.", "ep.", "icrc", "ev.index", "ev.outer_da",
                   "ev.srh_segment")
IPV6_FIELDS = {"ev.outer_da", "ev.srh_segment"}
TEXT_FIELDS = {"ev.mode"}
HEX_BYTES_FIELDS = {"ep.rsp_ev"}


def observed(field, text):
    first = text.split(",")[0]
    if field in IPV6_FIELDS:
        return ipaddress.IPv6Address(first)
    if field in TEXT_FIELDS:
        return text
    if field in HEX_BYTES_FIELDS:
        return first.replace(":", "").lower()
    return crosslib.as_int(first)


def expected(field, value):
    if field in IPV6_FIELDS:
        return ipaddress.IPv6Address(bytes.fromhex(value))
    return value


def mark_mrc_headers(frames, mrc):
    """Expected mrc.mrc_hdrs: a per-packet RETH on WRITE MIDDLE/LAST/LAST-IMM, an MFEH or an EP
    header (MODEL M3/M5/M6); never on an IBA frame."""
    for f in frames:
        per_packet = f["bth.opcode"] in (7, 8, 9) and "reth.va" in f
        f["mrc_hdrs"] = int(mrc and (per_packet or "mfeh.type" in f or "ep.op" in f))
    return frames


def run_tshark(tshark, pcap, fields, prefs):
    cmd = [tshark, "-n", "-X", "lua_script:" + LUA, "-o", "udp.try_heuristic_first:TRUE"]
    for p in prefs:
        cmd += ["-o", p]
    cmd += ["-r", pcap, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"]
    for f in fields:
        cmd += ["-e", "mrc." + f]
    # tshark warns on stderr when run as root; the exit code and stdout are what count, plus
    # any Lua error (which tshark reports on stderr but does not fail on).
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or "Lua: Error" in r.stderr or "lua_script" in r.stderr:
        crosslib.harness_error("tshark/Lua failed (%d): %s" % (r.returncode, r.stderr[-3000:]))
    return r.stdout.rstrip("\n").split("\n")


def compare_rows(m, rows, frames, fields):
    if len(rows) != len(frames):
        crosslib.harness_error("tshark printed %d rows for %d frames" % (len(rows), len(frames)))
    for idx, (row, exp) in enumerate(zip(rows, frames)):
        cols = row.split("\t")
        kind = exp["_kind"]
        for field, text in zip(fields, cols):
            if field not in exp:
                if text != "" and field.startswith(STRICT_PREFIXES):
                    m.fail(idx, kind, "mrc." + field, "(absent)", text)
                continue
            if text == "":
                m.fail(idx, kind, "mrc." + field, exp[field], "(absent)")
                continue
            try:
                obs = observed(field, text)
            except ValueError:
                m.fail(idx, kind, "mrc." + field, exp[field], text)
                continue
            m.compare(idx, kind, "mrc." + field, expected(field, exp[field]), obs)


def check_tree_labels(m, tshark, pcap, frames):
    """The tree text marks model fields: count the labels against the frames that need them."""
    r = subprocess.run([tshark, "-n", "-X", "lua_script:" + LUA, "-o",
                        "udp.try_heuristic_first:TRUE", "-r", pcap, "-V"],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        crosslib.harness_error("tshark -V failed: %s" % r.stderr[-2000:])
    text = r.stdout
    want = {
        r"Syndrome: TRIM NACK \(MODEL M5\) \(0x65\)":
            sum(1 for f in frames if f.get("aeth.syndrome") == 0x65),
        r"MRC Feedback Extension Header \(MODEL M5\)": sum(1 for f in frames if "mfeh.type" in f),
        r"Feedback type \(MODEL M5\)": sum(1 for f in frames if "mfeh.type" in f),
        r"MRC Endpoint Operation Header \(MODEL M6\)": sum(1 for f in frames if "ep.op" in f),
        r"RDMA Extended Transport Header \(per-packet, MODEL M3\)":
            sum(1 for f in frames if "reth.va" in f and f["bth.opcode"] in (7, 8, 9)),
        r"EV value V \(MODEL M2\)": len(frames),
        r"Trimmed stub \(MODEL M11\): True": sum(1 for f in frames if f["trimmed"] == 1),
    }
    for pattern, count in want.items():
        m.compare(-1, "tree text", pattern, count, len(re.findall(pattern, text)))
        if count == 0:
            m.fail(-1, "tree text", pattern, "> 0 frames of this kind", 0)


def main():
    args = crosslib.parse_args(__doc__.splitlines()[0], 1200)
    tshark = shutil.which("tshark")
    if tshark is None:
        crosslib.harness_error("tshark not found")
    m = crosslib.Mismatches("mrc.lua")

    # Pass 1: every MRC frame kind, MRC v1 framing (the default).
    pcap, frames = crosslib.generate(args, "mrc", "lua_mrc")
    mark_mrc_headers(frames, True)
    kinds = {f["_kind"].split("_op")[0].split("_type")[0] for f in frames}
    modes = {f["_placement"] for f in frames}
    compare_rows(m, run_tshark(tshark, pcap, FIELDS, []), frames, FIELDS)
    check_tree_labels(m, tshark, pcap, frames)

    # Pass 2: classic IBA frames with "MRC v1 framing" off: no RETH on MIDDLE/LAST, no MFEH.
    iba_args = type(args)(**dict(vars(args), count=max(args.count // 2, 100), seed=args.seed + 1))
    pcap2, frames2 = crosslib.generate(iba_args, "iba", "lua_iba")
    mark_mrc_headers(frames2, False)
    compare_rows(m, run_tshark(tshark, pcap2, FIELDS, ["mrc.v1_framing:FALSE"]), frames2, FIELDS)

    # Pass 3: the same IBA frames with the default preferences: MRC framing is recognised per
    # frame, so none of them may grow a RETH on MIDDLE/LAST or an MFEH.
    compare_rows(m, run_tshark(tshark, pcap2, FIELDS, []), frames2, FIELDS)

    m.finish(len(frames) + 2 * len(frames2), "; kinds %s; EV placements %s"
             % (",".join(sorted(kinds)), ",".join(sorted(modes))))


if __name__ == "__main__":
    main()
