// The one place a DutSetup becomes a configured reference endpoint: its EndpointConfig, the
// profiles (profile_setup.hpp), DENIED EVs, QPs to INIT, the registered buffer, and RTR/RTS towards
// a peer. The in-process `reference` binding and the DUT agent's reference backend both call
// these, so the reference behind a TCP connection is configured exactly like the one in-process
// (tests/harness/dut/reference_adapter_test.cpp compares the two).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/dut/dut_binding.hpp"
#include "harness/dut/profile_setup.hpp"
#include "reference/defects.hpp"
#include "reference/endpoint.hpp"
#include "reference/variants.hpp"

namespace mrc::harness {

// Where a reference endpoint sits: its addresses and the physical ports it has.
struct ReferenceHost {
  wire::MacAddr mac{};
  wire::Ipv6Addr gid{};
  std::uint32_t ipv4_addr = 0;  // host order; 0 = none
  std::uint8_t num_ports = 1;   // highest 1-based port
  std::uint32_t port_mask = 1;  // bit p-1 = port p present
};

// How it behaves: named defects (reference/defects.hpp) and conformant policy variants
// (reference/variants.hpp).
struct ReferencePolicy {
  ref::DefectSet defects;
  ref::VariantSet variants;

  bool empty() const { return defects.empty() && variants.empty(); }
  // "defect,...,variant,..." in catalog order; "" for the plain reference.
  std::string to_string() const;
};

// Parses the part after `reference:` — defect and variant names in any order, comma-separated.
// On an unknown name, or two variants of one group, returns nullopt and says why in *error.
std::optional<ReferencePolicy> parse_reference_policy(std::string_view csv, std::string* error);

// Capabilities the reference can turn off for config.device; "" or why not (naming the first
// capability it cannot turn off).
std::string restriction_refused(const DeviceRestriction& d);

ref::EndpointConfig reference_endpoint_config(const ReferenceHost& host, const ReferencePolicy& policy,
                                              const DutSetup& s, const DeviceRestriction& restriction);

// Profiles 0, DENIED EVs, `s.qp.count` QPs to INIT (their QPNs into `qpns`).
DutStatus configure_reference(ref::Endpoint& ep, const DutSetup& s, std::vector<std::uint32_t>& qpns);
// Sets or clears DENIED on EV `ev_index` of EV profile 0.
DutStatus set_reference_ev_denied(ref::Endpoint& ep, std::uint32_t ev_index, bool denied);
// Registers `bytes` at `va` for local and remote writes.
DutStatus register_reference_buffer(ref::Endpoint& ep, std::uint64_t va, std::uint64_t bytes,
                                    transport::MemoryRegion& mr);
// Every QP to RTR and RTS towards `remote` (its QPN i for QP i, its window and caps learned out
// of band, W18/W12/W16).
DutStatus connect_reference(ref::Endpoint& ep, std::span<const std::uint32_t> qpns, const ap::QpParams& q,
                            const DutLocal& remote);

// ---- control plane (reference_ops.cpp) ---------------------------------------------------------
// Profile operations on the operation slot (EV profile 1 on EV format profile 0, CC profile 1).
DutStatus reference_ev_profile_change(ref::Endpoint& ep, const EvProfileChange& op);
DutStatus reference_cc_profile_change(ref::Endpoint& ep, const CcProfileChange& op);
DutStatus reference_replace_ev(ref::Endpoint& ep, const EvReplacement& op);
// EV profile 0 ONLINE or OFFLINE.
DutStatus set_reference_profile_online(ref::Endpoint& ep, bool online);

// An endpoint request (mrc_ctl_ep_batch_send_wait): an EV probe on EV `ev_index`, or a port-status
// update sent on it, with DSCP `tc` (W10), to `remote`. The endpoint picks the req_id.
struct ReferenceEpRequest {
  wire::EpOp op = wire::EpOp::kEvProbe;
  std::uint32_t ev_index = 0;
  std::uint8_t tc = wire::kDscpControl;
  wire::EvFmtMode mode = wire::EvFmtMode::kStev;  // the EV format profile's mode
};
DutStatus send_reference_ep_request(ref::Endpoint& ep, const ReferenceEpRequest& req, const DutLocal& remote);

// The GID the endpoint addresses `remote` by: over IPv4 the IPv4-mapped form (::ffff:a.b.c.d),
// whose last four bytes the endpoint puts into the IPv4 destination.
wire::Ipv6Addr peer_gid(const DutLocal& remote);

}  // namespace mrc::harness
