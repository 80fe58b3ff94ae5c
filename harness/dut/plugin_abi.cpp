#include "harness/dut/plugin_abi.hpp"

#include <algorithm>
#include <cstring>

namespace mrc::harness::plugin_abi {

namespace {

mrc_dut_ev_field field_to_c(const ap::EvField& f) { return mrc_dut_ev_field{f.width, f.init, f.min, f.max, f.mask}; }
ap::EvField field_from_c(const mrc_dut_ev_field& f) { return ap::EvField{f.width, f.init, f.min, f.max, f.mask}; }

std::vector<mrc_dut_ev_field> fields_to_c(const std::vector<ap::EvField>& fields) {
  std::vector<mrc_dut_ev_field> out;
  out.reserve(fields.size());
  for (const ap::EvField& f : fields) out.push_back(field_to_c(f));
  return out;
}

std::vector<ap::EvField> fields_from_c(const mrc_dut_ev_field* fields, std::size_t n) {
  std::vector<ap::EvField> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(field_from_c(fields[i]));
  return out;
}

std::vector<ap::EvValue> evs_from_c(const mrc_dut_ev_value* evs, std::size_t n) {
  std::vector<ap::EvValue> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(plugin_abi::from_c(evs[i]));
  return out;
}

mrc_dut_profile_state state_to_c(ap::ProfileStateSetting s) { return static_cast<mrc_dut_profile_state>(s); }
ap::ProfileStateSetting state_from_c(mrc_dut_profile_state s) { return static_cast<ap::ProfileStateSetting>(s); }

void copy_name(const std::string& s, char (&out)[MRC_DUT_NAME_LEN]) { copy_text(s, out, MRC_DUT_NAME_LEN); }

}  // namespace

// The enums are the protocol's values, one for one.
static_assert(static_cast<int>(ap::FormatMode::kStev) == MRC_DUT_FMT_STEV &&
              static_cast<int>(ap::FormatMode::kSrv6) == MRC_DUT_FMT_SRV6 &&
              static_cast<int>(ap::FormatMode::kUdp) == MRC_DUT_FMT_UDP);
static_assert(static_cast<int>(ap::EvMode::kAuto) == MRC_DUT_EV_AUTO &&
              static_cast<int>(ap::EvMode::kExplicit) == MRC_DUT_EV_EXPLICIT &&
              static_cast<int>(ap::EvMode::kGenerated) == MRC_DUT_EV_GENERATED);
static_assert(static_cast<int>(ap::ProfileStateSetting::kInit) == MRC_DUT_PROFILE_INIT &&
              static_cast<int>(ap::ProfileStateSetting::kOffline) == MRC_DUT_PROFILE_OFFLINE &&
              static_cast<int>(ap::ProfileStateSetting::kOnline) == MRC_DUT_PROFILE_ONLINE);
static_assert(ap::limit::kEvBytes == MRC_DUT_EV_BYTES);

void copy_text(const std::string& text, char* buf, std::size_t len) {
  if (buf == nullptr || len == 0) return;
  const std::size_t n = std::min(text.size(), len - 1);
  std::memcpy(buf, text.data(), n);
  buf[n] = '\0';
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ',';
    out += w;
  }
  return out;
}

std::vector<std::string> split_words(const char* csv) {
  std::vector<std::string> out;
  if (csv == nullptr) return out;
  std::string word;
  for (const char* p = csv;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!word.empty()) out.push_back(word);
      word.clear();
      if (*p == '\0') break;
    } else if (*p != ' ') {
      word += *p;
    }
  }
  return out;
}

mrc_dut_ev_value to_c(const ap::EvValue& v) {
  mrc_dut_ev_value out{};
  // The protocol's limit (kEvBytes) is the ABI's, so a valid EV always fits; a longer one is cut
  // and the plugin sees its length, which a DUT refuses as it would any malformed EV.
  const std::size_t n = std::min<std::size_t>(v.value.size(), MRC_DUT_EV_BYTES);
  std::copy_n(v.value.begin(), n, out.value);
  out.len = static_cast<std::uint32_t>(n);
  out.port = v.port;
  return out;
}

