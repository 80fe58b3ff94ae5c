#!/usr/bin/python3
"""cross.scapy_icrc_bth: scapy.contrib.roce decodes the project's RoCEv2 frames to the same BTH
(and AETH) fields, and recomputes the same ICRC, as the generator asked for.

MRC 1.0 frames (mrc_cross_gen's default profile): every BTH field, byte 8's low 7 bits (MRC's R,
RTX, TS and reserved bits; scapy's resv7), the Transport ACK's AETH read with scapy's AETH layout,
and the ICRC; every opcode must be one of the twelve W3 opcodes, and all twelve must occur. A
trimmed data packet (W13) has no ICRC left; scapy instead sees its IP length(s) fixed to the bytes
left (and, over IPv4, a valid header checksum) and its UDP length stale. Plain RoCEv2 frames (the
roce profile, all IPv4) get the same BTH, AETH and ICRC checks.

scapy's BTH.compute_icrc() supports IPv4 only (it warns and returns 0 for IPv6), so the ICRC is
checked with scapy for every IPv4 frame. IPv6 frames (STEV, UDP mode, SRv6 inner packet) get an
ICRC recomputed from scapy's own IPv6/UDP/BTH field layout with zlib's CRC-32 (the masking recipe
of IBA Annex A17), which is independent of the project's C++ CRC code.
"""

import logging
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crosslib  # noqa: E402

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import IP, IPv6, UDP, raw, rdpcap  # noqa: E402
from scapy.contrib.roce import AETH, BTH  # noqa: E402  (binds UDP dport 4791 -> BTH)

# scapy tries UDP payload bindings in registration order, so a random EV source port that
# another protocol is bound to (123 NTP, 53 DNS, ...) would win over dport 4791. Put the RoCEv2
# binding first, as the destination port is what identifies RoCEv2.
UDP.payload_guess.sort(key=lambda guess: guess[1] is not BTH)

BTH_FIELDS = [("bth.opcode", "opcode"), ("bth.se", "solicited"), ("bth.m", "migreq"),
              ("bth.padcnt", "padcount"), ("bth.tver", "version"), ("bth.pkey", "pkey"),
              ("bth.fecn", "fecn"), ("bth.becn", "becn"), ("bth.dqpn", "dqpn"),
              ("bth.ackreq", "ackreq"), ("bth.psn", "psn")]


def icrc_ipv6_zlib(pkt):
    """ICRC of the IPv6 packet carrying the UDP/BTH, from scapy's field layout + zlib.crc32."""
    ip6 = pkt[UDP].underlayer
    masked = ip6.copy()
    masked.remove_payload()
    masked.tc = 0xFF
    masked.fl = 0xFFFFF
    masked.hlim = 0xFF
    udp = pkt[UDP].copy()
    udp.remove_payload()
    udp.chksum = 0xFFFF
    bth_bytes = bytearray(raw(pkt[BTH]))[:-4]  # raw(BTH) = header + payload + ICRC
    bth_bytes[4] = 0xFF
    data = b"\xff" * 8 + raw(masked) + raw(udp) + bytes(bth_bytes)
    return zlib.crc32(data) & 0xFFFFFFFF


def check_icrc(m, idx, kind, pkt, exp, counts):
    m.compare(idx, kind, "icrc(wire)", exp["icrc"], struct.unpack("<I", raw(pkt)[-4:])[0])
    if exp["_l3"] == "ipv4":
        if pkt[UDP].underlayer.__class__ is not IP:
            m.fail(idx, kind, "l3", "IPv4 under UDP", pkt.summary())
            return
        computed = struct.unpack("<I", pkt[BTH].compute_icrc(None))[0]
        m.compare(idx, kind, "icrc(scapy compute_icrc)", exp["icrc"], computed)
        counts["v4"] += 1
    else:
        if pkt[UDP].underlayer.__class__ is not IPv6:
            m.fail(idx, kind, "l3", "IPv6 under UDP", pkt.summary())
            return
        m.compare(idx, kind, "icrc(scapy IPv6 layout + zlib)", exp["icrc"], icrc_ipv6_zlib(pkt))
        counts["v6"] += 1


