#!/usr/bin/env python3
"""Tests of the Python responder model (tools/models/py_responder), standard library only.

    python3 tests/tools/models/py_responder/py_responder_test.py --build BUILD --source SOURCE [--skip-e2e]

(a) unit: codec round trips for every message of agent-protocol.md v5, the wire vectors of
    mrc-wire-model.md (ICRC, SETH/NETH), and the responder state machine fed a frame directly;
(b) socket: a started model answers bad framing, unknown types, a wrong version, and a whole
    lockstep exchange from a tiny hand-written client;
(c) end to end: `mrc-conform run` over every responder case against the model, each verdict
    compared with tools/models/py_responder/expected_verdicts.json.
Every wait is bounded; the model and the temporary folders are removed whatever happens.
"""
import argparse
import glob
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

FAILURES = []
CHECKS = [0]


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)


# ---- (a) unit ------------------------------------------------------------------------------
def sample(ap, t, i=0):
    """A deterministic value of every schema type, varied by i, within every limit."""
    k = t[0]
    if k == "uint":
        return (0x0102030405060708 + i * 0x1111) & ((1 << (8 * t[1])) - 1)
    if k == "i32":
        return -5 - i
    if k == "bool":
        return i % 2 == 1
    if k == "enum":
        return (i + 1) % t[1]
    if k == "f64":
        return 1.5 + i
    if k == "raw":
        return bytes((j + i) & 0xFF for j in range(t[1]))
    if k == "str":
        return "s%d-é" % i
    if k == "bytes":
        return bytes(range(min(t[2], 5 + i)))
    if k == "list":
        return [sample(ap, t[2], i + j) for j in range(min(t[1], 2))]
    if k == "opt":
        return None if i % 3 == 2 else sample(ap, t[1], i)
    return {name: sample(ap, ft, i + n) for n, (name, ft) in enumerate(t[1])}


