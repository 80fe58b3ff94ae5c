#!/usr/bin/python3
"""Writes the small binary captures of the bad-input catalog (tests/badinput/captures.yaml) into
this folder. They are committed; run this again only to change them (same bytes every time).

Each capture holds a plain RoCEv2 exchange made here (IPv4, RC WRITE ONLY, its ACK, an RDMA READ
request and response) with a correct ICRC, then one thing a lab meets in real files: a header or
record cut short, a snap length of 0, a caplen over the snap length, a huge caplen, an 802.11
link type, a pcapng block whose length is wrong or a second interface of another link type,
nanosecond / big-endian / cooked v1 and v2 / raw IP / VLAN-tagged variants, a clock that steps
back, a frame whose ICRC is wrong, a capture without any RoCEv2 frame.
"""

import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
MAC_A, MAC_B = bytes.fromhex("020000000001"), bytes.fromhex("020000000002")
IP_A, IP_B = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])


def ip_checksum(hdr):
    s = sum(struct.unpack("!10H", hdr))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def roce_frame(src_ip, dst_ip, src_mac, dst_mac, bth, rest=b"", bad_icrc=False):
    """Ethernet / IPv4 / UDP 4791 / BTH + rest / ICRC (IBA 17.3.3 masking: the IPv4 TOS, TTL and
    checksum, the UDP checksum and the BTH reserved byte are ones in the ICRC's input)."""
    udp_len = 8 + len(bth) + len(rest) + 4
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0x02, 20 + udp_len, 0x1234, 0x4000, 64, 17, 0,
                               src_ip, dst_ip))
    ip[10:12] = struct.pack("!H", ip_checksum(bytes(ip)))
    udp = bytearray(struct.pack("!HHHH", 0xC000, 4791, udp_len, 0))
    masked_ip = bytearray(ip)
    masked_ip[1] = 0xFF
    masked_ip[8] = 0xFF
    masked_ip[10:12] = b"\xff\xff"
    masked_udp = bytearray(udp)
    masked_udp[6:8] = b"\xff\xff"
    masked_bth = bytearray(bth)
    masked_bth[4] = 0xFF
    icrc = zlib.crc32(b"\xff" * 8 + bytes(masked_ip) + bytes(masked_udp) + bytes(masked_bth) + rest)
    if bad_icrc:
        icrc ^= 0x1
    return dst_mac + src_mac + b"\x08\x00" + bytes(ip) + bytes(udp) + bytes(bth) + rest + struct.pack("<I", icrc)


def bth(opcode, dqpn, psn, pad=0, ack_req=False):
    return struct.pack("!BBHII", opcode, pad << 4, 0xFFFF, dqpn & 0xFFFFFF,
                       ((1 << 31) if ack_req else 0) | (psn & 0xFFFFFF))


def exchange(bad_icrc_at=None):
    """Four frames between two hosts that both use QPN 0x11 (as soft-RoCE numbers its first QP)."""
    reth = struct.pack("!QII", 0x7F0000001000, 0x1234, 32)
    frames = [
        roce_frame(IP_A, IP_B, MAC_A, MAC_B, bth(0x0A, 0x11, 100, ack_req=True), reth + bytes(range(32))),
        roce_frame(IP_B, IP_A, MAC_B, MAC_A, bth(0x11, 0x11, 100), struct.pack("!I", 0x1F000001)),
        roce_frame(IP_A, IP_B, MAC_A, MAC_B, bth(0x0C, 0x11, 101, ack_req=True), reth),
        roce_frame(IP_B, IP_A, MAC_B, MAC_A, bth(0x10, 0x11, 101), struct.pack("!I", 0x1F000002) + bytes(32)),
    ]
    if bad_icrc_at is not None:
        f = bytearray(frames[bad_icrc_at])
        f[-1] ^= 0x01
        frames[bad_icrc_at] = bytes(f)
    return frames


def pcap(frames, magic=0xA1B2C3D4, endian="<", snaplen=262144, linktype=1, times=None, caplens=None):
    out = struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    nano = magic == 0xA1B23C4D
    for i, f in enumerate(frames):
        t = times[i] if times else 1_700_000_000 * 10**9 + i * 2000  # whole microseconds
        sec, sub = divmod(t, 10**9)
        sub = sub if nano else sub // 1000
        caplen = caplens[i] if caplens else len(f)
        out += struct.pack(endian + "IIII", sec, sub, caplen, len(f)) + f
    return out