def check_trimmed(m, idx, kind, pkt, exp):
    """W13 as the trimming switch leaves it: UDP length stale, every IP length fixed."""
    m.compare(idx, kind, "udp.length (stale)", exp["udp.length"], pkt[UDP].len)
    m.compare(idx, kind, "bytes from UDP on", exp["_udp_bytes"], len(raw(pkt[UDP])))
    if IP in pkt:
        ip = pkt[IP]
        m.compare(idx, kind, "ip.len (fixed)", len(raw(ip)), ip.len)
        again = IP(raw(ip))
        del again.chksum
        m.compare(idx, kind, "ip.chksum", IP(raw(again)).chksum, ip.chksum)
        return
    layer = pkt[IPv6]
    while isinstance(layer, IPv6):  # outer and, under SRv6, inner header
        m.compare(idx, kind, "ipv6.plen (fixed)", len(raw(layer.payload)), layer.plen)
        layer = layer.payload.getlayer(IPv6) if layer.payload.haslayer(IPv6) else None


def check_profile(m, args, profile, count, seed):
    pcap, frames = crosslib.generate(args, profile, "scapy_" + profile, count=count, seed=seed)
    pkts = rdpcap(pcap)
    if len(pkts) != len(frames):
        crosslib.harness_error("scapy read %d packets for %d frames" % (len(pkts), len(frames)))
    counts = {"v4": 0, "v6": 0, "trimmed": 0, "ops": set()}
    for idx, (pkt, exp) in enumerate(zip(pkts, frames)):
        kind = exp["_kind"]
        if BTH not in pkt:
            m.fail(idx, kind, "BTH layer", "present", pkt.summary())
            continue
        bth = pkt[BTH]
        for side, sf in BTH_FIELDS:
            m.compare(idx, kind, side, exp[side], int(bth.getfieldval(sf)))
        op = bth.opcode
        if profile == "mrc":
            counts["ops"].add(op)
            if op not in crosslib.W3_OPCODES:
                m.fail(idx, kind, "bth.opcode in W3", "one of the 12 MRC 1.0 opcodes", op)
            m.compare(idx, kind, "bth.resv7 (R, RTX, TS, reserved)", exp["bth.flags"] & 0x7F, bth.resv7)
        if "aeth.syndrome" in exp:
            # scapy binds its AETH to IBA's ACK 0x11 only; the READ responses and MRC's Transport
            # ACK 0xD1 (W8) carry the same AETH right after the BTH, read with scapy's layout.
            aeth = pkt[AETH] if AETH in pkt else AETH(raw(bth.payload)[:4])
            m.compare(idx, kind, "aeth.syndrome", exp["aeth.syndrome"], aeth.syndrome)
            m.compare(idx, kind, "aeth.msn", exp["aeth.msn"], aeth.msn)
        if exp["trimmed"]:
            check_trimmed(m, idx, kind, pkt, exp)
            counts["trimmed"] += 1
        else:
            check_icrc(m, idx, kind, pkt, exp, counts)
    return len(frames), counts


def main():
    args = crosslib.parse_args(__doc__.splitlines()[0], 2000)
    m = crosslib.Mismatches("scapy.contrib.roce")
    n_mrc, c_mrc = check_profile(m, args, "mrc", args.count, args.seed)
    n_roce, c_roce = check_profile(m, args, "roce", max(args.count // 4, 160), args.seed + 1)
    if c_mrc["ops"] != crosslib.W3_OPCODES:
        m.fail(-1, "capture", "opcodes seen", sorted(crosslib.W3_OPCODES), sorted(c_mrc["ops"]))
    # Every fifth MRC frame is IPv4 (the EV placements rotate); scapy computes the ICRC only there.
    if c_mrc["v4"] < n_mrc // 8 or c_mrc["v6"] < n_mrc // 2 or c_mrc["trimmed"] < n_mrc // 20 \
            or c_roce["v4"] < n_roce * 9 // 10:
        crosslib.harness_error("too few frames checked: MRC %s, RoCE %s" % (c_mrc, c_roce))
    m.finish(n_mrc + n_roce, "; MRC 1.0: ICRC by scapy on %d IPv4 frames, by scapy-layout+zlib on %d "
             "IPv6 frames, %d trimmed, all 12 W3 opcodes; plain RoCEv2: ICRC by scapy on %d frames"
             % (c_mrc["v4"], c_mrc["v6"], c_mrc["trimmed"], c_roce["v4"]))


if __name__ == "__main__":
    main()
