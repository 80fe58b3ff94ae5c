#!/usr/bin/python3
"""dissector.mrc_w_vectors: tools/wireshark/mrc.lua decodes the MRC 1.0 wire layouts of
mrc-wire-model.md section 5 (wire model v2, W1-W19) to the values this script put in.

The script builds every frame itself (no project binary): the test vectors V1-V6 of W19 wrapped in
whole Ethernet + IPv6 + UDP 4791 + BTH + header + ICRC frames, one frame of each MRC 1.0 opcode
with random field values, SACKs with pr = 0 and pr = 1, data packets with and without TSETH, over
IPv6 (STEV), IPv4 (UDP mode) and SRv6, trimmed data packets (DSCP 11 and 13 with the IP length
fixed and the UDP length stale, a length-only trim, a DSCP-only trim), unknown opcodes 0xC0, 0xC1,
0xE0, an unknown NACK reason, a NACK whose nack_psn disagrees with its BTH, a wrong data ICRC, and,
in a second capture written with snap length 96, whole packets cut by the capture only.

tshark runs three times over each capture: -T json for every mrc.* value and the expert items,
-T pdml for the tree labels ("(MODEL Wn)" / "(S1 Wn)" provenance), -T fields for the Info column.
Checks: the set of mrc.* fields of every frame equals the expected set and every value matches;
labels carry their tag; no frame has a malformed mark; the expert items are exactly the expected
ones, apart from two UDP ones the wire form forces (a stale UDP length after trimming; a zero UDP
checksum over IPv6 in V6 exactly as W19 prints it).
"""

import argparse
import ipaddress
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
LUA = os.path.join(ROOT, "tools", "wireshark", "mrc.lua")

ROCE_PORT = 4791
SEV = {"error": 0x00800000, "warn": 0x00600000, "note": 0x00400000, "chat": 0x00200000}
SEV_NAME = {v: k for k, v in SEV.items()}
M24 = 1 << 24

# ---------------------------------------------------------------------------------------------
# Packet building (mrc-wire-model.md sections 2 and 5). Multi-byte fields big-endian; ICRC LSB first.
# ---------------------------------------------------------------------------------------------


def be(v, n):
    return (v % (1 << (8 * n))).to_bytes(n, "big")


def icrc(ip_udp_roce, v4):
    """RoCEv2 ICRC (section 2.5): CRC-32 over 8 x 0xFF, the IP header with its variant fields set
    to ones, UDP with the checksum set to ones, the BTH with byte 4 set to ones, and the rest."""
    b = bytearray(ip_udp_roce)
    if v4:
        ihl = (b[0] & 0x0F) * 4
        b[1] = 0xFF                 # TOS
        b[8] = 0xFF                 # TTL
        b[10] = b[11] = 0xFF        # header checksum
    else:
        ihl = 40
        b[0] |= 0x0F                # traffic class (low nibble of byte 0) ...
        b[1] = b[2] = b[3] = 0xFF   # ... and flow label
        b[7] = 0xFF                 # hop limit
    b[ihl + 6] = b[ihl + 7] = 0xFF  # UDP checksum
    b[ihl + 8 + 4] = 0xFF           # BTH byte 4
    return zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF


def ones_sum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def udp6_checksum(src, dst, udp):
    c = 0xFFFF - ones_sum(src + dst + be(len(udp), 4) + b"\0\0\0\x11" + udp)
    return c or 0xFFFF


def ipv6(dscp, fl, plen, nh, src, dst, ecn=0, hl=64):
    return be((6 << 28) | (dscp << 22) | (ecn << 20) | fl, 4) + be(plen, 2) + bytes([nh, hl]) + src + dst


def ipv4(dscp, total, src, dst, ecn=0, ttl=64, ident=0x1234):
    h = bytearray(bytes([0x45, (dscp << 2) | ecn]) + be(total, 2) + be(ident, 2) + b"\x40\0" +
                  bytes([ttl, 17]) + b"\0\0" + src + dst)
    h[10:12] = be(0xFFFF - ones_sum(bytes(h)), 2)
    return bytes(h)


A1 = bytes.fromhex("fd000000000000000000000000000001")
A2 = bytes.fromhex("fd000000000000000000000000000002")
V4A, V4B = bytes([10, 20, 0, 1]), bytes([10, 20, 0, 2])
ETH = bytes.fromhex("02005e100002" "02005e100001")
SRV6_OUTER_DA = bytes.fromhex("fc000001" "0011" "0022" "0033" "0000" "0000" "0000")
SRV6_SEGMENT = bytes.fromhex("fc000002" "0044" "0055" "0000" "0000" "0000" "0000")


def frame(roce, l3="ipv6", dscp=10, fl=0, sport=0xC000, udp_csum=True, bad_icrc=False,
          trim_to=None, inner_dscp=None):
    """Ethernet + IP + UDP + `roce` (BTH .. pad) + ICRC. trim_to: keep that many bytes from the BTH
    on and fix the IP length(s), leaving the UDP length, checksum and ICRC stale (W13)."""
    udp_len = 8 + len(roce) + 4
    if l3 == "ipv4":
        ip = ipv4(dscp, 20 + udp_len, V4A, V4B)
        udp = be(sport, 2) + be(ROCE_PORT, 2) + be(udp_len, 2) + b"\0\0"
    else:
        ip = ipv6(inner_dscp if l3 == "srv6" else dscp, fl, udp_len, 17, A1, A2)
        udp = be(sport, 2) + be(ROCE_PORT, 2) + be(udp_len, 2) + b"\0\0"
    crc = icrc(ip + udp + roce, l3 == "ipv4")
    if bad_icrc:
        crc ^= 0x00010000
    dgram = udp + roce + struct.pack("<I", crc)
    if udp_csum and l3 != "ipv4":
        dgram = dgram[:6] + be(udp6_checksum(A1, A2, dgram), 2) + dgram[8:]
    if trim_to is not None:
        dgram = dgram[:8 + trim_to]
        if l3 == "ipv4":
            ip = ipv4(dscp, 20 + len(dgram), V4A, V4B)
        else:
            ip = ip[:4] + be(len(dgram), 2) + ip[6:]
    pkt = ip + dgram
    if l3 == "srv6":  # outer IPv6 + one-segment SRH (SL = 1) + the inner packet (W1)
        srh = bytes([41, 2, 4, 1, 0, 0, 0, 0]) + SRV6_SEGMENT
        pkt = ipv6(dscp, fl, len(srh) + len(pkt), 43, A1, SRV6_OUTER_DA) + srh + pkt
    return ETH + (b"\x08\x00" if l3 == "ipv4" else b"\x86\xdd") + pkt