def sll(frame):
    """Ethernet frame to Linux cooked v1: packet type 0 (to us), ARPHRD_ETHER, 6-byte address."""
    return struct.pack("!HHH", 0, 1, 6) + frame[6:12] + b"\x00\x00" + frame[12:14] + frame[14:]


def sll2(frame):
    """Ethernet frame to Linux cooked v2: protocol, reserved, ifindex 2, ARPHRD_ETHER, to us, 6-byte
    address (padded to 8)."""
    return frame[12:14] + struct.pack("!HIHBB", 0, 2, 1, 0, 6) + frame[6:12] + b"\x00\x00" + frame[14:]


def raw_ip(frame):
    return frame[14:]


def vlan(frame, pcp=3, vid=100):
    """An 802.1Q tag after the MACs (priority 3: the lossless class PFC is usually set for)."""
    return frame[:12] + struct.pack("!HH", 0x8100, (pcp << 13) | vid) + frame[12:]


def arp(sender_mac, sender_ip, target_ip):
    body = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, sender_mac, sender_ip, b"\x00" * 6, target_ip)
    return b"\xff" * 6 + sender_mac + b"\x08\x06" + body + b"\x00" * 18


def pcapng_block(btype, body):
    body += b"\x00" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def pcapng(frames, bad_epb_length=False, second_interface=None):
    """Frames on interface 0 (Ethernet); with second_interface (a link type), a second interface
    description and the last frame on it, as mergecap writes captures of two taps."""
    shb = pcapng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    idb = pcapng_block(1, struct.pack("<HHI", 1, 0, 262144))
    out = shb + idb
    if second_interface is not None:
        out += pcapng_block(1, struct.pack("<HHI", second_interface, 0, 262144))
    for i, f in enumerate(frames):
        t = (1_700_000_000 * 10**6) + 2 * i  # microseconds (the default if_tsresol), as in pcap()
        iface = 1 if second_interface is not None and i == len(frames) - 1 else 0
        epb = bytearray(pcapng_block(6, struct.pack("<IIIII", iface, t >> 32, t & 0xFFFFFFFF, len(f), len(f)) + f))
        if bad_epb_length and i == 1:
            epb[4:8] = struct.pack("<I", 13)  # not a multiple of 4 and shorter than an EPB
        out += bytes(epb)
    return out


def main():
    good = exchange()
    files = {
        "roce.pcap": pcap(good),
        "header_truncated.pcap": pcap(good)[:10],
        "record_truncated.pcap": pcap(good)[:24 + 16 + len(good[0]) + 16 + 20],
        "snaplen_zero.pcap": pcap(good, snaplen=0),
        "caplen_over_snaplen.pcap": pcap(good, snaplen=64),
        "caplen_huge.pcap": pcap(good, caplens=[len(good[0]), 0xFFFFFFF0, 4, 4]),
        "linktype_80211.pcap": pcap(good, linktype=105),
        "pcapng_bad_block_length.pcapng": pcapng(good, bad_epb_length=True),
        "roce.pcapng": pcapng(good),
        "roce_nanosecond.pcap": pcap(good, magic=0xA1B23C4D),
        "roce_big_endian.pcap": pcap(good, endian=">"),
        "roce_cooked.pcap": pcap([sll(f) for f in good], linktype=113),
        "roce_clock_steps_back.pcap": pcap(good, times=[2_000_000_000 * 10**9 + d for d in (5000, 6000, 1000, 2000)]),
        "roce_bad_icrc.pcap": pcap(exchange(bad_icrc_at=2)),
        "roce_snapped.pcap": pcap([f[:60] for f in good], snaplen=60),
        "roce_cooked_v2.pcap": pcap([sll2(f) for f in good], linktype=276),
        "roce_raw_ip.pcap": pcap([raw_ip(f) for f in good], linktype=101),
        "roce_vlan.pcap": pcap([vlan(f) for f in good]),
        "arp_only.pcap": pcap([arp(MAC_A, IP_A, IP_B), arp(MAC_B, IP_B, IP_A)]),
        "pcapng_two_link_types.pcapng": pcapng(good, second_interface=105),
    }
    for name, data in sorted(files.items()):
        with open(os.path.join(HERE, name), "wb") as fh:
            fh.write(data)
        print("%s: %d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()
