#include "harness/stimulus/impairment.hpp"

#include <algorithm>

#include "reference/wire/ev_placement.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness::stim {
namespace {

bool packet_level(ImpairKind k) {
  switch (k) {
    case ImpairKind::kDrop:
    case ImpairKind::kTrim:
    case ImpairKind::kReorder:
    case ImpairKind::kDuplicate:
    case ImpairKind::kCorrupt:
    case ImpairKind::kDelay:
    case ImpairKind::kMarkCe:
      return true;
    default:
      return false;
  }
}

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

ImpairmentProgram::ImpairmentProgram(const std::vector<std::pair<std::size_t, const ImpairStep*>>& steps,
                                     wire::EvFmtMode mode,
                                     std::unordered_map<std::uint32_t, std::uint32_t> ev_echo_to_index,
                                     std::uint64_t seed)
    : mode_(mode), ev_index_(std::move(ev_echo_to_index)) {
  for (const auto& [index, step] : steps) {
    const ImpairStep& s = *step;
    // A black-hole of a link or plane is a testbed fault; of EVs (or everything) a drop rule.
    const bool link_blackhole =
        s.kind == ImpairKind::kBlackhole && (!s.select.link.empty() || s.select.plane.has_value());
    if (packet_level(s.kind) || (s.kind == ImpairKind::kBlackhole && !link_blackhole)) {
      Rule r;
      r.info = RuleInfo{s.kind, s.at_ns, s.select, index};
      r.params = s.params;
      std::uint64_t st = seed ^ (0xA5A5A5A5ull * (rule_state_.size() + 1));
      r.rng = splitmix(st);
      rule_state_.push_back(r);
      rules_.push_back(r.info);
      continue;
    }
    FaultPlan f;
    f.kind = s.kind;
    f.at_ns = s.at_ns;
    f.link = s.select.link;
    f.plane = s.select.plane;
    f.target_switch = s.params.target;
    f.port = s.params.port;
    f.step = index;
    faults_.push_back(f);
  }
  hits_.assign(rule_state_.size(), 0);
}

std::size_t ImpairmentProgram::add_trigger(const ImpairSelect& select, std::size_t step, int host) {
  Trigger t;
  t.rule.info = RuleInfo{ImpairKind::kDrop, 0, select, step};
  triggers_.push_back(std::move(t));
  fired_.reserve(triggers_.size());
  trigger_host_ = host;
  return triggers_.size() - 1;
}

void ImpairmentProgram::bind_link(std::size_t rule, std::uint32_t link_id) {
  if (rule < rule_state_.size()) rule_state_[rule].link_id = link_id;
}

std::size_t ImpairmentProgram::follow_late_traffic(std::uint64_t start_ns, std::uint64_t late_ns) {
  std::size_t moved = 0;
  for (std::size_t i = 0; i < rule_state_.size() + triggers_.size(); ++i) {
    const bool trigger = i >= rule_state_.size();
    Rule& r = trigger ? triggers_[i - rule_state_.size()].rule : rule_state_[i];
    auto& window = r.info.select.time_window;
    const bool timed = r.info.at_ns > 0 || window.has_value();
    if (r.followed || !timed || r.info.at_ns < start_ns || (window && window->first < start_ns)) continue;
    if (r.info.at_ns > start_ns) r.info.at_ns += late_ns;
    if (window) {
      if (window->first > start_ns) window->first += late_ns;
      window->second += late_ns;
    }
    r.followed = true;
    if (!trigger) rules_[i] = r.info;
    ++moved;
  }
  return moved;
}

double ImpairmentProgram::uniform(Rule& r) {
  return static_cast<double>(splitmix(r.rng) >> 11) * 0x1.0p-53;
}

bool ImpairmentProgram::selects(Rule& r, const PacketInfo& p, bool& decoded) {
  const ImpairSelect& sel = r.info.select;
  if (p.now_ns < r.info.at_ns) return false;
  if (!sel.link.empty()) {
    if (!r.link_id || *r.link_id != p.link) return false;
  } else if (!p.first_hop) {
    return false;
  }
  if (sel.plane && static_cast<int>(*sel.plane) != p.plane) return false;
  if (sel.time_window && (p.now_ns < sel.time_window->first || p.now_ns >= sel.time_window->second)) return false;
  const bool needs_decode = !sel.evs.empty() || sel.psn_range.has_value() || sel.opcode.has_value() || sel.rtx.has_value() || r.info.kind == ImpairKind::kTrim;
  if (needs_decode && !decoded) {
    decoded = true;
    wire::DecodedFrame& f = scratch_;
    wire::DecodeOptions opt;
    opt.verify_icrc = false;
    has_bth_ = wire::decode_frame(wire::Bytes(p.bytes, p.len), f, opt).ok();
    is_data_ = has_bth_ && wire::is_mrc_data(f.bth.opcode);
    psn_ = f.bth.psn;
    opcode_ = f.bth.opcode;
    rtx_ = f.bth.rtx;
    dscp_ = f.l3 == wire::L3Kind::kIpv4 ? f.ip4.dscp : f.ip6.dscp;
    ev_.reset();
    if (has_bth_) {
      const auto it = ev_index_.find(wire::ev_echo_value(f, mode_));
      if (it != ev_index_.end()) ev_ = it->second;
    }
  }
  if (!sel.evs.empty()) {
    if (!ev_ || std::find(sel.evs.begin(), sel.evs.end(), *ev_) == sel.evs.end()) return false;
  }
  if (sel.opcode && (!has_bth_ || opcode_ != *sel.opcode)) return false;
  if (sel.rtx && (!is_data_ || rtx_ != *sel.rtx)) return false;
  if (sel.psn_range && (!is_data_ || psn_ < sel.psn_range->first || psn_ > sel.psn_range->second)) return false;
  if (r.info.kind == ImpairKind::kTrim) {  // W13 only trimmable data is cut
    const std::uint32_t keep = r.params.bytes.value_or(static_cast<std::uint32_t>(wire::kTrimLength));
    const bool trimmable = dscp_ == dscp_config_.trimmable || dscp_ == dscp_config_.trimmable_retx;
    if (!has_bth_ || !trimmable || p.len <= keep) return false;
  }
  if (sel.probability < 1.0 && uniform(r) >= sel.probability) return false;
  return true;
}

Decision ImpairmentProgram::decide(const PacketInfo& p) {
  bool decoded = false;
  fired_.clear();
  if (p.first_hop && p.from_host == trigger_host_) {
    for (std::size_t i = 0; i < triggers_.size(); ++i) {
      if (triggers_[i].fired_at != UINT64_MAX || !selects(triggers_[i].rule, p, decoded)) continue;
      triggers_[i].fired_at = p.now_ns;
      fired_.push_back(i);
    }
  }
  for (std::size_t i = 0; i < rule_state_.size(); ++i) {
    Rule& r = rule_state_[i];
    if (!selects(r, p, decoded)) continue;
    Decision d;
    d.rule = static_cast<int>(i);
    switch (r.info.kind) {
      case ImpairKind::kDrop:
      case ImpairKind::kBlackhole:
        d.kind = Decision::Kind::kDrop;
        break;
      case ImpairKind::kTrim:
        d.kind = Decision::Kind::kTrim;
        d.trim_bytes = r.params.bytes.value_or(static_cast<std::uint32_t>(wire::kTrimLength));
        break;
      case ImpairKind::kReorder: {
        const std::uint32_t depth = std::max<std::uint32_t>(1, r.params.depth.value_or(1));
        if (r.matched++ % (depth + 1) != 0) continue;  // only every (depth+1)-th is held back
        d.kind = Decision::Kind::kDelay;
        d.delay_ns = r.params.delay_ns.value_or(std::uint64_t{depth} * 1000);
        break;
      }
      case ImpairKind::kDuplicate:
        d.kind = Decision::Kind::kDuplicate;
        d.copies = r.params.copies.value_or(1);
        break;
      case ImpairKind::kCorrupt:
        d.kind = Decision::Kind::kCorrupt;
        d.offset = r.params.offset.value_or(0);
        d.xor_mask = r.params.xor_mask.value_or(0xFF);
        break;
      case ImpairKind::kDelay: {
        d.kind = Decision::Kind::kDelay;
        d.delay_ns = r.params.delay_ns.value_or(0);
        if (const std::uint64_t j = r.params.jitter_ns.value_or(0); j > 0) {
          d.delay_ns += static_cast<std::uint64_t>(uniform(r) * static_cast<double>(j + 1));
        }
        break;
      }
      case ImpairKind::kMarkCe:
        d.kind = Decision::Kind::kMarkCe;
        break;
      default:
        continue;
    }
    ++hits_[i];
    return d;
  }
  return Decision{};
}

}  // namespace mrc::harness::stim
