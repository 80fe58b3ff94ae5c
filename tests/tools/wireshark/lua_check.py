#!/usr/bin/python3
"""dissector.mrc_lua: tshark with tools/wireshark/mrc.lua decodes every kind of MRC 1.0 frame
mrc_cross_gen writes (data 0xC6-0xCB, data trimmed by a switch, Transport ACK 0xD1, SACK 0xDC,
NACK 0xDD, probe 0xDE, endpoint request 0xD8 / response 0xD9; over UDP/IPv4, UDP/IPv6, STEV and
SRv6 with and without SRH) to the field values the generator asked for, and shows no field where
the frame has no such header.

Also: the tree labels carry their provenance tags ("(S1 Wn)", "(MODEL Wn)") and never a retired
model's "(MODEL Mn)"; the frames raise no expert warning or error (a trimmed packet gets exactly its
note, plus the UDP dissector's stale-length error); a copy of the capture written with a snap
length decodes with no error and the same trimmed verdicts (trimming is read from the wire
lengths, never the captured length); and the dissector registers no field or preference of the
retired model: no mrc.mfeh.* (the MFEH), no mrc.ep.* but the W10 request id mrc.ep.id (the
endpoint-operation header), no mrc.reth.per_packet and no "MRC v1 framing" preference.
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
# UDP checksum 0 is what RoCEv2 sends (W1); tell Wireshark, as the README says, so that only the
# items the MRC frames themselves cause remain.
BASE = ["-n", "-X", "lua_script:" + LUA, "-o", "udp.try_heuristic_first:TRUE",
        "-o", "udp.ignore_ipv6_zero_checksum:TRUE"]
# Side-file names that are no mrc.lua field: IBA's names for BTH byte 4 (MRC shows it as
# bth.var_res) and the UDP length (checked by the scapy / tshark cross tests).
NOT_MRC = {"bth.fecn", "bth.becn", "udp.length"}
TEXT_FIELDS = {"ev.mode", "trimmed_by"}
IPV6_FIELDS = {"ev.outer_da", "ev.srh_segment"}
DSCP_TRIM_NAMES = {11: "DSCP_TRIMMED", 13: "DSCP_TRIMMED_LASTHOP"}  # MODEL: W13 defaults
SNAPLEN = 150  # past the BTH of every placement (SRv6 + SRH: 138 bytes), inside most packets
SEP = "\x1f"   # aggregates repeated values; expert messages contain commas


def tshark(*args):
    cmd = [shutil.which("tshark")] + list(args)
    # tshark warns on stderr when run as root; a Lua error is reported there without failing.
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or "Lua: Error" in r.stderr or "lua_script" in r.stderr:
        crosslib.harness_error("%s failed (%d): %s" % (" ".join(cmd[:6]), r.returncode, r.stderr[-3000:]))
    return r.stdout


def fields_of(pcap, names):
    args = BASE + ["-r", pcap, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
                   "-E", "aggregator=" + SEP]
    for n in names:
        args += ["-e", n]
    return [row.split("\t") for row in tshark(*args).rstrip("\n").split("\n")]


def check_registration(m):
    """The registered fields and preferences (tshark -G with the plugin loaded)."""
    reg = [line.split("\t")[2] for line in tshark("-G", "fields", "-X", "lua_script:" + LUA).split("\n")
           if line.startswith("F\t") and "\tmrc." in line]
    if "mrc.seth.cack_psn" not in reg:
        crosslib.harness_error("tshark -G fields shows no MRC 1.0 field: the plugin did not load")
    retired = [f for f in reg if f.startswith("mrc.mfeh.") or (f.startswith("mrc.ep.") and f != "mrc.ep.id")
               or f == "mrc.reth.per_packet"]
    m.compare(-1, "registered fields", "retired mrc.mfeh.* / mrc.ep.* / mrc.reth.per_packet", [], retired)
    prefs = re.findall(r"^#?(mrc\.\w+):", tshark("-G", "currentprefs", "-X", "lua_script:" + LUA), re.M)
    if "mrc.check_icrc" not in prefs:
        crosslib.harness_error("tshark -G currentprefs shows no mrc preference")
    m.compare(-1, "preferences", "retired mrc.v1_framing / mrc.ev_format", [],
              [p for p in prefs if p in ("mrc.v1_framing", "mrc.ev_format")])
    return len(reg)


def expect_trimmed_by(f):
    """mrc.trimmed_by of a trimmed frame: the trimmed DSCPs, then the stale UDP length (W13)."""
    why = ["%s DSCP %d = %s" % (where, f[k], DSCP_TRIM_NAMES[f[k]])
           for where, k in (("outer", "dscp"), ("inner", "dscp_inner")) if f.get(k) in DSCP_TRIM_NAMES]
    why.append("UDP length %d > %d bytes the IP packet holds" % (f["udp.length"], f["_udp_bytes"]))
    return "; ".join(why)


def observed(field, text):
    first = text.split(SEP)[0]
    if field in IPV6_FIELDS:
        return ipaddress.IPv6Address(first)
    if field in TEXT_FIELDS:
        return first
    return crosslib.as_int(first)


def expected(field, value):
    return ipaddress.IPv6Address(bytes.fromhex(value)) if field in IPV6_FIELDS else value


def check_values(m, pcap, frames):
    """Every side-file field decodes to its value; every other field of the list is absent."""
    names = sorted({k for f in frames for k in f if not k.startswith("_") and k not in NOT_MRC})
    rows = fields_of(pcap, ["mrc." + n for n in names])
    if len(rows) != len(frames):
        crosslib.harness_error("tshark printed %d rows for %d frames" % (len(rows), len(frames)))
    for idx, (cols, exp) in enumerate(zip(rows, frames)):
        for name, text in zip(names, cols):
            if name not in exp:
                if text != "":
                    m.fail(idx, exp["_kind"], "mrc." + name, "(absent)", text)
                continue
            try:
                obs = observed(name, text) if text != "" else "(absent)"
            except ValueError:
                obs = text
            m.compare(idx, exp["_kind"], "mrc." + name, expected(name, exp[name]), obs)


def check_labels(m, pcap, frames):
    """The tree text: provenance tags counted against the frames that need them."""
    text = tshark(*(BASE + ["-r", pcap, "-V"]))
    fam = lambda f: f["_kind"].split("_")[0]  # noqa: E731
    want = {
        r"\(MODEL M\d": 0,  # a retired model entry
        r"Feedback Extension|Endpoint Operation Header|per-packet, MODEL|TRIM NACK": 0,
        r"Trimmed data packet \(MODEL W13\): True": sum(f["trimmed"] for f in frames),
        r"DMA Length = length of the whole message \(S1 W4\)": sum("reth.len" in f for f in frames),
        r"Opcode: MRC TRANSPORT ACK \(S1 W3\)": sum(fam(f) == "tack" for f in frames),
        r"Opcode: MRC RELIABILITY SACK \(S1 W3\)": sum(fam(f) == "sack" for f in frames),
        r"Opcode: MRC RELIABILITY NACK \(S1 W3\)": sum(fam(f) == "nack" for f in frames),
        r"Opcode: MRC RELIABILITY PROBE \(S1 W3\)": sum(fam(f) == "probe" for f in frames),
        r"Opcode: MRC ENDPOINT REQUEST \(S1 W3\)": sum(fam(f) == "epreq" for f in frames),
        r"Opcode: MRC ENDPOINT RESPONSE \(S1 W3\)": sum(fam(f) == "eprsp" for f in frames),
        r"EV value V = FL\[15:0\] << 16 \| UDP sport \(MODEL W2\)":
            sum(f["_l3"] == "ipv6" for f in frames),
        r"EV value V = UDP sport \(IPv4: upper 16 bits 0\) \(S1 W2\)":
            sum(f["_l3"] == "ipv4" for f in frames),
        r"SRH Segments Left \(MODEL W1\): 1": sum("ev.srh_segments_left" in f for f in frames),
    }
    for pattern, count in want.items():
        m.compare(-1, "tree text", pattern, count, len(re.findall(pattern, text)))


def check_experts(m, pcap, frames, what):
    """No expert warning or error and no malformed mark, but on a trimmed packet exactly its note
    plus the UDP dissector's 'Bad length value' (the UDP length it leaves stale, W13). Returns the
    mrc.trimmed values tshark shows."""
    rows = fields_of(pcap, ["_ws.expert.severity", "_ws.expert.message", "_ws.malformed", "mrc.trimmed"])
    trimmed = []
    for idx, (sevs, msgs, malformed, trim) in enumerate(rows):
        exp = frames[idx]
        kind = "%s (%s)" % (exp["_kind"], what)
        items = list(zip(sevs.split(SEP), msgs.split(SEP))) if msgs else []
        notes = [msg for _, msg in items if msg.startswith("Trimmed data packet (MODEL W13)")]
        m.compare(idx, kind, "trimmed-packet notes", exp["trimmed"], len(notes))
        bad = [msg for sev, msg in items if int(sev) >= 0x00600000
               and not (exp["trimmed"] and msg.startswith("Bad length value"))]
        m.compare(idx, kind, "expert warnings/errors", [], bad)
        if malformed and not exp["trimmed"]:
            m.fail(idx, kind, "_ws.malformed", "(absent)", malformed)
        trimmed.append(crosslib.as_int(trim) if trim else None)
    return trimmed


def main():
    args = crosslib.parse_args(__doc__.splitlines()[0], 1200)
    if shutil.which("tshark") is None:
        crosslib.harness_error("tshark not found")
    m = crosslib.Mismatches("mrc.lua")
    registered = check_registration(m)

    pcap, frames = crosslib.generate(args, "mrc", "lua_mrc")
    for f in frames:
        if f["trimmed"]:
            f["trimmed_by"] = expect_trimmed_by(f)
    kinds = {f["_kind"].split("_")[0] for f in frames}
    modes = {f["_placement"] for f in frames}
    if len(kinds) < 8 or len(modes) < 5:
        crosslib.harness_error("the capture lacks frame kinds or EV placements: %s / %s" % (kinds, modes))
    check_values(m, pcap, frames)
    check_labels(m, pcap, frames)
    full = check_experts(m, pcap, frames, "full capture")
    m.compare(-1, "full capture", "mrc.trimmed per frame", [f["trimmed"] for f in frames], full)

    snap = crosslib.snap_copy(pcap, os.path.join(args.workdir, "lua_mrc_snap%d.pcap" % SNAPLEN), SNAPLEN)
    cut = check_experts(m, snap, frames, "snap length %d" % SNAPLEN)
    m.compare(-1, "snap length %d" % SNAPLEN, "mrc.trimmed per frame", full, cut)

    m.finish(len(frames), "; kinds %s; EV placements %s; %d mrc.* fields registered, none retired; "
             "snap length %d copy clean"
             % (",".join(sorted(kinds)), ",".join(sorted(modes)), registered, SNAPLEN))


if __name__ == "__main__":
    main()
