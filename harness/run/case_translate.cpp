// The case model's words -> the resolved structs the testbed and the DUT bindings take
// (case_setup.hpp). Field for field; kept apart from make_setups() so that file says only what
// the runner decides (defaults, the peer's differences).
#include "harness/run/case_setup.hpp"

#include "reference/transport/qp_types.hpp"

namespace mrc::run {

namespace ap = mrc::agentproto;

ap::EvMode ev_mode_of(harness::EvMode m) {
  switch (m) {
    case harness::EvMode::kAuto: return ap::EvMode::kAuto;
    case harness::EvMode::kExplicit: return ap::EvMode::kExplicit;
    case harness::EvMode::kGenerated: return ap::EvMode::kGenerated;
  }
  return ap::EvMode::kExplicit;
}

std::vector<ap::EvField> ev_fields(const std::vector<harness::EvFieldConfig>& fields) {
  std::vector<ap::EvField> out;
  out.reserve(fields.size());
  for (const auto& f : fields) out.push_back(ap::EvField{f.width, f.init, f.min, f.max, f.mask});
  return out;
}

ap::NsccParams nscc_params(const harness::NsccConfig& c) {
  ap::NsccParams p;
  p.algorithm = c.algorithm;
  p.disable_qa = c.disable_qa;
  p.adjust_bytes_threshold = c.adjust_bytes_threshold;
  p.adjust_period_threshold = c.adjust_period_threshold;
  p.base_rtt = c.base_rtt;
  p.eta = c.eta;
  p.fi = c.fi;
  p.fi_scale = c.fi_scale;
  p.gamma = c.gamma;
  p.max_md_jump = c.max_md_jump;
  p.max_cwnd = c.max_cwnd;
  p.qa_gate = c.qa_gate;
  p.qa_threshold = c.qa_threshold;
  p.target_delay = c.target_delay;
  return p;
}

ap::QpParams qp_params(const harness::QpConfig& q) {
  ap::QpParams p;
  p.count = q.count;
  p.mtu = q.mtu;
  p.mpr = q.mpr;
  p.mpr_dest = q.mpr_dest;
  p.max_wimm = q.max_wimm;
  p.max_wimm_dest = q.max_wimm_dest;
  p.timeout = q.timeout;
  p.retry_linear = q.retry.linear;
  p.retry_exp = q.retry.exp;
  p.first_psn = q.first_psn;
  for (harness::QpCap c : q.caps) {
    switch (c) {
      case harness::QpCap::kDynamicMpr: p.caps |= transport::qp_cap::kDynamicMpr; break;
      case harness::QpCap::kTrimNackDestUnsupported: p.caps |= transport::qp_cap::kTrimNackDestUnsupported; break;
      case harness::QpCap::kSvcTimeDestUnsupported: p.caps |= transport::qp_cap::kSvcTimeDestUnsupported; break;
    }
  }
  return p;
}

namespace {

harness::ProfileStateSetting state_of(harness::ProfileStateName s) {
  switch (s) {
    case harness::ProfileStateName::kInit: return harness::ProfileStateSetting::kInit;
    case harness::ProfileStateName::kOffline: return harness::ProfileStateSetting::kOffline;
    case harness::ProfileStateName::kOnline: return harness::ProfileStateSetting::kOnline;
  }
  return harness::ProfileStateSetting::kInit;
}

ap::EvValue ev_value(const harness::EvEntryConfig& e) { return ap::EvValue{e.value, e.port}; }

}  // namespace

harness::EvProfileChange ev_profile_change(const harness::EvProfileOp& op) {
  harness::EvProfileChange c;
  if (op.state) c.state = state_of(*op.state);
  if (op.mode) c.mode = ev_mode_of(*op.mode);
  if (op.fields) c.fields = ev_fields(*op.fields);
  c.count = op.count;
  c.min_active = op.min_active;
  c.event_mask = op.event_mask;
  c.seed = op.seed;
  return c;
}

harness::CcProfileChange cc_profile_change(const harness::CcProfileOp& op) {
  harness::CcProfileChange c;
  if (op.state) c.state = state_of(*op.state);
  c.algorithm = op.algorithm;
  c.config = op.config;
  return c;
}

harness::EvReplacement ev_replacement(const harness::ReplaceEvOp& op) {
  harness::EvReplacement r;
  if (op.from) r.from = ev_value(*op.from);
  for (const auto& e : op.evs) r.evs.push_back(ev_value(e));
  r.all_copies = op.all_copies;
  return r;
}

harness::DeviceRestriction device_restriction(const harness::DeviceConfig& d) {
  harness::DeviceRestriction r;
  for (harness::Capability c : d.caps_off) r.caps_off.emplace_back(harness::to_string(c));
  r.event_queue_depth = d.event_queue_depth;
  return r;
}

wire::DscpConfig dscp_config(const harness::DscpCaseConfig& d) {
  wire::DscpConfig w;
  w.trimmable = d.trimmable.value_or(w.trimmable);
  w.trimmable_retx = d.trimmable_retx.value_or(w.trimmable_retx);
  w.no_trim = d.no_trim.value_or(w.no_trim);
  w.trimmed = d.trimmed.value_or(w.trimmed);
  w.trimmed_lasthop = d.trimmed_lasthop.value_or(w.trimmed_lasthop);
  w.control = d.control.value_or(w.control);
  return w;
}

harness::TestbedRequest testbed_request(const harness::TestbedSpec& spec, const std::string& fallback,
                                        const harness::DscpCaseConfig& dscp) {
  harness::TestbedRequest r;
  if (dscp.any()) r.dscp = dscp_config(dscp);
  r.preset = spec.preset;
  r.file = spec.file;
  if (r.preset.empty() && r.file.empty()) r.preset = fallback;
  r.planes = spec.planes;
  r.hosts = spec.hosts;
  r.link_gbps = spec.link_gbps;
  r.mtu = spec.mtu;
  r.trim_bytes = spec.trim_bytes;
  r.overrides = spec.overrides;
  return r;
}

}  // namespace mrc::run
