// Traffic programs: "N writes of S bytes on QP q", closed loop (at most `window` writes in
// flight) or open loop (posted at `rate_gbps` from start_ns). A program only decides WHAT to post
// and WHEN; the runner posts through the requester's binding and feeds completions back.
//
// Buffers. Each program owns `slots` consecutive write-sized slots in the requester's source
// region and the same slots in the responder's destination region; write i uses slot i % slots.
// A write is posted only when its slot's previous write has completed, so a retransmission never
// reads a slot that was refilled, and the destination slot can be verified byte-exact at the
// write's completion (the data of write i is fill_write_data(seed, program, i)).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "harness/case/case_model.hpp"

namespace mrc::harness::stim {

inline constexpr std::uint32_t kDefaultWindow = 8;

// Where a program's slots live, as offsets into each side's buffer.
struct TrafficLayout {
  std::uint64_t src_offset = 0;
  std::uint64_t dst_offset = 0;
  std::uint32_t slots = 1;
};

// Lays out every traffic step of a case: source regions first, then destination regions, each
// program's slots capped so the whole buffer stays within `budget_bytes` (at least one slot per
// program, and at least `window` slots when the budget allows). Returns the buffer size needed.
std::uint64_t layout_traffic(const std::vector<const TrafficStep*>& steps, std::uint64_t budget_bytes,
                             std::vector<TrafficLayout>& out);

// A write the program wants posted now.
struct PlannedWrite {
  std::uint64_t wr_id = 0;   // program << 32 | (index + 1): never 0, unique in the case
  std::uint64_t index = 0;   // 0-based write number in the program
  std::uint64_t src_offset = 0;
  std::uint64_t dst_offset = 0;
  std::uint32_t length = 0;
  bool with_imm = false;
  std::uint32_t imm = 0;
};

class TrafficProgram {
 public:
  TrafficProgram(const TrafficStep& step, std::uint32_t program, const TrafficLayout& layout);

  // The next write due at `now_ns`, if any (window, rate schedule and slot permitting). The
  // caller posts it and then calls posted().
  std::optional<PlannedWrite> next(std::uint64_t now_ns) const;
  void posted(const PlannedWrite& w, std::uint64_t now_ns);
  // Write `index` as next() gives it when its time comes (its slot, offsets, wr_id).
  PlannedWrite planned(std::uint64_t index) const;
  std::uint32_t slots() const { return static_cast<std::uint32_t>(slot_owner_.size()); }
  std::uint64_t writes() const { return step_.writes; }
  // A post the DUT refused: the write counts as finished (failed) so the program moves on.
  void refused(const PlannedWrite& w);
  // A requester completion for one of this program's writes (returns false for other wr_ids).
  bool completed(std::uint64_t wr_id, bool success);

  // The earliest time > now at which next() may return a write without any completion arriving
  // (open loop schedule or start time); UINT64_MAX when waiting for completions or done.
  std::uint64_t wake_time(std::uint64_t now_ns) const;
  bool done() const { return finished_ == step_.writes; }
  bool all_posted() const { return next_index_ == step_.writes; }

  std::uint32_t program() const { return program_; }
  std::uint32_t qp() const { return step_.qp; }
  const TrafficStep& step() const { return step_; }
  std::uint64_t writes_with_imm() const { return step_.with_imm ? step_.writes : 0; }
  std::uint64_t failed() const { return failed_; }

  static std::uint32_t program_of(std::uint64_t wr_id) { return static_cast<std::uint32_t>(wr_id >> 32); }
  static std::uint64_t index_of(std::uint64_t wr_id) { return (wr_id & 0xFFFFFFFFu) - 1; }

 private:
  std::uint64_t post_time(std::uint64_t index) const;

  TrafficStep step_;
  std::uint32_t program_;
  TrafficLayout layout_;
  std::uint32_t window_;
  std::uint64_t next_index_ = 0;
  std::uint64_t in_flight_ = 0;
  std::uint64_t finished_ = 0;
  std::uint64_t failed_ = 0;
  std::vector<std::uint64_t> slot_owner_;  // write index using each slot; kFree when none
  static constexpr std::uint64_t kFree = UINT64_MAX;
};

}  // namespace mrc::harness::stim
