-- mrc.lua: Wireshark dissector for MRC (OCP Multipath Reliable Connection) 1.0 over RoCEv2.
--
-- Decodes MRC 1.0 as mrc-wire-model.md section 5 ("wire model v2", entries W1-W19) describes it:
-- WRITE data opcodes 0xC6-0xCB with METH, optional TSETH and a RETH on every packet, the Transport
-- ACK 0xD1 (+ IBA AETH), the endpoint request/response 0xD8/0xD9 (ERTH/EETH), and the reliability
-- SACK/NACK/probe 0xDC/0xDD/0xDE (SETH + CC_STATE, NETH, PETH); the EV of W2, the ICRC, and
-- trimmed data packets (W13). Any other opcode 0xC0-0xFF is an unknown MRC opcode. Every field
-- section 5 tags [M] (the project's own choice) says "(MODEL Wn)" in its tree label, every [S1] one
-- (a single spec-derived source) "(S1 Wn)"; the values and tags live in one block below ("MRC 1.0
-- constants"), so a tag or value can be flipped in one edit once the PDF is out.
--
-- Install: copy to ~/.local/lib/wireshark/plugins/ or run with -X lua_script:mrc.lua.
-- Wireshark's own InfiniBand dissector keeps decoding every RoCEv2 frame (BTH, RETH, AETH, MADs,
-- ...); this file adds an "MRC" subtree on top from a post-dissector. A frame with an IBA opcode
-- (0x00-0xBF) is plain RoCEv2: its subtree only shows the BTH and checks the ICRC, and it gets no
-- MRC error. A UDP heuristic hands datagrams to port 4791 to the InfiniBand dissector; with
-- udp.try_heuristic_first:TRUE an EV source port below 4791 owned by another dissector (69 TFTP,
-- 123 NTP, ...) cannot take the frame away from it.

local mrc = Proto("mrc", "MRC over RoCEv2 (mrc-conform model)")

local band, bor, bxor, rshift, lshift = bit32.band, bit32.bor, bit32.bxor, bit32.rshift, bit32.lshift

-- ---- preferences -----------------------------------------------------------------------------
mrc.prefs.check_icrc = Pref.bool("Verify ICRC", true, "Recompute the RoCEv2 invariant CRC")

local ROCE_PORT = 4791  -- IBA Annex A17 (W1)

-- BTH opcode names: IBA's (plain RoCEv2 frames), then the MRC 1.0 ones added below.
local opcodes = {
  [0x00] = "RC SEND FIRST", [0x01] = "RC SEND MIDDLE", [0x02] = "RC SEND LAST",
  [0x03] = "RC SEND LAST IMM", [0x04] = "RC SEND ONLY", [0x05] = "RC SEND ONLY IMM",
  [0x06] = "RC WRITE FIRST", [0x07] = "RC WRITE MIDDLE", [0x08] = "RC WRITE LAST",
  [0x09] = "RC WRITE LAST IMM", [0x0A] = "RC WRITE ONLY", [0x0B] = "RC WRITE ONLY IMM",
  [0x0C] = "RC READ REQUEST", [0x0D] = "RC READ RESP FIRST", [0x0E] = "RC READ RESP MIDDLE",
  [0x0F] = "RC READ RESP LAST", [0x10] = "RC READ RESP ONLY", [0x11] = "RC ACKNOWLEDGE",
  [0x12] = "RC ATOMIC ACK", [0x13] = "RC COMPARE SWAP", [0x14] = "RC FETCH ADD", [0x81] = "CNP",
  [0x64] = "UD SEND ONLY", [0x65] = "UD SEND ONLY IMM",
}

-- ==== MRC 1.0 constants (mrc-wire-model.md section 5, wire model v2) ===========================
-- Each [M] (project choice) and [S1] (one spec-derived source) item of section 5 that this file
-- decodes or shows is held here and nowhere else, marked "-- MODEL: Wn" or "-- S1: Wn". Tree labels
-- quote the tags through TAG, so when the OCP PDF confirms or overturns an entry, the value and its
-- label change in this block only. [S2]/[B] facts (two sources, or a standard) carry no tag.
local TAG = {
  ctrl_opcodes = "S1 W3",     -- S1: W3   values 0xD1/0xD8/0xD9/0xDC/0xDD/0xDE (F1 only; F2 names them)
  unknown_op   = "MODEL W3",  -- MODEL: W3  any other opcode 0xC0-0xFF: dropped and counted
  bth_se_m     = "MODEL W3",  -- MODEL: W3  SE / MigReq at their IBA positions (F1 packs M above SE)
  bth_var_res  = "MODEL W3",  -- MODEL: W3  byte 4 (IBA FECN/BECN/resv6) unused in MRC
  tack_psn     = "S1 W3",     -- S1: W3   Transport ACK BTH.PSN = cack_psn (F2 scenarios)
  meth_rqmsn   = "S1 W4",     -- S1: W4   rqmsn counts WRITE_WITH_IMM messages (F5)
  meth_msn     = "S1 W4",     -- S1: W4   msn = 0-based message index (F2)
  tsr_one      = "MODEL W4",  -- MODEL: W4  tsr = 1 has no agreed resolution: reflected, no RTT sample
  dma_len      = "S1 W4",     -- S1: W4   RETH DMALength = length of the whole message (F2)
  icrc_trim    = "MODEL W4",  -- MODEL: W4  the ICRC of a trimmed packet is stale and not checked
  stev_split   = "MODEL W2",  -- MODEL: W2  option A: FL[15:0] = V[31:16], UDP sport = V[15:0]
  fl_top       = "MODEL W2",  -- MODEL: W2  flow-label bits 19..16 carry no EV bits and are ignored
  srh_sl       = "MODEL W1",  -- MODEL: W1  the reference sends SRH Segments Left 1 (F1 sends 0)
  ipv4_echo    = "S1 W2",     -- S1: W2   on IPv4 only the 16 sport bits exist; upper half is 0 (F5)
  seth_m3      = "S1 W5",     -- S1: W5   m = 3 is reserved (F9 asserts m <= 2)
  probe_slot   = "S1 W5",     -- S1: W5   pr = 1: the ack_psn_offset slot carries probe_id (F2)
  seth_ccflags = "MODEL W5",  -- MODEL: W5  SETH cc_flags: meaning not given, sent 0, ignored
  mpr_off      = "S1 W5",     -- S1: W5   mpr = 0 when Dynamic MPR is off (F5)
  bitmap_order = "S1 W5",     -- S1: W5   bitmap bit k (weight 2^k) = PSN base + k (F1; UET)
  rcvd_units   = "S1 W5",     -- S1: W5   rcvd_bytes counts 256-byte units (F1 section 7.5.5.4)
  nack_reasons = "S1 W7",     -- S1: W7   NACK reason values except 0x0B (F1 only; UET numbers)
  nack_unknown = "MODEL W7",  -- MODEL: W7  an unknown reason is handled like UNEXP_EVENT
  neth_ccflags = "MODEL W7",  -- MODEL: W7  NETH cc_flags: meaning not given, sent 0, ignored
  neth_ts      = "S1 W7",     -- S1: W7   NETH.tx_timestamp reflects the NACKed packet's TSETH (F1)
  tack_ack     = "S1 W8",     -- S1: W8   AETH syndrome 0x1F = ACK with the credit field invalid (F10)
  tack_msn     = "S1 W8",     -- S1: W8   AETH MSN = number of completed messages (F2)
  erth_ops     = "S1 W10",    -- S1: W10  ERTH op wire values (F1; the API enum has them reversed)
  port_mask    = "MODEL W10", -- MODEL: W10 port_status_mask bit N = port N (the API value copied)
  eeth_op      = "MODEL W10", -- MODEL: W10 EETH op at byte 1 bits 3..2 (F2; F1 has bits 5..4)
  eeth_ts      = "MODEL W10", -- MODEL: W10 EETH.tx_timestamp reflects ERTH.tx_timestamp
  dscp         = "MODEL W13", -- MODEL: W13 DSCP numbers (configuration, defaults below)
  trim_rule    = "MODEL W13", -- MODEL: W13 trimmed = trimmed DSCP, or UDP length past the IP packet
}
local function tagged(label, key) return label .. " (" .. TAG[key] .. ")" end

-- Opcodes (W3). The data opcodes are RC WRITE | 0xC0 [S2]; the control values are TAG.ctrl_opcodes.
local OP = {
  WRITE_FIRST = 0xC6, WRITE_MIDDLE = 0xC7, WRITE_LAST = 0xC8, WRITE_LAST_IMM = 0xC9,
  WRITE_ONLY = 0xCA, WRITE_ONLY_IMM = 0xCB,
  TACK = 0xD1,                             -- S1: W3
  EP_REQUEST = 0xD8, EP_RESPONSE = 0xD9,   -- S1: W3
  SACK = 0xDC, NACK = 0xDD, PROBE = 0xDE,  -- S1: W3
}
-- Short names for the Info column; the tree shows them through `opcodes`, control ones tagged.
local W_OP_SHORT = {
  [OP.WRITE_FIRST] = "MRC WRITE FIRST", [OP.WRITE_MIDDLE] = "MRC WRITE MIDDLE",
  [OP.WRITE_LAST] = "MRC WRITE LAST", [OP.WRITE_LAST_IMM] = "MRC WRITE LAST IMM",
  [OP.WRITE_ONLY] = "MRC WRITE ONLY", [OP.WRITE_ONLY_IMM] = "MRC WRITE ONLY IMM",
  [OP.TACK] = "MRC TRANSPORT ACK", [OP.EP_REQUEST] = "MRC ENDPOINT REQUEST",
  [OP.EP_RESPONSE] = "MRC ENDPOINT RESPONSE", [OP.SACK] = "MRC RELIABILITY SACK",
  [OP.NACK] = "MRC RELIABILITY NACK", [OP.PROBE] = "MRC RELIABILITY PROBE",
}
local function is_data_op(op) return op >= OP.WRITE_FIRST and op <= OP.WRITE_ONLY_IMM end
for op, name in pairs(W_OP_SHORT) do
  opcodes[op] = is_data_op(op) and name or tagged(name, "ctrl_opcodes")
end

-- Header lengths (W5, W7, W9, W10) [S2].
local LEN = { METH = 4, TSETH = 4, RETH = 16, IMMDT = 4, AETH = 4, SETH = 28, CC_STATE = 8,
              NETH = 20, PETH = 16, ERTH = 16, EETH = 36 }

-- BTH byte 8 for MRC opcodes (W3) [S2].
local BTH8_A, BTH8_R, BTH8_RTX, BTH8_TS, BTH8_RSVD = 0x80, 0x40, 0x20, 0x10, 0x0F

-- SETH multipath verdict m (W5): values [S2], 3 reserved [S1].
local SETH_M = { [0] = "NONE", [1] = "SKIP_ONCE", [2] = "ALWAYS_SKIP",
                 [3] = tagged("reserved", "seth_m3") }
local RCVD_BYTES_UNIT = 256   -- the tag rcvd_units above
local MPR_UNIT = 128          -- W5/W12 [S2]: mpr counts 128-PSN units

-- NACK reasons (W7): 0x0B [S2]; the others S1 W7.
local NACK_REASONS = {
  [0x01] = tagged("TRIMMED", "nack_reasons"),          -- S1: W7
  [0x02] = tagged("TRIMMED_LASTHOP", "nack_reasons"),  -- S1: W7
  [0x06] = tagged("NO_BITMAP", "nack_reasons"),        -- S1: W7
  [0x07] = tagged("NO_PKT_BUFFER", "nack_reasons"),    -- S1: W7
  [0x0A] = tagged("NO_RESOURCE", "nack_reasons"),      -- S1: W7
  [0x0B] = "PSN_OOR_WINDOW",
  [0x19] = tagged("UNEXP_EVENT", "nack_reasons"),      -- S1: W7
}

-- Transport ACK syndromes (W8, IBA AETH): ACK 0x1F S1 W8; RNR and the PSN-sequence NAK do not
-- occur on an MRC QP (W8).
local TACK_SYNDROME_ACK = 0x1F  -- S1: W8
local tack_syndromes = {}
for v = 0, 0x7F do
  local t, code = band(rshift(v, 5), 3), band(v, 0x1F)
  if t == 0 then tack_syndromes[v] = "ACK (credit code " .. code .. ")"
  elseif t == 1 then tack_syndromes[v] = "RNR NAK (not used by MRC)"
  elseif t == 2 then tack_syndromes[v] = "Reserved"
  else tack_syndromes[v] = "NAK code " .. code .. " (reserved)" end
end
tack_syndromes[TACK_SYNDROME_ACK] = tagged("ACK, credit field invalid", "tack_ack")
tack_syndromes[0x60] = "NAK: PSN sequence error (not used by MRC)"
tack_syndromes[0x61], tack_syndromes[0x62] = "NAK: invalid request", "NAK: remote access error"
tack_syndromes[0x63] = "NAK: remote operational error"

-- Endpoint operations (W10).
local EP_DESTQP = 0x2                                                -- W10 [S2]
local ERTH_OP_MASK = 0x03                                            -- W10 position [S2]
local EP_OPS = { [0] = tagged("PORT_STATUS_UPDATE", "erth_ops"),     -- S1: W10
                 [1] = tagged("EV_PROBE", "erth_ops"),               -- S1: W10
                 [2] = "reserved", [3] = "reserved" }
local EETH_OP_MASK = 0x0C                                            -- MODEL: W10 (F1: 0x30)

-- Timestamp tail of TSETH / PETH / ERTH (W4) [S2]; tsr = 1 MODEL W4.
local TSR_NAMES = { [0] = "128 ns units", [1] = tagged("resolution not defined, no RTT sample", "tsr_one") }
local FTYPE_NAMES = { [0] = "no timestamp", [1] = "timestamp" }

-- DSCP codepoints (W13): the names are [S2], the numbers are the reference's defaults.
local DSCP_NAMES = {                 -- MODEL: W13
  [8] = "DSCP_NO_TRIM", [10] = "DSCP_TRIMMABLE", [11] = "DSCP_TRIMMED",
  [12] = "DSCP_TRIMMABLE_RETX", [13] = "DSCP_TRIMMED_LASTHOP", [46] = "DSCP_CONTROL",
}
local DSCP_TRIMMED_DEFAULT, DSCP_TRIMMED_LASTHOP_DEFAULT = 11, 13  -- MODEL: W13
mrc.prefs.dscp_trimmed = Pref.uint("DSCP_TRIMMED", DSCP_TRIMMED_DEFAULT,
  "DSCP a trimming switch writes (MRC 1.0, MODEL W13 default 11)")
mrc.prefs.dscp_trimmed_lasthop = Pref.uint("DSCP_TRIMMED_LASTHOP", DSCP_TRIMMED_LASTHOP_DEFAULT,
  "DSCP a last-hop trimming switch writes (MRC 1.0, MODEL W13 default 13)")

-- MODEL: W2 option A: V = FL[15:0] << 16 | UDP sport; flow-label bits 19..16 are ignored.
local function stev_value(flow_label, sport) return band(flow_label, 0xFFFF) * 65536 + sport end

-- ---- fields ----------------------------------------------------------------------------------
local F = {}
local function field(key, ctor, ...) F[key] = ctor("mrc." .. key, ...) end
local U8, U16, U24, U32, U64 = ProtoField.uint8, ProtoField.uint16, ProtoField.uint24,
                               ProtoField.uint32, ProtoField.uint64
local BOOL = ProtoField.bool
field("bth.opcode", U8, "Opcode", base.HEX, opcodes)
-- IBA labels for plain RoCEv2 frames; the MRC 1.0 BTH below registers se, m and ackreq again
-- under the same names with MRC labels, so one filter finds both.
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
field("immdt", U32, "Immediate Data", base.HEX)
field("aeth.type", U8, "Syndrome type", base.DEC,
      { [0] = "ACK", [1] = "RNR NAK", [2] = "Reserved", [3] = "NAK" }, 0x60)
field("aeth.code", U8, "Syndrome code", base.DEC, nil, 0x1F)
field("payload", ProtoField.bytes, "Payload")
field("payload_len", U32, "Payload length", base.DEC)
field("pad", ProtoField.bytes, "Pad")
field("icrc", U32, "ICRC", base.HEX)
field("icrc_computed", U32, "ICRC computed", base.HEX)
field("icrc_ok", BOOL, "ICRC correct")
-- ---- MRC 1.0 fields (wire model v2) ----------------------------------------------------------
local W = {}
local function wfield(key, abbrev, ctor, ...) W[key] = ctor("mrc." .. abbrev, ...) end
local I16, STR, BYTES, IPV6 = ProtoField.int16, ProtoField.string, ProtoField.bytes, ProtoField.ipv6
-- BTH as MRC uses it (W3)
wfield("se", "bth.se", BOOL, tagged("Solicited Event (IBA position)", "bth_se_m"), 8, nil, 0x80)
wfield("m", "bth.m", BOOL, tagged("MigReq (IBA position)", "bth_se_m"), 8, nil, 0x40)
wfield("var_res", "bth.var_res", U8,
       tagged("var-res (IBA FECN/BECN/resv6: unused, masked in the ICRC)", "bth_var_res"), base.HEX)
wfield("flags", "bth.flags", U8, "MRC flags (byte 8)", base.HEX)
wfield("ackreq", "bth.ackreq", BOOL, "A (AckReq: send a SACK at once)", 8, nil, BTH8_A)
wfield("r", "bth.r", BOOL, "R (meaning not given)", 8, nil, BTH8_R)
wfield("rtx", "bth.rtx", BOOL, "RTX (retransmission)", 8, nil, BTH8_RTX)
wfield("ts", "bth.ts", BOOL, "TS (a TSETH follows the METH)", 8, nil, BTH8_TS)
wfield("inv_res", "bth.inv_res", U8, "inv-res (reserved, covered by the ICRC)", base.HEX, nil, BTH8_RSVD)
wfield("ep_id", "ep.id", U16, "Endpoint request id = BTH.PSN[15:0]", base.HEX)
wfield("tack_cack", "tack.cack_psn", U24, tagged("cack_psn = BTH.PSN", "tack_psn"), base.DEC)
-- METH, TSETH, RETH (W4)
wfield("rqmsn", "meth.rqmsn", U16, tagged("RQMSN (receive-queue MSN of WRITE_WITH_IMM messages)",
       "meth_rqmsn"), base.DEC)
wfield("msn", "meth.msn", U16, tagged("MSN (0-based message index)", "meth_msn"), base.DEC)
wfield("reth_len", "reth.len", U32, tagged("DMA Length = length of the whole message", "dma_len"),
       base.DEC)
-- Timestamp tails: TSETH (mrc.tseth.ts, as TSETH is usually named) and the PETH/ERTH copies.
-- (Spelled out, one registration per line: the project's tests find every field name here.)
wfield("tseth_ts", "tseth.ts", U16, "TX timestamp (low 16 bits)", base.HEX)
wfield("tseth_tsr", "tseth.tsr", U8, "tsr (timestamp resolution)", base.DEC, TSR_NAMES, 0x80)
wfield("tseth_tsrsvd", "tseth.ts_reserved", U16, "Reserved (11 bits)", base.HEX, nil, 0x7FF0)
wfield("tseth_ftype", "tseth.ftype", U8, "ftype", base.DEC, FTYPE_NAMES, 0x0F)
wfield("peth_ts", "peth.tx_timestamp", U16, "TX timestamp (low 16 bits)", base.HEX)
wfield("peth_tsr", "peth.tsr", U8, "tsr (timestamp resolution)", base.DEC, TSR_NAMES, 0x80)
wfield("peth_tsrsvd", "peth.ts_reserved", U16, "Reserved (11 bits)", base.HEX, nil, 0x7FF0)
wfield("peth_ftype", "peth.ftype", U8, "ftype", base.DEC, FTYPE_NAMES, 0x0F)
wfield("erth_ts", "erth.tx_timestamp", U16, "TX timestamp (low 16 bits)", base.HEX)
wfield("erth_tsr", "erth.tsr", U8, "tsr (timestamp resolution)", base.DEC, TSR_NAMES, 0x80)
wfield("erth_tsrsvd", "erth.ts_reserved", U16, "Reserved (11 bits)", base.HEX, nil, 0x7FF0)
wfield("erth_ftype", "erth.ftype", U8, "ftype", base.DEC, FTYPE_NAMES, 0x0F)
-- Transport ACK AETH (W8)
wfield("syndrome", "aeth.syndrome", U8, "Syndrome", base.HEX, tack_syndromes)
wfield("aeth_msn", "aeth.msn", U24, tagged("MSN (completed messages)", "tack_msn"), base.DEC)
-- Common prologue of SETH, NETH, PETH, ERTH, EETH (W5) [S2]
wfield("p_type", "hdr.type", U16, "type (meaning not given, sent 0)", base.DEC, nil, 0xF000)
wfield("p_nh", "hdr.nh", U16, "nh (meaning not given, sent 0)", base.DEC, nil, 0x0F80)
wfield("p_rest", "hdr.reserved_bits", U8, "Reserved bits", base.HEX, nil, 0x7F)
-- SETH + CC_STATE (W5)
wfield("seth_m", "seth.m", U8, "m (multipath verdict on the echoed EV)", base.DEC, SETH_M, 0x60)
wfield("seth_rbits", "seth.reserved_bits", U8, "Reserved bits", base.HEX, nil, 0x1D)
wfield("seth_pr", "seth.pr", BOOL, "pr (answers a reliability probe)", 8, nil, 0x02)
wfield("seth_apo", "seth.ack_psn_offset", I16, "ack_psn_offset (signed)", base.DEC)
wfield("seth_ack_psn", "seth.ack_psn", U24, "ACK PSN = cack_psn + ack_psn_offset (the trigger)", base.DEC)
wfield("seth_probe_id", "seth.probe_id", U16,
       tagged("probe_id (in the ack_psn_offset slot when pr = 1)", "probe_slot"), base.HEX)
wfield("seth_entropy", "seth.entropy", U32, "entropy (EV of the triggering packet)", base.HEX)
wfield("seth_spdcid", "seth.spdcid", U16, "spdcid", base.HEX)
wfield("seth_dpdcid", "seth.dpdcid", U16, "dpdcid", base.HEX)
wfield("seth_rsvd", "seth.reserved", U8, "Reserved (byte 12)", base.HEX)
wfield("seth_cack", "seth.cack_psn", U24, "cack_psn (every PSN up to it received)", base.DEC)
wfield("seth_cc_type", "seth.cc_type", U8, "cc_type", base.DEC, nil, 0xF0)
wfield("seth_cc_flags", "seth.cc_flags", U8, tagged("cc_flags", "seth_ccflags"), base.HEX, nil, 0x0F)
wfield("seth_mpr", "seth.mpr", U8, tagged("mpr, 128-PSN units (0 = Dynamic MPR off)", "mpr_off"), base.DEC)
wfield("seth_mpr_psns", "seth.mpr_psns", U32, "mpr in PSNs (x 128)", base.DEC)
wfield("seth_sack_off", "seth.sack_offset", I16, "sack_offset (signed)", base.DEC)
wfield("seth_sack_base", "seth.sack_base", U24, "SACK base PSN = cack_psn + sack_offset", base.DEC)
wfield("seth_bitmap", "seth.sack_bitmap", U64,
       tagged("sack_bitmap (bit k = PSN base + k: byte 27 bit 0 is the base)", "bitmap_order"), base.HEX)
wfield("seth_sack_count", "seth.sack_count", U8, "PSNs the bitmap marks received", base.DEC)
wfield("seth_sack_psn", "seth.sack_psn", U24, tagged("PSN received (from the bitmap)", "bitmap_order"),
       base.DEC)
wfield("cc_ts", "cc.tx_timestamp", U16, "tx_timestamp (reflected from the trigger's TSETH/PETH)", base.HEX)
wfield("cc_rsvd", "cc.reserved", U16, "Reserved bit", base.HEX, nil, 0x8000)
wfield("cc_ooo", "cc.ooo_count", U16, "ooo_count (PSNs held above cack_psn)", base.DEC, nil, 0x7FFF)
wfield("cc_restore", "cc.restore_cwnd", BOOL, "restore_cwnd", 8, nil, 0x80)
wfield("cc_pen", "cc.rcv_cwnd_pen", U8, "rcv_cwnd_pen (receiver penalty, 0..127)", base.DEC, nil, 0x7F)
wfield("cc_rcvd", "cc.rcvd_bytes", U24, tagged("rcvd_bytes, 256-byte units", "rcvd_units"), base.DEC)
wfield("cc_rcvd_x", "cc.rcvd_bytes_x256", U32, tagged("Received bytes = rcvd_bytes x 256 (mod 2^32)",
       "rcvd_units"), base.DEC)
-- NETH (W7)
wfield("neth_reason", "neth.reason", U8, "nack_reason", base.HEX, NACK_REASONS)
wfield("neth_vendor", "neth.vendor_info", U8, "vendor_info", base.HEX)
wfield("neth_entropy", "neth.entropy", U32, "entropy (EV of the NACKed packet)", base.HEX)
wfield("neth_spdcid", "neth.spdcid", U16, "spdcid", base.HEX)
wfield("neth_dpdcid", "neth.dpdcid", U16, "dpdcid", base.HEX)
wfield("neth_rsvd", "neth.reserved", U8, "Reserved", base.HEX)
wfield("neth_psn", "neth.nack_psn", U24, "nack_psn (PSN of the NACKed packet)", base.DEC)
wfield("neth_cc_type", "neth.cc_type", U8, "cc_type", base.DEC, nil, 0xF0)
wfield("neth_cc_flags", "neth.cc_flags", U8, tagged("cc_flags", "neth_ccflags"), base.HEX, nil, 0x0F)
wfield("neth_ts", "neth.tx_timestamp", U16, tagged("tx_timestamp (reflected from the NACKed packet)",
       "neth_ts"), base.HEX)
-- PETH (W9)
wfield("peth_rsvd", "peth.reserved", U8, "Reserved", base.HEX)
wfield("peth_rsvd16", "peth.reserved16", U16, "Reserved", base.HEX)
wfield("peth_vendor", "peth.vendor_info", U8, "vendor_info", base.HEX)
wfield("peth_probe_id", "peth.probe_id", U16, "probe_id (echoed in the SACK)", base.HEX)
wfield("peth_spdcid", "peth.spdcid", U16, "spdcid", base.HEX)
wfield("peth_dpdcid", "peth.dpdcid", U16, "dpdcid", base.HEX)
-- ERTH / EETH (W10)
wfield("erth_op", "erth.op", U8, "op", base.DEC, EP_OPS, ERTH_OP_MASK)
wfield("erth_rbits", "erth.reserved_bits", U8, "Reserved bits", base.HEX, nil, band(0x7F, 0xFF - ERTH_OP_MASK))
wfield("erth_rsvd", "erth.reserved", U8, "Reserved", base.HEX)
wfield("erth_vendor", "erth.vendor_info", U8, "vendor_info", base.HEX)
wfield("erth_mask", "erth.port_status_mask", U32,
       tagged("port_status_mask (bit N = port N, 1 = usable)", "port_mask"), base.HEX)
wfield("erth_rsvd32", "erth.reserved32", U32, "Reserved", base.HEX)
wfield("eeth_op", "eeth.op", U8, tagged("op (echo of the request's op)", "eeth_op"), base.DEC, EP_OPS,
       EETH_OP_MASK)
wfield("eeth_undecoded", "eeth.undecoded", BYTES, "Bytes 2..27 (not decoded by any source)")
wfield("eeth_ts", "eeth.tx_timestamp", U16, tagged("tx_timestamp (reflects ERTH.tx_timestamp)", "eeth_ts"),
       base.HEX)
wfield("eeth_rsvd", "eeth.reserved", BYTES, "Reserved (bytes 30..35)")
-- Lower layers, trimming, the frame as a whole (W2, W13)
wfield("ev_mode", "ev.mode", STR, "EV format mode (from the headers)")
wfield("ev_value", "ev.value", U32, tagged("EV value V = FL[15:0] << 16 | UDP sport", "stev_split"), base.HEX)
wfield("ev_value4", "ev.value", U32, tagged("EV value V = UDP sport (IPv4: upper 16 bits 0)", "ipv4_echo"),
       base.HEX)
wfield("ev_fl", "ev.flow_label", U32, tagged("Flow label (bits 15..0 = V[31:16]; 19..16 ignored)", "fl_top"),
       base.HEX)
wfield("ev_sport", "ev.sport", U16, "UDP source port = V[15:0]", base.HEX)
wfield("ev_outer_da", "ev.outer_da", IPV6, "Outer DA = path EV bytes 0..15")
wfield("ev_srh_segment", "ev.srh_segment", IPV6, "SRH Segment[0] = path EV bytes 16..31")
wfield("ev_srh_sl", "ev.srh_segments_left", U8, tagged("SRH Segments Left", "srh_sl"), base.DEC)
wfield("dscp", "dscp", U8, tagged("DSCP of the outer IP header", "dscp"), base.DEC, DSCP_NAMES)
wfield("dscp_inner", "dscp_inner", U8, tagged("DSCP of the inner IPv6 header", "dscp"), base.DEC, DSCP_NAMES)
wfield("trimmed", "trimmed", BOOL, tagged("Trimmed data packet", "trim_rule"))
wfield("trimmed_by", "trimmed_by", STR, tagged("Trimmed because", "trim_rule"))
wfield("mrc_hdrs", "mrc_hdrs", BOOL, "MRC-only headers (an MRC 1.0 opcode)")
wfield("undecoded", "undecoded", BYTES, "Bytes after the BTH (unknown MRC opcode)")
wfield("trailing", "trailing", BYTES, "Bytes after the header (none expected)")

local fields = {}
for _, f in pairs(F) do fields[#fields + 1] = f end
for _, f in pairs(W) do fields[#fields + 1] = f end
mrc.fields = fields

-- Expert items. Trimming is normal operation (a note); broken framing is an error.
local WE = {
  icrc = ProtoExpert.new("mrc.expert.icrc", "ICRC mismatch", expert.group.CHECKSUM,
                         expert.severity.ERROR),
  unknown_op = ProtoExpert.new("mrc.expert.unknown_opcode",
                               "unknown MRC opcode (" .. TAG.unknown_op .. ": dropped and counted)",
                               expert.group.PROTOCOL, expert.severity.WARN),
  trimmed = ProtoExpert.new("mrc.expert.trimmed_data",
                            "Trimmed data packet (" .. TAG.trim_rule .. "): payload cut by a switch, "
                            .. "never placed, ICRC not checked", expert.group.SEQUENCE, expert.severity.NOTE),
  past_end = ProtoExpert.new("mrc.expert.past_end", "Header runs past the end of the packet",
                             expert.group.MALFORMED, expert.severity.ERROR),
  reason = ProtoExpert.new("mrc.expert.nack_reason",
                           "Unknown NACK reason (" .. TAG.nack_unknown .. ": handled as UNEXP_EVENT)",
                           expert.group.PROTOCOL, expert.severity.NOTE),
  rule = ProtoExpert.new("mrc.expert.rule", "Frame breaks an MRC 1.0 rule", expert.group.PROTOCOL,
                         expert.severity.WARN),
}
mrc.experts = { WE.icrc, WE.unknown_op, WE.trimmed, WE.past_end, WE.reason, WE.rule }

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
    if nh == 41 then  -- W1: SRv6 is IPv6-in-IPv6
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

-- ==== MRC 1.0 frames (wire model v2, mrc-wire-model.md section 5) ================================
-- These helpers work in frame offsets (ft is the whole frame), because the trim rule compares the
-- UDP length with the IP header's length and with the frame length on the wire.

-- Where the RoCE packet ends: udp_end is what the UDP header claims, wire_end what the IP
-- header(s) and the frame on the wire (frame.len = the tvb's reported length) actually hold. The
-- captured length never enters here: a snap length shortens the capture, not the packet.
local function wire_extent(ft, udp_off, L)
  local udp_end = udp_off + ft(udp_off + 4, 2):uint()
  local wire_end = ft:reported_len()
  if L then
    wire_end = math.min(wire_end, L.ip_total_end)
    if L.inner then wire_end = math.min(wire_end, L.inner.off + 40 + L.inner.plen) end
  end
  return udp_end, wire_end
end

-- MODEL: W13. A data packet is trimmed when any IP header on it carries a trimmed DSCP, or when its
-- UDP length claims more than the IP packet holds (the switch fixed the IP length and left the
-- UDP length and the ICRC stale). Returns the reasons, or nil for an untrimmed packet.
local function trim_reasons(op, L, udp_off, udp_end, wire_end)
  if not is_data_op(op) then return nil end
  local why = {}
  for i, d in ipairs(L and L.dscps or {}) do
    local name = (d == mrc.prefs.dscp_trimmed and "DSCP_TRIMMED")
                 or (d == mrc.prefs.dscp_trimmed_lasthop and "DSCP_TRIMMED_LASTHOP")
    if name then why[#why + 1] = string.format("%s DSCP %d = %s", i == 1 and "outer" or "inner", d, name) end
  end
  if udp_end > wire_end then
    why[#why + 1] = string.format("UDP length %d > %d bytes the IP packet holds",
                                  udp_end - udp_off, wire_end - udp_off)
  end
  if #why == 0 then return nil end
  return table.concat(why, "; ")
end

-- W2: the EV of the IPv6 header right before the UDP header (the inner one under SRv6).
local function show_ev_w2(root, ft, L, z)
  local t = root:add(mrc, z, tagged("Entropy Value", "stev_split"))
  t:set_generated()
  local function gen(f, v) t:add(f, z, v):set_generated() end
  local v
  if L.v4 then
    gen(W.ev_mode, "UDP (IPv4)")
    v = L.sport
    gen(W.ev_value4, v)
  else
    local ip6 = L.inner or L.outer
    gen(W.ev_mode, L.inner and "SRv6" or (ip6.fl == 0 and "UDP (flow label 0)" or "STEV"))
    gen(W.ev_fl, ip6.fl)
    v = stev_value(ip6.fl, L.sport)
    gen(W.ev_value, v)
  end
  gen(W.ev_sport, L.sport)
  if L.inner and L.outer then  -- W1: the path itself is in the outer DA and the SRH segment [A]
    t:add(W.ev_outer_da, ft(L.outer.off + 24, 16)):set_generated()
    if L.srh and L.srh.off + 24 <= ft:len() then
      t:add(W.ev_srh_sl, ft(L.srh.off + 3, 1)):set_generated()
      t:add(W.ev_srh_segment, ft(L.srh.off + 8, 16)):set_generated()
    end
  end
  t:append_text(string.format(": 0x%08x", v))
end

-- The 16-bit prologue every MRC control header starts with (W5) [S2].
local function prologue(t, r)
  t:add(W.p_type, r(0, 2))
  t:add(W.p_nh, r(0, 2))
end

-- tx_timestamp | tsr | reserved | ftype, the 4-byte tail of TSETH, PETH and ERTH (W4) [S2].
local function ts_tail(t, prefix, r)
  t:add(W[prefix .. "_ts"], r(0, 2))
  t:add(W[prefix .. "_tsr"], r(2, 1))
  t:add(W[prefix .. "_tsrsvd"], r(2, 2))
  t:add(W[prefix .. "_ftype"], r(3, 1))
end

local function rule(item, fmt, ...) item:add_proto_expert_info(WE.rule, string.format(fmt, ...)) end

-- SETH (28 bytes) + CC_STATE (8 bytes), opcode 0xDC (W5). cc is nil when not on the wire.
local function dissect_sack(root, r, cc, ctx)
  local t = root:add(mrc, r, "SACK Extended Transport Header (SETH)")
  prologue(t, r)
  local b1 = r(1, 1)
  t:add(W.seth_m, b1)
  t:add(W.seth_rbits, b1)
  t:add(W.seth_pr, b1)
  local m, pr = band(rshift(b1:uint(), 5), 3), band(b1:uint(), 0x02) ~= 0
  local cack = r(13, 3):uint()
  if pr then
    t:add(W.seth_probe_id, r(2, 2))
    ctx.info[#ctx.info + 1] = string.format("probe_id=0x%04x", r(2, 2):uint())
  else
    t:add(W.seth_apo, r(2, 2))
    local ack_psn = (cack + r(2, 2):int()) % 0x1000000
    t:add(W.seth_ack_psn, r(2, 2), ack_psn):set_generated()
    ctx.info[#ctx.info + 1] = "ack_psn=" .. ack_psn
  end
  t:add(W.seth_entropy, r(4, 4))
  t:add(W.seth_spdcid, r(8, 2))
  t:add(W.seth_dpdcid, r(10, 2))
  t:add(W.seth_rsvd, r(12, 1))
  local ci = t:add(W.seth_cack, r(13, 3))
  if cack ~= ctx.psn then rule(ci, "cack_psn %d differs from BTH.PSN %d (W3)", cack, ctx.psn) end
  t:add(W.seth_cc_type, r(16, 1))
  t:add(W.seth_cc_flags, r(16, 1))
  t:add(W.seth_mpr, r(17, 1))
  t:add(W.seth_mpr_psns, r(17, 1), r(17, 1):uint() * MPR_UNIT):set_generated()
  t:add(W.seth_sack_off, r(18, 2))
  local sack_base = (cack + r(18, 2):int()) % 0x1000000
  t:add(W.seth_sack_base, r(18, 2), sack_base):set_generated()
  -- The bit order (tag bitmap_order above): bit k of the big-endian 64-bit value is PSN base + k,
  -- so the walk starts at the last byte (27) and its least-significant bit.
  local bm = t:add(W.seth_bitmap, r(20, 8))
  local count = 0
  for k = 0, 63 do
    local byte = r(27 - math.floor(k / 8), 1)
    if band(byte:uint(), lshift(1, k % 8)) ~= 0 then
      count = count + 1
      bm:add(W.seth_sack_psn, byte, (sack_base + k) % 0x1000000):set_generated()
    end
  end
  t:add(W.seth_sack_count, r(20, 8), count):set_generated()
  t:append_text(string.format(": cack_psn %d, %s, %d PSNs in the bitmap", cack, SETH_M[m], count))
  ctx.info[#ctx.info + 1] = string.format("cack=%d m=%s sacked=%d", cack, SETH_M[m], count)
  if not cc then return end
  local c = root:add(mrc, cc, "CC_STATE")
  c:add(W.cc_ts, cc(0, 2))
  c:add(W.cc_rsvd, cc(2, 2))
  c:add(W.cc_ooo, cc(2, 2))
  c:add(W.cc_restore, cc(4, 1))
  c:add(W.cc_pen, cc(4, 1))
  local rb = c:add(W.cc_rcvd, cc(5, 3))
  rb:add(W.cc_rcvd_x, cc(5, 3), cc(5, 3):uint() * RCVD_BYTES_UNIT):set_generated()
end

-- NETH (20 bytes), opcode 0xDD (W7).
local function dissect_nack(root, r, ctx)
  local t = root:add(mrc, r, "NACK Extended Transport Header (NETH)")
  prologue(t, r)
  t:add(W.p_rest, r(1, 1))
  local reason = r(2, 1):uint()
  local ri = t:add(W.neth_reason, r(2, 1))
  if not NACK_REASONS[reason] then ri:add_proto_expert_info(WE.reason) end  -- MODEL: W7
  t:add(W.neth_vendor, r(3, 1))
  t:add(W.neth_entropy, r(4, 4))
  t:add(W.neth_spdcid, r(8, 2))
  t:add(W.neth_dpdcid, r(10, 2))
  t:add(W.neth_rsvd, r(12, 1))
  local npsn = r(13, 3):uint()
  local pi = t:add(W.neth_psn, r(13, 3))
  if npsn ~= ctx.psn then rule(pi, "nack_psn %d differs from BTH.PSN %d (W7)", npsn, ctx.psn) end
  t:add(W.neth_cc_type, r(16, 1))
  t:add(W.neth_cc_flags, r(16, 1))
  t:add(W.neth_rsvd, r(17, 1))
  t:add(W.neth_ts, r(18, 2))
  local name = NACK_REASONS[reason] and NACK_REASONS[reason]:gsub(" %(.*", "") or
               string.format("reason 0x%02x", reason)
  t:append_text(": " .. name .. ", nack_psn " .. npsn)
  ctx.info[#ctx.info + 1] = name .. " nack_psn=" .. npsn
end

-- PETH (16 bytes), opcode 0xDE (W9).
local function dissect_probe(root, r, ctx)
  local t = root:add(mrc, r, "Probe Extended Transport Header (PETH)")
  prologue(t, r)
  t:add(W.p_rest, r(1, 1))
  t:add(W.peth_rsvd, r(2, 1))
  t:add(W.peth_vendor, r(3, 1))
  t:add(W.peth_probe_id, r(4, 2))
  t:add(W.peth_rsvd16, r(6, 2))
  t:add(W.peth_spdcid, r(8, 2))
  t:add(W.peth_dpdcid, r(10, 2))
  ts_tail(t, "peth", r(12, 4))
  ctx.info[#ctx.info + 1] = string.format("probe_id=0x%04x", r(4, 2):uint())
end

-- W10: both endpoint opcodes go to the reserved DestQP 2 with the id in PSN[15:0] [S2].
local function check_ep_bth(item, ctx)
  if ctx.dqpn ~= EP_DESTQP then rule(item, "endpoint operation to QP 0x%06x, not 0x2 (W10)", ctx.dqpn) end
  if ctx.psn > 0xFFFF then rule(item, "endpoint operation with PSN[23:16] != 0 (W10)") end
end

-- ERTH (16 bytes), opcode 0xD8 (W10).
local function dissect_ep_request(root, r, ctx)
  local t = root:add(mrc, r, "Endpoint Request Transport Header (ERTH)")
  prologue(t, r)
  t:add(W.erth_rbits, r(1, 1))
  t:add(W.erth_op, r(1, 1))
  t:add(W.erth_rsvd, r(2, 1))
  t:add(W.erth_vendor, r(3, 1))
  t:add(W.erth_mask, r(4, 4))
  t:add(W.erth_rsvd32, r(8, 4))
  ts_tail(t, "erth", r(12, 4))
  check_ep_bth(t, ctx)
  local op = band(r(1, 1):uint(), ERTH_OP_MASK)
  ctx.info[#ctx.info + 1] = string.format("%s id=0x%04x", (EP_OPS[op]:gsub(" %(.*", "")), band(ctx.psn, 0xFFFF))
end

-- EETH (36 bytes), opcode 0xD9 (W10). Only op and tx_timestamp are decoded by any source.
local function dissect_ep_response(root, r, ctx)
  local t = root:add(mrc, r, "Endpoint Response Extended Transport Header (EETH)")
  prologue(t, r)
  t:add(W.eeth_op, r(1, 1))  -- MODEL: W10 position
  t:add(W.eeth_undecoded, r(2, 26))
  t:add(W.eeth_ts, r(28, 2))
  t:add(W.eeth_rsvd, r(30, 6))
  check_ep_bth(t, ctx)
  ctx.info[#ctx.info + 1] = string.format("id=0x%04x", band(ctx.psn, 0xFFFF))
end

-- AETH of the Transport ACK 0xD1 (W8): IBA layout, MRC meanings.
local function dissect_tack(root, r, ctx)
  local t = root:add(mrc, r, "ACK Extended Transport Header (Transport ACK)")
  local syn = r(0, 1):uint()
  t:add(W.syndrome, r(0, 1))
  t:add(F["aeth.type"], r(0, 1))
  t:add(F["aeth.code"], r(0, 1))
  t:add(W.aeth_msn, r(1, 3))
  t:append_text(": " .. tack_syndromes[band(syn, 0x7F)])
  ctx.info[#ctx.info + 1] = string.format("cack=%d %s msn=%d", ctx.psn,
                                          (tack_syndromes[band(syn, 0x7F)]:gsub(" %(.*", "")), r(1, 3):uint())
end

-- The ICRC at icrc_off [B]: shown when captured (a snap length may have cut it: then a text item
-- says so), recomputed unless the packet is trimmed (MODEL W4: stale) or an IPv6 extension header
-- sits between the IP and UDP headers (the recipe has no rule for it).
local function show_icrc(root, ft, L, icrc_off, trimmed)
  if icrc_off + 4 > ft:len() then
    root:add(ft(ft:len(), 0), "[ICRC not captured (snap length)]")
    return
  end
  local ir = ft(icrc_off, 4)
  local it = root:add_le(F["icrc"], ir)
  if trimmed then
    it:append_text(" - stale after trimming, not checked (" .. TAG.icrc_trim .. ")")
  elseif mrc.prefs.check_icrc and L and (L.v4 or L.udp_off == L.ip_off + 40) then
    local c = icrc(ft, L.ip_off, L.v4, L.ip_hl, icrc_off)
    local ok = c == ir:le_uint()
    it:add(F["icrc_computed"], ir, c):set_generated()
    it:add(F["icrc_ok"], ir, ok):set_generated()
    if not ok then it:add_proto_expert_info(WE.icrc) end
  end
end

-- One frame whose BTH opcode is in MRC's range 0xC0-0xFF: an MRC 1.0 opcode or an unknown one.
local function dissect_mrc10(ft, pinfo, tree, udp_off)
  local b = udp_off + 8           -- BTH
  local cap_end = ft:len()        -- captured bytes: only limits what can be shown
  local L = parse_lower(ft, b)
  local op = ft(b, 1):uint()
  local data, known = is_data_op(op), W_OP_SHORT[op] ~= nil
  local udp_end, wire_end = wire_extent(ft, udp_off, L)
  local pkt_end = math.min(udp_end, wire_end)
  local root = tree:add(mrc, ft(b, math.max(math.min(pkt_end, cap_end) - b, 12)))
  local z = ft(b, 0)
  local ctx = { psn = ft(b + 9, 3):uint(), dqpn = ft(b + 5, 3):uint(), info = {} }

  -- BTH (W3)
  local b8 = ft(b + 8, 1):uint()
  local pad = band(rshift(ft(b + 1, 1):uint(), 4), 3)
  local bt = root:add(mrc, ft(b, 12), "Base Transport Header (MRC 1.0)")
  bt:add(F["bth.opcode"], ft(b, 1))
  bt:add(W.se, ft(b + 1, 1))
  bt:add(W.m, ft(b + 1, 1))
  bt:add(F["bth.padcnt"], ft(b + 1, 1))
  bt:add(F["bth.tver"], ft(b + 1, 1))
  bt:add(F["bth.pkey"], ft(b + 2, 2))
  bt:add(W.var_res, ft(b + 4, 1))
  bt:add(F["bth.dqpn"], ft(b + 5, 3))
  local fi = bt:add(W.flags, ft(b + 8, 1))
  for _, k in ipairs({ "ackreq", "r", "rtx", "ts", "inv_res" }) do fi:add(W[k], ft(b + 8, 1)) end
  bt:add(F["bth.psn"], ft(b + 9, 3))
  if op == OP.EP_REQUEST or op == OP.EP_RESPONSE then bt:add(W.ep_id, ft(b + 10, 2)) end
  if op == OP.TACK then bt:add(W.tack_cack, ft(b + 9, 3), ctx.psn):set_generated() end
  local flags = {}
  for _, f in ipairs({ { BTH8_A, "A" }, { BTH8_R, "R" }, { BTH8_RTX, "RTX" }, { BTH8_TS, "TS" } }) do
    if band(b8, f[1]) ~= 0 then flags[#flags + 1] = f[2] end
  end
  local head = string.format("%s QP=0x%06x PSN=%d", W_OP_SHORT[op] or string.format("unknown MRC opcode 0x%02x", op),
                             ctx.dqpn, ctx.psn)
  if #flags > 0 then head = head .. " [" .. table.concat(flags, ",") .. "]" end
  ctx.info[1] = head

  -- The ICRC closes the packet, unless trimming left it shorter than its UDP length says: then
  -- the last bytes on the wire are payload (or header) and there is no ICRC to read.
  local why = trim_reasons(op, L, udp_off, udp_end, wire_end)
  local trimmed = why ~= nil
  local cut = udp_end > wire_end
  local icrc_off = (not cut) and (pkt_end - 4) or nil
  local limit = icrc_off or pkt_end
  local off, stopped = b + 12, false
  if limit < off then
    root:add_proto_expert_info(WE.past_end, "UDP length leaves no room for the BTH and ICRC")
    stopped = true
  elseif cut and not data then
    rule(root, "UDP length %d > %d bytes the IP packet holds, on a packet that is never trimmed (W13)",
         udp_end - udp_off, wire_end - udp_off)
  end
  -- Next n bytes of header, or nil (and why) when they are not on the wire or not captured.
  local function take(n, what)
    if stopped then return nil end
    if off + n > limit then
      stopped = true
      if trimmed then
        root:add(ft(math.min(off, cap_end), 0), what .. " cut by trimming")
      else
        root:add_proto_expert_info(WE.past_end, what .. " runs past the end of the packet")
      end
      return nil
    end
    if off + n > cap_end then
      stopped = true
      root:add(ft(cap_end, 0), "[" .. what .. " and what follows not captured (snap length)]")
      return nil
    end
    local r = ft(off, n)
    off = off + n
    return r
  end

  if data then
    local meth = take(LEN.METH, "METH")
    if meth then
      local t = root:add(mrc, meth, "Message Extended Transport Header (METH)")
      t:add(W.rqmsn, meth(0, 2))
      t:add(W.msn, meth(2, 2))
      ctx.info[#ctx.info + 1] = "MSN=" .. meth(2, 2):uint()
    end
    local kept_min = meth ~= nil
    if band(b8, BTH8_TS) ~= 0 then  -- W4: TSETH iff BTH.TS = 1
      local ts = take(LEN.TSETH, "TSETH")
      if ts then ts_tail(root:add(mrc, ts, "Timestamp Extended Transport Header (TSETH)"), "tseth", ts) end
      kept_min = kept_min and ts ~= nil
    end
    if trimmed and not kept_min then
      rule(root, "trimmed below BTH + METH + [TSETH] (%s)", TAG.trim_rule)
    end
    local reth = take(LEN.RETH, "RETH")
    if reth then
      local t = root:add(mrc, reth, "RDMA Extended Transport Header (on every MRC data packet)")
      t:add(F["reth.va"], reth(0, 8))
      t:add(F["reth.rkey"], reth(8, 4))
      t:add(W.reth_len, reth(12, 4))
      ctx.info[#ctx.info + 1] = string.format("VA=0x%s len=%d", reth(0, 8):uint64():tohex(), reth(12, 4):uint())
    end
    if op == OP.WRITE_LAST_IMM or op == OP.WRITE_ONLY_IMM then
      local imm = take(LEN.IMMDT, "ImmDt")
      if imm then root:add(F["immdt"], imm) end
    end
    if not stopped then
      -- Payload up to the pad (intact packet) or to the last byte on the wire (cut by trimming).
      local pay_end = icrc_off and (icrc_off - pad) or pkt_end
      if pay_end < off then
        root:add_proto_expert_info(WE.past_end, "pad count runs into the headers")
        pay_end = off
      end
      local shown = math.min(pay_end, cap_end) - off
      if shown > 0 then root:add(F["payload"], ft(off, shown)) end
      root:add(F["payload_len"], ft(off, 0), pay_end - off):set_generated()
      if shown < pay_end - off then
        root:add(ft(math.min(pay_end, cap_end), 0),
                 string.format("[%d payload bytes not captured (snap length)]", pay_end - off - math.max(shown, 0)))
      end
      if icrc_off and pad > 0 and icrc_off <= cap_end then root:add(F["pad"], ft(icrc_off - pad, pad)) end
    end
  elseif known then
    local body = {
      [OP.TACK] = { LEN.AETH, "AETH", dissect_tack },
      [OP.EP_REQUEST] = { LEN.ERTH, "ERTH", dissect_ep_request },
      [OP.EP_RESPONSE] = { LEN.EETH, "EETH", dissect_ep_response },
      [OP.NACK] = { LEN.NETH, "NETH", dissect_nack },
      [OP.PROBE] = { LEN.PETH, "PETH", dissect_probe },
    }
    if op == OP.SACK then
      local seth = take(LEN.SETH, "SETH")
      if seth then dissect_sack(root, seth, take(LEN.CC_STATE, "CC_STATE"), ctx) end
    else
      local spec = body[op]
      local r = take(spec[1], spec[2])
      if r then spec[3](root, r, ctx) end
    end
    -- Control packets end with their header (W5-W10); anything more is not MRC 1.0.
    if not stopped and off < limit then
      local extra = math.min(limit, cap_end) - off
      local it = root:add(W.trailing, ft(off, math.max(extra, 0)))
      rule(it, "%d bytes after the %s header", limit - off, W_OP_SHORT[op])
    end
  else
    -- MODEL: W3 an opcode MRC does not define: shown raw, ICRC still checked (RoCEv2 framing).
    root:add_proto_expert_info(WE.unknown_op,
                               string.format("unknown MRC opcode 0x%02x (%s: dropped and counted)", op, TAG.unknown_op))
    local n = math.min(limit, cap_end) - off
    if n > 0 then root:add(W.undecoded, ft(off, n)) end
  end

  if icrc_off and icrc_off >= b + 12 then show_icrc(root, ft, L, icrc_off, trimmed) end

  -- EV (W2), DSCP and trimming (W13)
  if L then
    show_ev_w2(root, ft, L, z)
    root:add(W.dscp, z, L.dscps[1]):set_generated()
    if L.dscps[2] then root:add(W.dscp_inner, z, L.dscps[2]):set_generated() end
  end
  local tr = root:add(W.trimmed, z, trimmed)
  tr:set_generated()
  if trimmed then
    root:add(W.trimmed_by, z, why):set_generated()
    tr:add_proto_expert_info(WE.trimmed)
    ctx.info[1] = "TRIMMED " .. ctx.info[1]
  end
  root:add(W.mrc_hdrs, z, known):set_generated()
  pinfo.cols.protocol = "MRC"
  pinfo.cols.info = table.concat(ctx.info, " ")
  root:append_text(": MRC 1.0 " .. (W_OP_SHORT[op] or string.format("unknown opcode 0x%02x", op)))
end

-- One frame with an IBA opcode (0x00-0xBF): plain RoCEv2, which MRC 1.0 does not use (W3) and
-- Wireshark's InfiniBand dissector decodes in full. The subtree shows the BTH, says that no MRC
-- header is present and checks the ICRC (InfiniBand shows it but does not verify it). Lengths come
-- from the UDP and IP headers, so a snap length only hides the ICRC.
local function dissect_plain(ft, tree, udp_off)
  local b = udp_off + 8
  local L = parse_lower(ft, b)
  local udp_end, wire_end = wire_extent(ft, udp_off, L)
  local root = tree:add(mrc, ft(b, math.max(math.min(udp_end, wire_end, ft:len()) - b, 12)))
  local bt = root:add(mrc, ft(b, 12), "Base Transport Header (IBA)")
  bt:add(F["bth.opcode"], ft(b, 1))
  for _, k in ipairs({ "se", "m", "padcnt", "tver" }) do bt:add(F["bth." .. k], ft(b + 1, 1)) end
  bt:add(F["bth.pkey"], ft(b + 2, 2))
  bt:add(F["bth.fecn"], ft(b + 4, 1))
  bt:add(F["bth.becn"], ft(b + 4, 1))
  bt:add(F["bth.dqpn"], ft(b + 5, 3))
  bt:add(F["bth.ackreq"], ft(b + 8, 1))
  bt:add(F["bth.psn"], ft(b + 9, 3))
  root:add(W.mrc_hdrs, ft(b, 0), false):set_generated()
  if udp_end <= wire_end and udp_end - 4 >= b + 12 then show_icrc(root, ft, L, udp_end - 4, false) end
  root:append_text(": plain RoCEv2 (IBA opcode), no MRC header")
end

-- ---- post-dissector: after Wireshark (InfiniBand included) has decoded the frame ---------------
-- The RoCEv2 packet is the payload of the UDP header whose destination port is 4791.
local f_udp_dport = Field.new("udp.dstport")
function mrc.dissector(tvb, pinfo, tree)
  for _, fi in ipairs({ f_udp_dport() }) do
    if fi.value == ROCE_PORT then
      local udp_off = fi.offset - 2
      if fi.source == tvb and tvb:len() >= udp_off + 8 + 12 then
        -- MRC 1.0 owns the manufacturer range 0xC0-0xFF (W3); below it is IBA.
        if tvb(udp_off + 8, 1):uint() >= 0xC0 then
          dissect_mrc10(tvb, pinfo, tree, udp_off)
        else
          dissect_plain(tvb, tree, udp_off)
        end
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