ap::EvValue from_c(const mrc_dut_ev_value& v) {
  ap::EvValue out;
  const std::size_t n = std::min<std::size_t>(v.len, MRC_DUT_EV_BYTES);
  out.value.assign(v.value, v.value + n);
  out.port = v.port;
  return out;
}

CSetup::CSetup(const DutSetup& s) : fields_(fields_to_c(s.fields)) {
  evs_.reserve(s.evs.size());
  for (const ap::EvValue& v : s.evs) evs_.push_back(to_c(v));
  c.format_mode = static_cast<mrc_dut_format_mode>(s.format_mode);
  c.format_widths = s.format_widths.data();
  c.format_widths_count = s.format_widths.size();
  c.ev_mode = static_cast<mrc_dut_ev_mode>(s.ev_mode);
  c.fields = fields_.data();
  c.fields_count = fields_.size();
  c.evs = evs_.data();
  c.evs_count = evs_.size();
  c.generate_count = s.generate_count;
  c.generate_seed = s.generate_seed;
  c.ev_min_active = s.ev_min_active;
  c.denied = s.denied.data();
  c.denied_count = s.denied.size();
  c.ev_event_mask = s.ev_event_mask;
  if (s.cc) {
    const ap::NsccParams& n = *s.cc;
    algorithm_ = n.algorithm;
    nscc_ = mrc_dut_nscc{algorithm_.c_str(), n.disable_qa ? 1 : 0, n.adjust_bytes_threshold,
                         n.adjust_period_threshold, n.base_rtt, n.eta, n.fi, n.fi_scale, n.gamma,
                         n.max_md_jump, n.max_cwnd, n.qa_gate, n.qa_threshold, n.target_delay};
    c.cc = &nscc_;
  }
  c.cc_line_rate_bps = s.cc_line_rate_bps;
  c.cc_fabric_trims = s.cc_fabric_trims ? 1 : 0;
  const ap::QpParams& q = s.qp;
  c.qp = mrc_dut_qp_params{q.count,   q.mtu,          q.mpr,       q.mpr_dest,  q.max_wimm, q.max_wimm_dest,
                           q.timeout, q.retry_linear, q.retry_exp, q.caps,      q.first_psn};
  c.buffer_va = s.buffer_va;
  c.buffer_bytes = s.buffer_bytes;
  c.ipv4 = s.ipv4 ? 1 : 0;
  c.seed = s.seed;
  const ap::DscpValues& d = s.dscp;
  c.dscp = mrc_dut_dscp{d.trimmable, d.trimmable_retx, d.no_trim, d.trimmed, d.trimmed_lasthop, d.control};
}

