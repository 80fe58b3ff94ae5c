"""The responder NIC model: regions, QPs and what a received frame does (wire model W4-W16).

Only the responder side exists: the model places MRC WRITEs, tracks PSNs, answers with SACKs
(W5/W6), Transport ACKs/NAKs (W8), trim NACKs (W7), probe answers (W9) and endpoint responses
(W10), and completes WRITE-with-immediate receives in order (W16). It never sends data.
Time is the harness's virtual time (agent-protocol.md section 9); the one timer, the delayed
SACK, runs in it (STEP's ADVANCE and next_deadline_ns).
"""
from collections import deque

import wire
from wire import psn_diff, PSN_MASK

NO_DEADLINE = (1 << 64) - 1
QP_CAP_TRIM_NACK_DEST_UNSUPPORTED = 1 << 0   # mrc.h MRC_QP_CAP_* (wire model 1.3)
SACK_GEN_THRESHOLD = 4096                    # MODEL: W6 trigger 4 (F1's byte rule)
# W6 names no timer, but without one a lone packet below every trigger (no A, no CE, no RTX,
# under the byte threshold) would never be acknowledged and the requester would have to time
# out. The model SACKs data left un-SACKed this long after it arrived (the model's own choice).
SACK_DELAY_NS = 4000
IBV_WC_SUCCESS = 0


class Region:
    def __init__(self, addr, length, lkey, rkey):
        self.addr, self.length, self.lkey, self.rkey = addr, length, lkey, rkey
        self.mem = bytearray(length)

    def contains(self, addr, length):
        return addr >= self.addr and addr + length <= self.addr + self.length


class QP:
    """Responder state of W6 (cack_psn, bitmap, counters) for one QP."""

    def __init__(self, index, qpn, first_psn, window):
        self.index, self.qpn, self.window = index, qpn, window
        self.peer_qpn = None
        self.cack = (first_psn - 1) & PSN_MASK       # W6: cack_psn = RQ_PSN - 1 at RTR
        self.above = {}          # PSN above cack -> (is_last, imm or None, dmalen)
        self.max_rcv = self.cack
        self.lowest_unsacked = None
        self.trigger_cnt = 0
        self.rcvd_bytes = 0
        self.msn = 0             # messages completed (LAST/ONLY covered by cack), AETH MSN (W8)
        self.ack_wanted = set()  # PSNs with BTH.A not yet covered by a Transport ACK
        self.recvs = deque()     # posted receive wr_ids (W16)
        self.error = False

    def epsn(self):
        return (self.cack + 1) & PSN_MASK

    def has(self, psn):
        """Received already: at or below cack (within 2^23), or held above it."""
        return psn in self.above or 0 < psn_diff(self.cack + 1, psn) <= 1 << 23

    def bitmap(self):
        """W6 window choice: base = epsn while everything fits in 64 PSNs, else walk upward
        from lowest_unsacked (clamped below max_rcv - 63), then move on by 64."""
        epsn = self.epsn()
        if psn_diff(self.max_rcv, self.cack) <= 64 or not self.above:
            base = epsn
        else:
            base = self.lowest_unsacked
            if base is None or not 0 <= psn_diff(base, epsn) < 1 << 23:
                base = epsn
            if psn_diff(self.max_rcv, base) < 63 or psn_diff(self.max_rcv, base) >= 1 << 23:
                base = (self.max_rcv - 63) & PSN_MASK
                if psn_diff(base, epsn) >= 1 << 23:
                    base = epsn
            nxt = (base + 64) & PSN_MASK
            self.lowest_unsacked = nxt if psn_diff(self.max_rcv, nxt) < 1 << 23 else None
        bits = 0
        for k in range(64):
            if self.has((base + k) & PSN_MASK):
                bits |= 1 << k
        return psn_diff(base, self.cack), bits


