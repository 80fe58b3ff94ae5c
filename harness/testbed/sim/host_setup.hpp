// Bringing reference endpoints up over a simulated fabric: explicit EV profiles whose EVs route
// (path_query.hpp builders) spread over every plane and spine, a CC profile, and a connected QP
// pair, with the host-API control-plane sequence (EV format profile INIT -> OFFLINE -> ONLINE, EV
// profile with an explicit array filled by REPLACE_EV, QP RESET -> INIT -> RTR -> RTS).
//
// Each connection gets its own EV profile on each side (the EVs depend on the destination), so
// one endpoint can talk to many peers (incast). Format and CC profiles are shared when equal.
// Every function returns "" on success or what failed.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/testbed/sim/path_query.hpp"
#include "harness/testbed/sim/simulator.hpp"
#include "reference/endpoint.hpp"

namespace mrc::sim {

struct ConnectOptions {
  wire::EvFmtMode mode = wire::EvFmtMode::kSrv6;
  bool srh = false;                  // SRv6: DA container + single-segment SRH container
  std::uint32_t ev_count = 0;        // STEV/UDP EVs per direction; 0 = 2 per plane x spine
  bool ipv4 = false;                 // UDP-mode EVs over IPv4 (endpoints made with cfg.ipv4)
  enum ibv_mtu mtu = IBV_MTU_4096;
  bool nscc = true;
  std::string nscc_extra;            // appended to "base_rtt=..., line_rate_bps=..., fabric_trims=..."
  std::uint8_t mpr = 8;
  std::uint8_t mpr_dest = 8;
  std::uint16_t max_wimm = 128;
  std::uint16_t max_wimm_dest = 128;
  std::uint8_t timeout = 8;          // 1.024 us x 2^timeout
  transport::RetryAttr retry{7, 25};
  std::uint32_t ev_min_active = 1;
  std::uint32_t cap_a = 0;           // qp_cap bits of each side
  std::uint32_t cap_b = 0;
  ref::EndpointConfig endpoint;      // template for a host that has no Endpoint yet
};

struct Connection {
  std::uint32_t host_a = 0;
  std::uint32_t host_b = 0;
  ref::Endpoint* a = nullptr;  // requester side of this QP pair (either side may post, though)
  ref::Endpoint* b = nullptr;
  std::uint32_t qpn_a = 0;
  std::uint32_t qpn_b = 0;
  std::uint32_t sq_psn_a = 0;
  std::uint32_t sq_psn_b = 0;
  ev::ProfileId ev_profile_a = 0;
  ev::ProfileId ev_profile_b = 0;
  std::vector<EvSpec> evs_a;   // A's EV array (paths A -> B), in profile order
  std::vector<EvSpec> evs_b;   // B's EV array (paths B -> A: its feedback)
};

// The EVs connect_hosts would give src for talking to dst.
std::vector<EvSpec> route_evs(const Simulator& sim, std::uint32_t src, std::uint32_t dst, const ConnectOptions& o);

// Installs an ONLINE explicit EV profile holding `evs` (padded by repetition to the device's
// count alignment), with a format profile for `mode` (+ SRH). `out_id` is the EV profile id.
std::string install_ev_profile(ref::Endpoint& ep, std::span<const EvSpec> evs, wire::EvFmtMode mode, bool srh,
                               std::uint32_t ev_min_active, ev::ProfileId& out_id);
// Finds or installs an ONLINE CC profile with this algorithm and config.
std::string install_cc_profile(ref::Endpoint& ep, const std::string& algorithm, const std::string& config,
                               ev::ProfileId& out_id);

// Unloaded round-trip estimate between two hosts: an MTU-sized data frame out, an ACK back.
std::uint64_t base_rtt_ns(const Simulator& sim, std::uint32_t src, std::uint32_t dst, std::uint32_t mtu_bytes);

// Everything: endpoints on both hosts (made from o.endpoint if missing), EV profiles both ways,
// CC profile, QP pair connected to RTS. The simulator is notified of both endpoints.
std::string connect_hosts(Simulator& sim, std::uint32_t a, std::uint32_t b, const ConnectOptions& o,
                          Connection& out);

}  // namespace mrc::sim
