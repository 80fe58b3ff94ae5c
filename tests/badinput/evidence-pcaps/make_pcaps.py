#!/usr/bin/python3
"""Writes the small pcapng files tests/badinput/evidence.yaml feeds to `mrc-conform diff`:
two-taps.pcapng (two interfaces, dut.p1.rx and dut.p1.tx, as an evidence file has), other-taps.pcapng
(dut.p1.rx and dut.p2.tx), unknown-link.pcapng (its second interface is IEEE 802.11, link type
105) and truncated-epb.pcapng (the last packet block cut short). Run it here to regenerate them."""
import struct


def blk(btype, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)


def opt(code, value):
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


SHB = blk(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))


def idb(name, linktype=1):
    return blk(1, struct.pack("<HHI", linktype, 0, 262144) + opt(2, name.encode()) + opt(9, b"\x09") + b"\0" * 4)


def epb(iface, ts, tag):
    frame = bytes(6) + bytes([2, 0, 0, 0, 0, 1]) + b"\x86\xdd" + bytes([tag]) * 46
    return blk(6, struct.pack("<IIIII", iface, 0, ts, len(frame), len(frame)) + frame)


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


packets = epb(1, 50, 1) + epb(0, 100, 2) + epb(0, 300, 3) + epb(1, 300, 4)
write("two-taps.pcapng", SHB + idb("dut.p1.rx") + idb("dut.p1.tx") + packets)
write("other-taps.pcapng", SHB + idb("dut.p1.rx") + idb("dut.p2.tx") + packets)
write("unknown-link.pcapng", SHB + idb("dut.p1.rx") + idb("wlan0", 105) + packets)
write("truncated-epb.pcapng", (SHB + idb("dut.p1.rx") + idb("dut.p1.tx") + packets)[:-20])