def bth(op, dqpn, psn, a=0, r=0, rtx=0, ts=0, pad=0, se=0, mig=0, pkey=0xFFFF, tver=0, var_res=0,
        inv=0):
    return dict(op=op, dqpn=dqpn, psn=psn, a=a, r=r, rtx=rtx, ts=ts, pad=pad, se=se, mig=mig,
                pkey=pkey, tver=tver, var_res=var_res, inv=inv)


def bth_bytes(h):
    b1 = (h["se"] << 7) | (h["mig"] << 6) | (h["pad"] << 4) | h["tver"]
    b8 = (h["a"] << 7) | (h["r"] << 6) | (h["rtx"] << 5) | (h["ts"] << 4) | h["inv"]
    return (bytes([h["op"], b1]) + be(h["pkey"], 2) + bytes([h["var_res"]]) + be(h["dqpn"], 3) +
            bytes([b8]) + be(h["psn"], 3))


def bth_expect(h):
    e = {"bth.opcode": h["op"], "bth.se": h["se"], "bth.m": h["mig"], "bth.padcnt": h["pad"],
         "bth.tver": h["tver"], "bth.pkey": h["pkey"], "bth.var_res": h["var_res"],
         "bth.dqpn": h["dqpn"], "bth.flags": (h["a"] << 7) | (h["r"] << 6) | (h["rtx"] << 5) |
         (h["ts"] << 4) | h["inv"], "bth.ackreq": h["a"], "bth.r": h["r"], "bth.rtx": h["rtx"],
         "bth.ts": h["ts"], "bth.inv_res": h["inv"], "bth.psn": h["psn"]}
    if h["op"] in (0xD8, 0xD9):
        e["ep.id"] = h["psn"] & 0xFFFF
    if h["op"] == 0xD1:
        e["tack.cack_psn"] = h["psn"]
    return e


def prologue_bytes(typ, nh, low7):
    return be((typ << 12) | (nh << 7) | low7, 2)


# SETH + CC_STATE (W5)
def seth_bytes(s):
    low7 = (s["m"] << 5) | s["rbits"] | (s["pr"] << 1)
    slot = s["probe_id"] if s["pr"] else s["ack_psn_offset"]
    return (prologue_bytes(s["type"], s["nh"], low7) + be(slot, 2) + be(s["entropy"], 4) +
            be(s["spdcid"], 2) + be(s["dpdcid"], 2) + bytes([s["rsvd"]]) + be(s["cack"], 3) +
            bytes([(s["cc_type"] << 4) | s["cc_flags"], s["mpr"]]) + be(s["sack_offset"], 2) +
            be(s["bitmap"], 8) + be(s["cc_ts"], 2) + be((s["ooo_rsvd"] << 15) | s["ooo"], 2) +
            bytes([(s["restore"] << 7) | s["pen"]]) + be(s["rcvd"], 3))


def seth_expect(s):
    base = (s["cack"] + s["sack_offset"]) % M24
    psns = [(base + k) % M24 for k in range(64) if (s["bitmap"] >> k) & 1]
    e = {"hdr.type": s["type"], "hdr.nh": s["nh"], "seth.m": s["m"], "seth.reserved_bits": s["rbits"],
         "seth.pr": s["pr"], "seth.entropy": s["entropy"], "seth.spdcid": s["spdcid"],
         "seth.dpdcid": s["dpdcid"], "seth.reserved": s["rsvd"], "seth.cack_psn": s["cack"],
         "seth.cc_type": s["cc_type"], "seth.cc_flags": s["cc_flags"], "seth.mpr": s["mpr"],
         "seth.mpr_psns": s["mpr"] * 128, "seth.sack_offset": s["sack_offset"],
         "seth.sack_base": base, "seth.sack_bitmap": s["bitmap"], "seth.sack_count": len(psns),
         "cc.tx_timestamp": s["cc_ts"], "cc.reserved": s["ooo_rsvd"], "cc.ooo_count": s["ooo"],
         "cc.restore_cwnd": s["restore"], "cc.rcv_cwnd_pen": s["pen"], "cc.rcvd_bytes": s["rcvd"],
         "cc.rcvd_bytes_x256": s["rcvd"] * 256}
    if psns:
        e["seth.sack_psn"] = psns
    if s["pr"]:
        e["seth.probe_id"] = s["probe_id"]
    else:
        e["seth.ack_psn_offset"] = s["ack_psn_offset"]
        e["seth.ack_psn"] = (s["cack"] + s["ack_psn_offset"]) % M24
    return e


# NETH (W7)
def neth_bytes(n):
    return (prologue_bytes(n["type"], n["nh"], 0) + bytes([n["reason"], n["vendor"]]) +
            be(n["entropy"], 4) + be(n["spdcid"], 2) + be(n["dpdcid"], 2) + b"\0" +
            be(n["psn"], 3) + bytes([(n["cc_type"] << 4) | n["cc_flags"], 0]) + be(n["ts"], 2))


def neth_expect(n):
    return {"hdr.type": n["type"], "hdr.nh": n["nh"], "hdr.reserved_bits": 0,
            "neth.reason": n["reason"], "neth.vendor_info": n["vendor"], "neth.entropy": n["entropy"],
            "neth.spdcid": n["spdcid"], "neth.dpdcid": n["dpdcid"], "neth.reserved": [0, 0],
            "neth.nack_psn": n["psn"], "neth.cc_type": n["cc_type"], "neth.cc_flags": n["cc_flags"],
            "neth.tx_timestamp": n["ts"]}


def ts_tail_bytes(ts, tsr, ftype):
    return be(ts, 2) + be((tsr << 15) | ftype, 2)


def ts_tail_expect(prefix, name, ts, tsr, ftype):
    return {prefix + "." + name: ts, prefix + ".tsr": tsr, prefix + ".ts_reserved": 0,
            prefix + ".ftype": ftype}


# PETH (W9)
def peth_bytes(p):
    return (prologue_bytes(p["type"], p["nh"], 0) + bytes([0, p["vendor"]]) + be(p["probe_id"], 2) +
            b"\0\0" + be(p["spdcid"], 2) + be(p["dpdcid"], 2) + ts_tail_bytes(p["ts"], p["tsr"], p["ftype"]))


def peth_expect(p):
    e = {"hdr.type": p["type"], "hdr.nh": p["nh"], "hdr.reserved_bits": 0, "peth.reserved": 0,
         "peth.vendor_info": p["vendor"], "peth.probe_id": p["probe_id"], "peth.reserved16": 0,
         "peth.spdcid": p["spdcid"], "peth.dpdcid": p["dpdcid"]}
    e.update(ts_tail_expect("peth", "tx_timestamp", p["ts"], p["tsr"], p["ftype"]))
    return e


# ERTH / EETH (W10): ERTH op at byte 1 bits 1..0; EETH op at byte 1 bits 3..2 (MODEL W10)
def erth_bytes(q):
    return (prologue_bytes(q["type"], q["nh"], q["op"]) + bytes([0, q["vendor"]]) + be(q["mask"], 4) +
            b"\0" * 4 + ts_tail_bytes(q["ts"], q["tsr"], q["ftype"]))


