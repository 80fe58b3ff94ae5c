#!/usr/bin/env python3
"""mrc-py-responder: an MRC NIC responder model behind the DUT-agent protocol, version 5.

A VIRTUAL-clock (lockstep, agent-protocol.md section 9) agent written from the documents only:
harness/dut/agent-protocol.md and the wire model (mrc-wire-model.md) section 5. Standard library only.

    mrc_py_responder.py --listen 127.0.0.1:0 --token TOKEN     (or --token-file F)

Prints one line, "mrc-py-responder: listening on HOST:PORT", once it accepts connections, and
serves until killed. One session at a time by default (--max-clients 1), the DUT's state
outliving it (section 2.4: BYE keeps the configuration); --max-clients N gives every connection
a device of its own, for parallel cases.
"""
import argparse
import hmac
import os
import select
import socket
import sys
import threading
import time

sys.dont_write_bytecode = True     # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentproto as ap                         # noqa: E402
from agentproto import ProtoError               # noqa: E402
from responder import Device                    # noqa: E402

AGENT_NAME = "mrc-py-responder 0.1 (Python model, responder only)"
# The HELLO_OK capability words the model really supports (section 4): STEV traffic and trim
# NACKs. Everything else (SRv6, UDP mode, EV probes as a sender, profiles ...) is left out, so the
# harness makes the cases needing it UNSUPPORTED.
CAPABILITIES = ["stev", "trim_nack"]
HELLO_TIMEOUT_S = 5.0
IDLE_TIMEOUT_S = 300.0
LINGER_S = 0.2
SEND_TIMEOUT_S = 30.0        # a client that stops reading is cut off (section 2)
# MRC_PY_RESPONDER_TRACE=FILE logs one line per request and reply (debugging aid).
TRACE = open(os.environ["MRC_PY_RESPONDER_TRACE"], "a", buffering=1) \
    if os.environ.get("MRC_PY_RESPONDER_TRACE") else None


def trace(direction, name, seq, body):
    shown = body if len(body) < 2048 else body[:64]
    TRACE.write("%s %s seq %d %d bytes %s\n" % (direction, name, seq, len(body), shown.hex()))

# Requests the model never offers: a requester's operations and the profile API.
UNSUPPORTED = {"POST_WRITE", "SET_EV_STATE", "EP_OP", "EV_PROFILE_OP", "CC_PROFILE_OP",
               "REPLACE_EV", "SET_PROFILE_ONLINE"}


class Fatal(Exception):
    pass


