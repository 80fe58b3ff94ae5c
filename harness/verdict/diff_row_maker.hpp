// Internal to the streaming diff (diff_stream.cpp): one side's rows in packet order, made from its
// source (make_row) and finished (finish_row: PSN, trigger PSN and VA as offsets, the key).
//
// Two ways to know the normalization the rows are finished with:
//   - two passes: a first pass over the whole side already found the earliest time, the lowest
//     PSN of each space and the lowest VA; each row is finished as soon as it is made.
//   - one pass (the usual case, each capture read once): the normalizer starts empty and learns
//     those values while the rows are made. A row is finished only `lookahead` rows after it was
//     made, so a capture whose first packets were sprayed (or time-stamped) out of order has met
//     its lowest PSN (and earliest time) by the time the first row of the space is finished. If a
//     value still moves after a row used it (a lower PSN, VA or time; a time also counts as used
//     once an endpoint timestamp was hashed relative to it; Normalizer::moved), the rows already
//     made are wrong: next() says kMoved and the diff starts again with two passes. The values
//     only ever decrease, so a value that did not move after its first use is the one every row
//     was finished with, and the final one.
// Ordinals (addresses, QPs) need neither: they are given in order of first appearance, the same
// whichever pass meets the packets first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/verdict/diff_stream.hpp"
#include "harness/verdict/diff_table.hpp"

namespace mrc::harness::diffing {

// "packet N is gone": a source that ended before the first pass's count (the file changed).
std::string packet_gone(std::uint64_t index);

struct MadeRow {  // a row with where its packet is
  Row row;
  std::uint64_t handle = 0;
  std::int64_t label = 0;
  std::uint64_t ts_ns = 0;
};

class RowMaker {
 public:
  static constexpr std::uint64_t kUnknown = ~std::uint64_t{0};
  enum class Got : std::uint8_t { kRow, kEnd, kError, kMoved };

  // `packets`: the count the first pass found (two passes: exactly that many rows, an earlier end
  // is an error), or kUnknown (one pass: until the source ends; `norm` must be empty).
  // `lookahead`: rows made ahead of the one finished (0 with two passes). `judge_ev`: this is B and
  // opt.ev_choice judges its EV fields.
  RowMaker(PacketSource& src, Normalizer& norm, const DiffOptions& opt, const MaskSet& masks, bool judge_ev,
           std::uint64_t packets, std::uint32_t lookahead);

  // The next row into `out` (kRow); kEnd after the last; kError: error() says why; kMoved: the
  // one pass is void (see above). After anything but kRow, next() must not be called again.
  Got next(MadeRow& out);
  const std::string& error() const { return error_; }

  // Packets made so far (all of them after kEnd), and how many of those were not RoCEv2 at all
  // or did not decode.
  std::uint64_t packets() const { return made_; }
  std::uint64_t not_roce() const { return not_roce_; }
  std::uint64_t decode_failures() const { return decode_failures_; }
  const Normalizer& normalizer() const { return norm_; }

 private:
  bool make_one();  // false at the source's end or error (error_)

  PacketSource& src_;
  Normalizer& norm_;
  const DiffOptions& opt_;
  const MaskSet& masks_;
  const bool judge_ev_;
  const std::uint64_t limit_;
  std::vector<MadeRow> ring_;  // made, not yet finished: lookahead + 1 rows, a power of two
  std::uint64_t made_ = 0;
  std::uint64_t finished_ = 0;
  std::uint64_t lookahead_;
  bool ended_ = false;
  std::string error_;
  std::uint64_t not_roce_ = 0;
  std::uint64_t decode_failures_ = 0;
  RowScratch scratch_;
};

}  // namespace mrc::harness::diffing