def erth_expect(q):
    e = {"hdr.type": q["type"], "hdr.nh": q["nh"], "erth.reserved_bits": 0, "erth.op": q["op"],
         "erth.reserved": 0, "erth.vendor_info": q["vendor"], "erth.port_status_mask": q["mask"],
         "erth.reserved32": 0}
    e.update(ts_tail_expect("erth", "tx_timestamp", q["ts"], q["tsr"], q["ftype"]))
    return e


def eeth_bytes(q):
    return prologue_bytes(q["type"], q["nh"], q["op"] << 2) + q["raw"] + be(q["ts"], 2) + b"\0" * 6


def eeth_expect(q):
    return {"hdr.type": q["type"], "hdr.nh": q["nh"], "eeth.op": q["op"], "eeth.undecoded": q["raw"],
            "eeth.tx_timestamp": q["ts"], "eeth.reserved": bytes(6)}


# Data packets (W4): METH [TSETH] RETH [ImmDt] payload pad
def data_bytes(d):
    out = be(d["rqmsn"], 2) + be(d["msn"], 2)
    if d["bth"]["ts"]:
        out += ts_tail_bytes(d["ts"], d["tsr"], d["ftype"])
    out += be(d["va"], 8) + be(d["rkey"], 4) + be(d["dmalen"], 4)
    if d["bth"]["op"] in (0xC9, 0xCB):
        out += be(d["imm"], 4)
    return out + d["payload"] + b"\0" * d["bth"]["pad"]


def data_expect(d, keep=None):
    """keep: bytes after the BTH left on the wire by trimming (None: whole packet)."""
    e, off = {}, 0
    have = (lambda n: keep is None or off + n <= keep)
    if have(4):
        e.update({"meth.rqmsn": d["rqmsn"], "meth.msn": d["msn"]})
        off += 4
    else:
        return e
    if d["bth"]["ts"]:
        if not have(4):
            return e
        e.update(ts_tail_expect("tseth", "ts", d["ts"], d["tsr"], d["ftype"]))
        off += 4
    if not have(16):
        return e
    e.update({"reth.va": d["va"], "reth.rkey": d["rkey"], "reth.len": d["dmalen"]})
    off += 16
    if d["bth"]["op"] in (0xC9, 0xCB):
        if not have(4):
            return e
        e["immdt"] = d["imm"]
        off += 4
    if keep is None:
        e["payload_len"] = len(d["payload"])
        if d["payload"]:
            e["payload"] = d["payload"]
        if d["bth"]["pad"]:
            e["pad"] = bytes(d["bth"]["pad"])
    else:
        e["payload_len"] = keep - off
        if keep > off:
            e["payload"] = d["payload"][:keep - off]
    return e


def lower_expect(l3, dscp, fl, sport, inner_dscp=None):
    e = {"dscp": dscp, "ev.sport": sport}
    if l3 == "ipv4":
        e.update({"ev.mode": "UDP (IPv4)", "ev.value": sport})
    else:
        e.update({"ev.mode": "SRv6" if l3 == "srv6" else ("STEV" if fl else "UDP (flow label 0)"),
                  "ev.flow_label": fl, "ev.value": ((fl & 0xFFFF) << 16) | sport})
    if l3 == "srv6":
        e.update({"dscp_inner": inner_dscp, "ev.outer_da": SRV6_OUTER_DA, "ev.srh_segment": SRV6_SEGMENT,
                  "ev.srh_segments_left": 1})  # the SRH frame() writes has Segments Left 1
    return e


# ---------------------------------------------------------------------------------------------
# The frames
# ---------------------------------------------------------------------------------------------

class Case:
    def __init__(self, name, data, expect, experts=(), foreign_ok=(), labels=(), info=None, orig=None):
        self.name, self.data, self.expect = name, data, expect
        self.experts = list(experts)        # (severity, text) MRC expert items, exactly these
        self.foreign_ok = list(foreign_ok)  # texts of non-MRC expert items this wire form forces
        self.labels = list(labels)          # (field, tag) the frame's labels must show
        self.info = info                    # text the Info column must contain
        self.orig = orig


def wrap(name, h, body, body_expect, rng=None, l3="ipv6", dscp=46, fl=None, sport=None, **kw):
    """A control/data frame: BTH h + body bytes, with the frame's full expected decode."""
    rng = rng or random.Random(name)
    fl = rng.randrange(1, 1 << 20) if fl is None else fl
    sport = rng.randrange(0xC000, 0x10000) if sport is None else sport
    roce = bth_bytes(h) + body
    expect_icrc = not kw.get("bad_icrc")
    data = frame(roce, l3=l3, dscp=dscp, fl=fl, sport=sport, inner_dscp=kw.get("inner_dscp"),
                 bad_icrc=kw.get("bad_icrc", False), udp_csum=kw.get("udp_csum", True))
    e = bth_expect(h)
    e.update(body_expect)
    e.update(lower_expect(l3, dscp, fl, sport, kw.get("inner_dscp")))
    ip_off = 14 + (40 + 24 if l3 == "srv6" else 0)  # the ICRC covers the inner packet under SRv6
    good = icrc(data[ip_off:-4], l3 == "ipv4")
    e.update({"icrc": struct.unpack("<I", data[-4:])[0], "icrc_computed": good,
              "icrc_ok": int(expect_icrc), "trimmed": 0, "mrc_hdrs": 1})
    return data, e


def rand_bth(rng, op, dqpn=None, psn=None, **kw):
    return bth(op, rng.randrange(0x11, 1 << 24) if dqpn is None else dqpn,
               rng.randrange(M24) if psn is None else psn, **kw)


def rand_seth(rng, pr):
    return dict(type=rng.randrange(16), nh=rng.randrange(32), m=rng.randrange(3), rbits=0, pr=pr,
                probe_id=rng.randrange(1 << 16), ack_psn_offset=rng.randrange(-200, 200),
                entropy=rng.randrange(1 << 32), spdcid=rng.randrange(1 << 16),
                dpdcid=rng.randrange(1 << 16), rsvd=0, cack=rng.randrange(M24),
                cc_type=rng.randrange(16), cc_flags=rng.randrange(16), mpr=rng.randrange(256),
                sack_offset=rng.randrange(-3000, 3000), bitmap=rng.getrandbits(64),
                cc_ts=rng.randrange(1 << 16), ooo_rsvd=0, ooo=rng.randrange(1 << 15),
                restore=rng.randrange(2), pen=rng.randrange(128), rcvd=rng.randrange(M24))


