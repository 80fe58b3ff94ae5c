#include "harness/dut/profile_setup.hpp"

#include <algorithm>
#include <cerrno>
#include <sstream>

namespace mrc::harness {
namespace {

// The CC profile's config bytes in the reference endpoint's "name=value" format (cc_config.hpp);
// a field left 0 keeps its UEC default (W14).
std::string nscc_text(const ap::NsccParams& c, std::uint64_t line_rate_bps, bool fabric_trims) {
  std::ostringstream s;
  auto put = [&](const char* name, auto v) {
    if (v != 0) s << name << '=' << +v << ',';
  };
  if (c.disable_qa) s << "disable_qa=1,";
  put("adjust_bytes_threshold", c.adjust_bytes_threshold);
  put("adjust_period_threshold", c.adjust_period_threshold);
  put("base_rtt", c.base_rtt);
  put("eta", c.eta);
  put("fi", c.fi);
  put("fi_scale", c.fi_scale);
  put("gamma", c.gamma);
  put("max_md_jump", c.max_md_jump);
  put("max_cwnd", c.max_cwnd);
  put("qa_gate", c.qa_gate);
  put("qa_threshold", c.qa_threshold);
  put("target_delay", c.target_delay);
  put("line_rate_bps", line_rate_bps);
  s << "fabric_trims=" << (fabric_trims ? 1 : 0) << ',';
  std::string out = s.str();
  if (!out.empty()) out.pop_back();
  return out;
}

wire::EvBytes ev_bytes(const std::vector<std::uint8_t>& v) {
  wire::EvBytes out{};
  std::copy_n(v.begin(), std::min(v.size(), out.size()), out.begin());
  return out;
}

}  // namespace

wire::EvFmtMode wire_mode(ap::FormatMode m) {
  switch (m) {
    case ap::FormatMode::kStev: return wire::EvFmtMode::kStev;
    case ap::FormatMode::kSrv6: return wire::EvFmtMode::kSrv6;
    case ap::FormatMode::kUdp: return wire::EvFmtMode::kUdp;
  }
  return wire::EvFmtMode::kStev;
}

std::uint32_t port_mask_of(std::uint32_t planes) { return planes >= 32 ? 0xFFFFFFFFu : ((1u << planes) - 1u); }

ap::FormatMode format_mode_of(wire::EvFmtMode m) {
  switch (m) {
    case wire::EvFmtMode::kStev: return ap::FormatMode::kStev;
    case wire::EvFmtMode::kSrv6: return ap::FormatMode::kSrv6;
    case wire::EvFmtMode::kUdp: return ap::FormatMode::kUdp;
  }
  return ap::FormatMode::kStev;
}

ev::EvMode api_mode(ap::EvMode m) {
  switch (m) {
    case ap::EvMode::kAuto: return ev::EvMode::kAuto;
    case ap::EvMode::kExplicit: return ev::EvMode::kExp;
    case ap::EvMode::kGenerated: return ev::EvMode::kGen;
  }
  return ev::EvMode::kExp;
}

std::string errno_name(int rc) {
  switch (rc) {
    case EINVAL: return "EINVAL";
    case EBUSY: return "EBUSY";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ENOSPC: return "ENOSPC";
    case ENOMEM: return "ENOMEM";
    case E2BIG: return "E2BIG";
    default: return "errno " + std::to_string(rc);
  }
}

DutStatus api_error(const std::string& what, int rc, const std::string& why) {
  std::string m = what + " failed: " + errno_name(rc);
  if (!why.empty()) m += " (" + why + ")";
  return DutStatus::rejected(rc, m);
}

void use_default_evs(DutSetup& s, const Testbed::DefaultEvs& d) {
  s.format_widths = d.format_widths;
  s.ev_mode = ap::EvMode::kExplicit;
  s.fields.clear();
  for (const ev::EvField& f : d.fields) s.fields.push_back(ap::EvField{f.width, f.init_val, f.min_val, f.max_val, f.mask});
  s.evs.clear();
  for (const auto& [value, port] : d.evs) s.evs.push_back(ap::EvValue{value, port});
}

DutStatus configure_profiles(ev::Controller& c, const DutSetup& s) {
  std::string why;
  const bool has_fmt = s.ev_mode != ap::EvMode::kAuto;
  if (has_fmt) {
    ev::FmtProfileAttr f;
    f.mode = wire_mode(s.format_mode);
    f.widths = s.format_widths;
    f.state = ev::ProfileState::kOffline;
    if (int rc = c.modify_fmt_profile(0, f, ev::fmt_attr::kState | ev::fmt_attr::kMode | ev::fmt_attr::kFields, &why)) {
      return api_error("EV format profile", rc, why);
    }
    f.state = ev::ProfileState::kOnline;
    if (int rc = c.modify_fmt_profile(0, f, ev::fmt_attr::kState, &why)) return api_error("EV format profile online", rc, why);
  }
  ev::EvProfileAttr e;
  e.state = ev::ProfileState::kOffline;
  e.mode = api_mode(s.ev_mode);
  e.fmt_id = 0;
  e.ev_count = s.ev_mode == ap::EvMode::kExplicit ? static_cast<std::uint32_t>(s.evs.size()) : s.generate_count;
  e.gen_seed = s.generate_seed;
  for (const ap::EvField& fc : s.fields) e.fields.push_back({fc.width, fc.init, fc.min, fc.max, fc.mask});
  e.ev_min_active = s.ev_min_active;
  e.ev_event_mask = s.ev_event_mask;
  std::uint32_t mask = ev::ev_attr::kState | ev::ev_attr::kMode | ev::ev_attr::kCount | ev::ev_attr::kGenSeed;
  if (has_fmt) mask |= ev::ev_attr::kFmtId | ev::ev_attr::kFields;
  if (int rc = c.modify_ev_profile(0, e, mask, &why)) return api_error("EV profile", rc, why);
  if (s.ev_mode == ap::EvMode::kExplicit) {
    for (std::size_t i = 0; i < s.evs.size(); ++i) {
      ev::EvOpEntry op;  // ev = UNPOPULATED: fills the lowest free slot, i.e. slot i
      op.ev_new.val = ev_bytes(s.evs[i].value);
      op.ev_new.port = s.evs[i].port;
      if (int rc = c.replace_ev(0, std::span<const ev::EvOpEntry>(&op, 1), nullptr, &why)) {
        return api_error("EV " + std::to_string(i), rc, why);
      }
    }
  }
  e.state = ev::ProfileState::kOnline;
  if (int rc = c.modify_ev_profile(0, e, ev::ev_attr::kState | ev::ev_attr::kMinActive | ev::ev_attr::kEventMask, &why)) {
    return api_error("EV profile online", rc, why);
  }
  ev::CcProfileAttr cc;
  cc.state = ev::ProfileState::kOffline;
  std::uint32_t cmask = ev::cc_attr::kState | ev::cc_attr::kAlgorithm;
  if (s.cc) {
    cc.algorithm = s.cc->algorithm;
    const std::string text = nscc_text(*s.cc, s.cc_line_rate_bps, s.cc_fabric_trims);
    cc.config.assign(text.begin(), text.end());
    cmask |= ev::cc_attr::kConfig;
  }
  if (int rc = c.modify_cc_profile(0, cc, cmask, &why)) return api_error("CC profile", rc, why);
  cc.state = ev::ProfileState::kOnline;
  if (int rc = c.modify_cc_profile(0, cc, ev::cc_attr::kState, &why)) return api_error("CC profile online", rc, why);
  return DutStatus::success();
}

std::vector<ev::EvEntry> expected_ev_array(const DutSetup& s, std::uint32_t planes, std::string* error) {
  ev::DeviceLimits limits;
  limits.ev_count_align = 1;
  limits.phy_port_mask = port_mask_of(planes);
  ev::Controller c(limits);
  const DutStatus st = configure_profiles(c, s);
  if (!st.ok()) {
    if (error) *error = st.message;
    return {};
  }
  const auto arr = c.ev_array(0);
  return {arr.begin(), arr.end()};
}

}  // namespace mrc::harness