def unit_tests(model_dir):
    sys.dont_write_bytecode = True     # leave no __pycache__ in the source tree
    sys.path.insert(0, model_dir)
    import agentproto as ap
    import wire
    import responder

    # Every body round trips, re-encodes to the same bytes, and refuses a short or long body.
    for name in sorted(ap.BODIES):
        for i in range(3):
            v = sample(ap, ap.STRUCT(ap.BODIES[name]), i)
            b = ap.encode_body(name, v)
            d = ap.decode_body(name, b)
            check(d == v, "codec: %s round trip %d" % (name, i))
            check(ap.encode_body(name, d) == b, "codec: %s canonical %d" % (name, i))
            for bad, err in ((b + b"\0", "trailing_bytes"), (b[:-1], "truncated_body")):
                if not b and bad == b[:-1]:
                    continue
                try:
                    ap.decode_body(name, bad)
                    check(False, "codec: %s accepted a bad body (%s)" % (name, err))
                except ap.ProtoError as e:
                    check(e.name in (err, "truncated_body", "bad_value", "field_too_long"),
                          "codec: %s bad body gives %s, not %s" % (name, e.name, err))
    # Strictness: a bool of 2, an enum out of range, a string over its limit, a list count
    # past the bytes left.
    for body, name, err in ((b"\x00\x00\x00\x00\x02", "SET_EV_STATE", "bad_value"),
                            (b"\x07" + b"\0" * 12, "EP_OP", "bad_value"),
                            (b"\x00\x05" + struct.pack(">H", 257) + b"a" * 257 + b"\0\0",
                             "HELLO", "field_too_long"),
                            (b"\xff\xff\xff\xff", "RESTRICT_DEVICE", "field_too_long"),
                            (b"\x00\x00\x00\x10", "RESTRICT_DEVICE", "truncated_body")):
        try:
            ap.decode_body(name, body)
            check(False, "codec: %s strictness (%s) not enforced" % (name, err))
        except ap.ProtoError as e:
            check(e.name == err, "codec: %s gives %s, expected %s" % (name, e.name, err))

    # Wire vectors (mrc-wire-model.md section 2.5 and W19).
    p = bytes.fromhex(
        "6681234500381140fd000000000000000000000000000001fd000000000000000000000000000002"
        "c0de12b7003800000a00ffff000001238000001000000000100000000000123400000010"
        "000102030405060708090a0b0c0d0e0f")
    check(wire.icrc(p[:40], p[40:48], p[48:]) == 0x41FE4829, "wire: ICRC vector 2.5")
    p = bytes.fromhex(
        "6680123400401140fd000000000000000000000000000001fd000000000000000000000000000002"
        "567812b700400000ca00ffff00000123900000100000000012340001000000001000000000001234"
        "00000010000102030405060708090a0b0c0d0e0f")
    check(wire.icrc(p[:40], p[40:48], p[48:]) == 0x4A8E9CCD, "wire: ICRC vector V6")
    v2 = wire.seth_cc(1, 0, 7, 0x12345678, 0x22, 0x11, 4, 0, 1, 0x76, 0x0100, 5, 0x30)
    check(v2.hex() == "002000071234567800220011000000040000000100000000000000760100000500000030",
          "wire: SETH V2 bytes")

    # The responder fed frames directly: a WRITE_ONLY_IMM with A places, SACKs, ACKs, completes.
    dev = responder.Device(["stev", "trim_nack"])
    me, peer = bytes.fromhex("020000000001"), bytes.fromhex("020000000002")
    gid_me, gid_peer = bytes(15) + b"\x01", bytes(15) + b"\x02"
    dev.do_attach({"mac": me, "gid": gid_me, "ipv4": 0, "planes": 2})
    cfg = base_config(ap)
    dev.apply(cfg)
    dev.connect({"gid": gid_peer, "mac": peer, "ipv4": 0, "qpns": [0x77], "mpr_dest": 8,
                 "max_wimm_dest": 128, "qp_caps": 0, "first_psn": 0})
    qp, region = dev.qps[0], dev.regions[0]
    qp.recvs.append(42)
    payload = bytes(range(64))
    fr = data_frame(wire, peer, me, gid_peer, gid_me, 0xCB, qp.qpn, 0, wire.F_A | wire.F_TS,
                    region.addr, region.rkey, payload, imm=0xABCD, ts=0x1234, ev=0x00115678)
    dev.now = 1000
    dev.receive(1, fr)
    out = dev.take(64)
    ops = [wire.parse(f).opcode for _, f in out]
    check(ops == [wire.SACK, wire.TACK], "responder: SACK then Transport ACK, got %s" % ops)
    check(bytes(region.mem[:64]) == payload, "responder: payload placed")
    check(len(dev.completions) == 1 and dev.completions[0]["imm"] == 0xABCD and
          dev.completions[0]["wr_id"] == 42, "responder: WIMM completion")
    if out:
        s = wire.parse(out[0][1])
        check(s.icrc_ok, "responder: SACK ICRC valid")
        seth = s.transport[12:48]
        check(struct.unpack_from(">I", seth, 4)[0] == 0x00115678, "responder: SACK echoes EV")
        check(struct.unpack_from(">H", seth, 28)[0] == 0x1234, "responder: SACK reflects TSETH")
        check(s.psn == 0 and s.dqpn == 0x77, "responder: SACK cack 0 to the peer QP")
        check(s.dscp == cfg["dscp"]["control"], "responder: SACK in the Control class")
    # A bad ICRC is dropped silently; a READ request draws NAK 0x61.
    bad = bytearray(fr)
    bad[-1] ^= 1
    dev.receive(1, bytes(bad))
    check(not dev.take(64), "responder: bad ICRC dropped silently")
    rd = data_frame(wire, peer, me, gid_peer, gid_me, 0x0C, qp.qpn, 1, 0, 0, 0, b"", raw=True)
    dev.receive(1, rd)
    out = dev.take(64)
    check(len(out) == 1 and wire.parse(out[0][1]).transport[12] == 0x61,
          "responder: READ request answered by NAK 0x61")