DutSetup from_c(const mrc_dut_setup& s) {
  DutSetup out;
  out.format_mode = static_cast<ap::FormatMode>(s.format_mode);
  out.format_widths.assign(s.format_widths, s.format_widths + s.format_widths_count);
  out.ev_mode = static_cast<ap::EvMode>(s.ev_mode);
  out.fields = fields_from_c(s.fields, s.fields_count);
  out.evs = evs_from_c(s.evs, s.evs_count);
  out.generate_count = s.generate_count;
  out.generate_seed = s.generate_seed;
  out.ev_min_active = s.ev_min_active;
  out.denied.assign(s.denied, s.denied + s.denied_count);
  out.ev_event_mask = s.ev_event_mask;
  if (s.cc != nullptr) {
    const mrc_dut_nscc& n = *s.cc;
    ap::NsccParams p;
    p.algorithm = n.algorithm != nullptr ? n.algorithm : "";
    p.disable_qa = n.disable_qa != 0;
    p.adjust_bytes_threshold = n.adjust_bytes_threshold;
    p.adjust_period_threshold = n.adjust_period_threshold;
    p.base_rtt = n.base_rtt;
    p.eta = n.eta;
    p.fi = n.fi;
    p.fi_scale = n.fi_scale;
    p.gamma = n.gamma;
    p.max_md_jump = n.max_md_jump;
    p.max_cwnd = n.max_cwnd;
    p.qa_gate = n.qa_gate;
    p.qa_threshold = n.qa_threshold;
    p.target_delay = n.target_delay;
    out.cc = p;
  }
  out.cc_line_rate_bps = s.cc_line_rate_bps;
  out.cc_fabric_trims = s.cc_fabric_trims != 0;
  const mrc_dut_qp_params& q = s.qp;
  out.qp = ap::QpParams{q.count,   q.mtu,          q.mpr,       q.mpr_dest, q.max_wimm, q.max_wimm_dest,
                        q.timeout, q.retry_linear, q.retry_exp, q.caps,     q.first_psn};
  out.buffer_va = s.buffer_va;
  out.buffer_bytes = s.buffer_bytes;
  out.ipv4 = s.ipv4 != 0;
  out.seed = s.seed;
  const mrc_dut_dscp& d = s.dscp;
  out.dscp = ap::DscpValues{d.trimmable, d.trimmable_retx, d.no_trim, d.trimmed, d.trimmed_lasthop, d.control};
  return out;
}

CLocal::CLocal(const DutLocal& l) : qpns_(l.qpns) {
  std::copy(l.gid.begin(), l.gid.end(), c.gid);
  std::copy(l.mac.begin(), l.mac.end(), c.mac);
  c.ipv4 = l.ipv4;
  c.qpns = qpns_.data();
  c.qpns_count = qpns_.size();
  c.qpns_capacity = qpns_.size();
  c.buffer_va = l.buffer_va;
  c.rkey = l.rkey;
  c.mpr_dest = l.mpr_dest;
  c.max_wimm_dest = l.max_wimm_dest;
  c.qp_caps = l.qp_caps;
  c.first_psn = l.first_psn;
}

DutLocal from_c(const mrc_dut_local& l) {
  DutLocal out;
  std::copy(l.gid, l.gid + 16, out.gid.begin());
  std::copy(l.mac, l.mac + 6, out.mac.begin());
  out.ipv4 = l.ipv4;
  if (l.qpns != nullptr) out.qpns.assign(l.qpns, l.qpns + std::min(l.qpns_count, l.qpns_capacity));
  out.buffer_va = l.buffer_va;
  out.rkey = l.rkey;
  out.mpr_dest = l.mpr_dest;
  out.max_wimm_dest = l.max_wimm_dest;
  out.qp_caps = l.qp_caps;
  out.first_psn = l.first_psn;
  return out;
}

bool fill_c(const DutLocal& l, mrc_dut_local& out) {
  if (l.qpns.size() > out.qpns_capacity || (out.qpns == nullptr && !l.qpns.empty())) return false;
  std::copy(l.gid.begin(), l.gid.end(), out.gid);
  std::copy(l.mac.begin(), l.mac.end(), out.mac);
  out.ipv4 = l.ipv4;
  std::copy(l.qpns.begin(), l.qpns.end(), out.qpns);
  out.qpns_count = l.qpns.size();
  out.buffer_va = l.buffer_va;
  out.rkey = l.rkey;
  out.mpr_dest = l.mpr_dest;
  out.max_wimm_dest = l.max_wimm_dest;
  out.qp_caps = l.qp_caps;
  out.first_psn = l.first_psn;
  return true;
}