def rand_data(rng, op, ts, payload_len, tsr=0):
    pad = (-payload_len) % 4
    h = rand_bth(rng, op, a=rng.randrange(2), r=rng.randrange(2), rtx=rng.randrange(2), ts=ts, pad=pad,
                 se=rng.randrange(2) if op in (0xC9, 0xCB) else 0)
    return dict(bth=h, rqmsn=rng.randrange(1 << 16), msn=rng.randrange(1 << 16), ts=rng.randrange(1 << 16),
                tsr=tsr, ftype=1, va=rng.getrandbits(64), rkey=rng.getrandbits(32),
                dmalen=rng.randrange(payload_len, 1 << 31), imm=rng.getrandbits(32),
                payload=bytes(rng.getrandbits(8) for _ in range(payload_len)))


W19_V1 = "00 22 ff fe de ad be ef 00 11 00 22 00 00 00 10 0a 02 00 05 80 00 00 00 00 00 00 01 be ef 12 34 95 ab cd ef"
W19_V2_BTH = "dc 00 ff ff 00 00 00 11 00 00 00 04"
W19_V2 = ("00 20 00 07 12 34 56 78 00 22 00 11 00 00 00 04 00 00 00 01 00 00 00 00 00 00 00 76 01 00 "
          "00 05 00 00 00 30")
W19_V3 = "00 00 0b 77 ca fe f0 0d 00 22 00 11 00 12 34 56 23 00 43 21"
W19_V4 = "00 00 00 5a 99 99 00 00 00 11 00 22 11 11 80 01"
W19_V5_BTH = "d8 00 ff ff 00 00 00 02 00 00 ab cd"
W19_V5 = "00 01 00 42 00 00 00 0f 00 00 00 00 22 22 00 01"
W19_V6 = ("6680123400401140fd000000000000000000000000000001fd000000000000000000000000000002567812b7004000"
          "00ca00ffff0000012390000010000000001234000100000000100000000000123400000010000102030405060708"
          "090a0b0c0d0e0f")
SECTION_2_5 = ("6681234500381140fd000000000000000000000000000001fd000000000000000000000000000002c0de12b70038"
               "00000a00ffff000001238000001000000000100000000000123400000010000102030405060708090a0b0c0d0e0f")


def pinned(what, ours, hexstr, problems):
    """Our encoder must reproduce the W19 bytes, so the expectations built from the same fields
    are the vector's decode."""
    want = bytes.fromhex(hexstr.replace(" ", ""))
    if ours != want:
        problems.append("%s: encoder gives %s, W19 says %s" % (what, ours.hex(), want.hex()))


def vector_cases(problems):
    cases = []
    # ICRC recipe first: the section 2.5 vector, then V6.
    if icrc(bytes.fromhex(SECTION_2_5), False) != 0x41FE4829:
        problems.append("ICRC recipe does not reproduce the section 2.5 vector 0x41FE4829")
    v6 = bytes.fromhex(W19_V6)
    if icrc(v6, False) != 0x4A8E9CCD:
        problems.append("V6 ICRC is 0x%08x, W19 says 0x4A8E9CCD" % icrc(v6, False))

    # V1: SETH + CC_STATE, every field distinct (pr = 1, so the offset slot is the probe_id)
    s1 = dict(type=0, nh=0, m=1, rbits=0, pr=1, probe_id=0xFFFE, ack_psn_offset=-2, entropy=0xDEADBEEF,
              spdcid=0x11, dpdcid=0x22, rsvd=0, cack=0x10, cc_type=0, cc_flags=0xA, mpr=2, sack_offset=5,
              bitmap=0x8000000000000001, cc_ts=0xBEEF, ooo_rsvd=0, ooo=0x1234, restore=1, pen=0x15,
              rcvd=0xABCDEF)
    pinned("V1", seth_bytes(s1), W19_V1, problems)
    h = bth(0xDC, 0x11, 0x10)
    data, e = wrap("V1", h, seth_bytes(s1), seth_expect(s1))
    if e["seth.sack_psn"] != [0x15, 0x15 + 63]:
        problems.append("V1 bitmap PSNs %s" % e["seth.sack_psn"])
    cases.append(Case("V1 SETH+CC_STATE", data, e, info="probe_id=0xfffe",
                      labels=[("mrc.seth.probe_id", "S1 W5"), ("mrc.seth.cc_flags", "MODEL W5"),
                              ("mrc.seth.sack_bitmap", "S1 W5"), ("mrc.seth.sack_psn", "S1 W5"),
                              ("mrc.cc.rcvd_bytes", "S1 W5"), ("mrc.cc.rcvd_bytes_x256", "S1 W5"),
                              ("mrc.bth.opcode", "S1 W3")]))

    # V2: the F5 example as a real SACK (pr = 0)
    s2 = dict(type=0, nh=0, m=1, rbits=0, pr=0, probe_id=0, ack_psn_offset=7, entropy=0x12345678,
              spdcid=0x22, dpdcid=0x11, rsvd=0, cack=4, cc_type=0, cc_flags=0, mpr=0, sack_offset=1,
              bitmap=0x76, cc_ts=0x0100, ooo_rsvd=0, ooo=5, restore=0, pen=0, rcvd=0x30)
    h = bth(0xDC, 0x11, 4)
    pinned("V2 BTH", bth_bytes(h), W19_V2_BTH, problems)
    pinned("V2", seth_bytes(s2), W19_V2, problems)
    data, e = wrap("V2", h, seth_bytes(s2), seth_expect(s2))
    if (e["seth.ack_psn"], e["seth.sack_psn"]) != (11, [6, 7, 9, 10, 11]):
        problems.append("V2 ack_psn/bitmap PSNs %s %s" % (e["seth.ack_psn"], e["seth.sack_psn"]))
    cases.append(Case("V2 SACK (F5 example)", data, e, info="ack_psn=11",
                      labels=[("mrc.seth.mpr", "S1 W5")]))

    # V3: NETH PSN_OOR_WINDOW (0x0B: the one [S2] reason, so no tag)
    n3 = dict(type=0, nh=0, reason=0x0B, vendor=0x77, entropy=0xCAFEF00D, spdcid=0x22, dpdcid=0x11,
              psn=0x123456, cc_type=2, cc_flags=3, ts=0x4321)
    pinned("V3", neth_bytes(n3), W19_V3, problems)
    data, e = wrap("V3", bth(0xDD, 0x11, 0x123456), neth_bytes(n3), neth_expect(n3))
    cases.append(Case("V3 NETH", data, e, info="PSN_OOR_WINDOW",
                      labels=[("mrc.neth.cc_flags", "MODEL W7"), ("mrc.neth.tx_timestamp", "S1 W7"),
                              ("mrc.neth.reason", None)]))

    # V4: PETH, sent in the Data class
    p4 = dict(type=0, nh=0, vendor=0x5A, probe_id=0x9999, spdcid=0x11, dpdcid=0x22, ts=0x1111, tsr=1,
              ftype=1)
    pinned("V4", peth_bytes(p4), W19_V4, problems)
    data, e = wrap("V4", bth(0xDE, 0x22, 0), peth_bytes(p4), peth_expect(p4), dscp=10)
    cases.append(Case("V4 PETH", data, e, info="probe_id=0x9999", labels=[("mrc.peth.tsr", "MODEL W4")]))

    # V5: endpoint request EV_PROBE
    q5 = dict(type=0, nh=0, op=1, vendor=0x42, mask=0x0000000F, ts=0x2222, tsr=0, ftype=1)
    h = bth(0xD8, 0x2, 0xABCD)
    pinned("V5 BTH", bth_bytes(h), W19_V5_BTH, problems)
    pinned("V5", erth_bytes(q5), W19_V5, problems)
    data, e = wrap("V5", h, erth_bytes(q5), erth_expect(q5))
    cases.append(Case("V5 ERTH", data, e, info="EV_PROBE id=0xabcd",
                      labels=[("mrc.erth.op", "S1 W10"), ("mrc.erth.port_status_mask", "MODEL W10")]))

    # V6: the whole IPv6 packet of W19 plus its ICRC; exactly as printed (UDP checksum 0, which
    # Wireshark flags on IPv6) and with a real UDP checksum (masked by the ICRC, which stays).
    d6 = dict(bth=bth(0xCA, 0x123, 0x10, a=1, ts=1), rqmsn=0, msn=0, ts=0x1234, tsr=0, ftype=1,
              va=0x10000000, rkey=0x1234, dmalen=16, imm=0, payload=bytes(range(16)))
    ours = ipv6(26, 0x01234, 64, 17, A1, A2) + be(0x5678, 2) + be(ROCE_PORT, 2) + be(64, 2) + b"\0\0" + \
        bth_bytes(d6["bth"]) + data_bytes(d6)
    pinned("V6", ours, W19_V6, problems)
    for csum in (False, True):
        dgram = v6[40:] + struct.pack("<I", 0x4A8E9CCD)
        if csum:
            dgram = dgram[:6] + be(udp6_checksum(A1, A2, dgram), 2) + dgram[8:]
        pkt = v6[:40] + dgram
        if icrc(pkt[:-4], False) != 0x4A8E9CCD:
            problems.append("V6 ICRC changed with the UDP checksum (it must be masked)")
        e = bth_expect(d6["bth"])
        e.update(data_expect(d6))
        e.update(lower_expect("ipv6", 26, 0x01234, 0x5678))
        e.update({"icrc": 0x4A8E9CCD, "icrc_computed": 0x4A8E9CCD, "icrc_ok": 1, "trimmed": 0, "mrc_hdrs": 1})
        cases.append(Case("V6 data%s" % (" +UDP checksum" if csum else " as printed"), ETH + b"\x86\xdd" + pkt,
                          e, foreign_ok=[] if csum else ["Illegal checksum value (0)"],
                          labels=[("mrc.reth.len", "S1 W4"), ("mrc.meth.rqmsn", "S1 W4"),
                                  ("mrc.meth.msn", "S1 W4"), ("mrc.ev.value", "MODEL W2"),
                                  ("mrc.ev.flow_label", "MODEL W2"), ("mrc.bth.se", "MODEL W3"),
                                  ("mrc.bth.m", "MODEL W3"), ("mrc.bth.var_res", "MODEL W3"),
                                  ("mrc.dscp", "MODEL W13"), ("mrc.trimmed", "MODEL W13"),
                                  ("mrc.bth.opcode", None)]))
    return cases


