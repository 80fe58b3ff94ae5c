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
    {Variant::kAckCoalesceMax, "ack-coalesce-max", G::kAck, "ACK/SACK every 4th packet or 2 us after the first unacknowledged one, LAST/ONLY included"},
    {Variant::kAckEager, "ack-eager", G::kAck, "every data packet is acknowledged at once"},
    {Variant::kNackEarliest, "nack-earliest", G::kNack, "a loss NACK leaves as soon as a hole at ePSN is seen"},
    {Variant::kNackLatest, "nack-latest", G::kNack, "a loss NACK leaves after a hole stayed 40 us"},
    {Variant::kProbeEager, "probe-eager", G::kProbe, "an ASSUMED_BAD EV is probed every interval from its failure on, hold-down included"},
    {Variant::kProbeLazy, "probe-lazy", G::kProbe, "the first probe of an ASSUMED_BAD EV leaves one interval after the hold-down"},
    {Variant::kTimersFast, "timers-fast", G::kTimers, "ACK timeouts fire T/16 early (a 16-tick timer wheel rounding down)"},
    {Variant::kTimersSlow, "timers-slow", G::kTimers, "ACK timeouts fire T/16 late (a 16-tick timer wheel rounding up)"},
}};

// MODEL: M5 gives coalescing only by example ("every 4 data packets or 2 us"); the reference
// takes that example as the bound a responder may wait, in packets and in time.
constexpr std::uint32_t kAckEveryMax = 4;
constexpr std::uint64_t kAckDelayMaxNs = 2000;

// MODEL: M5 fixes no out-of-order tolerance ("stays missing for more than an out-of-order
// tolerance"). Earliest: 1 ns, i.e. more than a zero tolerance. Latest: the model gives no bound,
// so the reference picks a conservative 40 us: loss NACKs must still beat the requester's ACK
// timeout to mean anything, and 40 us stays under the timeout of timeout >= 6 (65.5 us) and under
// the 50 us probe interval of M7, the model's time scale for reacting to a path.
constexpr std::uint64_t kNackEarliestNs = 1;
constexpr std::uint64_t kNackLatestNs = 40'000;

// MODEL: M8 fixes T = 1.024 us x 2^timeout but no timer resolution. The reference models a
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
  // MODEL: M7 the EV order is the implementation's: only per-packet variation, even spread and
  // eligibility are fixed. The random seed is the one the former random_spray option used.
  if (v.has(Variant::kRandomEv)) selector.random_seed = (seed * 0x9E3779B97F4A7C15ull) ^ qpn ^ 0xA5A5A5A5ull;
  selector.reverse = v.has(Variant::kReverseRotation);
  selector.start_at_last = v.has(Variant::kRotationOffset);
  // MODEL: M8 a retransmission must use a different GOOD EV than the one that lost the packet;
  // which one is free.
  if (v.has(Variant::kRetxAnyOtherEv)) {
    selector.retx_random_seed = ((seed * 0xD1B54A32D192ED03ull) ^ qpn ^ 0x5A5A5A5Aull) | 1u;
  }
  // MODEL: M7 hold-down (100 us) and probe interval (50 us) are fixed; when probing starts is not.
  if (v.has(Variant::kProbeEager)) health.probe_phase = ev::ProbePhase::kFromFailure;
  if (v.has(Variant::kProbeLazy)) health.probe_phase = ev::ProbePhase::kOneIntervalLate;
  if (v.has(Variant::kTimersFast)) requester.timer_skew_16ths = static_cast<std::int8_t>(-kTimerTicks16ths);
  if (v.has(Variant::kTimersSlow)) requester.timer_skew_16ths = kTimerTicks16ths;
}

void apply_variants(const VariantSet& v, transport::ResponderConfig& responder) {
  if (v.has(Variant::kAckCoalesceMax)) {
    // MODEL: M3 BTH.A is set on every packet and M5 coalesces, so a LAST/ONLY need not be
    // acknowledged at once: it waits like any other packet.
    responder.ack_every = kAckEveryMax;
    responder.ack_delay_ns = kAckDelayMaxNs;
    responder.ack_last_at_once = false;
  }
  if (v.has(Variant::kAckEager)) responder.ack_every = 1;  // MODEL: M5 one feedback per packet
  if (v.has(Variant::kNackEarliest)) responder.ooo_tolerance_ns = kNackEarliestNs;
  if (v.has(Variant::kNackLatest)) responder.ooo_tolerance_ns = kNackLatestNs;
}

}  // namespace mrc::ref