CEvProfileOp::CEvProfileOp(const EvProfileChange& op) {
  if (op.state) {
    c.has_state = 1;
    c.state = state_to_c(*op.state);
  }
  if (op.mode) {
    c.has_mode = 1;
    c.mode = static_cast<mrc_dut_ev_mode>(*op.mode);
  }
  if (op.fields) {
    fields_ = fields_to_c(*op.fields);
    c.has_fields = 1;
    c.fields = fields_.data();
    c.fields_count = fields_.size();
  }
  if (op.count) {
    c.has_count = 1;
    c.count = *op.count;
  }
  if (op.min_active) {
    c.has_min_active = 1;
    c.min_active = *op.min_active;
  }
  if (op.event_mask) {
    c.has_event_mask = 1;
    c.event_mask = *op.event_mask;
  }
  if (op.seed) {
    c.has_seed = 1;
    c.seed = *op.seed;
  }
}

EvProfileChange from_c(const mrc_dut_ev_profile_op& op) {
  EvProfileChange out;
  if (op.has_state) out.state = state_from_c(op.state);
  if (op.has_mode) out.mode = static_cast<ap::EvMode>(op.mode);
  if (op.has_fields) out.fields = fields_from_c(op.fields, op.fields_count);
  if (op.has_count) out.count = op.count;
  if (op.has_min_active) out.min_active = op.min_active;
  if (op.has_event_mask) out.event_mask = op.event_mask;
  if (op.has_seed) out.seed = op.seed;
  return out;
}

std::string CCcProfileOp::refused(const CcProfileChange& op) {
  for (const auto& [name, value] : op.config) {
    if (name.size() >= MRC_DUT_NAME_LEN || value.size() >= MRC_DUT_NAME_LEN) {
      return "CC config entry '" + name + "' does not fit the plugin ABI's " +
             std::to_string(MRC_DUT_NAME_LEN - 1) + "-byte name and value";
    }
  }
  return {};
}

CCcProfileOp::CCcProfileOp(const CcProfileChange& op) {
  if (op.state) {
    c.has_state = 1;
    c.state = state_to_c(*op.state);
  }
  if (op.algorithm) {
    algorithm_ = *op.algorithm;
    c.algorithm = algorithm_.c_str();
  }
  for (const auto& [name, value] : op.config) {
    mrc_dut_cc_config_entry e{};
    copy_name(name, e.name);
    copy_name(value, e.value);
    config_.push_back(e);
  }
  c.config = config_.data();
  c.config_count = config_.size();
}

CcProfileChange from_c(const mrc_dut_cc_profile_op& op) {
  CcProfileChange out;
  if (op.has_state) out.state = state_from_c(op.state);
  if (op.algorithm != nullptr) out.algorithm = std::string(op.algorithm);
  for (std::size_t i = 0; i < op.config_count; ++i) {
    const mrc_dut_cc_config_entry& e = op.config[i];
    out.config.emplace_back(std::string(e.name, strnlen(e.name, MRC_DUT_NAME_LEN)),
                            std::string(e.value, strnlen(e.value, MRC_DUT_NAME_LEN)));
  }
  return out;
}

CReplaceEv::CReplaceEv(const EvReplacement& op) {
  if (op.from) {
    from_ = to_c(*op.from);
    c.from = &from_;
  }
  evs_.reserve(op.evs.size());
  for (const ap::EvValue& v : op.evs) evs_.push_back(to_c(v));
  c.evs = evs_.data();
  c.evs_count = evs_.size();
  c.all_copies = op.all_copies ? 1 : 0;
}

EvReplacement from_c(const mrc_dut_replace_ev& op) {
  EvReplacement out;
  if (op.from != nullptr) out.from = from_c(*op.from);
  out.evs = evs_from_c(op.evs, op.evs_count);
  out.all_copies = op.all_copies != 0;
  return out;
}

mrc_dut_write to_c(const WriteRequest& w) {
  return mrc_dut_write{w.qp, w.wr_id, w.local_offset, w.length, w.remote_addr, w.rkey, w.with_imm ? 1 : 0, w.imm};
}

WriteRequest from_c(const mrc_dut_write& w) {
  return WriteRequest{w.qp, w.wr_id, w.local_offset, w.length, w.remote_addr, w.rkey, w.with_imm != 0, w.imm};
}

}  // namespace mrc::harness::plugin_abi