def base_config(ap):
    """An APPLY_CONFIG body as the harness might send it for a STEV responder case."""
    return {"format_mode": 0, "format_widths": [16, 16], "ev_mode": 1, "fields": [],
            "evs": [{"value": b"\x01\x01", "port": 1}], "generate_count": 0, "generate_seed": 0,
            "ev_min_active": 1, "ev_event_mask": 3, "denied": [], "cc": None,
            "cc_line_rate_bps": 0, "cc_fabric_trims": False,
            "qp": {"count": 1, "mtu": 4096, "mpr": 8, "mpr_dest": 8, "max_wimm": 128,
                   "max_wimm_dest": 128, "timeout": 8, "retry_linear": 7, "retry_exp": 25,
                   "caps": 0, "first_psn": 0},
            "ipv4": False, "seed": 1, "regions": [{"addr": 0, "length": 65536}], "peer": None,
            "dscp": {"trimmable": 10, "trimmable_retx": 12, "no_trim": 8, "trimmed": 11,
                     "trimmed_lasthop": 13, "control": 46}}


def data_frame(wire, src_mac, dst_mac, src_ip, dst_ip, opcode, dqpn, psn, flags, va, rkey,
               payload, imm=None, ts=None, ev=0x0000C000, raw=False):
    """An Ethernet/IPv6/UDP MRC data frame as a requester sends it (W1-W4), with its ICRC."""
    t = wire.bth(opcode, dqpn, psn, flags)
    if not raw:
        t += struct.pack(">HH", 0, 0)
        if ts is not None:
            t += struct.pack(">HBB", ts, 0, 1)
        t += struct.pack(">QII", va, rkey, len(payload))
        if imm is not None:
            t += struct.pack(">I", imm)
    t += payload
    route = wire.Route(src_mac, dst_mac, src_ip, dst_ip, 10, ev & 0xFFFF, ev >> 16)
    return wire.build(route, t)


# ---- (b) socket ----------------------------------------------------------------------------
class Model:
    """The model as a child process on port 0; stopped by its pid, never by name."""

    def __init__(self, model_dir, token_file, log_path):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(model_dir, "mrc_py_responder.py"),
             "--listen", "127.0.0.1:0", "--token-file", token_file],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = read_line_bounded(self.proc.stdout, 10.0)
        m = re.match(r"mrc-py-responder: listening on 127\.0\.0\.1:(\d+)$", line.strip())
        if not m:
            self.stop()
            raise RuntimeError("model did not say it listens: %r" % line)
        self.port = int(m.group(1))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()


def read_line_bounded(stream, timeout):
    import select
    r, _, _ = select.select([stream], [], [], timeout)
    return stream.readline() if r else ""


class Client:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.seq = 0

    def raw(self, data):
        self.s.sendall(data)

    def read(self):
        head = self.recv(4)
        n = int.from_bytes(head, "big")
        rest = self.recv(n)
        t, flags, seq = struct.unpack(">HHI", rest[:8])
        return t, flags, seq, rest[8:]

    def recv(self, n):
        buf = b""
        while len(buf) < n:
            c = self.s.recv(n - len(buf))
            if not c:
                raise EOFError("model closed the connection")
            buf += c
        return buf

    def call(self, ap, name, body=None):
        self.seq += 1
        b = ap.encode_body(name, body or {})
        self.raw(ap.frame(ap.REQ[name], self.seq, b))
        t, flags, seq, rb = self.read()
        check(seq == self.seq, "socket: %s reply seq %d != %d" % (name, seq, self.seq))
        return ap.NAME.get(t), flags, ap.decode_body(ap.NAME.get(t), rb)

    def close(self):
        self.s.close()


