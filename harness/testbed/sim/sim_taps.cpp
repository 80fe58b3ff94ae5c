// Taps: captures of link directions with virtual-ns timestamps and integrity counts.
#include <stdexcept>

#include "harness/observe/capture_pool.hpp"
#include "harness/testbed/sim/simulator.hpp"

namespace mrc::sim {

TapId Simulator::add_tap(const TapSpec& spec) {
  if (spec.dir >= dirs_.size()) return kNone;
  Tap t;
  t.spec = spec;
  if (t.spec.name.empty()) t.spec.name = topo_.dir_name(spec.dir);
  t.cap = harness::capture_pool::take();  // cleared, with an earlier run's room (capture_pool.hpp)
  t.cap.set_tap(t.spec.name);
  t.cap.reserve(spec.reserve_packets, spec.reserve_bytes);
  t.base = dirs_[spec.dir].c;
  const TapId id = static_cast<TapId>(taps_.size());
  taps_.push_back(std::move(t));
  // Append to the direction's list, so taps on one direction capture in the order they were added.
  TapId* link = &dirs_[spec.dir].taps;
  while (*link != kNone) link = &taps_[*link].next;
  *link = id;
  return id;
}

void Simulator::set_tap_enabled(TapId t, bool on) {
  if (t < taps_.size()) taps_[t].enabled = on;
}

const harness::Capture& Simulator::capture(TapId t) const {
  if (t >= taps_.size()) throw std::out_of_range("no such tap");
  return taps_[t].cap;
}

harness::Capture Simulator::take_capture(TapId t) {
  if (t >= taps_.size()) throw std::out_of_range("no such tap");
  harness::Capture out = std::move(taps_[t].cap);
  taps_[t].cap = harness::Capture(taps_[t].spec.name);
  return out;
}

TapCounters Simulator::tap_counters(TapId t) const {
  if (t >= taps_.size()) throw std::out_of_range("no such tap");
  const Tap& tp = taps_[t];
  const DirCounters& c = dirs_[tp.spec.dir].c;
  TapCounters out;
  out.offered = tp.cap.integrity().offered;
  out.captured = tp.cap.integrity().captured;
  out.dropped_queue = c.dropped_queue - tp.base.dropped_queue;
  out.dropped_fault = c.dropped_fault - tp.base.dropped_fault;
  out.trimmed = c.trimmed - tp.base.trimmed;
  out.ecn_marked = c.ecn_marked - tp.base.ecn_marked;
  out.delivered = c.delivered - tp.base.delivered;
  return out;
}

void Simulator::tap(DirId d, TapPoint point, PacketId p, std::uint64_t ts, bool any_point) {
  const PacketMeta& m = pool_.meta(p);
  const std::uint8_t* data = pool_.data(p);
  for (TapId i = dirs_[d].taps; i != kNone; i = taps_[i].next) {
    Tap& t = taps_[i];
    if (!t.enabled || (!any_point && t.spec.point != point)) continue;
    harness::CaptureIntegrity& ig = t.cap.integrity();
    ++ig.offered;
    const std::uint32_t caplen = t.spec.snaplen != 0 && m.len > t.spec.snaplen ? t.spec.snaplen : m.len;
    const std::uint64_t stored_bytes = t.cap.stored_bytes();
    if (t.cap.size() >= t.spec.max_packets || stored_bytes + caplen > t.spec.max_bytes ||
        stored_bytes + caplen > 0xFFFFFFFFull) {
      ++ig.tap_dropped;  // over the tap's bounds: counted, not stored
      continue;
    }
    t.cap.add(ts, std::span<const std::uint8_t>(data, caplen), m.len, m.port);
  }
}

}  // namespace mrc::sim