def random_cases(rng):
    cases = []
    # Data opcodes: TS alternates so both layouts occur; the LAST IMM one has a 13-byte payload (pad 3)
    for i, op in enumerate(range(0xC6, 0xCC)):
        plen = 64 if op in (0xC6, 0xC7) else (13 if op == 0xC9 else rng.randrange(1, 64))
        d = rand_data(rng, op, ts=i % 2, payload_len=plen, tsr=1 if op == 0xC8 else 0)
        data, e = wrap("data %02x" % op, d["bth"], data_bytes(d), data_expect(d), rng, dscp=10)
        labels = [("mrc.reth.len", "S1 W4"), ("mrc.bth.opcode", None)]
        if d["bth"]["ts"] and d["tsr"]:
            labels.append(("mrc.tseth.tsr", "MODEL W4"))
        cases.append(Case("data 0x%02x TS=%d" % (op, d["bth"]["ts"]), data, e, labels=labels,
                          info="MSN=%d" % d["msn"]))
    # IPv4 (UDP mode) and SRv6 data packets: the EV comes from sport / the inner IPv6 header (W2)
    d = rand_data(rng, 0xCA, ts=1, payload_len=20)
    data, e = wrap("ipv4", d["bth"], data_bytes(d), data_expect(d), rng, l3="ipv4", dscp=10)
    cases.append(Case("data 0xca IPv4", data, e, labels=[("mrc.ev.value", "S1 W2")]))
    d = rand_data(rng, 0xC8, ts=0, payload_len=40)
    data, e = wrap("srv6", d["bth"], data_bytes(d), data_expect(d), rng, l3="srv6", dscp=10, inner_dscp=12)
    cases.append(Case("data 0xc8 SRv6", data, e, labels=[("mrc.dscp_inner", "MODEL W13")]))
    # Transport ACK (W8): ACK 0x1F, and a remote-access NAK
    for syn in (0x1F, 0x62):
        h = rand_bth(rng, 0xD1)
        msn = rng.randrange(M24)
        e = {"aeth.syndrome": syn, "aeth.type": syn >> 5, "aeth.code": syn & 0x1F, "aeth.msn": msn}
        data, e = wrap("tack %x" % syn, h, bytes([syn]) + be(msn, 3), e, rng)
        labels = [("mrc.aeth.msn", "S1 W8"), ("mrc.tack.cack_psn", "S1 W3"), ("mrc.bth.opcode", "S1 W3")]
        if syn == 0x1F:
            labels.append(("mrc.aeth.syndrome", "S1 W8"))
        cases.append(Case("Transport ACK syndrome 0x%02x" % syn, data, e, labels=labels,
                          info="cack=%d" % h["psn"]))
    # Endpoint request / response (W10)
    q = dict(type=rng.randrange(16), nh=rng.randrange(32), op=0, vendor=rng.randrange(256),
             mask=rng.getrandbits(32), ts=rng.randrange(1 << 16), tsr=0, ftype=1)
    h = rand_bth(rng, 0xD8, dqpn=2, psn=rng.randrange(1 << 16))
    data, e = wrap("erth", h, erth_bytes(q), erth_expect(q), rng)
    cases.append(Case("ERTH PORT_STATUS_UPDATE", data, e, info="PORT_STATUS_UPDATE id=0x%04x" % h["psn"],
                      labels=[("mrc.erth.op", "S1 W10"), ("mrc.bth.opcode", "S1 W3")]))
    # op = 1 (EV_PROBE echoed): non-zero, so the bit position of EETH.op (MODEL W10) is tested
    q = dict(type=rng.randrange(16), nh=rng.randrange(32), op=1,
             raw=bytes(rng.getrandbits(8) for _ in range(26)), ts=rng.randrange(1 << 16))
    h = rand_bth(rng, 0xD9, dqpn=2, psn=rng.randrange(1 << 16))
    data, e = wrap("eeth", h, eeth_bytes(q), eeth_expect(q), rng)
    cases.append(Case("EETH", data, e, info="id=0x%04x" % h["psn"],
                      labels=[("mrc.eeth.op", "MODEL W10"), ("mrc.eeth.tx_timestamp", "MODEL W10"),
                              ("mrc.bth.opcode", "S1 W3")]))
    # SACKs with pr = 0 and pr = 1 (W5, W9)
    for pr in (0, 1):
        s = rand_seth(rng, pr)
        data, e = wrap("sack pr%d" % pr, rand_bth(rng, 0xDC, psn=s["cack"]), seth_bytes(s), seth_expect(s), rng)
        cases.append(Case("SACK pr=%d" % pr, data, e, info="cack=%d" % s["cack"],
                          labels=[("mrc.seth.sack_psn", "S1 W5"), ("mrc.seth.cc_flags", "MODEL W5")] +
                          ([("mrc.seth.probe_id", "S1 W5")] if pr else [])))
    # NACK with every known reason, and an unknown one (W7)
    for reason in (0x01, 0x02, 0x06, 0x07, 0x0A, 0x0B, 0x19, 0x33):
        n = dict(type=rng.randrange(16), nh=rng.randrange(32), reason=reason, vendor=rng.randrange(256),
                 entropy=rng.getrandbits(32), spdcid=rng.randrange(1 << 16), dpdcid=rng.randrange(1 << 16),
                 psn=rng.randrange(M24), cc_type=rng.randrange(16), cc_flags=rng.randrange(16),
                 ts=rng.randrange(1 << 16))
        data, e = wrap("nack %x" % reason, rand_bth(rng, 0xDD, psn=n["psn"]), neth_bytes(n), neth_expect(n), rng)
        experts = [("note", "Unknown NACK reason (MODEL W7")] if reason == 0x33 else []
        cases.append(Case("NACK reason 0x%02x" % reason, data, e, experts=experts,
                          info="nack_psn=%d" % n["psn"],
                          labels=[("mrc.neth.reason", None if reason in (0x0B, 0x33) else "S1 W7"),
                                  ("mrc.bth.opcode", "S1 W3")]))
    # Reliability probe (W9)
    p = dict(type=rng.randrange(16), nh=rng.randrange(32), vendor=rng.randrange(256),
             probe_id=rng.randrange(1 << 16), spdcid=rng.randrange(1 << 16), dpdcid=rng.randrange(1 << 16),
             ts=rng.randrange(1 << 16), tsr=0, ftype=rng.randrange(2))
    data, e = wrap("peth", rand_bth(rng, 0xDE, psn=0), peth_bytes(p), peth_expect(p), rng, dscp=10)
    cases.append(Case("PETH", data, e, info="probe_id=0x%04x" % p["probe_id"], labels=[("mrc.bth.opcode", "S1 W3")]))
    return cases