def socket_tests(model_dir, tmp):
    import agentproto as ap
    import wire
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write("py-responder-test-token\n")
    model = Model(model_dir, token_file, os.path.join(tmp, "model-socket.log"))
    try:
        c = Client(model.port)
        c.raw(struct.pack(">I", 3))
        t, flags, seq, b = c.read()
        e = ap.decode_body("ERROR", b)
        check(ap.NAME[t] == "ERROR" and e["code"] == 1 and flags & ap.FLAG_CLOSING,
              "socket: length 3 -> fatal frame_too_short, got %s %s" % (ap.NAME[t], e))
        c.close()

        c = Client(model.port)
        c.raw(ap.frame(0x0777, 5))
        t, flags, seq, b = c.read()
        e = ap.decode_body("ERROR", b)
        check(e["code"] == 4 and seq == 5 and not flags, "socket: unknown type -> unknown_type")
        c.seq = 5
        name, flags, e = c.call(ap, "QUERY_STATE")
        check(name == "ERROR" and e["code"] == 12, "socket: request before HELLO -> not_hello")
        c.seq += 1
        c.raw(ap.frame(1, c.seq, ap.encode_body("HELLO", {"version": 4, "token": "x",
                                                          "client": "t"})))
        t, flags, seq, b = c.read()
        e = ap.decode_body("ERROR", b)
        check(e["code"] == 10 and flags & ap.FLAG_CLOSING and "5" in e["text"],
              "socket: HELLO version 4 -> bad_version, got %s" % e)
        c.close()

        # A whole lockstep exchange.
        c = Client(model.port)
        name, _, h = c.call(ap, "HELLO", {"version": 5, "token": "py-responder-test-token",
                                          "client": "py_responder_test"})
        check(name == "HELLO_OK" and h["clock"] == 1 and h["ports"],
              "socket: HELLO_OK, virtual clock, ports")
        name, _, e = c.call(ap, "HELLO", {"version": 5, "token": "x", "client": "t"})
        check(name == "ERROR" and e["code"] == 13, "socket: second HELLO -> duplicate_hello")
        c.seq += 1
        c.raw(ap.frame(ap.REQ["POLL"], c.seq - 2, ap.encode_body("POLL", {
            "max_completions": 1, "max_events": 1})))
        t, _, _, b = c.read()
        check(ap.decode_body("ERROR", b)["code"] == 14, "socket: old seq -> bad_seq")
        name, _, e = c.call(ap, "POLL", {"max_completions": 1, "max_events": 1})
        check(name == "ERROR" and e["code"] == 16, "socket: POLL before APPLY -> not_applied")
        cfg = base_config(ap)
        name, _, e = c.call(ap, "APPLY_CONFIG", cfg)
        check(name == "ERROR" and e["code"] == 16, "socket: APPLY before ATTACH -> not_applied")
        me, peer = bytes.fromhex("020000000001"), bytes.fromhex("020000000002")
        gid_me, gid_peer = bytes(15) + b"\x01", bytes(15) + b"\x02"
        name, _, _ = c.call(ap, "ATTACH", {"mac": me, "gid": gid_me, "ipv4": 0, "planes": 2})
        check(name == "OK", "socket: ATTACH")
        name, _, ok = c.call(ap, "APPLY_CONFIG", cfg)
        check(name == "APPLY_OK" and ok["gid"] == gid_me and len(ok["qpns"]) == 1 and
              ok["regions"][0]["length"] == 65536, "socket: APPLY_OK")
        name, _, _ = c.call(ap, "CONNECT", {"gid": gid_peer, "mac": peer, "ipv4": 0,
                                            "qpns": [0x77], "mpr_dest": 8, "max_wimm_dest": 128,
                                            "qp_caps": 0, "first_psn": 0})
        check(name == "OK", "socket: CONNECT")
        name, _, e = c.call(ap, "POST_WRITE", {"qp": 0, "wr_id": 1, "region": 0,
                                               "local_offset": 0, "length": 1, "remote_addr": 0,
                                               "rkey": 0, "with_imm": False, "imm": 0})
        check(name == "ERROR" and e["code"] == 18, "socket: POST_WRITE -> unsupported")
        name, _, _ = c.call(ap, "POST_RECV", {"qp": 0, "wr_id": 9})
        check(name == "OK", "socket: POST_RECV")
        reg = ok["regions"][0]
        payload = bytes((i * 7) & 0xFF for i in range(256))
        fr = data_frame(wire, peer, me, gid_peer, gid_me, 0xCB, ok["qpns"][0], 0, wire.F_A,
                        reg["addr"], reg["rkey"], payload, imm=0x5151)
        name, _, fs = c.call(ap, "STEP", {"ops": [{"kind": 0, "at_ns": 10000, "port": 2,
                                                   "frame": fr}], "max_frames": 1})
        check(name == "FRAMES" and len(fs["frames"]) == 1 and fs["frames"][0]["port"] == 2 and
              not fs["drained"], "socket: STEP gives one frame, not drained")
        name, _, fs = c.call(ap, "STEP", {"ops": [{"kind": 1, "at_ns": 20000, "port": 0,
                                                   "frame": b""}], "max_frames": 64})
        check(name == "FRAMES" and len(fs["frames"]) == 1 and fs["drained"] and
              fs["next_deadline_ns"] == (1 << 64) - 1, "socket: second STEP drains")
        name, _, e = c.call(ap, "STEP", {"ops": [{"kind": 1, "at_ns": 5, "port": 0,
                                                  "frame": b""}], "max_frames": 1})
        check(name == "ERROR" and e["code"] == 9, "socket: time going back -> bad_value")
        name, _, comp = c.call(ap, "POLL", {"max_completions": 16, "max_events": 16})
        check(name == "COMPLETIONS" and comp["now_ns"] == 20000 and
              [(x["wr_id"], x["imm"], x["at_ns"]) for x in comp["completions"]] ==
              [(9, 0x5151, 10000)], "socket: WIMM completion at its virtual time")
        name, _, mem = c.call(ap, "READ_MEMORY", {"addr": reg["addr"], "length": 256})
        check(name == "MEMORY" and mem["bytes"] == payload, "socket: READ_MEMORY")
        name, _, e = c.call(ap, "READ_MEMORY", {"addr": reg["addr"] + 65500, "length": 100})
        check(name == "ERROR" and e["code"] == 22, "socket: READ_MEMORY past a region -> limit")
        # A lone packet below every SACK trigger: nothing at once, a timer, then a SACK.
        fr = data_frame(wire, peer, me, gid_peer, gid_me, 0xCA, ok["qpns"][0], 1, 0,
                        reg["addr"] + 4096, reg["rkey"], payload[:64])
        name, _, fs = c.call(ap, "STEP", {"ops": [{"kind": 0, "at_ns": 30000, "port": 1,
                                                   "frame": fr}], "max_frames": 4})
        check(name == "FRAMES" and not fs["frames"] and fs["drained"] and
              fs["next_deadline_ns"] > 30000 and fs["next_deadline_ns"] < (1 << 64) - 1,
              "socket: no trigger -> no SACK yet, a deadline")
        deadline = fs["next_deadline_ns"] if name == "FRAMES" else 40000
        name, _, fs = c.call(ap, "STEP", {"ops": [{"kind": 1, "at_ns": deadline, "port": 0,
                                                   "frame": b""}], "max_frames": 4})
        sacks = [wire.parse(x["frame"]) for x in fs.get("frames", [])]
        check(len(sacks) == 1 and sacks[0].opcode == wire.SACK and sacks[0].psn == 1 and
              fs["next_deadline_ns"] == (1 << 64) - 1, "socket: delayed SACK at the deadline")
        name, _, st = c.call(ap, "QUERY_STATE")
        ctr = {x["name"]: x["value"] for x in st["counters"]}
        check(name == "STATE" and ctr.get("agent.rx.p2") == 1.0, "socket: agent.rx.p2 counted")
        # A port the fabric took down drops what arrives on it.
        name, _, _ = c.call(ap, "PORT_ADMIN", {"port": 2, "up": False})
        check(name == "OK", "socket: PORT_ADMIN")
        fr = data_frame(wire, peer, me, gid_peer, gid_me, 0xCA, ok["qpns"][0], 2, wire.F_A,
                        reg["addr"] + 8192, reg["rkey"], payload[:64])
        name, _, fs = c.call(ap, "STEP", {"ops": [{"kind": 0, "at_ns": 50000, "port": 2,
                                                   "frame": fr}], "max_frames": 4})
        check(name == "FRAMES" and not fs["frames"], "socket: frame on a down port dropped")
        name, _, e = c.call(ap, "STEP", {"ops": [{"kind": 0, "at_ns": 50000, "port": 9,
                                                  "frame": fr}], "max_frames": 4})
        check(name == "ERROR" and e["code"] == 9 and "ops[0]" in e["text"],
              "socket: STEP on a port past the planes -> bad_value naming the op")
        name, _, _ = c.call(ap, "RESET")
        name, _, e = c.call(ap, "STEP", {"ops": [], "max_frames": 1})
        check(name == "ERROR" and e["code"] == 16, "socket: RESET forgets ATTACH")
        name, flags, _ = c.call(ap, "BYE")
        check(name == "OK" and flags & ap.FLAG_CLOSING, "socket: BYE -> OK + CLOSING")
        c.close()
    finally:
        model.stop()


