// Which links an EV's packets cross, and EVs that actually route.
//
// The query does not model paths separately: it builds the frame an endpoint would send on the EV
// (wire::place_ev, W1/W2) and walks it through the same static tables and forward() the
// simulator uses, so the answer is what the packets do (minus queues and faults).
//
// Builders: srv6_evs() gives one uSID path per plane x spine; the STEV / UDP builders search EV
// values whose ECMP hash lands on every (plane, spine) pair and spread the requested count over
// them, ordered so consecutive EVs change plane first. Each EvSpec carries the on-wire bytes and
// the port, ready for an explicit EV profile (host_setup.hpp installs them).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "harness/testbed/sim/forwarding.hpp"
#include "harness/testbed/sim/topology.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::sim {

class Simulator;

struct EvSpec {
  wire::EvFmtMode mode = wire::EvFmtMode::kSrv6;
  wire::EvBytes wire{};         // on-wire (expanded) EV bytes, MSB first (W2)
  std::uint8_t port = 1;        // 1-based egress port = plane
  std::uint8_t index = 0;       // position in the EV array (SRv6: the inner sport's low byte, W2)
  std::uint32_t spine = kNone;  // spine its path crosses in its plane; kNone: stays under one leaf

  // The identity a receiver sees and echoes in SETH / NETH entropy: the STEV value V, the UDP-mode
  // sport, or the SRv6 EV index.
  std::uint32_t echo() const;
};

struct PathTrace {
  std::vector<DirId> dirs;       // link directions in order, starting with the host's egress
  bool delivered = false;
  std::uint32_t dst_host = kNone;
  std::uint8_t dst_port = 0;
  DropReason drop = DropReason::kNone;
  NodeId drop_node = kNone;      // the switch that dropped it
  bool decapsulated = false;

  bool crosses_link(LinkId l) const;
  bool crosses_dir(DirId d) const;
};

// A frame sent by host `src` on `port`, walked through the fabric's tables.
PathTrace trace_frame(const Simulator& sim, std::uint32_t src, std::uint8_t port, wire::Bytes frame);
// The data frame the reference endpoint would send from src to dst on `ev` (RC WRITE ONLY with
// `payload_bytes` zero bytes, at most 4096). `ipv4`: UDP-mode EVs over IPv4. Returns the frame
// length (0 on a bad argument or a too small buffer). `dscp`: its Data class (W13
// DSCP_TRIMMABLE), the fabric's configured value when a path is traced (path_of).
std::size_t ev_frame(std::uint32_t src, std::uint32_t dst, const EvSpec& ev, bool ipv4, wire::MutBytes out,
                     std::uint32_t payload_bytes = 16, std::uint8_t dscp = wire::DscpConfig{}.trimmable);
PathTrace path_of(const Simulator& sim, std::uint32_t src, std::uint32_t dst, const EvSpec& ev, bool ipv4 = false);

// Positions (in `evs`) of the EVs whose src->dst path crosses link `l` (either direction).
std::vector<std::size_t> evs_crossing(const Simulator& sim, std::uint32_t src, std::uint32_t dst,
                                      std::span<const EvSpec> evs, LinkId l, bool ipv4 = false);
// The same EVs by their echo identity (FaultEvent::affected_evs encoding).
std::vector<std::uint32_t> affected_evs(const Simulator& sim, std::uint32_t src, std::uint32_t dst,
                                        std::span<const EvSpec> evs, LinkId l, bool ipv4 = false);

// One SRv6 EV per plane x spine from src to dst, plane-major inside each spine round so
// consecutive EVs change plane: DA = block:spine:dst-leaf:dst-decap (or, with_srh, DA =
// block:spine and the SRH segment block:dst-leaf:dst-decap). Empty for bad hosts.
std::vector<EvSpec> srv6_evs(const Topology& topo, std::uint32_t src, std::uint32_t dst, bool with_srh = false);

// `count` STEV EVs (V = flow label << 16 | sport, W2) spread evenly over every plane and
// every spine its ECMP hash can reach from src to dst. Empty for bad hosts or count 0.
std::vector<EvSpec> stev_evs_covering_all_spines(const Simulator& sim, std::uint32_t src, std::uint32_t dst,
                                                 std::uint32_t count);
// The same for UDP-mode EVs (16-bit sport; IPv4 addresses when `ipv4`).
std::vector<EvSpec> udp_evs_covering_all_spines(const Simulator& sim, std::uint32_t src, std::uint32_t dst,
                                                std::uint32_t count, bool ipv4 = false);

}  // namespace mrc::sim