def trimmed_case(rng, name, op, ts, dscp, keep, fix_len=True, l3="ipv6", inner_dscp=None, why=()):
    """A data packet a switch cut to `keep` bytes after the BTH (W13)."""
    d = rand_data(rng, op, ts=ts, payload_len=256)
    h = d["bth"]
    roce = bth_bytes(h) + data_bytes(d)
    fl, sport = rng.randrange(1, 1 << 20), rng.randrange(0xC000, 0x10000)
    full = frame(roce, l3=l3, dscp=dscp, fl=fl, sport=sport, inner_dscp=inner_dscp)
    e = bth_expect(h)
    e.update(lower_expect(l3, dscp, fl, sport, inner_dscp))
    why = list(why)
    if fix_len:  # the UDP header still claims the whole packet; the IP packet holds UDP + keep
        why.append("UDP length %d > %d bytes the IP packet holds" % (8 + len(roce) + 4, 8 + 12 + keep))
    e.update({"trimmed": 1, "trimmed_by": "; ".join(why), "mrc_hdrs": 1})
    if fix_len:  # IP length fixed, UDP length and ICRC stale: the last bytes are payload, no ICRC
        data = frame(roce, l3=l3, dscp=dscp, fl=fl, sport=sport, inner_dscp=inner_dscp, trim_to=12 + keep)
        e.update(data_expect(d, keep))
        foreign = ["Bad length value"]
    else:         # DSCP says trimmed, lengths intact: the ICRC is there but not checked
        data = full
        e.update(data_expect(d))
        e["icrc"] = struct.unpack("<I", full[-4:])[0]
        foreign = []
    labels = [("mrc.trimmed", "MODEL W13")]
    if not fix_len:
        labels.append(("mrc.icrc", "MODEL W4"))
    return Case(name, data, e, experts=[("note", "Trimmed data packet (MODEL W13)")], foreign_ok=foreign,
                labels=labels, info="TRIMMED MRC")


