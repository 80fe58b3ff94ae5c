#include "harness/dut/agent_setup.hpp"

namespace mrc::harness {

ap::ApplyConfig to_apply_config(const DutSetup& s) {
  ap::ApplyConfig c;
  c.format_mode = s.format_mode;
  c.format_widths = s.format_widths;
  c.ev_mode = s.ev_mode;
  c.fields = s.fields;
  c.evs = s.evs;
  c.generate_count = s.generate_count;
  c.generate_seed = s.generate_seed;
  c.ev_min_active = s.ev_min_active;
  c.ev_event_mask = s.ev_event_mask;
  c.denied = s.denied;
  c.cc = s.cc;
  c.cc_line_rate_bps = s.cc_line_rate_bps;
  c.cc_fabric_trims = s.cc_fabric_trims;
  c.qp = s.qp;
  c.ipv4 = s.ipv4;
  c.seed = s.seed;
  c.dscp = s.dscp;
  c.regions = {ap::RegionRequest{s.buffer_va, s.buffer_bytes}};
  return c;
}

DutSetup to_dut_setup(const ap::ApplyConfig& c) {
  DutSetup s;
  s.format_mode = c.format_mode;
  s.format_widths = c.format_widths;
  s.ev_mode = c.ev_mode;
  s.fields = c.fields;
  s.evs = c.evs;
  s.generate_count = c.generate_count;
  s.generate_seed = c.generate_seed;
  s.ev_min_active = c.ev_min_active;
  s.ev_event_mask = c.ev_event_mask;
  s.denied = c.denied;
  s.cc = c.cc;
  s.cc_line_rate_bps = c.cc_line_rate_bps;
  s.cc_fabric_trims = c.cc_fabric_trims;
  s.qp = c.qp;
  s.ipv4 = c.ipv4;
  s.seed = c.seed;
  s.dscp = c.dscp;
  if (!c.regions.empty()) {
    s.buffer_va = c.regions.front().addr;
    s.buffer_bytes = c.regions.front().length;
  }
  return s;
}

ap::PeerInfo to_peer_info(const DutLocal& l) {
  ap::PeerInfo p;
  p.gid = l.gid;
  p.mac = l.mac;
  p.ipv4 = l.ipv4;
  p.qpns = l.qpns;
  p.mpr_dest = l.mpr_dest;
  p.max_wimm_dest = l.max_wimm_dest;
  p.qp_caps = l.qp_caps;
  p.first_psn = l.first_psn;
  return p;
}

DutLocal to_dut_local(const ap::PeerInfo& p) {
  DutLocal l;
  l.gid = p.gid;
  l.mac = p.mac;
  l.ipv4 = p.ipv4;
  l.qpns = p.qpns;
  l.mpr_dest = p.mpr_dest;
  l.max_wimm_dest = p.max_wimm_dest;
  l.qp_caps = p.qp_caps;
  l.first_psn = p.first_psn;
  return l;
}

DutLocal to_dut_local(const ap::ApplyOk& a) {
  DutLocal l;
  l.gid = a.gid;
  l.mac = a.mac;
  l.ipv4 = a.ipv4;
  l.qpns = a.qpns;
  if (!a.regions.empty()) {
    l.buffer_va = a.regions.front().addr;
    l.rkey = a.regions.front().rkey;
  }
  l.mpr_dest = a.mpr_dest;
  l.max_wimm_dest = a.max_wimm_dest;
  l.qp_caps = a.qp_caps;
  l.first_psn = a.first_psn;
  return l;
}

}  // namespace mrc::harness
