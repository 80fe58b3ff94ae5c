"""DUT-agent control protocol, version 5 (harness/dut/agent-protocol.md): framing and bodies.

Written from the document only. Every body is described once, as a schema (a list of
(name, type) pairs), and one generic encoder/decoder walks it, so a request decoded here
re-encodes to the same bytes (section 1: the encoding is canonical) and the test script can use
the same tables to play the harness's side.
"""
import struct

VERSION = 5
MAX_LENGTH = 1 << 20          # section 1: length counts the bytes after the length field
HEADER = struct.Struct(">IHHI")
FLAG_CLOSING = 0x0001

# Section 3: message types.
REQ = {
    "HELLO": 0x0001, "APPLY_CONFIG": 0x0002, "CONNECT": 0x0003, "POST_WRITE": 0x0004,
    "POST_RECV": 0x0005, "POLL": 0x0006, "SET_EV_STATE": 0x0007, "PORT_ADMIN": 0x0008,
    "EP_OP": 0x0009, "READ_MEMORY": 0x000A, "WRITE_MEMORY": 0x000B, "QUERY_STATE": 0x000C,
    "RESET": 0x000D, "BYE": 0x000E, "EV_PROFILE_OP": 0x000F, "CC_PROFILE_OP": 0x0010,
    "REPLACE_EV": 0x0011, "SET_PROFILE_ONLINE": 0x0012, "RESTRICT_DEVICE": 0x0013,
    "ATTACH": 0x0014, "STEP": 0x0015,
}
REPLY = {
    "HELLO_OK": 0x8001, "APPLY_OK": 0x8002, "OK": 0x8003, "COMPLETIONS": 0x8006,
    "MEMORY": 0x800A, "STATE": 0x800C, "FRAMES": 0x8015, "ERROR": 0x80FF,
}
NAME = {v: k for k, v in list(REQ.items()) + list(REPLY.items())}

# Section 5: error codes (name -> (code, fatal)).
ERR = {
    "frame_too_short": (1, True), "frame_too_large": (2, True), "truncated": (3, True),
    "unknown_type": (4, False), "bad_flags": (5, False), "truncated_body": (6, False),
    "trailing_bytes": (7, False), "field_too_long": (8, False), "bad_value": (9, False),
    "bad_version": (10, True), "bad_token": (11, True), "not_hello": (12, False),
    "duplicate_hello": (13, False), "bad_seq": (14, False), "unexpected_reply": (15, False),
    "not_applied": (16, False), "rejected": (17, False), "unsupported": (18, False),
    "backend_failure": (19, False), "timeout": (20, True), "too_many_clients": (21, True),
    "limit": (22, False),
}
ERR_NAME = {code: name for name, (code, _) in ERR.items()}


class ProtoError(Exception):
    """An error the agent answers with ERROR; `name` is a key of ERR."""

    def __init__(self, name, text, err=0):
        super().__init__(text)
        self.name, self.text, self.err = name, text, err


# ---- types ---------------------------------------------------------------------------------
# A type is a tuple: (kind, args...). Structs are lists of (name, type).
U8, U16, U32, U64 = ("uint", 1), ("uint", 2), ("uint", 4), ("uint", 8)
I32, BOOL, F64, GID, MAC = ("i32",), ("bool",), ("f64",), ("raw", 16), ("raw", 6)


def ENUM(count):          # values 0..count-1 are defined
    return ("enum", count)


def STR(limit):
    return ("str", limit)


def BYTES8(limit):
    return ("bytes", 1, limit)


def BYTES32(limit):
    return ("bytes", 4, limit)


def LIST(limit, item):
    return ("list", limit, item)


def OPT(item):            # a bool presence flag, then the item when 1 (section 4)
    return ("opt", item)


def STRUCT(fields):
    return ("struct", fields)


# Smallest encoded size of a type: lets a list count be judged against the bytes left
# (section 1: a count that cannot fit is truncated_body, before anything is reserved).
def _min_size(t):
    k = t[0]
    if k == "uint":
        return t[1]
    if k in ("i32",):
        return 4
    if k in ("bool", "enum"):
        return 1
    if k == "f64":
        return 8
    if k == "raw":
        return t[1]
    if k == "str":
        return 2
    if k == "bytes":
        return t[1]
    if k == "list":
        return 4
    if k == "opt":
        return 1
    return sum(_min_size(ft) for _, ft in t[1])


class Reader:
    def __init__(self, data):
        self.d, self.p = memoryview(data), 0

    def take(self, n, what):
        if self.p + n > len(self.d):
            raise ProtoError("truncated_body", "body ends inside '%s'" % what)
        b = bytes(self.d[self.p:self.p + n])
        self.p += n
        return b

    def left(self):
        return len(self.d) - self.p