def special_cases(rng):
    cases = [
        # DSCP 11, TS = 1: kept BTH + METH + TSETH + RETH + 8 payload bytes
        trimmed_case(rng, "trimmed DSCP 11", 0xC6, 1, 11, 4 + 4 + 16 + 8, why=["outer DSCP 11 = DSCP_TRIMMED"]),
        # DSCP 13, TS = 0: kept BTH + METH + half the RETH
        trimmed_case(rng, "trimmed DSCP 13", 0xC7, 0, 13, 4 + 8, why=["outer DSCP 13 = DSCP_TRIMMED_LASTHOP"]),
        # Lengths only (the DSCP left as TRIMMABLE)
        trimmed_case(rng, "trimmed by length", 0xCB, 1, 10, 4 + 4 + 16 + 4 + 30),
        # DSCP only (lengths intact): the ICRC is there, stale, not checked
        trimmed_case(rng, "trimmed by DSCP, lengths intact", 0xCA, 0, 11, None, fix_len=False,
                     why=["outer DSCP 11 = DSCP_TRIMMED"]),
        # SRv6, trimmed DSCP on the inner header only
        trimmed_case(rng, "trimmed inner DSCP (SRv6)", 0xC8, 1, 10, 4 + 4 + 16, l3="srv6", inner_dscp=13,
                     why=["inner DSCP 13 = DSCP_TRIMMED_LASTHOP"]),
    ]
    # A whole data packet whose ICRC is wrong: an ICRC error, not a trim
    d = rand_data(rng, 0xCA, ts=1, payload_len=32)
    data, e = wrap("bad icrc", d["bth"], data_bytes(d), data_expect(d), rng, dscp=10, bad_icrc=True)
    cases.append(Case("data with a wrong ICRC", data, e, experts=[("error", "ICRC mismatch")]))
    # A NACK whose nack_psn is not its BTH.PSN (W7 rule)
    n = dict(type=0, nh=0, reason=0x01, vendor=0, entropy=rng.getrandbits(32), spdcid=1, dpdcid=2,
             psn=1000, cc_type=2, cc_flags=0, ts=7)
    data, e = wrap("nack mismatch", rand_bth(rng, 0xDD, psn=1001), neth_bytes(n), neth_expect(n), rng)
    cases.append(Case("NACK nack_psn != BTH.PSN", data, e, experts=[("warn", "nack_psn 1000 differs")]))
    # Opcodes MRC 1.0 leaves undefined in its range (MODEL W3), 0xC0/0xC1 (no layout any more) too.
    for op in (0xC0, 0xC1, 0xE0):
        body, what = bytes(rng.getrandbits(8) for _ in range(24)), "unknown MRC opcode 0x%02x" % op
        data, e = wrap(what, rand_bth(rng, op), body, {"undecoded": body}, rng)
        cases.append(Case(what, data, dict(e, mrc_hdrs=0), experts=[("warn", what + " (MODEL W3")], info=what))
    return cases


def snap_cases(rng):
    """Whole packets in a capture with snap length 96: cut by the capture, not on the wire."""
    cases = []
    d = rand_data(rng, 0xCA, ts=1, payload_len=200)
    data, e = wrap("snap data", d["bth"], data_bytes(d), data_expect(d), rng, dscp=10)
    keep = 96 - (14 + 40 + 8 + 12)  # bytes after the BTH in the capture: METH + TSETH + part of RETH
    e = {k: v for k, v in e.items() if not k.startswith(("reth.", "payload", "pad", "icrc"))}
    if keep < 8:
        harness_error("snap case layout changed")
    cases.append(Case("data, snap length 96", data, e, info="MSN=%d" % d["msn"]))
    s = rand_seth(rng, 0)
    data, e = wrap("snap sack", rand_bth(rng, 0xDC, psn=s["cack"]), seth_bytes(s), seth_expect(s), rng)
    e = {k: v for k, v in e.items() if not k.startswith(("seth.", "cc.", "hdr.", "icrc"))}
    cases.append(Case("SACK, snap length 96", data, e, info="MRC RELIABILITY SACK"))
    return cases


# ---------------------------------------------------------------------------------------------
# pcap and tshark
# ---------------------------------------------------------------------------------------------

def harness_error(msg):
    """The check could not run (exit 2, as tests/cross/crosslib.py does); not a dissector failure."""
    print("HARNESS ERROR: " + msg, file=sys.stderr)
    sys.exit(2)


def write_pcap(path, frames, snaplen=65535):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, 1))
        for i, data in enumerate(frames):
            cap = data[:snaplen]
            f.write(struct.pack("<IIII", 1000 + i, 0, len(cap), len(data)) + cap)


def tshark(pcap, *args):
    cmd = [shutil.which("tshark"), "-n", "-X", "lua_script:" + LUA, "-o", "udp.try_heuristic_first:TRUE",
           "-r", pcap] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or "Lua: Error" in r.stderr or "lua_script" in r.stderr:
        harness_error("%s: %s" % (" ".join(cmd), r.stderr[-3000:]))
    return r.stdout


def collect(node, fields, experts, flags, parent="layers"):
    """Walks one packet's -T json layers: mrc.* values, expert items (a Lua runtime error is one
    too: _ws.lua.error), and malformed marks with the key of the subtree that holds them."""
    if isinstance(node, list):
        for n in node:
            collect(n, fields, experts, flags, parent)
        return
    if not isinstance(node, dict):
        return
    if "_ws.expert.message" in node:
        keys = [k for k in node if not k.startswith("_ws.expert.")]
        msgs = node["_ws.expert.message"]
        sevs = node["_ws.expert.severity"]
        if not isinstance(msgs, list):
            msgs, sevs = [msgs], [sevs]
        for m, s in zip(msgs, sevs):
            experts.append((keys[0] if keys else "?", int(s), m))
        return
    for k, v in node.items():
        if k.startswith("_ws.malformed"):
            flags.add(parent)
        if isinstance(v, (dict, list)) and not (isinstance(v, list) and v and isinstance(v[0], str)):
            collect(v, fields, experts, flags, k)
        elif k.startswith("mrc.") and not k.startswith("mrc.expert."):
            fields.setdefault(k[4:], []).extend(v if isinstance(v, list) else [v])


def as_value(expected, text):
    if isinstance(expected, bytes):
        return bytes.fromhex(text.replace(":", ""))
    if isinstance(expected, str):
        return text
    return int(text, 0)


IPV6_FIELDS = {"ev.outer_da", "ev.srh_segment"}


def observed_value(name, expected, texts):
    if name in IPV6_FIELDS:
        return [ipaddress.IPv6Address(t).packed for t in texts]
    return [as_value(expected, t) for t in texts]


def check_values(case, fields, problems):
    want = dict(case.expect)
    for name in sorted(set(want) | set(fields)):
        if name not in fields:
            problems.append("%s: mrc.%s missing (want %r)" % (case.name, name, want[name]))
            continue
        if name not in want:
            problems.append("%s: mrc.%s unexpected (%s)" % (case.name, name, fields[name]))
            continue
        exp = want[name]
        exp_list = exp if isinstance(exp, list) else [exp]
        try:
            got = observed_value(name, exp_list[0], fields[name])
        except ValueError:
            problems.append("%s: mrc.%s unreadable %s" % (case.name, name, fields[name]))
            continue
        if got != exp_list:
            problems.append("%s: mrc.%s = %s, want %s" % (case.name, name, fields[name], exp_list))


def check_experts(case, experts, flags, problems):
    # The UDP dissector marks a UDP length past the IP payload as malformed; a trimming switch
    # that fixes only the IP length (W13) leaves exactly that, so it is allowed on those frames.
    for where in flags:
        if not (where.startswith("udp.length") and "Bad length value" in case.foreign_ok):
            problems.append("%s: malformed mark under %s" % (case.name, where))
    mine = [(SEV_NAME.get(s, hex(s)), m) for k, s, m in experts if k.startswith("mrc.")]
    for sev, text in case.experts:
        hit = [x for x in mine if x[0] == sev and text in x[1]]
        if not hit:
            problems.append("%s: no %s expert item containing %r (have %s)" % (case.name, sev, text, mine))
        else:
            mine.remove(hit[0])
    for sev, m in mine:
        problems.append("%s: unexpected MRC expert item %s %r" % (case.name, sev, m))
    for k, s, m in experts:
        if k.startswith("mrc."):
            continue
        if any(t in m for t in case.foreign_ok):
            continue
        if s >= SEV["warn"] or k.startswith("_ws.malformed"):
            problems.append("%s: %s expert item from %s: %r" % (case.name, SEV_NAME.get(s, s), k, m))


