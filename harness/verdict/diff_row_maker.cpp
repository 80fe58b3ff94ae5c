#include "harness/verdict/diff_row_maker.hpp"

#include <algorithm>
#include <bit>

namespace mrc::harness::diffing {

std::string packet_gone(std::uint64_t index) {
  return "a capture changed between the two passes of the diff (packet " + std::to_string(index) + " is gone)";
}

RowMaker::RowMaker(PacketSource& src, Normalizer& norm, const DiffOptions& opt, const MaskSet& masks, bool judge_ev,
                   std::uint64_t packets, std::uint32_t lookahead)
    : src_(src), norm_(norm), opt_(opt), masks_(masks), judge_ev_(judge_ev), limit_(packets),
      ring_(std::bit_ceil(std::uint64_t{lookahead} + 1)), lookahead_(lookahead) {}

bool RowMaker::make_one() {
  if (made_ == limit_) return false;
  SourcePacket p;
  if (!src_.next(p)) {
    error_ = src_.error();
    if (error_.empty() && limit_ != kUnknown) error_ = packet_gone(made_);
    return false;
  }
  if (limit_ == kUnknown && (made_ == 0 || p.ts_ns < norm_.ts0)) {  // the earliest time so far
    norm_.moved = norm_.moved || norm_.ts0_used;
    norm_.ts0 = p.ts_ns;
  }
  MadeRow& m = ring_[made_ & (ring_.size() - 1)];
  const int port = judge_ev_ && made_ < opt_.ports_b.size() ? opt_.ports_b[made_] : 0;
  const RowOutcome o = make_row(p.bytes, p.ts_ns, opt_, masks_, norm_, judge_ev_, port, m.row, scratch_);
  not_roce_ += o == RowOutcome::kNotRoce ? 1 : 0;
  decode_failures_ += o == RowOutcome::kUndecodable ? 1 : 0;
  m.handle = p.handle;
  m.label = p.label;
  m.ts_ns = p.ts_ns;
  ++made_;
  return true;
}

RowMaker::Got RowMaker::next(MadeRow& out) {
  while (!ended_ && made_ - finished_ <= lookahead_) {
    if (!make_one()) ended_ = true;
  }
  if (norm_.moved) return Got::kMoved;
  if (finished_ == made_) return error_.empty() ? Got::kEnd : Got::kError;
  MadeRow& m = ring_[finished_ & (ring_.size() - 1)];
  finish_row(m.row, norm_, masks_, opt_);
  if (m.row.space != kNoSpace) norm_.used_spaces |= std::uint64_t{1} << m.row.space;
  if (m.row.present & kVaBit) norm_.va_used = true;
  norm_.ts0_used = true;
  out = m;
  ++finished_;
  return Got::kRow;
}

}  // namespace mrc::harness::diffing
