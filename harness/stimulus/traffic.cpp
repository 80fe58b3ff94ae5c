#include "harness/stimulus/traffic.hpp"

#include <algorithm>
#include <cmath>

namespace mrc::harness::stim {

std::uint64_t layout_traffic(const std::vector<const TrafficStep*>& steps, std::uint64_t budget_bytes,
                             std::vector<TrafficLayout>& out) {
  out.assign(steps.size(), TrafficLayout{});
  if (steps.empty()) return 0;
  // Split the budget evenly between programs, then between source and destination.
  const std::uint64_t per_program = std::max<std::uint64_t>(1, budget_bytes / 2 / steps.size());
  std::vector<std::uint64_t> region(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const TrafficStep& s = *steps[i];
    const std::uint64_t size = std::max<std::uint64_t>(1, s.size);
    const std::uint64_t window = s.window.value_or(s.rate_gbps ? s.writes : kDefaultWindow);
    std::uint64_t slots = std::max<std::uint64_t>(1, per_program / size);
    slots = std::min<std::uint64_t>(slots, std::max<std::uint64_t>(1, s.writes));
    // A closed loop needs a slot per write in flight plus as many again, so in-order completion
    // frees a slot before the window asks for it.
    slots = std::min<std::uint64_t>(slots, std::max<std::uint64_t>(2 * window, 1));
    slots = std::max<std::uint64_t>(slots, 1);
    out[i].slots = static_cast<std::uint32_t>(std::min<std::uint64_t>(slots, 1u << 30));
    region[i] = out[i].slots * size;
  }
  std::uint64_t off = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    out[i].src_offset = off;
    off += region[i];
  }
  for (std::size_t i = 0; i < steps.size(); ++i) {
    out[i].dst_offset = off;
    off += region[i];
  }
  return off;
}

TrafficProgram::TrafficProgram(const TrafficStep& step, std::uint32_t program, const TrafficLayout& layout)
    : step_(step), program_(program), layout_(layout) {
  window_ = step.window.value_or(step.rate_gbps ? UINT32_MAX : kDefaultWindow);
  if (window_ == 0) window_ = 1;
  slot_owner_.assign(std::max<std::uint32_t>(1, layout.slots), kFree);
}

std::uint64_t TrafficProgram::post_time(std::uint64_t index) const {
  if (!step_.rate_gbps || *step_.rate_gbps <= 0) return step_.start_ns;
  // Open loop: write i is offered i x (bits / rate) after the start.
  const double ns_per_write = static_cast<double>(step_.size) * 8.0 / *step_.rate_gbps;
  return step_.start_ns + static_cast<std::uint64_t>(std::floor(ns_per_write * static_cast<double>(index)));
}

std::optional<PlannedWrite> TrafficProgram::next(std::uint64_t now_ns) const {
  if (next_index_ >= step_.writes || in_flight_ >= window_) return std::nullopt;
  if (post_time(next_index_) > now_ns) return std::nullopt;
  if (slot_owner_[next_index_ % slot_owner_.size()] != kFree) return std::nullopt;
  return planned(next_index_);
}

PlannedWrite TrafficProgram::planned(std::uint64_t index) const {
  const std::uint64_t slot = index % slot_owner_.size();
  PlannedWrite w;
  w.index = index;
  w.wr_id = (std::uint64_t{program_} << 32) | (index + 1);
  w.src_offset = layout_.src_offset + slot * step_.size;
  w.dst_offset = layout_.dst_offset + slot * step_.size;
  w.length = static_cast<std::uint32_t>(step_.size);
  w.with_imm = step_.with_imm;
  w.imm = static_cast<std::uint32_t>(w.wr_id);
  return w;
}

void TrafficProgram::posted(const PlannedWrite& w, std::uint64_t) {
  slot_owner_[w.index % slot_owner_.size()] = w.index;
  ++next_index_;
  ++in_flight_;
}

void TrafficProgram::refused(const PlannedWrite&) {
  ++next_index_;
  ++finished_;
  ++failed_;
}

bool TrafficProgram::completed(std::uint64_t wr_id, bool success) {
  if (program_of(wr_id) != program_) return false;
  const std::uint64_t index = index_of(wr_id);
  std::uint64_t& owner = slot_owner_[index % slot_owner_.size()];
  if (owner != index) return false;  // unknown, or a second completion of the same write
  owner = kFree;
  --in_flight_;
  ++finished_;
  if (!success) ++failed_;
  return true;
}

std::uint64_t TrafficProgram::wake_time(std::uint64_t now_ns) const {
  if (next_index_ >= step_.writes || in_flight_ >= window_) return UINT64_MAX;
  const std::uint64_t t = post_time(next_index_);
  return t > now_ns ? t : UINT64_MAX;
}

}  // namespace mrc::harness::stim
