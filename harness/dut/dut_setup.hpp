// What the runner asks of a DUT, resolved: the case's `config` with the testbed's defaults filled
// in, and the payloads of control-plane calls. A binding never sees YAML, a case or a testbed
// preset; it gets these structs (design.md §3: dut/ uses testbed, agentproto and reference only).
//
// The vocabulary is the DUT-agent protocol's (harness/agentproto/messages.hpp): EV modes, EV
// fields and values, NSCC parameters and QP attributes mean the same thing to an in-process
// binding and to an agent on the other side of a TCP connection, so the agent binding passes them
// through and the reference adapter (reference_adapter.hpp) reads one shape for both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/agentproto/messages.hpp"
#include "reference/wire/headers.hpp"
#include "reference/wire/mrc_headers.hpp"

namespace mrc::harness {

namespace ap = mrc::agentproto;

// Everything apply() configures.
struct DutSetup {
  // EV format profile.
  ap::FormatMode format_mode = ap::FormatMode::kStev;
  std::vector<std::uint32_t> format_widths;
  // EV profile.
  ap::EvMode ev_mode = ap::EvMode::kExplicit;
  std::vector<ap::EvField> fields;
  std::vector<ap::EvValue> evs;      // explicit mode: the array, in index order
  std::uint32_t generate_count = 0;  // generated / auto mode: EVs the DUT draws
  std::uint64_t generate_seed = 1;
  std::uint32_t ev_min_active = 0;
  std::vector<std::uint32_t> denied;  // EV indices set DENIED before traffic
  std::uint32_t ev_event_mask = 0x3;  // states that raise EV events (host-API bits)
  // CC profile (NSCC; absent = CC off) and the network facts it is tuned to (W14;
  // 0 = unknown, the DUT's default).
  std::optional<ap::NsccParams> cc;
  std::uint64_t cc_line_rate_bps = 0;
  bool cc_fabric_trims = true;
  // `qp.count` QPs with these attributes; qp.first_psn starts every QP in both directions.
  ap::QpParams qp;
  // One registered buffer per endpoint: `buffer_bytes` at `buffer_va` (a binding that cannot
  // choose the address reports the one it got in DutLocal).
  std::uint64_t buffer_va = 0x1000'0000;
  std::uint64_t buffer_bytes = 64 * 1024;
  bool ipv4 = false;  // UDP-mode EVs over IPv4
  std::uint64_t seed = 1;
  ap::DscpValues dscp;  // W13 the traffic classes' DSCP values (the case's config.dscp)
};

// W13 the DSCP values between the protocol's shape and the reference's (same six, same meaning).
inline wire::DscpConfig wire_dscp(const ap::DscpValues& v) {
  wire::DscpConfig d;
  d.trimmable = v.trimmable;
  d.trimmable_retx = v.trimmable_retx;
  d.no_trim = v.no_trim;
  d.trimmed = v.trimmed;
  d.trimmed_lasthop = v.trimmed_lasthop;
  d.control = v.control;
  return d;
}
inline ap::DscpValues dscp_values(const wire::DscpConfig& d) {
  return ap::DscpValues{d.trimmable, d.trimmable_retx, d.no_trim, d.trimmed, d.trimmed_lasthop, d.control};
}

// What the other side needs to talk to this one (the out-of-band GID/QPN exchange, W18).
struct DutLocal {
  wire::Ipv6Addr gid{};
  wire::MacAddr mac{};
  std::uint32_t ipv4 = 0;  // host order; 0 when not on IPv4
  std::vector<std::uint32_t> qpns;  // index = the case's QP index
  std::uint64_t buffer_va = 0;
  std::uint32_t rkey = 0;
  std::uint8_t mpr_dest = 8;
  std::uint16_t max_wimm_dest = 128;
  std::uint32_t qp_caps = 0;  // qp_cap bits (transport/qp_types.hpp)
  std::uint32_t first_psn = 0;
};

struct WriteRequest {
  std::uint32_t qp = 0;            // the case's QP index
  std::uint64_t wr_id = 0;
  std::uint64_t local_offset = 0;  // into this side's buffer
  std::uint32_t length = 0;
  std::uint64_t remote_addr = 0;   // the peer's virtual address
  std::uint32_t rkey = 0;
  bool with_imm = false;
  std::uint32_t imm = 0;
};

// ---- control-plane payloads -------------------------------------------------------------------
// One definition each, the protocol's (harness/agentproto/messages.hpp): the agent binding sends
// them as they are and the reference adapter reads them, in-process or behind an agent. Profile
// operations act on the operation slot (EV profile 1 on EV format profile 0, CC profile 1; never
// the profiles traffic uses); each attribute present is sent with its attribute-mask bit, exactly
// as given: refusing invalid profiles is the DUT's job, and the cases test it.

using ProfileStateSetting = ap::ProfileStateSetting;
using EvProfileChange = ap::EvProfileOp;
using CcProfileChange = ap::CcProfileOp;
// REPLACE_EV: each of `evs` replaces one copy (or all copies) of `from`; no `from` = an
// UNPOPULATED slot.
using EvReplacement = ap::ReplaceEv;
// Before apply(): capabilities the DUT must turn off (named like capabilities()) and the depth
// of its EV event queue (0 = its own).
using DeviceRestriction = ap::RestrictDevice;

}  // namespace mrc::harness
