"""MRC 1.0 frames as the wire model (mrc-wire-model.md) section 5 ("wire model v2") lays them out.

Parsing of what a responder receives (data 0xC6-0xCB, probes 0xDE, endpoint requests 0xD8, and
the plain RoCEv2 requests it must refuse), building of what it sends (SACK 0xDC, NACK 0xDD,
Transport ACK/NAK 0xD1, endpoint response 0xD9), and the RoCEv2 ICRC (section 2.5).
"""
import struct
import zlib

ROCE_PORT = 4791
ETH_IPV4, ETH_IPV6, ETH_VLAN = 0x0800, 0x86DD, 0x8100

# W3 opcodes.
(WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY,
 WRITE_ONLY_IMM) = range(0xC6, 0xCC)
DATA_OPS = range(0xC6, 0xCC)
LAST_OPS = (WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM)
IMM_OPS = (WRITE_LAST_IMM, WRITE_ONLY_IMM)
TACK, EP_REQ, EP_RSP, SACK, NACK, PROBE = 0xD1, 0xD8, 0xD9, 0xDC, 0xDD, 0xDE
EP_QPN = 0x2

# W3 BTH byte 8 flags.
F_A, F_R, F_RTX, F_TS = 0x80, 0x40, 0x20, 0x10

# W8 / IBA AETH syndromes.
AETH_ACK = 0x1F            # S1: W8 ACK, credit field invalid
AETH_NAK_INVALID = 0x61    # invalid request
AETH_NAK_ACCESS = 0x62     # remote access error
AETH_NAK_OPERATIONAL = 0x63  # remote operational error (MODEL: W16 WIMM without a receive)

# W7 NACK reasons.
NACK_TRIMMED, NACK_TRIMMED_LASTHOP = 0x01, 0x02

PSN_MASK = 0xFFFFFF


def psn_diff(a, b):
    """(a - b) mod 2^24."""
    return (a - b) & PSN_MASK


def signed16(v):
    """A signed 24-bit distance folded into the signed 16-bit SETH fields."""
    v &= PSN_MASK
    if v >= 1 << 23:
        v -= 1 << 24
    return v & 0xFFFF


# ---- ICRC (section 2.5, W4) ------------------------------------------------------------------
def icrc(ip_hdr, udp_hdr, transport):
    """CRC-32 over 8 x 0xFF, the masked IP and UDP headers, the BTH with byte 4 masked, and the
    rest up to the pad; `transport` is BTH .. pad (no ICRC). Returns the CRC value."""
    ip = bytearray(ip_hdr)
    if ip[0] >> 4 == 6:
        ip[0] |= 0x0F                 # traffic class high nibble
        ip[1] = 0xFF                  # traffic class low nibble + flow label high nibble
        ip[2] = ip[3] = 0xFF          # flow label
        ip[7] = 0xFF                  # hop limit
    else:
        ip[1] = 0xFF                  # TOS
        ip[8] = 0xFF                  # TTL
        ip[10] = ip[11] = 0xFF        # header checksum
    udp = bytearray(udp_hdr)
    udp[6] = udp[7] = 0xFF
    bth = bytearray(transport[:12])
    bth[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8)
    for part in (ip, udp, bth, transport[12:]):
        crc = zlib.crc32(part, crc)
    return crc & 0xFFFFFFFF


# ---- parsing ---------------------------------------------------------------------------------
class Frame:
    """A received RoCEv2 frame, its layers sliced out; None fields mean "not present"."""
    __slots__ = ("src_mac", "ipv6", "src_ip", "dst_ip", "dscp", "ecn", "flow_label", "sport",
                 "ip_hdr", "udp_hdr", "udp_len", "transport", "icrc_ok", "opcode", "pkey", "dqpn",
                 "flags", "psn", "padcnt")


