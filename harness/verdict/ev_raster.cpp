#include "harness/verdict/ev_raster.hpp"

#include <algorithm>
#include <map>

#include "harness/verdict/check_support.hpp"
#include "harness/verdict/fault_spans.hpp"

namespace mrc::harness {
namespace {

// Points a raster holds at most (the renderer's cap): rows x bins stays under it.
constexpr std::size_t kMaxCells = 4096;

bool dut_data(const PacketRec& p) { return p.from_dut && p.is_write_data(); }

}  // namespace

Chart ev_use_raster(const CheckContext& ctx, const Trace& t) {
  Chart c;
  c.kind = Chart::Kind::kRaster;
  c.title = "data packets per EV over time (a cell: the EV carried data in that interval)";
  c.x_label = "time";
  c.y_label = "EV, by plane";
  // Rows: the profile's EVs by plane and index, then EVs the profile does not list.
  std::vector<const EvRecord*> evs;
  for (const EvRecord& e : ctx.dut.evs) evs.push_back(&e);
  std::stable_sort(evs.begin(), evs.end(), [](const EvRecord* a, const EvRecord* b) {
    return a->port != b->port ? a->port < b->port : a->index < b->index;
  });
  std::map<std::uint32_t, std::size_t> row_of;  // wire identity -> row
  for (const EvRecord* e : evs) {
    if (!row_of.try_emplace(e->echo, c.labels.size()).second) continue;
    c.labels.push_back("ev " + hex(e->echo));
    c.groups.push_back("plane " + std::to_string(e->port));
  }
  std::uint64_t lo = UINT64_MAX, hi = 0;
  for (const PacketRec& p : t.packets) {
    if (!dut_data(p)) continue;
    lo = std::min(lo, p.ts_ns), hi = std::max(hi, p.ts_ns);
    if (row_of.try_emplace(p.ev, c.labels.size()).second) {
      c.labels.push_back("ev " + hex(p.ev));
      c.groups.emplace_back("not in the profile");
    }
  }
  for (const FaultEvent& f : ctx.faults) {
    if (is_failure(f)) c.markers.push_back(static_cast<double>(f.at_ns));
  }
  if (lo > hi) return c;  // no data: the chart says so
  const std::size_t rows = std::max<std::size_t>(c.labels.size(), 1);
  const std::size_t bins = std::clamp<std::size_t>(kMaxCells / rows, 16, 240);
  const std::uint64_t width = std::max<std::uint64_t>((hi - lo) / bins + 1, 1);
  std::vector<bool> used(rows * bins, false);
  for (const PacketRec& p : t.packets) {
    if (!dut_data(p)) continue;
    const std::size_t bin = std::min<std::size_t>((p.ts_ns - lo) / width, bins - 1);
    used[row_of.at(p.ev) * bins + bin] = true;
  }
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t b = 0; b < bins && c.values.size() < kMaxCells; ++b) {
      if (!used[r * bins + b]) continue;
      c.values.push_back(static_cast<double>(lo + b * width));
      c.expected.push_back(static_cast<double>(r));
    }
  }
  return c;
}

}  // namespace mrc::harness
