// Completions on both sides of the DUT and the retry-exceeded error path (invariants_qp_error.cpp,
// the receive half of completions_exactly_once).
#include <gtest/gtest.h>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/budget_test_support.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Scenario;

InvariantCheck inv(std::string name) { return InvariantCheck{std::move(name), {}}; }

// A WRITE-with-IMM the harness's peer sent to the DUT (the DUT is responder).
WriteRecord peer_wimm(std::uint64_t wr_id) {
  WriteRecord w{wr_id, wr_id * 10, 4096, true, true};
  w.posted_by_dut = false;
  w.imm = static_cast<std::uint32_t>(wr_id);
  return w;
}

CompletionRecord recv(std::uint64_t at, std::uint32_t imm, int status = 0) {
  return CompletionRecord{at, (std::uint64_t{1} << 63) | imm, status, false, true, imm, 4096};
}

TEST(ReceiveCompletions, OnePerWriteWithImmCarryingItsImm) {
  Scenario s(4, 8);
  for (std::uint64_t w = 1; w <= 3; ++w) {
    s.ctx.dut.writes.push_back(peer_wimm(w));
    s.ctx.dut.completions.push_back(recv(w * 100, static_cast<std::uint32_t>(w)));
  }
  const auto ok = run_invariant(inv("completions_exactly_once"), s.ctx);
  EXPECT_EQ(ok.verdict, Verdict::kPass) << ok.message;

  auto twice = s;  // a duplicated LAST completed the message again
  twice.ctx.dut.completions.push_back(recv(900, 2));
  auto r = run_invariant(inv("completions_exactly_once"), twice.ctx);
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].observed, "2 receive completions");

  auto wrong_imm = s;  // the immediate data of message 3 arrived as 7
  wrong_imm.ctx.dut.completions.back() = recv(300, 7);
  r = run_invariant(inv("completions_exactly_once"), wrong_imm.ctx);
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.metrics.at("violations"), 2);  // message 3 uncompleted, a completion for no message

  // Plain WRITEs from the peer complete nothing at the DUT: alone they give nothing to judge.
  Scenario plain(4, 8);
  WriteRecord w{1, 0, 4096, false, true};
  w.posted_by_dut = false;
  plain.ctx.dut.writes.push_back(w);
  EXPECT_EQ(run_invariant(inv("completions_exactly_once"), plain.ctx).verdict, Verdict::kInconclusive);
}

// PSN 0 sent four times, 16 us apart (the last at 49 us).
Scenario retried() {
  Scenario s(4, 8);
  for (std::uint32_t i = 0; i < 4; ++i) {
    Data d;
    d.psn = 0;
    s.dut_sends(1000 + i * 16000, d, i);
  }
  s.finish();
  return s;
}

TEST(RetryExceeded, ErrorCompletionThenSilence) {
  Scenario s = retried();
  // No error completion by the end of the run: a DUT that never gives up.
  auto r = run_invariant(inv("retry_exceeded"), s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "completion.status");

  auto failed = s;  // RETRY_EXC_ERR after the last retry
  failed.ctx.dut.completions.push_back(CompletionRecord{60000, 1, 12, true, false, 0, 0});
  EXPECT_EQ(run_invariant(inv("retry_exceeded"), failed.ctx).verdict, Verdict::kPass);

  auto early = s;  // the error came before the last retransmission went out
  early.ctx.dut.completions.push_back(CompletionRecord{40000, 1, 12, true, false, 0, 0});
  r = run_invariant(inv("retry_exceeded"), early.ctx);
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "bth.psn");

  Scenario quiet(4, 8);
  EXPECT_EQ(run_invariant(inv("retry_exceeded"), quiet.finish()).verdict, Verdict::kInconclusive);
}


// `transmissions`: the PSN that ran out was sent exactly 1 + linear + exp times.
TEST(RetryExceeded, TransmissionsCountsTheSendsOfThePsnThatRanOut) {
  Scenario s = retried();  // PSN 0 sent four times
  s.ctx.dut.completions.push_back(CompletionRecord{60000, 1, 12, true, false, 0, 0});
  const auto with = [](std::string n) { return InvariantCheck{"retry_exceeded", {{"transmissions", std::move(n)}}}; };
  EXPECT_EQ(run_invariant(with("4"), s.ctx).verdict, Verdict::kPass);
  auto r = run_invariant(with("3"), s.ctx);  // one retry too many
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].observed, "4 transmissions of PSN 0 before the retry-exceeded completion at 60000 ns");
  EXPECT_EQ(run_invariant(with("5"), s.ctx).verdict, Verdict::kFail);  // one too few
}

TEST(RetryExceeded, NoDataAfterTheCompletionAllowsTheTimingBudget) {
  Scenario s = retried();
  s.ctx.dut.completions.push_back(CompletionRecord{40000, 1, 12, true, false, 0, 0});  // 9 us before the last send
  const auto check = inv("retry_exceeded");
  testing::expect_budget_rules(s.ctx, [&](const CheckContext& c) { return run_invariant(check, c); }, 5000, 9000);
}

}  // namespace
}  // namespace mrc::harness