def parse(raw):
    """Ethernet | [VLAN] | IPv4/IPv6 | UDP 4791 | BTH ... ICRC -> Frame, or None (not ours)."""
    if len(raw) < 14:
        return None
    off, etype = 14, struct.unpack_from(">H", raw, 12)[0]
    if etype == ETH_VLAN:
        if len(raw) < 18:
            return None
        etype, off = struct.unpack_from(">H", raw, 16)[0], 18
    f = Frame()
    f.src_mac = bytes(raw[6:12])
    if etype == ETH_IPV6:
        if len(raw) < off + 40:
            return None
        word = struct.unpack_from(">I", raw, off)[0]
        if word >> 28 != 6 or raw[off + 6] != 17:     # SRv6 / extension headers: not supported
            return None
        tc = (word >> 20) & 0xFF
        f.ipv6, f.flow_label = True, word & 0xFFFFF
        ip_len = 40 + struct.unpack_from(">H", raw, off + 4)[0]
        f.ip_hdr = raw[off:off + 40]
        f.src_ip, f.dst_ip = raw[off + 8:off + 24], raw[off + 24:off + 40]
        l4 = off + 40
    elif etype == ETH_IPV4:
        if len(raw) < off + 20 or raw[off] >> 4 != 4 or raw[off + 9] != 17:
            return None
        ihl = (raw[off] & 0x0F) * 4
        if ihl < 20 or len(raw) < off + ihl:
            return None
        tc = raw[off + 1]
        f.ipv6, f.flow_label = False, 0
        ip_len = struct.unpack_from(">H", raw, off + 2)[0]
        f.ip_hdr = raw[off:off + ihl]
        f.src_ip, f.dst_ip = raw[off + 12:off + 16], raw[off + 16:off + 20]
        l4 = off + ihl
    else:
        return None
    f.dscp, f.ecn = tc >> 2, tc & 3
    end = off + ip_len
    if end > len(raw) or l4 + 8 > end:
        return None                    # truncated below what the IP header claims
    sport, dport, ulen = struct.unpack_from(">HHH", raw, l4)
    if dport != ROCE_PORT:
        return None
    f.sport, f.udp_len = sport, ulen
    f.udp_hdr = raw[l4:l4 + 8]
    # The UDP length bounds the RoCE packet; a trimmed frame (W13) keeps a stale, larger one.
    f.transport = raw[l4 + 8:min(end, l4 + ulen)] if ulen >= 8 else b""
    if len(f.transport) < 12 + 4:
        f.opcode = None
        return f
    t = f.transport
    f.opcode, b1, f.pkey = t[0], t[1], struct.unpack_from(">H", t, 2)[0]
    f.padcnt = (b1 >> 4) & 3
    f.dqpn = int.from_bytes(t[5:8], "big")
    f.flags, f.psn = t[8], int.from_bytes(t[9:12], "big")
    got = int.from_bytes(t[-4:], "little")
    f.icrc_ok = icrc(f.ip_hdr, f.udp_hdr, t[:-4]) == got
    return f


def echo_entropy(f):
    """W2 echo rule, option A (MODEL: W2): V = FL[15:0] << 16 | sport; IPv4 has no upper half."""
    return ((f.flow_label & 0xFFFF) << 16 | f.sport) if f.ipv6 else f.sport


class Data:
    """The MRC data headers after the BTH (W4)."""
    __slots__ = ("rqmsn", "msn", "ts", "has_ts", "va", "rkey", "dmalen", "imm", "payload")


def parse_data(f, trimmed=False):
    """METH, [TSETH], RETH, [ImmDt], payload. A trimmed stub needs only BTH + METH + [TSETH]
    (W13); a whole packet must hold every header of its opcode (INVALID-TRUNCATED)."""
    t = f.transport[:-4] if not trimmed else f.transport
    d, p = Data(), 12
    if len(t) < p + 4:
        return None
    d.rqmsn, d.msn = struct.unpack_from(">HH", t, p)
    p += 4
    d.has_ts = bool(f.flags & F_TS)
    d.ts = 0
    if d.has_ts:
        if len(t) < p + 4:
            return None
        d.ts = struct.unpack_from(">H", t, p)[0]
        p += 4
    if trimmed:
        return d
    if len(t) < p + 16:
        return None
    d.va, d.rkey, d.dmalen = struct.unpack_from(">QII", t, p)
    p += 16
    d.imm = None
    if f.opcode in IMM_OPS:
        if len(t) < p + 4:
            return None
        d.imm = struct.unpack_from(">I", t, p)[0]
        p += 4
    end = len(t) - f.padcnt
    if end < p:
        return None
    d.payload = t[p:end]
    return d


def parse_probe(f):
    """PETH (W9): probe_id at 4, tx_timestamp at 12, ftype in byte 15's low bits."""
    t = f.transport
    if len(t) < 12 + 16 + 4:
        return None
    peth = t[12:28]
    ts = struct.unpack_from(">H", peth, 12)[0] if peth[15] & 0x0F == 1 else 0
    return struct.unpack_from(">H", peth, 4)[0], ts


