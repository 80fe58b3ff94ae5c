// Faults at scheduled virtual times, the impairment hook's registration and the fault log.
#include "harness/testbed/sim/simulator.hpp"

namespace mrc::sim {
namespace {

bool is_link_fault(FaultKind k) {
  switch (k) {
    case FaultKind::kLinkDown:
    case FaultKind::kLinkUp:
    case FaultKind::kBlackhole:
    case FaultKind::kBlackholeOff:
    case FaultKind::kLoss:
    case FaultKind::kCorruption:
    case FaultKind::kExtraDelay:
      return true;
    default:
      return false;
  }
}

}  // namespace

SimError Simulator::schedule(const FaultSpec& f) {
  if (f.at_ns < now_) return SimError::kInPast;
  if (is_link_fault(f.kind)) {
    if (f.link >= topo_.link_count()) return SimError::kBadLink;
    const bool prob = f.kind == FaultKind::kLoss || f.kind == FaultKind::kCorruption;
    if (prob && !(f.probability >= 0.0 && f.probability <= 1.0)) return SimError::kBadArgument;
  } else if (f.kind == FaultKind::kSwitchDown || f.kind == FaultKind::kSwitchUp) {
    if (f.node < topo_.hosts() || f.node >= topo_.node_count()) return SimError::kBadSwitch;
  } else if (f.kind == FaultKind::kPortDown || f.kind == FaultKind::kPortUp) {
    if (f.host >= topo_.hosts()) return SimError::kBadHost;
    if (f.port < 1 || f.port > topo_.planes()) return SimError::kBadPort;
    if (hosts_[f.host].kind != HostKind::kEndpoint) return SimError::kNotEndpoint;
  } else {
    return SimError::kBadArgument;  // per-packet kinds are records, not schedulable faults
  }
  faults_.push_back(f);
  events_.push(f.at_ns, EventKind::kFault, static_cast<std::uint32_t>(faults_.size() - 1));
  return SimError::kOk;
}

SimError Simulator::link_down(LinkId l, std::uint64_t at_ns, LinkSide side) {
  FaultSpec f;
  f.at_ns = at_ns;
  f.kind = FaultKind::kLinkDown;
  f.link = l;
  f.side = side;
  return schedule(f);
}

SimError Simulator::link_up(LinkId l, std::uint64_t at_ns, LinkSide side) {
  FaultSpec f;
  f.at_ns = at_ns;
  f.kind = FaultKind::kLinkUp;
  f.link = l;
  f.side = side;
  return schedule(f);
}

SimError Simulator::switch_down(NodeId sw, std::uint64_t at_ns) {
  FaultSpec f;
  f.at_ns = at_ns;
  f.kind = FaultKind::kSwitchDown;
  f.node = sw;
  return schedule(f);
}

SimError Simulator::switch_up(NodeId sw, std::uint64_t at_ns) {
  FaultSpec f;
  f.at_ns = at_ns;
  f.kind = FaultKind::kSwitchUp;
  f.node = sw;
  return schedule(f);
}

SimError Simulator::blackhole(LinkId l, std::uint64_t at_ns, bool on, LinkSide side) {
  FaultSpec f;
  f.at_ns = at_ns;
  f.kind = on ? FaultKind::kBlackhole : FaultKind::kBlackholeOff;
  f.link = l;
  f.side = side;
  return schedule(f);
}

SimError Simulator::set_loss(LinkId l, double probability, std::uint64_t at_ns, LinkSide side) {
  FaultSpec f;
  f.at_ns = at_ns;
  f.kind = FaultKind::kLoss;
  f.link = l;
  f.side = side;
  f.probability = probability;
  return schedule(f);
}

SimError Simulator::set_corruption(LinkId l, double probability, std::uint64_t at_ns, LinkSide side) {
  FaultSpec f;
  f.at_ns = at_ns;
  f.kind = FaultKind::kCorruption;
  f.link = l;
  f.side = side;
  f.probability = probability;
  return schedule(f);
}

SimError Simulator::set_extra_delay(LinkId l, std::uint64_t delay_ns, std::uint64_t at_ns, LinkSide side) {
  FaultSpec f;
  f.at_ns = at_ns;
  f.kind = FaultKind::kExtraDelay;
  f.link = l;
  f.side = side;
  f.delay_ns = delay_ns;
  return schedule(f);
}

SimError Simulator::port_admin(std::uint32_t host, std::uint8_t port, bool up, std::uint64_t at_ns) {
  FaultSpec f;
  f.at_ns = at_ns;
  f.kind = up ? FaultKind::kPortUp : FaultKind::kPortDown;
  f.host = host;
  f.port = port;
  return schedule(f);
}

void Simulator::set_impairment_hook(ImpairmentHook hook, std::vector<DirId> dirs) {
  hook_ = std::move(hook);
  const bool all = dirs.empty() && hook_;
  for (DirState& s : dirs_) s.hooked = all;
  if (!hook_) return;
  for (const DirId d : dirs) {
    if (d < dirs_.size()) dirs_[d].hooked = true;
  }
}

void Simulator::on_fault(std::uint32_t index) {
  const FaultSpec f = faults_[index];
  if (is_link_fault(f.kind)) {
    apply_link_fault(f);
    return;
  }
  switch (f.kind) {
    case FaultKind::kSwitchDown: set_switch_state(f.node, false); return;
    case FaultKind::kSwitchUp: set_switch_state(f.node, true); return;
    case FaultKind::kPortDown:
    case FaultKind::kPortUp: {
      Host& h = hosts_[f.host];
      if (h.kind != HostKind::kEndpoint) return;
      h.port->set_port_up(f.port, f.kind == FaultKind::kPortUp);
      record(f.kind, f.port, kNone, kNone, topo_.host_node(f.host), false);
      service(f.host, true);
      return;
    }
    default: return;
  }
}

void Simulator::apply_link_fault(const FaultSpec& f) {
  for (int up = 0; up < 2; ++up) {
    if (f.side == LinkSide::kUp && up == 0) continue;
    if (f.side == LinkSide::kDown && up == 1) continue;
    DirState& s = dirs_[Topology::dir(f.link, up != 0)];
    switch (f.kind) {
      case FaultKind::kLinkDown:
        if (!s.down) ++s.epoch;  // whatever is in flight now is lost
        s.down = true;
        break;
      case FaultKind::kLinkUp: s.down = false; break;
      case FaultKind::kBlackhole: s.blackhole = true; break;
      case FaultKind::kBlackholeOff: s.blackhole = false; break;
      case FaultKind::kLoss: s.loss = f.probability; break;
      case FaultKind::kCorruption: s.corrupt = f.probability; break;
      case FaultKind::kExtraDelay: s.extra_delay_ns = f.delay_ns; break;
      default: break;
    }
  }
  const DirId dir = f.side == LinkSide::kBoth ? kNone : Topology::dir(f.link, f.side == LinkSide::kUp);
  record(f.kind, topo_.link(f.link).plane, f.link, dir, kNone, false);
}

void Simulator::set_switch_state(NodeId sw, bool up) {
  const std::uint32_t k = sw - topo_.hosts();
  if (!up && switch_down_[k] == 0) {
    // Its buffers are lost and whatever it has on the wire never completes.
    for (std::uint32_t port = 0; port < topo_.port_count(sw); ++port) {
      const DirId d = topo_.egress_dir(sw, port);
      if (d == kNone) continue;
      flush(d);
      ++dirs_[d].epoch;
    }
  }
  switch_down_[k] = up ? 0 : 1;
  record(up ? FaultKind::kSwitchUp : FaultKind::kSwitchDown, topo_.node(sw).plane, kNone, kNone, sw, false);
}

bool Simulator::switch_is_down(NodeId n) const {
  return n >= topo_.hosts() && n < topo_.node_count() && switch_down_[n - topo_.hosts()] != 0;
}

void Simulator::record(FaultKind k, std::uint32_t plane, LinkId link, DirId dir, NodeId node, bool per_packet) {
  if (faults_log_.size() >= faults_log_limit_) {
    ++faults_log_dropped_;
    return;
  }
  FaultRecord r;
  r.at_ns = now_;
  r.kind = k;
  r.plane = plane;
  r.link = link;
  r.dir = dir;
  r.node = node;
  r.per_packet = per_packet;
  faults_log_.push_back(r);
}

double Simulator::draw() { return static_cast<double>(rng_.next() >> 11) * 0x1.0p-53; }

std::string Simulator::fault_target(const FaultRecord& r) const {
  if (r.dir != kNone) return topo_.dir_name(r.dir);
  if (r.link != kNone) return topo_.link_name(r.link);
  if (r.node != kNone) {
    if (r.node < topo_.hosts()) return topo_.node_name(r.node) + ".p" + std::to_string(r.plane);
    return topo_.node_name(r.node);
  }
  return {};
}

}  // namespace mrc::sim
