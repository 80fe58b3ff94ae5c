#include "reference/variants.hpp"

#include <array>

namespace mrc::ref {
namespace {

using G = VariantGroup;

constexpr std::array<VariantInfo, static_cast<std::size_t>(Variant::kCount)> kCatalog{{
    {Variant::kRandomEv, "random-ev", G::kSpray, "each packet takes a seeded uniformly random eligible EV other than the previous one"},
    {Variant::kReverseRotation, "reverse-rotation", G::kSpray, "round robin over ports, then EVs, in descending order"},
    {Variant::kRotationOffset, "rotation-offset", G::kSpray, "round robin that starts at the last port and the last EV of each port"},
    {Variant::kRetxAnyOtherEv, "retx-any-other-ev", G::kRetxEv, "a retransmission takes a seeded random eligible EV other than the one that lost it"},
    {Variant::kSackLazy, "sack-lazy", G::kSack, "a SACK at once only for A, ECN-CE, RTX and duplicates; else every 16 KiB or 2 us"},
    {Variant::kSackEager, "sack-eager", G::kSack, "every data packet draws its own SACK"},
    {Variant::kOorNack, "oor-nack", G::kOor, "a PSN beyond the window draws NACK PSN_OOR_WINDOW (Table 7-3) instead of a silent drop"},
    {Variant::kSkipTimer, "skip-timer", G::kSkip, "SKIP ends 10 us after it began, not when the rotation reaches the EV"},
    {Variant::kTsethOff, "tseth-off", G::kTseth, "data packets carry no TSETH; RTTs from the requester's own send times"},
    {Variant::kSackWindowAtTrigger, "sack-window-at-trigger", G::kSackWindow, "the SACK bitmap covers the 64-PSN block that holds its trigger"},
    {Variant::kPdcidDataDirection, "pdcid-data-direction", G::kPdcid, "spdcid = requester QPN, dpdcid = responder QPN in every packet (F2's orientation)"},
    {Variant::kProbeEager, "probe-eager", G::kProbe, "an ASSUMED_BAD EV is probed every interval from its failure on, hold-down included"},
    {Variant::kProbeLazy, "probe-lazy", G::kProbe, "the first probe of an ASSUMED_BAD EV leaves one interval after the hold-down"},
    {Variant::kTimersFast, "timers-fast", G::kTimers, "ACK timeouts fire T/16 early (a 16-tick timer wheel rounding down)"},
    {Variant::kTimersSlow, "timers-slow", G::kTimers, "ACK timeouts fire T/16 late (a 16-tick timer wheel rounding up)"},
    {Variant::kDataEct1, "ect1", G::kEcn, "data packets are sent ECT(1), the other ECN-capable codepoint"},
    {Variant::kPortMaskBit0, "port-mask-bit0", G::kPortMask, "port-status masks number port N as bit N-1 (F2's example), sent and read"},
    {Variant::kRetxDscp, "retx-dscp", G::kRetxDscp, "retransmissions carry DSCP_TRIMMABLE_RETX, first transmissions DSCP_TRIMMABLE"},
    {Variant::kProbeAnytime, "probe-anytime", G::kRefreshProbe, "while data is outstanding, a reliability probe every 5 us on each EV of the array in turn, failed ones included"},
    {Variant::kProbeLoss, "probe-loss", G::kRefreshProbe, "probe-anytime's schedule on the EV of the oldest unacknowledged PSN; an answer declares lost the first transmissions sent on that EV before the probe that it does not acknowledge"},
}};

// S1: W6 names the SACK byte counter's threshold but no value (F1: 4096 bytes). The lazy extreme
// the reference allows: 16 KiB between SACKs, and a waiting SACK at most 2 us old (MODEL: W6).
constexpr std::uint32_t kSackBytesMax = 16 * 1024;
constexpr std::uint64_t kSackDelayMaxNs = 2000;

// W11: "how long SKIP lasts is implementation-defined". A timer (F1, F10) of 10 us, about one
// fabric round trip of the built-in testbeds: the suite must not time SKIP, only that it happens.
constexpr std::uint64_t kSkipTimerNs = 10'000;

// W15 (host API) fixes T = 1.024 us x 2^timeout but no timer resolution. The reference models a
// timer wheel of 16 ticks per wait (resolution T/16 = 6.25 %), firing one tick early or late: a
// conservative resolution that any timing check must already allow for.
constexpr std::int8_t kTimerTicks16ths = 1;

}  // namespace

std::span<const VariantInfo> variant_catalog() { return kCatalog; }

const VariantInfo& variant_info(Variant v) { return kCatalog[static_cast<std::size_t>(v)]; }

std::optional<Variant> variant_by_name(std::string_view name) {
  for (const auto& v : kCatalog) {
    if (v.name == name) return v.id;
  }
  return std::nullopt;
}

bool VariantSet::add(Variant v) {
  for (const auto& o : kCatalog) {
    if (o.id != v && has(o.id) && o.group == variant_info(v).group) return false;
  }
  bits_ |= bit(v);
  return true;
}

std::vector<Variant> VariantSet::list() const {
  std::vector<Variant> out;
  for (const auto& v : kCatalog) {
    if (has(v.id)) out.push_back(v.id);
  }
  return out;
}

std::string VariantSet::to_string() const {
  std::string out;
  for (const auto& v : kCatalog) {
    if (!has(v.id)) continue;
    if (!out.empty()) out += ',';
    out += v.name;
  }
  return out;
}

std::optional<VariantSet> VariantSet::parse(std::string_view csv, std::string* bad) {
  VariantSet set;
  while (!csv.empty()) {
    const auto comma = csv.find(',');
    const auto name = csv.substr(0, comma);
    csv = comma == std::string_view::npos ? std::string_view{} : csv.substr(comma + 1);
    if (name.empty()) continue;
    const auto v = variant_by_name(name);
    if (!v || !set.add(*v)) {
      if (bad) *bad = std::string(name);
      return std::nullopt;
    }
  }
  return set;
}

void apply_variants(const VariantSet& v, std::uint64_t seed, std::uint32_t qpn,
                    ev::SelectorQuirks& selector, ev::HealthParams& health,
                    transport::RequesterConfig& requester) {
  // W11 the EV order is the implementation's: only per-packet variation, even spread and
  // eligibility are fixed. The random seed is the one the former random_spray option used.
  if (v.has(Variant::kRandomEv)) selector.random_seed = (seed * 0x9E3779B97F4A7C15ull) ^ qpn ^ 0xA5A5A5A5ull;
  selector.reverse = v.has(Variant::kReverseRotation);
  selector.start_at_last = v.has(Variant::kRotationOffset);
  // W15 a retransmission must use a different GOOD EV than the one that lost the packet;
  // which one is free.
  if (v.has(Variant::kRetxAnyOtherEv)) {
    selector.retx_random_seed = ((seed * 0xD1B54A32D192ED03ull) ^ qpn ^ 0x5A5A5A5Aull) | 1u;
  }
  // W11 SKIP may end by rotation (F7) or by a timer (F1, F10).
  if (v.has(Variant::kSkipTimer)) health.skip_ns = kSkipTimerNs;
  // S1: W4 a requester may keep its own send-time table instead of sending a TSETH.
  if (v.has(Variant::kTsethOff)) requester.tseth = false;
  // MODEL: W11 hold-down (100 us) and probe interval (50 us) are fixed; when probing starts is not.
  if (v.has(Variant::kProbeEager)) health.probe_phase = ev::ProbePhase::kFromFailure;
  if (v.has(Variant::kProbeLazy)) health.probe_phase = ev::ProbePhase::kOneIntervalLate;
  if (v.has(Variant::kTimersFast)) requester.timer_skew_16ths = static_cast<std::int8_t>(-kTimerTicks16ths);
  if (v.has(Variant::kTimersSlow)) requester.timer_skew_16ths = kTimerTicks16ths;
  // W13: a switch marks any ECN-capable packet; ECT(0) is only the reference's choice.
  if (v.has(Variant::kDataEct1)) requester.data_ect1 = true;
}

void apply_variants(const VariantSet& v, transport::ResponderConfig& responder) {
  if (v.has(Variant::kSackLazy)) {
    responder.sack_gen_threshold = kSackBytesMax;
    responder.ack_delay_ns = kSackDelayMaxNs;
  }
  if (v.has(Variant::kSackEager)) responder.sack_gen_threshold = 0;  // every packet reaches it
  // W12: §6.3.1 drops a PSN beyond the window silently, Table 7-3 lists PSN_OOR_WINDOW: both.
  if (v.has(Variant::kOorNack)) responder.oor_nack = true;
  // S1: W6 the bitmap's window is the responder's choice; a requester must accept any offset.
  if (v.has(Variant::kSackWindowAtTrigger)) responder.sack_window_at_trigger = true;
  // W5: the PDC ids' orientation differs between the sources; receivers never validate them.
  if (v.has(Variant::kPdcidDataDirection)) responder.pdcid_data_direction = true;
}

}  // namespace mrc::ref