class Session:
    def __init__(self, sock, device, token, ports):
        self.sock, self.dev, self.token, self.ports = sock, device, token, ports
        self.authed, self.last_seq = False, None

    # ---- transport ---------------------------------------------------------------------
    def recv_exact(self, n, deadline, inside):
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                name = "hello_timeout=%d ms" % (HELLO_TIMEOUT_S * 1000) if not self.authed else \
                    "idle_timeout=%d ms" % (IDLE_TIMEOUT_S * 1000)
                self.fatal(0, "timeout", name + " expired")
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                continue
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                if inside or buf:
                    self.fatal(0, "truncated", "the peer half-closed inside a frame")
                raise Fatal()                    # a clean EOF between frames
            buf += chunk
        return bytes(buf)

    def send(self, msg_type, seq, body=b"", flags=0):
        if TRACE:
            trace("->", ap.NAME.get(msg_type), seq, body)
        self.sock.sendall(ap.frame(msg_type, seq, body, flags))

    def error(self, seq, name, text, err=0):
        fatal = ap.ERR[name][1]
        self.send(ap.REPLY["ERROR"], seq, ap.error_body(name, text, err),
                  ap.FLAG_CLOSING if fatal else 0)
        if fatal:
            self.close_after_fatal()

    def fatal(self, seq, name, text):
        self.error(seq, name, text)

    def close_after_fatal(self):
        """Section 2.5: half-close, discard input for a short linger, close."""
        try:
            self.sock.shutdown(socket.SHUT_WR)
            end = time.monotonic() + LINGER_S
            while time.monotonic() < end:
                r, _, _ = select.select([self.sock], [], [], max(0, end - time.monotonic()))
                if r and not self.sock.recv(65536):
                    break
        except OSError:
            pass
        raise Fatal()

    # ---- loop ----------------------------------------------------------------------------
    def run(self):
        self.sock.settimeout(SEND_TIMEOUT_S)
        start = time.monotonic()
        while True:
            deadline = (start + HELLO_TIMEOUT_S) if not self.authed else \
                time.monotonic() + IDLE_TIMEOUT_S
            head = self.recv_exact(4, deadline, False)
            length = int.from_bytes(head, "big")
            # Judged from the first four bytes, before reading what the peer says follows.
            if length < 8:
                self.fatal(0, "frame_too_short", "length %d is below 8" % length)
            if length > ap.MAX_LENGTH:
                self.fatal(0, "frame_too_large", "length %d is over %d" % (length, ap.MAX_LENGTH))
            rest = self.recv_exact(length, deadline, True)
            msg_type = int.from_bytes(rest[0:2], "big")
            flags = int.from_bytes(rest[2:4], "big")
            seq = int.from_bytes(rest[4:8], "big")
            if self.handle(msg_type, flags, seq, rest[8:]):
                return

    def handle(self, msg_type, flags, seq, body):
        """Answer one request; True when the session ends (BYE)."""
        name = ap.NAME.get(msg_type)
        if TRACE:
            trace("<-", name or hex(msg_type), seq, body)
        if name is None:
            self.error(seq, "unknown_type", "message type 0x%04x is not in section 3" % msg_type)
            return False
        if msg_type >= 0x8000:
            self.error(seq, "unexpected_reply", "%s is a reply; the agent takes requests" % name)
            return False
        if flags != 0:
            self.error(seq, "bad_flags", "request flags 0x%04x: must be 0" % flags)
            return False
        if self.last_seq is not None and seq <= self.last_seq:
            self.error(seq, "bad_seq", "seq %d is not greater than %d" % (seq, self.last_seq))
            return False
        self.last_seq = seq
        if name == "HELLO":
            return self.hello(seq, body)
        if not self.authed:
            self.error(seq, "not_hello", "%s before HELLO" % name)
            return False
        try:
            reply, rbody = self.dispatch(name, body)
        except ProtoError as e:
            self.error(seq, e.name, e.text, e.err)
            return False
        if name == "BYE":
            self.send(reply, seq, rbody, ap.FLAG_CLOSING)
            return True
        self.send(reply, seq, rbody)
        return False

    def hello(self, seq, body):
        if self.authed:
            self.error(seq, "duplicate_hello", "HELLO after HELLO")
            return False
        if len(body) >= 2 and int.from_bytes(body[:2], "big") != ap.VERSION:
            self.fatal(seq, "bad_version", "client speaks protocol version %d; this agent speaks "
                       "version %d only" % (int.from_bytes(body[:2], "big"), ap.VERSION))
        try:
            h = ap.decode_body("HELLO", body)
        except ProtoError as e:
            self.error(seq, e.name, e.text)
            return False
        if not hmac.compare_digest(h["token"].encode(), self.token.encode()):
            self.fatal(seq, "bad_token", "wrong token")
        self.authed = True
        ports = []
        for p in range(1, self.ports + 1):
            ports.append({"port": p, "name": "virtual-p%d" % p, "mac": self.port_mac(p),
                          "up": self.dev.port_up.get(p, True)})
        self.send(ap.REPLY["HELLO_OK"], seq, ap.encode_body("HELLO_OK", {
            "version": ap.VERSION, "agent": AGENT_NAME, "capabilities": CAPABILITIES,
            "ports": ports, "clock": 1}))
        return False

    def port_mac(self, p):
        if self.dev.attach is not None:
            return self.dev.attach["mac"]
        return bytes([0x02, 0x50, 0x59, 0x00, 0x00, p])

    # ---- requests ----------------------------------------------------------------------
    def dispatch(self, name, body):
        req = ap.decode_body(name, body)       # the whole body, even parts the model ignores
        if name in UNSUPPORTED:
            raise ProtoError("unsupported", "%s is not offered by this responder-only model" % name)
        dev = self.dev
        ok = (ap.REPLY["OK"], b"")
        if name == "BYE":
            return ok
        if name == "RESET":
            dev.reset()
            return ok
        if name == "QUERY_STATE":
            return ap.REPLY["STATE"], ap.encode_body("STATE", self.state())
        if name == "ATTACH":
            if not 1 <= req["planes"] <= 32:
                raise ProtoError("bad_value", "'planes' %d is outside 1..32" % req["planes"])
            dev.do_attach(req)
            return ok
        if name == "RESTRICT_DEVICE":
            if dev.config is not None:
                raise ProtoError("not_applied", "RESTRICT_DEVICE after APPLY_CONFIG; RESET first")
            for cap in req["caps_off"]:
                if cap in CAPABILITIES and cap != "trim_nack":
                    raise ProtoError("unsupported", "capability '%s' cannot be turned off" % cap)
            dev.caps_off = set(req["caps_off"])
            return ok
        if name == "PORT_ADMIN":
            # A fabric port fault (section 9): frames in or out of a down port are dropped.
            if dev.attach is None:
                raise ProtoError("not_applied", "PORT_ADMIN needs ATTACH first")
            if req["port"] not in dev.port_up:
                raise ProtoError("bad_value", "'port' %d: no such port" % req["port"])
            dev.port_up[req["port"]] = req["up"]
            return ok
        if name == "STEP":
            return ap.REPLY["FRAMES"], ap.encode_body("FRAMES", self.step(req))
        if name == "APPLY_CONFIG":
            return ap.REPLY["APPLY_OK"], ap.encode_body("APPLY_OK", self.apply(req))
        if dev.config is None:
            raise ProtoError("not_applied", "%s needs APPLY_CONFIG first" % name)
        if name == "CONNECT":
            dev.connect(req)
            return ok
        if name == "POST_RECV":
            if req["qp"] >= len(dev.qps):
                raise ProtoError("bad_value", "'qp' %d: the DUT has %d QPs" %
                                 (req["qp"], len(dev.qps)))
            dev.qps[req["qp"]].recvs.append(req["wr_id"])
            return ok
        if name == "POLL":
            return ap.REPLY["COMPLETIONS"], ap.encode_body("COMPLETIONS", self.poll(req))
        if name == "READ_MEMORY":
            if req["length"] > 512 * 1024:
                raise ProtoError("field_too_long", "'length' %d is over 512 KiB" % req["length"])
            r = self.region(req["addr"], req["length"])
            off = req["addr"] - r.addr
            return ap.REPLY["MEMORY"], ap.encode_body("MEMORY", {
                "addr": req["addr"], "bytes": bytes(r.mem[off:off + req["length"]])})
        if name == "WRITE_MEMORY":
            r = self.region(req["addr"], len(req["bytes"]))
            off = req["addr"] - r.addr
            r.mem[off:off + len(req["bytes"])] = req["bytes"]
            return ok
        raise ProtoError("unsupported", "%s is not offered by this model" % name)

    def region(self, addr, length):
        r = self.dev.region_at(addr, length)
        if r is None:
            raise ProtoError("limit", "0x%x + %d is outside every registered region" %
                             (addr, length))
        return r

    def apply(self, c):
        dev = self.dev
        if dev.attach is None:
            raise ProtoError("not_applied", "APPLY_CONFIG needs ATTACH first (lockstep)")
        q = c["qp"]
        if q["count"] > 64:
            raise ProtoError("bad_value", "'qp.count' %d is over 64" % q["count"])
        for i, r in enumerate(c["regions"]):
            if r["length"] > 64 << 20:
                raise ProtoError("bad_value", "'regions[%d].length' is over 64 MiB" % i)
        for k, v in c["dscp"].items():
            if v > 63:
                raise ProtoError("bad_value", "'dscp.%s' %d is over 63" % (k, v))
        dev.apply(c)
        a = dev.attach
        # The IPv4 address only when the case runs RoCEv2 over IPv4: a non-zero ipv4 in APPLY_OK
        # is what tells the harness's peer to address this side over IPv4.
        return {"gid": a["gid"], "mac": a["mac"], "ipv4": a["ipv4"] if c["ipv4"] else 0,
                "qpns": [qp.qpn for qp in dev.qps],
                "regions": [{"addr": r.addr, "length": r.length, "lkey": r.lkey, "rkey": r.rkey}
                            for r in dev.regions],
                "mpr_dest": q["mpr_dest"], "max_wimm_dest": q["max_wimm_dest"],
                "qp_caps": q["caps"], "first_psn": q["first_psn"]}

    def step(self, s):
        dev = self.dev
        if dev.attach is None:
            raise ProtoError("not_applied", "STEP needs ATTACH first")
        if s["max_frames"] > 64:
            raise ProtoError("bad_value", "'max_frames' %d is over 64" % s["max_frames"])
        planes = dev.attach["planes"]
        for i, op in enumerate(s["ops"]):
            # Each op is judged in turn, so a bad one leaves what the ops before it did.
            if op["at_ns"] < dev.now:
                raise ProtoError("bad_value", "ops[%d].at_ns %d is before %d: virtual time never "
                                 "goes back" % (i, op["at_ns"], dev.now))
            if op["kind"] == 1:
                if op["port"] != 0 or op["frame"]:
                    raise ProtoError("bad_value", "ops[%d]: ADVANCE takes port 0 and no frame" % i)
                dev.run_timers(op["at_ns"])
                dev.now = op["at_ns"]
            else:
                if not 1 <= op["port"] <= planes:
                    raise ProtoError("bad_value", "ops[%d].port %d is outside 1..%d" %
                                     (i, op["port"], planes))
                dev.run_timers(op["at_ns"])          # what fell due up to its arrival
                dev.now = op["at_ns"]
                dev.receive(op["port"], op["frame"])
        frames = dev.take(s["max_frames"])
        return {"frames": [{"port": p, "frame": f} for p, f in frames],
                "drained": not dev.tx, "next_deadline_ns": dev.next_deadline()}

    def poll(self, p):
        if p["max_completions"] > 4096 or p["max_events"] > 4096:
            raise ProtoError("bad_value", "'max_completions'/'max_events' are at most 4096")
        out = []
        while self.dev.completions and len(out) < p["max_completions"]:
            out.append(self.dev.completions.popleft())
        return {"now_ns": self.dev.now, "completions": out, "events": [],
                "more": bool(self.dev.completions)}

    def state(self):
        dev = self.dev
        counters = [{"name": "agent.rx.p%d" % p, "value": float(dev.rx_per_port.get(p, 0))}
                    for p in range(1, self.ports + 1)]
        counters += [{"name": k, "value": float(v)} for k, v in sorted(dev.counters.items())]
        return {"now_ns": dev.now, "evs": [], "counters": counters[:256]}


