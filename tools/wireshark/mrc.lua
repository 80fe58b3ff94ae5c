-- mrc.lua: Wireshark dissector for MRC (OCP Multipath Reliable Connection) over RoCEv2.
--
-- Decodes BTH, RETH (per-packet on every WRITE data opcode: "MRC v1 framing", MODEL M3), ImmDt,
-- AETH (syndrome 0x65 = TRIM NACK, MODEL M5), the MRC Feedback Extension Header (MFEH, MODEL M5),
-- the endpoint-operation header (opcodes 0xC0/0xC1, MODEL M6), the ICRC (recomputed and checked),
-- the Entropy Value the frame carries (STEV flow label + source port, UDP-mode source port, SRv6
-- outer uSID container + SRH segment + EV index; MODEL M1, M2) and trimmed stubs (MODEL M11).
--
-- Every field whose layout or meaning is the mrc-conform PROJECT MODEL (not the public IBA/RoCEv2
-- standard) says "(MODEL Mn)" in its label; see the project's mrc-wire-model.md section 5. The
-- byte layouts mirror reference/wire/headers.hpp and reference/wire/*_codec.cpp.
--
-- Install: copy to ~/.local/lib/wireshark/plugins/ or run with -X lua_script:mrc.lua.
-- Wireshark's own InfiniBand dissector keeps decoding every RoCEv2 frame (BTH, RETH, AETH, MADs,
-- ...); this file adds an "MRC" subtree on top from a post-dissector, deciding per frame whether the
-- frame carries MRC-only headers (per-packet RETH, MFEH, EP header), so plain RoCEv2 frames decode
-- as before and get no MRC error. A UDP heuristic hands datagrams to port 4791 to the InfiniBand
-- dissector; with udp.try_heuristic_first:TRUE an EV source port below 4791 owned by another
-- dissector (69 TFTP, 123 NTP, ...) cannot take the frame away from it.

local mrc = Proto("mrc", "MRC over RoCEv2 (mrc-conform model)")

local band, bor, bxor, rshift, lshift = bit32.band, bit32.bor, bit32.bxor, bit32.rshift, bit32.lshift

-- ---- preferences -----------------------------------------------------------------------------
mrc.prefs.v1_framing = Pref.bool("MRC v1 framing", true,
  "Recognise MRC framing per frame (MODEL M3: a RETH on WRITE MIDDLE/LAST whose DMA length is the "
  .. "packet's payload; M5: an ACK with 32 more bytes after the AETH carries an MFEH). Off: plain IBA")
mrc.prefs.check_icrc = Pref.bool("Verify ICRC", true, "Recompute the RoCEv2 invariant CRC")
local EV_AUTO, EV_STEV, EV_UDP, EV_SRV6 = 0, 1, 2, 3
mrc.prefs.ev_format = Pref.enum("EV format mode", EV_AUTO, "How the EV is placed (MODEL M1/M2)",
  { { 1, "Auto (from the headers)", EV_AUTO }, { 2, "STEV", EV_STEV }, { 3, "UDP", EV_UDP },
    { 4, "SRv6", EV_SRV6 } }, false)

-- ---- model constants (reference/wire/headers.hpp) --------------------------------------------
local ROCE_PORT = 4791
local EP_FIXED_LEN = 24      -- MODEL: M6 (kEpHdrFixedLen), rsp_ev follows
local MFEH_LEN = 32          -- MODEL: M5
local DSCP_TRIMMED = 11      -- MODEL: M11
local SRV6_SPORT_BASE = 0xC000  -- MODEL: M1

local opcodes = {
  [0x00] = "RC SEND FIRST", [0x01] = "RC SEND MIDDLE", [0x02] = "RC SEND LAST",
  [0x03] = "RC SEND LAST IMM", [0x04] = "RC SEND ONLY", [0x05] = "RC SEND ONLY IMM",
  [0x06] = "RC WRITE FIRST", [0x07] = "RC WRITE MIDDLE", [0x08] = "RC WRITE LAST",
  [0x09] = "RC WRITE LAST IMM", [0x0A] = "RC WRITE ONLY", [0x0B] = "RC WRITE ONLY IMM",
  [0x0C] = "RC READ REQUEST", [0x0D] = "RC READ RESP FIRST", [0x0E] = "RC READ RESP MIDDLE",
  [0x0F] = "RC READ RESP LAST", [0x10] = "RC READ RESP ONLY", [0x11] = "RC ACKNOWLEDGE",
  [0x12] = "RC ATOMIC ACK", [0x13] = "RC COMPARE SWAP", [0x14] = "RC FETCH ADD", [0x81] = "CNP",
  [0x64] = "UD SEND ONLY", [0x65] = "UD SEND ONLY IMM",
  [0xC0] = "MRC EP REQUEST (MODEL M6)", [0xC1] = "MRC EP RESPONSE (MODEL M6)",
}
local syndromes = {}
for v = 0, 0x7F do
  local t, code = band(rshift(v, 5), 3), band(v, 0x1F)
  if t == 0 then syndromes[v] = (code == 0x1F) and "ACK" or ("ACK (credits code " .. code .. ")")
  elseif t == 1 then syndromes[v] = "RNR NAK (timer " .. code .. ")"
  elseif t == 2 then syndromes[v] = "Reserved"
  else syndromes[v] = "NAK code " .. code end
end
syndromes[0x60] = "NAK: PSN sequence error (NACK-loss, MODEL M5)"
syndromes[0x61], syndromes[0x62] = "NAK: invalid request", "NAK: remote access error"
syndromes[0x63], syndromes[0x64] = "NAK: remote operational error", "NAK: invalid RD request"
syndromes[0x65] = "TRIM NACK (MODEL M5)"
local mfeh_types = { [0] = "ACK", [1] = "SACK", [2] = "NACK-loss", [3] = "TRIM-NACK",
                     [4] = "PSN-out-of-range" }
local ep_ops = { [0] = "EV_PROBE", [1] = "PORT_STATUS_UPDATE" }
local fmt_modes = { [1] = "STEV", [2] = "SRv6", [4] = "UDP" }

-- ---- fields ----------------------------------------------------------------------------------
local F = {}
local function field(key, ctor, ...) F[key] = ctor("mrc." .. key, ...) end
local U8, U16, U24, U32, U64 = ProtoField.uint8, ProtoField.uint16, ProtoField.uint24,
                               ProtoField.uint32, ProtoField.uint64
local BOOL = ProtoField.bool
field("bth.opcode", U8, "Opcode", base.HEX, opcodes)
field("bth.se", BOOL, "Solicited Event", 8, nil, 0x80)
field("bth.m", BOOL, "MigReq", 8, nil, 0x40)
field("bth.padcnt", U8, "Pad Count", base.DEC, nil, 0x30)
field("bth.tver", U8, "Transport Header Version", base.DEC, nil, 0x0F)
field("bth.pkey", U16, "Partition Key", base.HEX)
field("bth.fecn", BOOL, "FECN", 8, nil, 0x80)
field("bth.becn", BOOL, "BECN", 8, nil, 0x40)
field("bth.dqpn", U24, "Destination QP", base.HEX)
field("bth.ackreq", BOOL, "AckReq", 8, nil, 0x80)
field("bth.psn", U24, "PSN", base.DEC)
field("reth.va", U64, "Virtual Address", base.HEX)
field("reth.rkey", U32, "R_Key", base.HEX)
field("reth.len", U32, "DMA Length", base.DEC)
field("reth.per_packet", BOOL, "Per-packet RETH on a non-IBA opcode (MODEL M3)")
field("immdt", U32, "Immediate Data", base.HEX)
field("aeth.syndrome", U8, "Syndrome", base.HEX, syndromes)
field("aeth.type", U8, "Syndrome type", base.DEC,
      { [0] = "ACK", [1] = "RNR NAK", [2] = "Reserved", [3] = "NAK" }, 0x60)
field("aeth.code", U8, "Syndrome code", base.DEC, nil, 0x1F)
field("aeth.msn", U24, "MSN", base.DEC)
field("mfeh.ver", U8, "MFEH version (MODEL M5)", base.DEC, nil, 0xF0)
field("mfeh.type", U8, "Feedback type (MODEL M5)", base.DEC, mfeh_types, 0x0F)
field("mfeh.flags", U8, "Flags (MODEL M5)", base.HEX)
field("mfeh.ce", BOOL, "CE: trigger carried ECN-CE (MODEL M5)", 8, nil, 0x80)
field("mfeh.svc_valid", BOOL, "svc_time valid (MODEL M5)", 8, nil, 0x40)
field("mfeh.ev_valid", BOOL, "ev_echo valid (MODEL M5)", 8, nil, 0x20)
field("mfeh.mpr_valid", BOOL, "mpr valid (MODEL M5)", 8, nil, 0x10)
field("mfeh.sack_valid", BOOL, "SACK bitmap valid (MODEL M5)", 8, nil, 0x08)
field("mfeh.flags_rsvd", U8, "Reserved flags (MODEL M5)", base.HEX, nil, 0x07)
field("mfeh.svc_time", U16, "Service time, 8 ns units (MODEL M5)", base.DEC)
field("mfeh.svc_time_ns", U32, "Service time ns (MODEL M5)", base.DEC)
field("mfeh.trig_psn", U24, "Triggering PSN (MODEL M5)", base.DEC)
field("mfeh.ev_echo", U32, "EV echo (MODEL M5)", base.HEX)
field("mfeh.ev_port", U8, "EV port, 1-based (MODEL M5)", base.DEC)
field("mfeh.mpr", U8, "MPR, 128-PSN units (MODEL M5/M9)", base.DEC)
field("mfeh.sack_base_off", U16, "SACK base offset (MODEL M5)", base.DEC)
field("mfeh.sack_base", U24, "SACK base PSN (MODEL M5)", base.DEC)
field("mfeh.sack_bitmap", U64, "SACK bitmap (MODEL M5)", base.HEX)
field("mfeh.sack_count", U8, "PSNs marked received (MODEL M5)", base.DEC)
field("mfeh.rcvd_bytes", U32, "Received bytes mod 2^32 (MODEL M5)", base.DEC)
field("mfeh.reserved", U32, "Reserved (MODEL M5)", base.HEX)
field("ep.op", U8, "EP operation (MODEL M6)", base.DEC, ep_ops)
field("ep.flags", U8, "EP flags (MODEL M6)", base.HEX)
field("ep.svc_valid", BOOL, "svc_time valid (MODEL M6)", 8, nil, 0x80)
field("ep.req_id", U16, "Request ID (MODEL M6)", base.DEC)
field("ep.port_status", U32, "Port status, bit N-1 = port N up (MODEL M6)", base.HEX)
field("ep.tx_timestamp", U64, "TX timestamp ns (MODEL M6)", base.DEC)
field("ep.svc_time_ns", U32, "Service time ns (MODEL M6)", base.DEC)
field("ep.rsp_fmt_mode", U8, "Response EV format mode (MODEL M6)", base.DEC, fmt_modes)
field("ep.rsp_port", U8, "Response port (MODEL M6)", base.DEC)
field("ep.rsp_ev_len", U8, "Response EV length (MODEL M6)", base.DEC)
field("ep.reserved", U8, "Reserved (MODEL M6)", base.HEX)
field("ep.rsp_ev", ProtoField.bytes, "Response EV (MODEL M6)")
field("payload", ProtoField.bytes, "Payload")
field("payload_len", U32, "Payload length", base.DEC)
field("pad", ProtoField.bytes, "Pad")
field("icrc", U32, "ICRC", base.HEX)
field("icrc_computed", U32, "ICRC computed", base.HEX)
field("icrc_ok", BOOL, "ICRC correct")
field("trimmed", BOOL, "Trimmed stub (MODEL M11)")
field("mrc_hdrs", BOOL, "MRC-only headers: per-packet RETH, MFEH or EP header (MODEL M3/M5/M6)")
field("dscp", U8, "DSCP of the outer IP header (MODEL M11: 10 data, 11 trimmed, 46 control)", base.DEC)
field("ev.mode", ProtoField.string, "EV format mode (MODEL M1)")
field("ev.value", U32, "EV value V (MODEL M2)", base.HEX)
field("ev.flow_label", U32, "EV in flow label = V >> 16 (MODEL M2)", base.HEX)
field("ev.sport", U16, "EV in UDP source port (MODEL M2)", base.HEX)
field("ev.index", U8, "EV index from sport = 0xC000 | index (MODEL M1)", base.DEC)
field("ev.outer_da", ProtoField.ipv6, "Outer DA = EV bytes 0..15 (MODEL M1)")
field("ev.usid_block", U32, "uSID locator block (MODEL M1)", base.HEX)
field("ev.usid", U16, "uSID (MODEL M1)", base.HEX)
field("ev.usid_count", U8, "uSIDs in the outer DA (MODEL M1)", base.DEC)
field("ev.srh_segment", ProtoField.ipv6, "SRH Segment[0] = EV bytes 16..31 (MODEL M1)")
field("ev.srh_segments_left", U8, "SRH Segments Left (MODEL M1)", base.DEC)
local fields = {}
for _, f in pairs(F) do fields[#fields + 1] = f end
mrc.fields = fields

local E = {
  trimmed = ProtoExpert.new("mrc.expert.trimmed", "Trimmed stub (MODEL M11): never placed",
                            expert.group.SEQUENCE, expert.severity.WARN),
  icrc = ProtoExpert.new("mrc.expert.icrc", "ICRC mismatch", expert.group.CHECKSUM,
                         expert.severity.ERROR),
  short = ProtoExpert.new("mrc.expert.short", "Header runs past the captured bytes",
                          expert.group.MALFORMED, expert.severity.ERROR),
  opcode = ProtoExpert.new("mrc.expert.opcode", "Opcode with no known layout",
                           expert.group.UNDECODED, expert.severity.NOTE),
  model = ProtoExpert.new("mrc.expert.model", "Frame disagrees with the MRC model",
                          expert.group.PROTOCOL, expert.severity.WARN),
}
mrc.experts = { E.trimmed, E.icrc, E.short, E.opcode, E.model }

-- ---- CRC-32 (zlib polynomial) for the ICRC ----------------------------------------------------
local crc_table = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    if band(c, 1) ~= 0 then c = bxor(0xEDB88320, rshift(c, 1)) else c = rshift(c, 1) end
  end
  crc_table[i] = c
end
local function crc_update(crc, s)
  for i = 1, #s do
    crc = bxor(crc_table[band(bxor(crc, s:byte(i)), 0xFF)], rshift(crc, 8))
  end
  return crc
end
local function set_bytes(s, pos, n, v)  -- s with n bytes from 1-based pos replaced by byte v
  return s:sub(1, pos - 1) .. string.rep(string.char(v), n) .. s:sub(pos + n)
end

-- ICRC over IP header + UDP + BTH + rest, variant fields masked (IBA Annex A17).
local function icrc(ft, ip_off, ip_v4, ip_hl, icrc_off)
  local head = ft:raw(ip_off, ip_hl + 8 + 12)
  if ip_v4 then
    head = set_bytes(head, 2, 1, 0xFF)   -- TOS
    head = set_bytes(head, 9, 1, 0xFF)   -- TTL
    head = set_bytes(head, 11, 2, 0xFF)  -- header checksum
  else
    local b0 = bor(head:byte(1), 0x0F)   -- traffic class + flow label
    head = string.char(b0) .. string.rep("\255", 3) .. head:sub(5)
    head = set_bytes(head, 8, 1, 0xFF)   -- hop limit
  end
  head = set_bytes(head, ip_hl + 7, 2, 0xFF)       -- UDP checksum
  head = set_bytes(head, ip_hl + 8 + 5, 1, 0xFF)   -- BTH byte 4
  local crc = crc_update(0xFFFFFFFF, string.rep("\255", 8))
  crc = crc_update(crc, head)
  local rest_off = ip_off + #head
  if icrc_off > rest_off then crc = crc_update(crc, ft:raw(rest_off, icrc_off - rest_off)) end
  return bxor(crc, 0xFFFFFFFF)
end

-- ---- the lower layers, parsed from the frame bytes -------------------------------------------
-- Returns a table describing Ethernet/IP[/SRH/inner IPv6]/UDP when the UDP payload handed to us
-- sits at `payload_off` in that stack, else nil.
local function parse_lower(ft, payload_off)
  local n = ft:len()
  if n < 14 then return nil end
  local off, etype = 12, ft:range(12, 2):uint()
  if etype == 0x8100 and n >= 18 then off, etype = 16, ft:range(16, 2):uint() end
  off = off + 2
  local L = { dscps = {} }
  local function ipv6_at(o)
    if o + 40 > n then return nil end
    local w = ft:range(o, 4):uint()
    return { off = o, dscp = band(rshift(w, 22), 0x3F), fl = band(w, 0xFFFFF),
             plen = ft:range(o + 4, 2):uint(), nh = ft:range(o + 6, 1):uint() }
  end
  local nh
  if etype == 0x0800 then
    if off + 20 > n then return nil end
    L.v4, L.ip_off, L.ip_hl = true, off, band(ft:range(off, 1):uint(), 0x0F) * 4
    L.ip_total_end = off + ft:range(off + 2, 2):uint()
    L.dscps[1] = rshift(ft:range(off + 1, 1):uint(), 2)
    nh, off = ft:range(off + 9, 1):uint(), off + L.ip_hl
  elseif etype == 0x86DD then
    local o6 = ipv6_at(off)
    if not o6 then return nil end
    L.outer, L.ip_off, L.ip_hl, L.ip_total_end = o6, off, 40, off + 40 + o6.plen
    L.dscps[1] = o6.dscp
    nh, off = o6.nh, off + 40
    if nh == 43 and off + 8 <= n then  -- Routing header; SRH when type 4
      local hlen = (ft:range(off + 1, 1):uint() + 1) * 8
      if ft:range(off + 2, 1):uint() == 4 and off + hlen <= n then
        L.srh = { off = off, sl = ft:range(off + 3, 1):uint(), last = ft:range(off + 4, 1):uint() }
      end
      nh, off = ft:range(off, 1):uint(), off + hlen
    end
    if nh == 41 then  -- MODEL: M1 SRv6 encapsulation
      local i6 = ipv6_at(off)
      if not i6 then return nil end
      L.inner, L.ip_off = i6, off
      L.dscps[2] = i6.dscp
      nh, off = i6.nh, off + 40
    end
  else
    return nil
  end
  if nh ~= 17 or off + 8 > n or off + 8 ~= payload_off then return nil end
  L.udp_off, L.sport = off, ft:range(off, 2):uint()
  L.udp_len = ft:range(off + 4, 2):uint()
  return L
end

-- ---- EV display (MODEL M1, M2) -------------------------------------------------------------
local function show_ev(tree, tvb, ft, L)
  local mode = mrc.prefs.ev_format
  if mode == EV_AUTO then
    if L.inner then mode = EV_SRV6
    elseif L.v4 or L.outer.fl == 0 then mode = EV_UDP
    else mode = EV_STEV end
  end
  local z = tvb(0, 0)
  local t = tree:add(mrc, z, "Entropy Value (MODEL M1/M2)")
  t:set_generated()
  local function gen(f, v) t:add(f, z, v):set_generated() end
  if mode == EV_SRV6 then
    gen(F["ev.mode"], "SRv6")
    if L.outer then
      local da = L.outer.off + 24
      t:add(F["ev.outer_da"], ft:range(da, 16)):set_generated()
      t:add(F["ev.usid_block"], ft:range(da, 4)):set_generated()
      local count = 0
      for u = 0, 5 do
        local r = ft:range(da + 4 + 2 * u, 2)
        if r:uint() == 0 then break end
        t:add(F["ev.usid"], r):set_generated()
        count = count + 1
      end
      gen(F["ev.usid_count"], count)
    end
    if L.srh and L.srh.last >= 0 and L.srh.off + 24 <= ft:len() then
      t:add(F["ev.srh_segment"], ft:range(L.srh.off + 8, 16)):set_generated()
      gen(F["ev.srh_segments_left"], L.srh.sl)
    end
    local index = band(L.sport, 0xFF)
    gen(F["ev.index"], index)
    gen(F["ev.value"], index)  -- MODEL: M5 the SRv6 echo is 0x000000NN
    if band(L.sport, 0xFF00) ~= SRV6_SPORT_BASE then
      t:add_proto_expert_info(E.model, "SRv6 source port is not 0xC000 | EV index (MODEL M1)")
    end
  elseif mode == EV_STEV and L.outer then
    local fl = L.outer.fl
    gen(F["ev.mode"], "STEV")
    gen(F["ev.flow_label"], fl)
    gen(F["ev.value"], band(fl, 0xFFFF) * 65536 + L.sport)
    if fl > 0xFFFF then
      t:add_proto_expert_info(E.model, "Flow label top 4 bits set: V >> 16 is 16 bits (MODEL M2)")
    end
  else
    gen(F["ev.mode"], L.v4 and "UDP" or "UDP/STEV (flow label 0)")
    if not L.v4 then gen(F["ev.flow_label"], L.outer.fl) end
    gen(F["ev.value"], L.sport)
  end
  gen(F["ev.sport"], L.sport)
  return t
end

-- ---- extension headers ------------------------------------------------------------------------
local function layout(op, framing)  -- mirrors ext_layout() in reference/wire/frame.cpp
  local l = { known = true }
  if op == 0x03 or op == 0x05 then l.immdt = true
  elseif op == 0x06 or op == 0x0A or op == 0x0C then l.reth = true
  elseif op == 0x07 or op == 0x08 then l.reth = framing
  elseif op == 0x09 then l.reth, l.immdt = framing, true
  elseif op == 0x0B then l.reth, l.immdt = true, true
  elseif op == 0x0D or op == 0x0F or op == 0x10 or op == 0x12 then l.aeth = true
  elseif op == 0x11 then l.aeth, l.mfeh = true, framing
  elseif op == 0xC0 or op == 0xC1 then l.ep = true
  -- UD SEND ONLY [IMM] (CM MADs on QP 1): DETH [+ ImmDt] stay in the payload, as in frame.cpp
  elseif not (op <= 0x02 or op == 0x04 or op == 0x0E or op == 0x13 or op == 0x14 or op == 0x81 or
              op == 0x64 or op == 0x65) then
    l.known = false
  end
  return l
end

-- Per-frame MRC framing (mirrors detect_mrc_framing() in reference/wire/frame.cpp). The opcode
-- cannot say whether WRITE MIDDLE/LAST carry a RETH (MODEL M3) or an ACK an MFEH (MODEL M5); the
-- lengths can: an MRC RETH's DMA length is exactly this packet's payload, and an IBA ACK has
-- nothing after its AETH. roce_len is the RoCE packet length the UDP header claims.
local function detect_framing(tvb, op, roce_len, pad)
  if op == 0x11 then return roce_len - 12 - 4 - 4 >= MFEH_LEN end
  local imm = (op == 0x09) and 4 or 0
  if op ~= 0x07 and op ~= 0x08 and op ~= 0x09 then return false end
  local pay = roce_len - 12 - 16 - imm - pad - 4
  return pay >= 0 and tvb:len() >= 28 and tvb(24, 4):uint() == pay
end

local function dissect_mfeh(tree, tvb, off, psn)  -- MODEL: M5
  local r = tvb(off, MFEH_LEN)
  local t = tree:add(mrc, r, "MRC Feedback Extension Header (MODEL M5)")
  t:add(F["mfeh.ver"], tvb(off, 1))
  local ty = band(tvb(off, 1):uint(), 0x0F)
  t:add(F["mfeh.type"], tvb(off, 1))
  local fl = t:add(F["mfeh.flags"], tvb(off + 1, 1))
  for _, k in ipairs({ "ce", "svc_valid", "ev_valid", "mpr_valid", "sack_valid", "flags_rsvd" }) do
    fl:add(F["mfeh." .. k], tvb(off + 1, 1))
  end
  local st = tvb(off + 2, 2)
  t:add(F["mfeh.svc_time"], st)
  t:add(F["mfeh.svc_time_ns"], st, st:uint() * 8):set_generated()
  t:add(F["mfeh.trig_psn"], tvb(off + 5, 3))
  t:add(F["mfeh.ev_echo"], tvb(off + 8, 4))
  t:add(F["mfeh.ev_port"], tvb(off + 12, 1))
  t:add(F["mfeh.mpr"], tvb(off + 13, 1))
  local bo = tvb(off + 14, 2)
  t:add(F["mfeh.sack_base_off"], bo)
  t:add(F["mfeh.sack_base"], bo, (psn + 1 + bo:uint()) % 0x1000000):set_generated()
  t:add(F["mfeh.sack_bitmap"], tvb(off + 16, 8))
  local count = 0
  for i = 0, 7 do
    local b = tvb(off + 16 + i, 1):uint()
    while b ~= 0 do count, b = count + band(b, 1), rshift(b, 1) end
  end
  t:add(F["mfeh.sack_count"], tvb(off + 16, 8), count):set_generated()
  t:add(F["mfeh.rcvd_bytes"], tvb(off + 24, 4))
  t:add(F["mfeh.reserved"], tvb(off + 28, 4))
  t:append_text(": " .. (mfeh_types[ty] or ("type " .. ty)) .. ", trig PSN " .. tvb(off + 5, 3):uint())
  return mfeh_types[ty] or ("MFEH type " .. ty)
end

local function dissect_ep(tree, tvb, off, limit)  -- MODEL: M6; header length, or nil if > limit
  local len = tvb(off + 22, 1):uint()
  if off + EP_FIXED_LEN + len > limit then return nil end
  local t = tree:add(mrc, tvb(off, EP_FIXED_LEN + len), "MRC Endpoint Operation Header (MODEL M6)")
  t:add(F["ep.op"], tvb(off, 1))
  t:add(F["ep.flags"], tvb(off + 1, 1)):add(F["ep.svc_valid"], tvb(off + 1, 1))
  t:add(F["ep.req_id"], tvb(off + 2, 2))
  t:add(F["ep.port_status"], tvb(off + 4, 4))
  t:add(F["ep.tx_timestamp"], tvb(off + 8, 8))
  t:add(F["ep.svc_time_ns"], tvb(off + 16, 4))
  t:add(F["ep.rsp_fmt_mode"], tvb(off + 20, 1))
  t:add(F["ep.rsp_port"], tvb(off + 21, 1))
  t:add(F["ep.rsp_ev_len"], tvb(off + 22, 1))
  t:add(F["ep.reserved"], tvb(off + 23, 1))
  if len > 0 then t:add(F["ep.rsp_ev"], tvb(off + EP_FIXED_LEN, len)) end
  if len ~= 0 and len ~= 4 and len ~= 32 then
    t:add_proto_expert_info(E.model, "rsp_ev_len must be 0, 4 or 32 (MODEL M6)")
  end
  return EP_FIXED_LEN + len
end

-- ---- the MRC subtree of one RoCEv2 packet ----------------------------------------------------
-- tvb: the UDP payload (BTH onwards); ft: the frame; udp_off: the UDP header offset in ft.
local function dissect_roce(tvb, pinfo, tree, ft, udp_off)
  local cap = tvb:len()
  local root = tree:add(mrc, tvb())
  local L = parse_lower(ft, udp_off + 8)
  local roce_len = ft:range(udp_off + 4, 2):uint() - 8  -- as the UDP header says

  -- BTH
  local op, psn = tvb(0, 1):uint(), tvb(9, 3):uint()
  local pad = band(rshift(tvb(1, 1):uint(), 4), 3)
  local framing = mrc.prefs.v1_framing and detect_framing(tvb, op, roce_len, pad)
  local bt = root:add(mrc, tvb(0, 12), "Base Transport Header")
  bt:add(F["bth.opcode"], tvb(0, 1))
  for _, k in ipairs({ "se", "m", "padcnt", "tver" }) do bt:add(F["bth." .. k], tvb(1, 1)) end
  bt:add(F["bth.pkey"], tvb(2, 2))
  bt:add(F["bth.fecn"], tvb(4, 1))
  bt:add(F["bth.becn"], tvb(4, 1))
  bt:add(F["bth.dqpn"], tvb(5, 3))
  bt:add(F["bth.ackreq"], tvb(8, 1))
  bt:add(F["bth.psn"], tvb(9, 3))
  local info = string.format("%s QP=0x%06x PSN=%d", opcodes[op] or string.format("opcode 0x%02x", op),
                             tvb(5, 3):uint(), psn)

  -- how far the RoCE packet goes: the UDP length, or the captured bytes when it is cut short
  local short = roce_len > cap
  local icrc_off = short and cap or (roce_len - 4)
  local off = 12
  local l = layout(op, framing)
  local mrc_hdrs = (l.reth and (op == 0x07 or op == 0x08 or op == 0x09)) or l.mfeh or l.ep
  local function need(n, what)
    if off + n > icrc_off then  -- icrc_off is the capture end for a short packet
      root:add_proto_expert_info(E.short, what .. " runs past the captured bytes")
      return false
    end
    return true
  end
  if not l.known then root:add_proto_expert_info(E.opcode) end
  if l.reth and need(16, "RETH") then
    local rt = root:add(mrc, tvb(off, 16), "RDMA Extended Transport Header")
    if op == 0x07 or op == 0x08 or op == 0x09 then
      rt:append_text(" (per-packet, MODEL M3)")
      rt:add(F["reth.per_packet"], tvb(off, 0), true):set_generated()
    end
    rt:add(F["reth.va"], tvb(off, 8))
    rt:add(F["reth.rkey"], tvb(off + 8, 4))
    rt:add(F["reth.len"], tvb(off + 12, 4))
    info = info .. string.format(" VA=0x%s len=%d", tvb(off, 8):uint64():tohex(), tvb(off + 12, 4):uint())
    off = off + 16
  end
  if l.immdt and need(4, "ImmDt") then
    root:add(F["immdt"], tvb(off, 4))
    off = off + 4
  end
  if l.aeth and need(4, "AETH") then
    local at = root:add(mrc, tvb(off, 4), "ACK Extended Transport Header")
    local syn = tvb(off, 1)
    at:add(F["aeth.syndrome"], syn)
    at:add(F["aeth.type"], syn)
    at:add(F["aeth.code"], syn)
    at:add(F["aeth.msn"], tvb(off + 1, 3))
    at:append_text(": " .. (syndromes[syn:uint()] or "?"))
    info = info .. " " .. (syndromes[syn:uint()] or "")
    off = off + 4
  end
  if l.mfeh and need(MFEH_LEN, "MFEH") then
    info = info .. " [" .. dissect_mfeh(root, tvb, off, psn) .. "]"
    off = off + MFEH_LEN
  end
  if l.ep and need(EP_FIXED_LEN, "EP header") then
    local n = dissect_ep(root, tvb, off, icrc_off)
    if n then
      info = info .. " " .. (ep_ops[tvb(off, 1):uint()] or "EP op?") .. " req_id=" .. tvb(off + 2, 2):uint()
      off = off + n
    else
      root:add_proto_expert_info(E.short, "EP response EV runs past the captured bytes")
    end
  end
  root:add(F["mrc_hdrs"], tvb(0, 0), mrc_hdrs and true or false):set_generated()

  -- payload, pad, ICRC
  local pay_end = short and cap or math.max(off, icrc_off - pad)
  if pay_end > off then root:add(F["payload"], tvb(off, pay_end - off)) end
  root:add(F["payload_len"], tvb(off, 0), math.max(pay_end - off, 0)):set_generated()
  local icrc_bad = false
  if not short and icrc_off >= off then
    if pad > 0 and icrc_off - pad >= off then root:add(F["pad"], tvb(icrc_off - pad, pad)) end
    local ir = tvb(icrc_off, 4)
    local it = root:add_le(F["icrc"], ir)
    if mrc.prefs.check_icrc and L and (L.v4 or L.udp_off == L.ip_off + 40) then
      local c = icrc(ft, L.ip_off, L.v4, L.ip_hl, L.udp_off + 8 + icrc_off)
      local ok = c == ir:le_uint()
      it:add(F["icrc_computed"], ir, c):set_generated()
      it:add(F["icrc_ok"], ir, ok):set_generated()
      if not ok then it:add_proto_expert_info(E.icrc) end
      icrc_bad = not ok
    end
  end

  -- EV and trimming (MODEL M1, M2, M11)
  local trimmed = short or icrc_bad
  if L then
    show_ev(root, tvb, ft, L)
    -- The outer header is the one fabric switches see and a trimming switch rewrites.
    root:add(F["dscp"], tvb(0, 0), L.dscps[1]):set_generated()
    for _, d in ipairs(L.dscps) do trimmed = trimmed or d == DSCP_TRIMMED end
    trimmed = trimmed or L.ip_total_end > ft:len()
  end
  local tr = root:add(F["trimmed"], tvb(0, 0), trimmed)
  tr:set_generated()
  if trimmed then
    tr:add_proto_expert_info(E.trimmed)
    info = "TRIMMED STUB " .. info
  end
  -- The InfiniBand dissector owns the columns of plain RoCEv2 frames; MRC frames say what they are.
  if mrc_hdrs or trimmed then
    pinfo.cols.protocol = "MRC"
    pinfo.cols.info = info
  end
  root:append_text(mrc_hdrs and ": MRC framing" or ": no MRC-only headers")
end

-- ---- post-dissector: after Wireshark (InfiniBand included) has decoded the frame ---------------
-- The RoCEv2 packet is the payload of the UDP header whose destination port is 4791.
local f_udp_dport = Field.new("udp.dstport")
function mrc.dissector(tvb, pinfo, tree)
  for _, fi in ipairs({ f_udp_dport() }) do
    if fi.value == ROCE_PORT then
      local udp_off = fi.offset - 2
      if fi.source == tvb and tvb:len() >= udp_off + 8 + 12 then
        dissect_roce(tvb:range(udp_off + 8):tvb(), pinfo, tree, tvb, udp_off)
      end
      return
    end
  end
end
register_postdissector(mrc, true)

-- UDP heuristic: hand datagrams to port 4791 to the dissector Wireshark registered there
-- (InfiniBand's RRoCE), so that with udp.try_heuristic_first a low EV source port owned by another
-- dissector does not take the frame.
local roce_handle = DissectorTable.get("udp.port"):get_dissector(ROCE_PORT)
local function heuristic(tvb, pinfo, tree)
  if roce_handle == nil or pinfo.dst_port ~= ROCE_PORT or tvb:len() < 12 then return false end
  roce_handle:call(tvb, pinfo, tree)
  return true
end
mrc:register_heuristic("udp", heuristic)