class Device:
    def __init__(self, capabilities):
        self.capabilities = capabilities
        self.rx_per_port = {}          # agent.rx.p<N>: frames per port since start (section 4)
        self.counters = {}
        self.reset()

    # ---- lifecycle ---------------------------------------------------------------------
    def reset(self):
        self.attach = None
        self.port_up = {}              # port -> up (PORT_ADMIN); ports exist from ATTACH on
        self.now = 0
        self.caps_off = set()
        self.clear_config()

    def clear_config(self):
        self.config = None
        self.regions, self.qps, self.by_qpn = [], [], {}
        self.peer = None
        self.tx = deque()              # (port, frame bytes)
        self.completions = deque()
        self.pending_nak = None
        self.sack_due = {}             # QP -> [deadline_ns, port, trigger frame, trigger ts]

    def do_attach(self, a):
        self.attach = a
        self.now = 0                   # a new host of a new fabric: its time starts again
        self.clear_config()
        self.port_up = {p: True for p in range(1, a["planes"] + 1)}

    def apply(self, c):
        self.clear_config()
        self.config = c
        next_addr = 0x10000000
        for i, r in enumerate(c["regions"]):
            addr = r["addr"] or next_addr
            rkey = 0x00A50000 | (i + 1) << 8 | 0x5C
            self.regions.append(Region(addr, r["length"], rkey ^ 0x01000000, rkey))
            # Choose the next region's address 64 MiB-aligned past this one.
            next_addr = max(next_addr, (addr + r["length"] + (1 << 26)) & ~((1 << 26) - 1))
        window = max(1, c["qp"]["mpr_dest"]) * 128
        for i in range(c["qp"]["count"]):
            qp = QP(i, 0x000A00 + i * 0x11, c["qp"]["first_psn"] & PSN_MASK, window)
            self.qps.append(qp)
            self.by_qpn[qp.qpn] = qp
        if c["peer"] is not None:
            self.connect(c["peer"])

    def connect(self, peer):
        self.peer = peer
        for qp, pq in zip(self.qps, peer["qpns"]):
            qp.peer_qpn = pq

    def trim_nack_on(self):
        # The cap is set on the responder's own QP when its peer cannot take trim NACKs
        # (wire model 1.3); the peer's qp_caps describe the peer's responder side, not ours.
        caps = self.config["qp"]["caps"]
        return "trim_nack" in self.capabilities and "trim_nack" not in self.caps_off and \
            not caps & QP_CAP_TRIM_NACK_DEST_UNSUPPORTED

    def count(self, name):
        self.counters[name] = self.counters.get(name, 0) + 1

    # ---- memory --------------------------------------------------------------------------
    def region_at(self, addr, length):
        for r in self.regions:
            if r.contains(addr, length):
                return r
        return None

    # ---- frames in -----------------------------------------------------------------------
    def receive(self, port, raw):
        """One frame arrives on `port` at self.now."""
        self.rx_per_port[port] = self.rx_per_port.get(port, 0) + 1
        if self.config is None:
            self.count("model.rx.unconfigured")
            return
        if not self.port_up.get(port, False):
            self.count("model.rx.port_down")
            return
        f = wire.parse(raw)
        if f is None or f.opcode is None:
            self.count("model.rx.not_roce")
            return
        dscp = self.config["dscp"]
        trimmed = f.opcode in wire.DATA_OPS and f.dscp in (dscp["trimmed"], dscp["trimmed_lasthop"])
        if not trimmed and not f.icrc_ok:        # W4: a trimmed stub's ICRC is stale, unchecked
            self.count("model.rx.bad_icrc")
            return
        if f.opcode == wire.EP_REQ and f.dqpn == wire.EP_QPN:
            return self.on_ep_request(port, f)
        qp = self.by_qpn.get(f.dqpn)
        if qp is None or qp.peer_qpn is None:
            self.count("model.rx.unknown_qp")    # INVALID-WRONG-QPN: silent drop
            return
        if f.pkey & 0x7FFF != 0x7FFF:            # IBA: the membership bit takes no part
            self.count("model.rx.bad_pkey")
            return
        if qp.error:
            self.count("model.rx.qp_error")
            return
        if f.opcode in wire.DATA_OPS:
            if trimmed:
                return self.on_trimmed(port, qp, f)
            return self.on_data(port, qp, f)
        if f.opcode == wire.PROBE:
            return self.on_probe(port, qp, f)
        if f.opcode < 0x20 and not 0x0D <= f.opcode <= 0x12:   # RC requests, not responses
            # An RC request MRC does not carry (READ, SEND, ATOMIC, plain WRITE): not executed,
            # answered by an invalid-request NAK (INVALID-FORBIDDEN-OPCODE).
            return self.send_tack(port, qp, f, wire.AETH_NAK_INVALID, f.psn)
        self.count("model.rx.ignored_opcode")    # W3: other opcodes dropped and counted

    def on_data(self, port, qp, f):
        d = wire.parse_data(f)
        if d is None:
            self.count("model.rx.truncated")     # INVALID-TRUNCATED: no placement, no feedback
            return
        psn = f.psn
        ahead = psn_diff(psn, qp.epsn())
        if ahead >= qp.window:
            if 0 < psn_diff(qp.epsn(), psn) <= 1 << 23:
                # W12: duplicate below epsn: re-ACK and SACK, place nothing.
                self.send_sack(port, qp, f, d.ts)
                self.send_tack(port, qp, f, wire.AETH_ACK, qp.cack)
                return
            self.count("model.rx.out_of_window")  # W12: silent drop (the reference's default)
            return
        if psn in qp.above:
            self.send_sack(port, qp, f, d.ts)    # W6 trigger 6: duplicate above epsn
            return
        region = None
        for r in self.regions:
            if r.rkey == d.rkey:
                region = r
        if region is None or not region.contains(d.va, len(d.payload)):
            # INVALID-BAD-RKEY: not placed, remote access error NAK naming the packet.
            return self.send_tack(port, qp, f, wire.AETH_NAK_ACCESS, psn)
        off = d.va - region.addr
        region.mem[off:off + len(d.payload)] = d.payload     # W4: placed by its own RETH
        is_last = f.opcode in wire.LAST_OPS
        qp.above[psn] = (is_last, d.imm, d.dmalen)
        if psn_diff(psn, qp.max_rcv) < 1 << 23:
            qp.max_rcv = psn
        qp.rcvd_bytes += f.udp_len + 40                      # MODEL: W5 nominal size
        qp.trigger_cnt += max(len(d.payload), 1024)
        if f.flags & wire.F_A:
            qp.ack_wanted.add(psn)
        ok = self.advance(qp)
        if (f.flags & (wire.F_A | wire.F_RTX)) or f.ecn == 3 or \
                qp.trigger_cnt >= SACK_GEN_THRESHOLD:
            self.send_sack(port, qp, f, d.ts)
        else:
            # The delayed SACK answers the newest packet still un-SACKed.
            due = self.sack_due.get(qp)
            deadline = due[0] if due else self.now + SACK_DELAY_NS
            self.sack_due[qp] = [deadline, port, f, d.ts]
        self.maybe_tack(port, qp, f)
        if not ok:
            qp.error = True

    def advance(self, qp):
        """Move cack over the PSNs held in order; complete messages and WIMM receives (W16)."""
        while True:
            nxt = qp.epsn()
            info = qp.above.pop(nxt, None)
            if info is None:
                return True
            qp.cack = nxt
            is_last, imm, dmalen = info
            if is_last:
                qp.msn = (qp.msn + 1) & PSN_MASK
            if imm is not None:
                if not qp.recvs:
                    # W16: no RNR in MRC; the QP errs and the peer gets a remote operational
                    # error NAK (MODEL: W16). No receive WR exists, so no completion either.
                    self.pending_nak = (qp, nxt)
                    return False
                self.completions.append(dict(at_ns=self.now, wr_id=qp.recvs.popleft(),
                                             qp=qp.index, status=IBV_WC_SUCCESS, is_send=False,
                                             has_imm=True, imm=imm, byte_len=dmalen))

    def maybe_tack(self, port, qp, f):
        """W8: one Transport ACK once cack covers every A packet it now reaches."""
        covered = {p for p in qp.ack_wanted if not p in qp.above and qp.has(p)}
        if covered:
            qp.ack_wanted -= covered
            self.send_tack(port, qp, f, wire.AETH_ACK, qp.cack)
        nak = self.pending_nak
        if nak is not None and nak[0] is qp:
            self.pending_nak = None
            self.send_tack(port, qp, f, wire.AETH_NAK_OPERATIONAL, nak[1])

    def on_trimmed(self, port, qp, f):
        """W7/W13: a stub is never placed; a NACK names its PSN if it had not arrived whole."""
        d = wire.parse_data(f, trimmed=True)
        if d is None:
            self.count("model.rx.truncated")
            return
        psn = f.psn
        if qp.has(psn):
            self.send_sack(port, qp, f, d.ts)     # a trimmed duplicate draws a SACK
            return
        if psn_diff(psn, qp.epsn()) >= qp.window:
            self.count("model.rx.out_of_window")
            return
        if not self.trim_nack_on():
            self.count("model.rx.trimmed_dropped")
            return
        dscp = self.config["dscp"]
        reason = wire.NACK_TRIMMED if f.dscp == dscp["trimmed"] else wire.NACK_TRIMMED_LASTHOP
        body = wire.neth(reason, wire.echo_entropy(f), qp.qpn, qp.peer_qpn, psn, d.ts)
        self.send(port, wire.bth(wire.NACK, qp.peer_qpn, psn) + body, f)

    def on_probe(self, port, qp, f):
        p = wire.parse_probe(f)
        if p is None:
            self.count("model.rx.truncated")
            return
        probe_id, ts = p
        self.send_sack(port, qp, f, ts, probe_id=probe_id)

    def on_ep_request(self, port, f):
        """W10: answer an endpoint request with an EETH echoing op, id and timestamp."""
        p = wire.parse_ep_request(f)
        if p is None:
            self.count("model.rx.truncated")
            return
        op, ts = p
        self.send(port, wire.bth(wire.EP_RSP, wire.EP_QPN, f.psn & 0xFFFF) + wire.eeth(op, ts), f)

    # ---- frames out ----------------------------------------------------------------------
    def send_sack(self, port, qp, f, ts, probe_id=None):
        """W5/W6: one SACK answering the trigger `f`; the rest is cumulative state."""
        sack_offset, bits = qp.bitmap()
        pr = probe_id is not None
        slot = probe_id if pr else wire.signed16(psn_diff(f.psn, qp.cack))
        m = 1 if f.ecn == 3 else 0                       # SKIP_ONCE echoes a CE mark
        body = wire.seth_cc(m, pr, slot, wire.echo_entropy(f), qp.qpn, qp.peer_qpn, qp.cack,
                            0, wire.signed16(sack_offset), bits, ts, len(qp.above),
                            (qp.rcvd_bytes + 255) // 256)
        flags = f.flags & wire.F_RTX if f.opcode in wire.DATA_OPS else 0
        self.send(port, wire.bth(wire.SACK, qp.peer_qpn, qp.cack, flags) + body, f)
        qp.trigger_cnt = 0
        self.sack_due.pop(qp, None)

    # ---- timers --------------------------------------------------------------------------
    def run_timers(self, until):
        """Fire every delayed SACK due at or before `until`, each at its own time."""
        while self.sack_due:
            qp, due = min(self.sack_due.items(), key=lambda kv: kv[1][0])
            if due[0] > until:
                return
            self.now = max(self.now, due[0])
            if qp.error:
                self.sack_due.pop(qp)
                continue
            self.send_sack(due[1], qp, due[2], due[3])

    def next_deadline(self):
        return min((d[0] for d in self.sack_due.values()), default=NO_DEADLINE)

    def send_tack(self, port, qp, f, syndrome, psn):
        self.send(port, wire.bth(wire.TACK, qp.peer_qpn, psn) + wire.aeth(syndrome, qp.msn), f)

    def send(self, port, transport, f):
        """Feedback goes back out of the port its trigger came in on (the plane it uses), or
        any port that is up; in the Control class (W13) on the model's own reverse EV (W17:
        never the echoed forward EV)."""
        if not self.port_up.get(port, False):
            up = [p for p, u in sorted(self.port_up.items()) if u]
            if not up:
                self.count("model.tx.no_port")
                return
            port = up[0]
        # Back to the trigger's source address; the peer's MAC once CONNECT named it.
        a = self.attach
        src_ip = a["gid"] if f.ipv6 else a["ipv4"].to_bytes(4, "big")
        dst_mac = self.peer["mac"] if self.peer else f.src_mac
        route = wire.Route(a["mac"], dst_mac, src_ip, f.src_ip, self.config["dscp"]["control"],
                           0xC000 | port)                # MODEL: one reverse EV per plane
        self.tx.append((port, wire.build(route, transport)))
        self.count("model.tx.frames")

    def take(self, max_frames):
        out = []
        while self.tx and len(out) < max_frames:
            out.append(self.tx.popleft())
        return out