def parse_ep_request(f):
    """ERTH (W10): op in byte 1 bits 1..0, tx_timestamp at 12 (ftype 1) -> (op, ts)."""
    t = f.transport
    if len(t) < 12 + 16 + 4:
        return None
    erth = t[12:28]
    ts = struct.unpack_from(">H", erth, 12)[0] if erth[15] & 0x0F == 1 else 0
    return erth[1] & 0x03, ts


# ---- building --------------------------------------------------------------------------------
class Route:
    """Where a frame goes: our and the peer's addresses, and the EV fields it carries."""

    def __init__(self, src_mac, dst_mac, src_ip, dst_ip, dscp, sport, flow_label=0):
        self.src_mac, self.dst_mac = src_mac, dst_mac
        self.src_ip, self.dst_ip = src_ip, dst_ip
        self.dscp, self.sport, self.flow_label = dscp, sport, flow_label


def bth(opcode, dqpn, psn, flags=0):
    return struct.pack(">BBHB", opcode, 0, 0xFFFF, 0) + dqpn.to_bytes(3, "big") + \
        bytes([flags]) + (psn & PSN_MASK).to_bytes(3, "big")


def build(route, transport):
    """Wrap BTH + headers (no pad: every control header is a multiple of 4) with UDP, IP and
    Ethernet and append the ICRC. Control frames are not ECN-capable (MODEL: W13)."""
    ulen = 8 + len(transport) + 4
    udp = struct.pack(">HHHH", route.sport, ROCE_PORT, ulen, 0)
    tc = route.dscp << 2
    if len(route.src_ip) == 16:
        first = 6 << 28 | tc << 20 | (route.flow_label & 0xFFFFF)
        ip = struct.pack(">IHBB", first, ulen, 17, 64) + route.src_ip + route.dst_ip
        etype = ETH_IPV6
    else:
        hdr = bytearray(struct.pack(">BBHHHBBH", 0x45, tc, 20 + ulen, 0, 0x4000, 64, 17, 0) +
                        route.src_ip + route.dst_ip)
        s = sum(struct.unpack(">10H", hdr))
        s = (s & 0xFFFF) + (s >> 16)
        s = (s & 0xFFFF) + (s >> 16)
        hdr[10:12] = struct.pack(">H", ~s & 0xFFFF)
        ip, etype = bytes(hdr), ETH_IPV4
    crc = icrc(ip, udp, transport)
    return route.dst_mac + route.src_mac + struct.pack(">H", etype) + ip + udp + transport + \
        crc.to_bytes(4, "little")


def seth_cc(m, pr, ack_slot, entropy, spdcid, dpdcid, cack, mpr, sack_offset, bitmap, ts,
            ooo, rcvd_units):
    """SETH (28 bytes) + CC_STATE (8 bytes), W5. cc_type 0, cc_flags 0, restore/penalty 0."""
    return struct.pack(">BBHIHHI", 0, (m & 3) << 5 | (pr & 1) << 1, ack_slot & 0xFFFF,
                       entropy & 0xFFFFFFFF, spdcid & 0xFFFF, dpdcid & 0xFFFF, cack & PSN_MASK) + \
        struct.pack(">BBHQ", 0, mpr & 0xFF, sack_offset & 0xFFFF, bitmap) + \
        struct.pack(">HHI", ts & 0xFFFF, min(ooo, 0x7FFF), rcvd_units & PSN_MASK)


def neth(reason, entropy, spdcid, dpdcid, nack_psn, ts):
    """NETH (20 bytes), W7: cc_type 2, cc_flags 0."""
    return struct.pack(">HBBIHHI", 0, reason, 0, entropy & 0xFFFFFFFF, spdcid & 0xFFFF,
                       dpdcid & 0xFFFF, nack_psn & PSN_MASK) + struct.pack(">BBH", 0x20, 0, ts)


def aeth(syndrome, msn):
    return struct.pack(">I", (syndrome & 0xFF) << 24 | (msn & PSN_MASK))


def eeth(op, ts):
    """EETH (36 bytes), W10: op at byte 1 bits 3..2 (MODEL: W10), tx_timestamp at 28."""
    body = bytearray(36)
    body[1] = (op & 3) << 2
    body[28:30] = struct.pack(">H", ts)
    return bytes(body)