# Tags every frame shows wherever the field occurs (value-independent labels).
ALWAYS_TAGGED = {
    "mrc.bth.se": "MODEL W3", "mrc.bth.m": "MODEL W3", "mrc.bth.var_res": "MODEL W3",
    "mrc.tack.cack_psn": "S1 W3", "mrc.meth.rqmsn": "S1 W4", "mrc.meth.msn": "S1 W4",
    "mrc.reth.len": "S1 W4", "mrc.seth.probe_id": "S1 W5", "mrc.seth.cc_flags": "MODEL W5",
    "mrc.seth.mpr": "S1 W5", "mrc.seth.sack_bitmap": "S1 W5", "mrc.seth.sack_psn": "S1 W5",
    "mrc.cc.rcvd_bytes": "S1 W5", "mrc.cc.rcvd_bytes_x256": "S1 W5", "mrc.neth.cc_flags": "MODEL W7",
    "mrc.neth.tx_timestamp": "S1 W7", "mrc.aeth.msn": "S1 W8", "mrc.erth.port_status_mask": "MODEL W10",
    "mrc.eeth.op": "MODEL W10", "mrc.eeth.tx_timestamp": "MODEL W10", "mrc.dscp": "MODEL W13",
    "mrc.dscp_inner": "MODEL W13", "mrc.trimmed": "MODEL W13", "mrc.trimmed_by": "MODEL W13",
    "mrc.ev.flow_label": "MODEL W2", "mrc.erth.op": "S1 W10", "mrc.ev.srh_segments_left": "MODEL W1",
}


def pdml_labels(xml_text):
    """Per packet: {field name: [showname, ...]} plus the list of text-only items."""
    out = []
    for pkt in ET.fromstring(xml_text).iter("packet"):
        names, texts = {}, []
        for proto in pkt.findall("proto"):
            if proto.get("name") != "mrc":
                continue
            for el in proto.iter():
                name, show = el.get("name", ""), el.get("showname") or el.get("show") or ""
                if name:
                    names.setdefault(name, []).append(show)
                else:
                    texts.append(show)
        out.append((names, texts))
    return out


def check_labels(case, names, texts, problems, seen):
    for name, shows in names.items():
        for show in shows:
            if "(MODEL M" in show:
                problems.append("%s: retired model label (MODEL Mn) on an MRC 1.0 frame: %r" % (case.name, show))
        tag = ALWAYS_TAGGED.get(name)
        if tag:
            seen.add(name)
            for show in shows:
                if "(%s)" % tag not in show:
                    problems.append("%s: %s label %r lacks (%s)" % (case.name, name, show, tag))
    for name, tag in case.labels:
        shows = names.get(name, [])
        if not shows:
            problems.append("%s: no %s in the tree" % (case.name, name))
        elif tag is None:
            bad = [s for s in shows if "(S1 " in s or "(MODEL " in s]
            if bad:
                problems.append("%s: %s should carry no provenance tag: %r" % (case.name, name, bad))
        elif not all("(%s)" % tag in s for s in shows):
            problems.append("%s: %s label %r lacks (%s)" % (case.name, name, shows, tag))
    if not any("Entropy Value (MODEL W2)" in t for t in texts + names.get("mrc", [])):
        problems.append("%s: no 'Entropy Value (MODEL W2)' subtree" % case.name)


def run_capture(pcap, cases, problems, seen_tags):
    packets = json.loads(tshark(pcap, "-T", "json", "--no-duplicate-keys"))
    if len(packets) != len(cases):
        problems.append("%s: tshark read %d frames, wrote %d" % (pcap, len(packets), len(cases)))
        return
    labels = pdml_labels(tshark(pcap, "-T", "pdml"))
    info = tshark(pcap, "-T", "fields", "-E", "separator=/t", "-e", "_ws.col.Protocol",
                  "-e", "_ws.col.Info").rstrip("\n").split("\n")
    for case, pkt, (names, texts), line in zip(cases, packets, labels, info):
        fields, experts, flags = {}, [], set()
        collect(pkt["_source"]["layers"], fields, experts, flags)
        check_values(case, fields, problems)
        check_experts(case, experts, flags, problems)
        check_labels(case, names, texts, problems, seen_tags)
        proto, _, col = line.partition("\t")
        if proto != "MRC":
            problems.append("%s: Protocol column %r" % (case.name, proto))
        if case.info and case.info not in col:
            problems.append("%s: Info %r lacks %r" % (case.name, col, case.info))
        trimmed = case.expect.get("trimmed") == 1
        if trimmed != col.startswith("TRIMMED"):
            problems.append("%s: Info %r and trimmed=%s disagree" % (case.name, col, trimmed))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--seed", type=int, default=1907)
    args = ap.parse_args()
    if shutil.which("tshark") is None:
        harness_error("tshark not found")
    os.makedirs(args.workdir, exist_ok=True)
    rng = random.Random(args.seed)
    problems, seen_tags = [], set()
    cases = vector_cases(problems) + random_cases(rng) + special_cases(rng)
    snap = snap_cases(rng)
    main_pcap = os.path.join(args.workdir, "mrc_w_vectors.pcap")
    snap_pcap = os.path.join(args.workdir, "mrc_w_snap96.pcap")
    write_pcap(main_pcap, [c.data for c in cases])
    write_pcap(snap_pcap, [c.data for c in snap], snaplen=96)
    run_capture(main_pcap, cases, problems, seen_tags)
    run_capture(snap_pcap, snap, problems, seen_tags)
    for name in sorted(set(ALWAYS_TAGGED) - seen_tags):
        problems.append("no frame showed %s (its %s label went unchecked)" % (name, ALWAYS_TAGGED[name]))
    ops = sorted({c.expect["bth.opcode"] for c in cases})
    if problems:
        for p in problems[:60]:
            print("FAIL: " + p)
        print("dissector.mrc_w_vectors: %d failures (%d more not shown)" % (len(problems), max(0, len(problems) - 60)))
        sys.exit(1)
    print("dissector.mrc_w_vectors: %d frames + %d at snap length 96 decode as built (V1-V6 of W19, "
          "opcodes %s, %d provenance-tagged fields checked)"
          % (len(cases), len(snap), ",".join("0x%02x" % o for o in ops), len(seen_tags)))


if __name__ == "__main__":
    main()
