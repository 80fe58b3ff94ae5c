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
  c.denied = s.denied;
  c.cc = s.cc;
  c.qp = s.qp;
  c.ipv4 = s.ipv4;
  c.seed = s.seed;
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
  s.denied = c.denied;
  s.cc = c.cc;
  s.qp = c.qp;
  s.ipv4 = c.ipv4;
  s.seed = c.seed;
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

}  // namespace mrc::harness
