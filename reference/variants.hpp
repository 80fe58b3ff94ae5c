// The reference endpoint's catalog of conformant policy variants: choices the MRC model leaves to
// the implementation, each taken at a legal extreme.
//
// The suite proves a conformant DUT that chooses differently is never failed by running against
// `reference:<variant>` and requiring every case to PASS (design.md §4), as the defect catalog
// (defects.hpp) proves the opposite. Variants are options of the endpoint, never forks of it: with
// none chosen the endpoint behaves bit for bit as the default reference. Each variant names the
// choice it makes; where the model (mrc-wire-model.md §5) or the host API gives a bound the
// variant sits on it, and variants.cpp says where each bound comes from.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/ev/health.hpp"
#include "reference/ev/selector.hpp"
#include "reference/transport/requester.hpp"
#include "reference/transport/responder.hpp"

namespace mrc::ref {

enum class Variant : std::uint8_t {
  kRandomEv,          // seeded uniform EV choice among the eligible EVs other than the previous one
  kReverseRotation,   // round robin over ports and EVs in descending order
  kRotationOffset,    // round robin that starts at the last port and the last EV of each port
  kRetxAnyOtherEv,    // a retransmission takes a seeded random eligible EV other than the lost one's
  kSackLazy,          // SACKs only when W6 demands one, else at the largest byte count and delay
  kSackEager,         // a SACK for every data packet
  kOorNack,           // a PSN beyond the window draws NACK PSN_OOR_WINDOW instead of silence
  kSkipTimer,         // SKIP ends after a timer instead of when the rotation reaches the EV
  kTsethOff,          // no TSETH: the requester keeps its send times itself
  kSackWindowAtTrigger,  // the SACK bitmap is the 64-PSN block holding the trigger
  kPdcidDataDirection,   // spdcid / dpdcid in the data direction (requester, responder) everywhere
  kProbeEager,        // probes an ASSUMED_BAD EV from the moment it failed, through the hold-down
  kProbeLazy,         // first probe one probe interval after the hold-down ends
  kTimersFast,        // ACK timeouts fire one timer tick (T/16) before T x backoff
  kTimersSlow,        // ACK timeouts fire one timer tick (T/16) after T x backoff
  kDataEct1,          // data packets are sent ECT(1) instead of ECT(0)
  kPortMaskBit0,      // port_status_mask numbers port N as bit N-1, sent and read
  kRetxDscp,          // retransmissions carry DSCP_TRIMMABLE_RETX instead of DSCP_TRIMMABLE
  kProbeAnytime,      // a reliability probe every few microseconds while data is outstanding, on every EV in turn
  kProbeLoss,         // probe-anytime's probes, and an answer is loss evidence for older PSNs on the probe's EV
  kCount,
};

// Variants of one group are alternatives of the same choice: a set holds at most one per group.
enum class VariantGroup : std::uint8_t {
  kSpray, kRetxEv, kSack, kOor, kSkip, kTseth, kSackWindow, kPdcid, kProbe, kTimers, kEcn, kPortMask, kRetxDscp,
  kRefreshProbe
};

struct VariantInfo {
  Variant id;
  std::string_view name;    // the name used on the command line: reference:<name>
  VariantGroup group;
  std::string_view choice;  // the choice it makes, in one line
};

// The whole catalog, in enum order.
std::span<const VariantInfo> variant_catalog();
const VariantInfo& variant_info(Variant v);
std::optional<Variant> variant_by_name(std::string_view name);

// A set of active variants, at most one per group.
class VariantSet {
 public:
  VariantSet() = default;
  // Adds `v`; false (set unchanged) when another variant of its group is already in the set.
  bool add(Variant v);
  bool has(Variant v) const { return (bits_ & bit(v)) != 0; }
  bool empty() const { return bits_ == 0; }
  std::vector<Variant> list() const;
  std::string to_string() const;  // "a,b" in catalog order; "" when empty

  // Parses "name,name,...". On an unknown name, or two names of one group, returns nullopt and
  // puts the offending name in *bad.
  static std::optional<VariantSet> parse(std::string_view csv, std::string* bad = nullptr);

 private:
  static std::uint32_t bit(Variant v) { return std::uint32_t{1} << static_cast<unsigned>(v); }
  std::uint32_t bits_ = 0;
};

// Maps a variant set onto the layers (transport and ev never see the facade). `seed` and `qpn`
// seed the random choices so that every QP of every endpoint draws its own sequence.
void apply_variants(const VariantSet& v, std::uint64_t seed, std::uint32_t qpn,
                    ev::SelectorQuirks& selector, ev::HealthParams& health,
                    transport::RequesterConfig& requester);
void apply_variants(const VariantSet& v, transport::ResponderConfig& responder);

}  // namespace mrc::ref