# ---- (c) end to end ------------------------------------------------------------------------
def responder_cases(source):
    out = []
    for path in sorted(glob.glob(os.path.join(source, "cases", "*", "*.yaml"))):
        with open(path) as f:
            text = f.read()
        if re.search(r"^role:\s*responder\b", text, re.M) and re.search(r"^id:", text, re.M):
            out.append(path)
    return out


def e2e_test(model_dir, build, source, tmp):
    conform = os.path.join(build, "bin", "mrc-conform")
    cases = responder_cases(source)
    check(len(cases) > 0, "e2e: responder cases found")
    with open(os.path.join(model_dir, "expected_verdicts.json")) as f:
        expected = json.load(f)
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write("py-responder-e2e-token\n")
    out = os.path.join(tmp, "out")
    model = Model(model_dir, token_file, os.path.join(tmp, "model-e2e.log"))
    started = time.monotonic()
    try:
        cmd = [conform, "run", "--cases"] + cases + [
            "--dut", "agent:127.0.0.1:%d" % model.port, "--clock", "virtual",
            "--agent-token-file", token_file, "--out", out, "--no-progress",
            "--evidence", "failures"]
        try:
            p = subprocess.run(cmd, cwd=source, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=540)
        except subprocess.TimeoutExpired:
            check(False, "e2e: mrc-conform run did not finish within 540 s")
            return
    finally:
        model.stop()
    wall = time.monotonic() - started
    print("e2e: mrc-conform run exit %d in %.1f s" % (p.returncode, wall), flush=True)
    results_path = os.path.join(out, "results.json")
    if not os.path.exists(results_path):
        check(False, "e2e: no results.json; mrc-conform said:\n" + p.stdout[-4000:])
        return
    with open(results_path) as f:
        results = json.load(f)
    observed = {}
    for c in case_entries(results):
        observed[c.get("id") or c.get("case")] = (c.get("verdict"), case_message(c))
    counts = {}
    for cid, (verdict, _) in sorted(observed.items()):
        counts[verdict] = counts.get(verdict, 0) + 1
    print("e2e: verdicts %s over %d responder cases" % (
        ", ".join("%s %d" % kv for kv in sorted(counts.items())), len(observed)), flush=True)
    for cid in sorted(set(expected) | set(observed)):
        exp = expected.get(cid)
        obs, msg = observed.get(cid, (None, "not in results.json"))
        check(exp == obs, "e2e: %s expected %s, observed %s: %s" % (cid, exp, obs, msg))