def serve(args, token):
    """Accept loop. With --max-clients 1 (the default) one device outlives its sessions, as
    section 2.4 wants (BYE keeps the configuration). With more, every connection gets a device
    of its own: in lockstep each connection is one host of one case's fabric, so parallel
    cases (mrc-conform run --jobs N) must not share one."""
    shared = Device(CAPABILITIES) if args.max_clients == 1 else None
    slots = threading.BoundedSemaphore(args.max_clients)
    host, port = args.listen.rsplit(":", 1)
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, int(port)))
    srv.listen(16)
    print("mrc-py-responder: listening on %s:%d" % srv.getsockname(), flush=True)

    def run(conn):
        try:
            Session(conn, shared or Device(CAPABILITIES), token, args.ports).run()
        except (Fatal, OSError):
            pass
        except Exception as e:        # a model bug must cost the session, never the agent
            print("mrc-py-responder: session failed: %r" % e, file=sys.stderr, flush=True)
        finally:
            conn.close()
            slots.release()

    while True:
        conn, _ = srv.accept()
        # A previous session may still be closing (its client just said BYE): give it a moment.
        if not slots.acquire(timeout=1.0):
            try:
                conn.sendall(ap.frame(ap.REPLY["ERROR"], 0, ap.error_body(
                    "too_many_clients", "--max-clients %d reached" % args.max_clients),
                    ap.FLAG_CLOSING))
            except OSError:
                pass
            conn.close()
            continue
        threading.Thread(target=run, args=(conn,), daemon=True).start()


def main():
    ap_ = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap_.add_argument("--listen", default="127.0.0.1:7411")
    ap_.add_argument("--token")
    ap_.add_argument("--token-file")
    ap_.add_argument("--ports", type=int, default=8,
                     help="ports listed in HELLO_OK (virtual-p1..N; ATTACH sets the planes)")
    ap_.add_argument("--max-clients", type=int, default=1,
                     help="concurrent connections; above 1 each gets its own device")
    args = ap_.parse_args()
    if args.token_file:
        with open(args.token_file) as f:
            token = f.read().strip()
    elif args.token is not None:
        token = args.token
    else:
        token = os.environ.get("MRC_AGENT_TOKEN", "")
    if not token:
        ap_.error("a token is required (--token, --token-file or $MRC_AGENT_TOKEN)")
    if not 1 <= args.max_clients <= 64:
        ap_.error("--max-clients must be 1..64")
    if not 1 <= args.ports <= 32:
        ap_.error("--ports must be 1..32")
    try:
        serve(args, token)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
