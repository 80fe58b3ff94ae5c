// Hosts: frame ports (endpoints) driven sans-I/O (frames in, time in, frames out, timers rescheduled) and
// external drivers (a callback in, inject() out), plus scripted frames straight to a host.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "harness/testbed/sim/address_plan.hpp"
#include "harness/testbed/sim/simulator.hpp"

namespace mrc::sim {

SimError Simulator::attach(std::uint32_t host, HostKind kind) {
  if (host >= topo_.hosts()) return SimError::kBadHost;
  if (hosts_[host].kind != HostKind::kNone) return SimError::kHostTaken;
  hosts_[host].kind = kind;
  return SimError::kOk;
}

ref::EndpointConfig Simulator::endpoint_config(std::uint32_t host, ref::EndpointConfig cfg) const {
  cfg.gid = addr::host_gid(host);
  cfg.mac = addr::host_mac(host);
  cfg.ipv4_addr = addr::host_ipv4(host);
  cfg.num_ports = static_cast<std::uint8_t>(topo_.planes());
  cfg.limits.phy_port_mask = topo_.planes() >= 32 ? 0xFFFFFFFFu : ((1u << topo_.planes()) - 1u);
  // Distinct seeds give distinct QP numbers per host (a misrouted frame is then rejected).
  cfg.seed = cfg.seed * 1'000'003ull + host + 1;
  return cfg;
}

ref::Endpoint& Simulator::make_endpoint(std::uint32_t host, ref::EndpointConfig cfg) {
  const SimError e = attach(host, HostKind::kEndpoint);
  if (e != SimError::kOk) throw std::invalid_argument(std::string("make_endpoint: ") + to_string(e));
  Host& h = hosts_[host];
  h.owned = std::make_unique<ref::Endpoint>(endpoint_config(host, cfg));
  h.owned_port = std::make_unique<harness::EndpointPort>(*h.owned);
  h.port = h.owned_port.get();
  endpoint_hosts_.insert(std::upper_bound(endpoint_hosts_.begin(), endpoint_hosts_.end(), host), host);
  return *h.owned;
}

SimError Simulator::attach_port(std::uint32_t host, harness::FramePort& port) {
  const SimError e = attach(host, HostKind::kEndpoint);
  if (e != SimError::kOk) return e;
  hosts_[host].port = &port;
  endpoint_hosts_.insert(std::upper_bound(endpoint_hosts_.begin(), endpoint_hosts_.end(), host), host);
  return SimError::kOk;
}

SimError Simulator::set_external(std::uint32_t host, ExternalRx rx) {
  const SimError e = attach(host, HostKind::kExternal);
  if (e != SimError::kOk) return e;
  hosts_[host].rx = std::move(rx);
  return SimError::kOk;
}

HostKind Simulator::host_kind(std::uint32_t host) const {
  return host < hosts_.size() ? hosts_[host].kind : HostKind::kNone;
}

ref::Endpoint* Simulator::endpoint(std::uint32_t host) {
  return host < hosts_.size() && hosts_[host].kind == HostKind::kEndpoint ? hosts_[host].owned.get() : nullptr;
}

void Simulator::notify(std::uint32_t host) {
  if (host < hosts_.size() && hosts_[host].kind == HostKind::kEndpoint) service(host, true);
}

namespace {
SimError check_frame(const Topology& t, std::uint32_t host, std::uint8_t port, wire::Bytes bytes,
                     std::uint64_t at_ns, std::uint64_t now) {
  if (host >= t.hosts()) return SimError::kBadHost;
  if (port < 1 || port > t.planes()) return SimError::kBadPort;
  if (bytes.size() < wire::kEthLen || bytes.size() > PacketPool::kBufferBytes) return SimError::kBadFrame;
  if (at_ns < now) return SimError::kInPast;
  return SimError::kOk;
}
}  // namespace

SimError Simulator::inject(std::uint32_t host, std::uint8_t port, wire::Bytes bytes, std::uint64_t at_ns) {
  if (const SimError e = check_frame(topo_, host, port, bytes, at_ns, now_); e != SimError::kOk) return e;
  const PacketId p = pool_.alloc();
  if (p == kNone) return SimError::kPoolExhausted;
  std::memcpy(pool_.buffer(p), bytes.data(), bytes.size());
  pool_.meta(p).len = static_cast<std::uint16_t>(bytes.size());
  events_.push(at_ns, EventKind::kInject, topo_.host_tx_dir(host, port), p);
  ++stats_.injected;
  return SimError::kOk;
}

SimError Simulator::inject_to(std::uint32_t host, std::uint8_t port, wire::Bytes bytes, std::uint64_t at_ns) {
  if (const SimError e = check_frame(topo_, host, port, bytes, at_ns, now_); e != SimError::kOk) return e;
  const PacketId p = pool_.alloc();
  if (p == kNone) return SimError::kPoolExhausted;
  std::memcpy(pool_.buffer(p), bytes.data(), bytes.size());
  pool_.meta(p).len = static_cast<std::uint16_t>(bytes.size());
  events_.push(at_ns, EventKind::kDeliver, topo_.host_rx_dir(host, port), p);
  ++stats_.injected;
  return SimError::kOk;
}

void Simulator::on_deliver(DirId d, PacketId p) {
  ++dirs_[d].c.delivered;
  deliver_to_host(d, p, /*any_point=*/true);
}

void Simulator::deliver_to_host(DirId d, PacketId p, bool any_point) {
  const DirState& s = dirs_[d];
  const auto port = static_cast<std::uint8_t>(s.to_port);
  Host& h = hosts_[s.to];
  const wire::Bytes bytes(pool_.data(p), pool_.meta(p).len);
  switch (h.kind) {
    case HostKind::kEndpoint:
      ++stats_.delivered;
      h.port->on_frame(port, bytes, now_);
      // Captured once the host took it, so a bridged host's hand-off to its interface goes on the
      // taps with it (port); on_frame() reaches no tap, so the captures' order is unchanged.
      pool_.meta(p).port = h.port->port_time();
      if (s.taps != kNone) tap(d, TapPoint::kArrival, p, now_, any_point);
      pool_.free(p);
      service(s.to, false);
      return;
    case HostKind::kExternal: {
      if (s.taps != kNone) tap(d, TapPoint::kArrival, p, now_, any_point);
      ++stats_.delivered;
      const RxFrame rx{now_, s.to, port, bytes};
      if (h.rx) h.rx(rx);
      pool_.free(p);
      return;
    }
    case HostKind::kNone:
      if (s.taps != kNone) tap(d, TapPoint::kArrival, p, now_, any_point);
      ++stats_.unattached_rx;
      pool_.free(p);
      return;
  }
}

// Pulls the endpoint's frames into its NIC queues (up to the TX window) and re-arms its timer.
void Simulator::service(std::uint32_t host, bool advance) {
  Host& h = hosts_[host];
  if (h.kind != HostKind::kEndpoint) return;
  if (advance) h.port->advance(now_);
  const std::uint64_t window = topo_.config().host_tx_window_bytes;
  while (window == 0 || h.backlog_bytes < window) {
    const PacketId p = pool_.alloc();
    if (p == kNone) {
      ++stats_.pool_exhausted;  // the endpoint keeps the frame; the next service retries
      break;
    }
    transport::TxFrame& f = pool_.frame(p);
    if (!h.port->poll_frame(f)) {
      pool_.free(p);
      break;
    }
    pool_.meta(p).len = f.len;
    pool_.meta(p).port = h.port->port_time();  // a bridged host: when the kernel captured it
    if (f.port < 1 || f.port > topo_.planes()) {
      ++stats_.bad_egress_port;
      pool_.free(p);
      continue;
    }
    enqueue(topo_.host_tx_dir(host, f.port), p);
  }
  arm_timer(host);
}

void Simulator::service_all() {
  for (const std::uint32_t host : endpoint_hosts_) service(host, true);
}

void Simulator::arm_timer(std::uint32_t host) {
  Host& h = hosts_[host];
  std::uint64_t d = h.port->next_deadline();
  if (d == UINT64_MAX) return;
  d = std::max({d, now_, h.not_before});
  if (d >= h.timer_at) return;  // an earlier (or the same) timer event is already pending
  h.timer_at = d;
  events_.push(d, EventKind::kHostTimer, host);
}

void Simulator::on_host_timer(std::uint32_t host, std::uint64_t t) {
  Host& h = hosts_[host];
  if (h.kind != HostKind::kEndpoint || t != h.timer_at) return;  // superseded
  h.timer_at = UINT64_MAX;
  h.port->advance(t);
  // Everything due by t has run; a deadline that stays at or before t would spin forever at t,
  // so it is pushed to t + 1 (and counted).
  h.not_before = 0;
  if (h.port->next_deadline() <= t) {
    ++stats_.deadline_stalls;
    h.not_before = t + 1;
  }
  service(host, false);
}

}  // namespace mrc::sim