def case_entries(results):
    """The per-case records of results.json, wherever the schema keeps them."""
    if isinstance(results, dict):
        for key in ("cases", "results"):
            if isinstance(results.get(key), list):
                return results[key]
    return results if isinstance(results, list) else []


def case_message(c):
    if c.get("message"):
        return c["message"]
    msgs = [ch.get("message", "") for ch in c.get("checks", [])
            if isinstance(ch, dict) and ch.get("verdict") not in (None, "PASS")]
    return " | ".join(m for m in msgs if m)[:600]


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--build", required=True)
    a.add_argument("--source", required=True)
    a.add_argument("--skip-e2e", action="store_true", help="only the unit and socket tests")
    a.add_argument("--keep", action="store_true",
                   help="keep the temporary folder (model logs, mrc-conform's OUTDIR) to debug")
    args = a.parse_args()
    model_dir = os.path.join(os.path.abspath(args.source), "tools", "models", "py_responder")
    tmp = tempfile.mkdtemp(prefix="py_responder_test.")
    try:
        unit_tests(model_dir)
        socket_tests(model_dir, tmp)
        if not args.skip_e2e:
            e2e_test(model_dir, os.path.abspath(args.build), os.path.abspath(args.source), tmp)
    finally:
        if args.keep:
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    print("py_responder tests passed (%d checks)" % CHECKS[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
