// Simulator construction, run control and event dispatch (simulator.hpp).
#include "harness/testbed/sim/simulator.hpp"

#include <stdexcept>

#include "harness/testbed/sim/address_plan.hpp"

namespace mrc::sim {

const char* to_string(SimError e) {
  switch (e) {
    case SimError::kOk: return "ok";
    case SimError::kBadHost: return "no such host";
    case SimError::kBadPort: return "host port outside 1..planes";
    case SimError::kBadLink: return "no such link";
    case SimError::kBadSwitch: return "no such switch";
    case SimError::kBadArgument: return "bad argument";
    case SimError::kBadFrame: return "frame shorter than Ethernet or longer than a packet buffer";
    case SimError::kInPast: return "time is before now()";
    case SimError::kPoolExhausted: return "packet pool exhausted";
    case SimError::kNotEndpoint: return "host is not an Endpoint";
    case SimError::kHostTaken: return "host already attached";
  }
  return "?";
}

const char* to_string(FaultKind k) {
  switch (k) {
    case FaultKind::kLinkDown: return "link_down";
    case FaultKind::kLinkUp: return "link_up";
    case FaultKind::kSwitchDown: return "switch_down";
    case FaultKind::kSwitchUp: return "switch_up";
    case FaultKind::kBlackhole: return "blackhole";
    case FaultKind::kBlackholeOff: return "blackhole_off";
    case FaultKind::kLoss: return "loss";
    case FaultKind::kCorruption: return "corruption";
    case FaultKind::kExtraDelay: return "extra_delay";
    case FaultKind::kPortDown: return "port_down";
    case FaultKind::kPortUp: return "port_up";
    case FaultKind::kDrop: return "drop";
    case FaultKind::kTrim: return "trim";
    case FaultKind::kDuplicate: return "duplicate";
    case FaultKind::kDelay: return "delay";
    case FaultKind::kCorrupt: return "corrupt";
  }
  return "?";
}

namespace {
const TopologyConfig& checked(const TopologyConfig& c) {
  if (const std::string why = c.validate(); !why.empty()) throw std::invalid_argument(why);
  return c;
}
}  // namespace

Simulator::Simulator(const TopologyConfig& cfg)
    : topo_(checked(cfg)), pool_(cfg.max_packets), rng_(cfg.seed ^ 0x73696D2D66616272ull) {
  tables_ = build_tables(topo_);
  const std::uint32_t switches = topo_.node_count() - topo_.hosts();
  switch_macs_.reserve(switches);
  for (std::uint32_t k = 0; k < switches; ++k) switch_macs_.push_back(addr::switch_mac(topo_.node(topo_.hosts() + k)));
  switch_down_.assign(switches, 0);
  egress_base_.reserve(switches + 1);
  for (std::uint32_t k = 0; k < switches; ++k) {
    const NodeId n = topo_.hosts() + k;
    egress_base_.push_back(static_cast<std::uint32_t>(egress_.size()));
    for (std::uint32_t port = 0; port < topo_.port_count(n); ++port) egress_.push_back(topo_.egress_dir(n, port));
  }
  egress_base_.push_back(static_cast<std::uint32_t>(egress_.size()));
  switch_ctx_.reserve(switches);
  for (std::uint32_t k = 0; k < switches; ++k) {
    switch_ctx_.push_back(SwitchContext{&tables_[k], topo_.node(topo_.hosts() + k), topo_.hosts(), topo_.planes()});
  }
  dirs_.resize(topo_.dir_count());
  for (LinkId l = 0; l < topo_.link_count(); ++l) {
    const LinkParams p = topo_.link_params(l);
    const bool host_link = topo_.link(l).host_link;
    for (int up = 0; up < 2; ++up) {
      DirState& s = dirs_[Topology::dir(l, up != 0)];
      s.rate_mbps = p.rate_mbps;
      s.prop_ns = p.prop_ns;
      s.mtu = p.mtu;
      s.to = topo_.dir_to(Topology::dir(l, up != 0));
      s.to_port = topo_.dir_to_port(Topology::dir(l, up != 0));
      s.from_switch = !(host_link && up != 0);  // only host->leaf (side 0) leaves a host
      s.to_host = host_link && up == 0;         // leaf->host: the last hop (W13 TRIMMED_LASTHOP)
    }
  }
  hosts_.resize(topo_.hosts());
  events_.reserve(4096);
}

std::unique_ptr<Simulator> Simulator::create(const TopologyConfig& cfg, std::string* error) {
  const std::string why = cfg.validate();
  if (!why.empty()) {
    if (error) *error = why;
    return nullptr;
  }
  return std::make_unique<Simulator>(cfg);
}

Simulator::~Simulator() = default;

// ---- run control ----------------------------------------------------------------------------------

void Simulator::run_until(std::uint64_t t_ns) {
  if (t_ns < now_) return;
  service_all();
  last_run_dispatched_ = false;
  while (!events_.empty() && events_.next_time() <= t_ns) {
    dispatch(events_.pop());
    last_run_dispatched_ = true;
  }
  now_ = t_ns;
}

bool Simulator::run_until_idle(std::uint64_t limit_ns) {
  service_all();
  while (!events_.empty()) {
    if (events_.next_time() > limit_ns) {
      if (limit_ns > now_) now_ = limit_ns;
      return false;
    }
    dispatch(events_.pop());
  }
  return true;
}

bool Simulator::step() {
  service_all();
  if (events_.empty()) return false;
  dispatch(events_.pop());
  return true;
}

void Simulator::dispatch(const Event& e) {
  if (e.t > now_) now_ = e.t;
  ++stats_.events;
  switch (e.kind) {
    case EventKind::kArrive: on_arrive(e.a, e.b); break;
    case EventKind::kTxDone: on_txdone(e.a); break;
    case EventKind::kHostTimer: on_host_timer(e.a, e.t); break;
    case EventKind::kFault: on_fault(e.a); break;
    case EventKind::kInject: enqueue(e.a, e.b); break;
    case EventKind::kDeliver: on_deliver(e.a, e.b); break;
  }
}

SimStats Simulator::stats() const {
  SimStats s = stats_;
  s.pool_buffers = pool_.buffers();
  s.pool_high_water = pool_.high_water();
  return s;
}

std::size_t Simulator::memory_bytes() const {
  std::size_t n = sizeof(*this);
  for (const SwitchTable& t : tables_) {
    n += sizeof(SwitchTable) + sizeof(Route) * (t.leaf_usid.capacity() + t.spine_usid.capacity() +
                                                t.decap_usid.capacity() + t.host_ip.capacity()) +
         sizeof(std::uint16_t) * t.ecmp_ports.capacity();
  }
  n += switch_macs_.capacity() * sizeof(wire::MacAddr) + switch_down_.capacity();
  n += egress_.capacity() * sizeof(DirId) + egress_base_.capacity() * sizeof(std::uint32_t);
  n += switch_ctx_.capacity() * sizeof(SwitchContext);
  n += dirs_.capacity() * sizeof(DirState) + hosts_.capacity() * sizeof(Host);
  n += pool_.bytes_reserved() + pool_.buffers() * (sizeof(PacketMeta) + sizeof(PacketId));
  n += events_.size() * sizeof(Event);
  for (const Tap& t : taps_) n += sizeof(Tap) + t.cap.size() * sizeof(harness::CapturedPacket);
  return n;
}

}  // namespace mrc::sim
