#!/usr/bin/python3
"""cross.scapy_icrc_bth: scapy.contrib.roce decodes the project's RoCEv2 frames to the same BTH
(and AETH) fields, and recomputes the same ICRC, as the generator asked for.

scapy's BTH.compute_icrc() supports IPv4 only (it warns and returns 0 for IPv6), so the ICRC is
checked with scapy for every IPv4 frame. IPv6 frames (STEV, UDP mode, SRv6 inner packet) get the
BTH field check, plus an ICRC recomputed from scapy's own IPv6/UDP/BTH field layout with zlib's
CRC-32 (the masking recipe of IBA Annex A17), which is independent of the project's C++ CRC code.
"""

import logging
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crosslib  # noqa: E402

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import IP, IPv6, UDP, Raw, rdpcap, raw  # noqa: E402
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
    bth = pkt[BTH]
    bth_bytes = bytearray(raw(bth))[:-4]  # raw(BTH) = header + payload + ICRC
    bth_bytes[4] = 0xFF
    data = b"\xff" * 8 + raw(masked) + raw(udp) + bytes(bth_bytes)
    return zlib.crc32(data) & 0xFFFFFFFF


def main():
    args = crosslib.parse_args(__doc__.splitlines()[0], 2400)
    pcap, frames = crosslib.generate(args, "iba", "scapy_roce")
    pkts = rdpcap(pcap)
    if len(pkts) != len(frames):
        crosslib.harness_error("scapy read %d packets for %d frames" % (len(pkts), len(frames)))

    m = crosslib.Mismatches("scapy.contrib.roce")
    icrc_v4 = icrc_v6 = 0
    for idx, (pkt, exp) in enumerate(zip(pkts, frames)):
        kind = exp["_kind"]
        if BTH not in pkt:
            m.fail(idx, kind, "BTH layer", "present", pkt.summary())
            continue
        bth = pkt[BTH]
        for side, sf in BTH_FIELDS:
            m.compare(idx, kind, side, exp[side], int(bth.getfieldval(sf)))
        wire_icrc = struct.unpack("<I", raw(pkt)[-4:])[0]
        m.compare(idx, kind, "icrc(wire)", exp["icrc"], wire_icrc)
        if exp["bth.opcode"] == 0x11:
            if AETH not in pkt:
                m.fail(idx, kind, "AETH layer", "present", pkt.summary())
            else:
                m.compare(idx, kind, "aeth.syndrome", exp["aeth.syndrome"], pkt[AETH].syndrome)
                m.compare(idx, kind, "aeth.msn", exp["aeth.msn"], pkt[AETH].msn)
        if exp["_l3"] == "ipv4":
            if pkt[UDP].underlayer.__class__ is not IP:
                m.fail(idx, kind, "l3", "IPv4 under UDP", pkt.summary())
                continue
            computed = struct.unpack("<I", bth.compute_icrc(None))[0]
            m.compare(idx, kind, "icrc(scapy compute_icrc)", exp["icrc"], computed)
            icrc_v4 += 1
        else:
            if pkt[UDP].underlayer.__class__ is not IPv6:
                m.fail(idx, kind, "l3", "IPv6 under UDP", pkt.summary())
                continue
            m.compare(idx, kind, "icrc(scapy IPv6 layout + zlib)", exp["icrc"], icrc_ipv6_zlib(pkt))
            icrc_v6 += 1
    if icrc_v4 < 1000:
        crosslib.harness_error("only %d IPv4 frames had their ICRC checked by scapy (need 1000)"
                               % icrc_v4)
    m.finish(len(frames), "; ICRC by scapy on %d IPv4 frames, by scapy-layout+zlib on %d IPv6 frames"
             % (icrc_v4, icrc_v6))


if __name__ == "__main__":
    main()
