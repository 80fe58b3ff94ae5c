// Wire symptom of the never-give-up defect: with every frame lost, the reference requester fails
// the write with IBV_WC_RETRY_EXC_ERR after linear + exp retries and goes quiet; the defect keeps
// retransmitting and never reports the error.
#include <gtest/gtest.h>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

struct Outcome {
  int failed = 0;               // send completions with IBV_WC_RETRY_EXC_ERR
  std::size_t data_late = 0;    // data frames A sent after 1 ms
};

Outcome blackholed_run(bool defect) {
  PairOptions o;
  o.timeout = 4;                 // T = 16.384 us
  o.retry = transport::RetryAttr{1, 2};  // retries at T, 2T, 4T: the error comes ~8T after the send
  if (defect) o.defects_a.add(Defect::kNeverGiveUp);
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  p.fabric->filter = [](int side, transport::TxFrame&, std::uint64_t) { return side != 0; };
  Traffic t = setup_traffic(p);
  post_writes(p, t, 1, 4096);
  p.fabric->run_for(3'000'000);
  Outcome out;
  transport::Completion c;
  while (p.a->poll_completion(c)) out.failed += c.status == IBV_WC_RETRY_EXC_ERR;
  for (const auto& w : decode_taps(*p.fabric)) out.data_late += w.from() == 0 && is_data_frame(w) && w.t() > 1'000'000;
  return out;
}

TEST(DefectSymptoms, NeverGiveUp) {
  const Outcome good = blackholed_run(false);
  EXPECT_EQ(good.failed, 1);
  EXPECT_EQ(good.data_late, 0u);
  const Outcome bad = blackholed_run(true);
  EXPECT_EQ(bad.failed, 0);
  EXPECT_GT(bad.data_late, 0u);
}

}  // namespace
}  // namespace mrc::ref::testing