def decode(t, r, what):
    k = t[0]
    if k == "uint":
        return int.from_bytes(r.take(t[1], what), "big")
    if k == "i32":
        return struct.unpack(">i", r.take(4, what))[0]
    if k == "bool":
        v = r.take(1, what)[0]
        if v > 1:
            raise ProtoError("bad_value", "'%s': bool must be 0 or 1, got %d" % (what, v))
        return bool(v)
    if k == "enum":
        v = r.take(1, what)[0]
        if v >= t[1]:
            raise ProtoError("bad_value", "'%s': undefined enum value %d" % (what, v))
        return v
    if k == "f64":
        return struct.unpack(">d", r.take(8, what))[0]
    if k == "raw":
        return r.take(t[1], what)
    if k == "str":
        n = int.from_bytes(r.take(2, what), "big")
        if n > t[1]:
            raise ProtoError("field_too_long", "'%s': %d bytes, limit %d" % (what, n, t[1]))
        raw = r.take(n, what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtoError("bad_value", "'%s': not UTF-8" % what)
    if k == "bytes":
        n = int.from_bytes(r.take(t[1], what), "big")
        if n > t[2]:
            raise ProtoError("field_too_long", "'%s': %d bytes, limit %d" % (what, n, t[2]))
        return r.take(n, what)
    if k == "list":
        n = int.from_bytes(r.take(4, what), "big")
        if n > t[1]:
            raise ProtoError("field_too_long", "'%s': %d entries, limit %d" % (what, n, t[1]))
        if n * _min_size(t[2]) > r.left():
            raise ProtoError("truncated_body", "'%s': %d entries cannot fit" % (what, n))
        return [decode(t[2], r, "%s[%d]" % (what, i)) for i in range(n)]
    if k == "opt":
        present = decode(BOOL, r, what)
        return decode(t[1], r, what) if present else None
    out = {}
    for name, ft in t[1]:
        out[name] = decode(ft, r, name if what == "" else "%s.%s" % (what, name))
    return out


def encode(t, v, out):
    k = t[0]
    if k == "uint":
        out += int(v).to_bytes(t[1], "big")
    elif k == "i32":
        out += struct.pack(">i", v)
    elif k in ("bool", "enum"):
        out.append(int(v))
    elif k == "f64":
        out += struct.pack(">d", v)
    elif k == "raw":
        assert len(v) == t[1]
        out += v
    elif k == "str":
        b = v.encode("utf-8")
        out += len(b).to_bytes(2, "big") + b
    elif k == "bytes":
        out += len(v).to_bytes(t[1], "big") + bytes(v)
    elif k == "list":
        out += len(v).to_bytes(4, "big")
        for item in v:
            encode(t[2], item, out)
    elif k == "opt":
        out.append(0 if v is None else 1)
        if v is not None:
            encode(t[1], v, out)
    else:
        for name, ft in t[1]:
            encode(ft, v[name], out)


# ---- bodies (section 4, section 9) -----------------------------------------------------------
FIELD = STRUCT([("width", U32), ("init", U32), ("min", U32), ("max", U32), ("mask", U32)])
EV = STRUCT([("value", BYTES8(32)), ("port", U8)])
CC = STRUCT([("algorithm", STR(64)), ("disable_qa", BOOL), ("adjust_bytes_threshold", U32),
             ("adjust_period_threshold", U32), ("base_rtt", U32), ("eta", F64), ("fi", F64),
             ("fi_scale", F64), ("gamma", F64), ("max_md_jump", F64), ("max_cwnd", U32),
             ("qa_gate", U8), ("qa_threshold", U32), ("target_delay", U32)])
QP = STRUCT([("count", U32), ("mtu", U32), ("mpr", U8), ("mpr_dest", U8), ("max_wimm", U16),
             ("max_wimm_dest", U16), ("timeout", U8), ("retry_linear", U8), ("retry_exp", U8),
             ("caps", U32), ("first_psn", U32)])
PEER = [("gid", GID), ("mac", MAC), ("ipv4", U32), ("qpns", LIST(64, U32)), ("mpr_dest", U8),
        ("max_wimm_dest", U16), ("qp_caps", U32), ("first_psn", U32)]
DSCP = STRUCT([(n, U8) for n in ("trimmable", "trimmable_retx", "no_trim", "trimmed",
                                 "trimmed_lasthop", "control")])

BODIES = {
    "HELLO": [("version", U16), ("token", STR(256)), ("client", STR(128))],
    "HELLO_OK": [("version", U16), ("agent", STR(128)), ("capabilities", LIST(64, STR(128))),
                 ("ports", LIST(32, STRUCT([("port", U8), ("name", STR(128)), ("mac", MAC),
                                            ("up", BOOL)]))),
                 ("clock", ENUM(2))],
    "APPLY_CONFIG": [("format_mode", ENUM(3)), ("format_widths", LIST(64, U32)),
                     ("ev_mode", ENUM(3)), ("fields", LIST(64, FIELD)), ("evs", LIST(4096, EV)),
                     ("generate_count", U32), ("generate_seed", U64), ("ev_min_active", U32),
                     ("ev_event_mask", U32), ("denied", LIST(4096, U32)), ("cc", OPT(CC)),
                     ("cc_line_rate_bps", U64), ("cc_fabric_trims", BOOL), ("qp", QP),
                     ("ipv4", BOOL), ("seed", U64),
                     ("regions", LIST(16, STRUCT([("addr", U64), ("length", U64)]))),
                     ("peer", OPT(STRUCT(PEER))), ("dscp", DSCP)],
    "APPLY_OK": [("gid", GID), ("mac", MAC), ("ipv4", U32), ("qpns", LIST(64, U32)),
                 ("regions", LIST(16, STRUCT([("addr", U64), ("length", U64), ("lkey", U32),
                                              ("rkey", U32)]))),
                 ("mpr_dest", U8), ("max_wimm_dest", U16), ("qp_caps", U32), ("first_psn", U32)],
    "CONNECT": PEER,
    "POST_WRITE": [("qp", U32), ("wr_id", U64), ("region", U32), ("local_offset", U64),
                   ("length", U32), ("remote_addr", U64), ("rkey", U32), ("with_imm", BOOL),
                   ("imm", U32)],
    "POST_RECV": [("qp", U32), ("wr_id", U64)],
    "POLL": [("max_completions", U32), ("max_events", U32)],
    "COMPLETIONS": [("now_ns", U64),
                    ("completions", LIST(4096, STRUCT([
                        ("at_ns", U64), ("wr_id", U64), ("qp", U32), ("status", U16),
                        ("is_send", BOOL), ("has_imm", BOOL), ("imm", U32),
                        ("byte_len", U32)]))),
                    ("events", LIST(4096, STRUCT([
                        ("at_ns", U64), ("ev_index", U32), ("port", U8), ("state", U32),
                        ("drop_count", U32)]))),
                    ("more", BOOL)],
    "SET_EV_STATE": [("index", U32), ("denied", BOOL)],
    "PORT_ADMIN": [("port", U8), ("up", BOOL)],
    "EP_OP": [("op", ENUM(2)), ("ev_index", U32), ("tc", U8)],
    "READ_MEMORY": [("addr", U64), ("length", U32)],
    "MEMORY": [("addr", U64), ("bytes", BYTES32(512 * 1024))],
    "WRITE_MEMORY": [("addr", U64), ("bytes", BYTES32(512 * 1024))],
    "QUERY_STATE": [],
    "STATE": [("now_ns", U64),
              ("evs", LIST(4096, STRUCT([("index", U32), ("port", U8), ("value", BYTES8(32)),
                                         ("wire", BYTES8(32)), ("echo", U32), ("state", U32),
                                         ("denied", BOOL)]))),
              ("counters", LIST(256, STRUCT([("name", STR(128)), ("value", F64)])))],
    "RESET": [], "BYE": [], "OK": [],
    "EV_PROFILE_OP": [("state", OPT(ENUM(3))), ("mode", OPT(ENUM(3))),
                      ("fields", OPT(LIST(64, FIELD))), ("count", OPT(U32)),
                      ("min_active", OPT(U32)), ("event_mask", OPT(U32)), ("seed", OPT(U64))],
    "CC_PROFILE_OP": [("state", OPT(ENUM(3))), ("algorithm", OPT(STR(64))),
                      ("config", LIST(64, STRUCT([("name", STR(128)), ("value", STR(128))])))],
    "REPLACE_EV": [("from", OPT(EV)), ("evs", LIST(4096, EV)), ("all_copies", BOOL)],
    "SET_PROFILE_ONLINE": [("online", BOOL)],
    "RESTRICT_DEVICE": [("caps_off", LIST(64, STR(128))), ("event_queue_depth", U32)],
    "ERROR": [("code", U16), ("err", I32), ("text", STR(1024))],
    "ATTACH": [("mac", MAC), ("gid", GID), ("ipv4", U32), ("planes", U8)],
    "STEP": [("ops", LIST(64, STRUCT([("kind", ENUM(2)), ("at_ns", U64), ("port", U8),
                                      ("frame", BYTES32(9216))]))),
             ("max_frames", U32)],
    "FRAMES": [("frames", LIST(64, STRUCT([("port", U8), ("frame", BYTES32(9216))]))),
               ("drained", BOOL), ("next_deadline_ns", U64)],
}


def decode_body(name, body):
    """Decode a body exactly (section 1): missing bytes truncated_body, extra trailing_bytes."""
    r = Reader(body)
    v = decode(STRUCT(BODIES[name]), r, "")
    if r.left():
        raise ProtoError("trailing_bytes", "%d bytes after the last field of %s" % (r.left(), name))
    return v


def encode_body(name, value):
    out = bytearray()
    encode(STRUCT(BODIES[name]), value, out)
    return bytes(out)


def frame(msg_type, seq, body=b"", flags=0):
    return HEADER.pack(8 + len(body), msg_type, flags, seq) + body


def error_body(name, text, err=0):
    code = ERR[name][0]
    return encode_body("ERROR", {"code": code, "err": err, "text": text.encode()[:1024].decode(
        "utf-8", "ignore")})
