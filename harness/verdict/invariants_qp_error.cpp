// Invariants on how a QP ends when its peer stops answering (TIMER-RETRY-EXCEEDED): the host API
// reports exhausted retries as a send completion with IBV_WC_RETRY_EXC_ERR and the QP moves to
// error, so nothing more of it goes on the wire.
#include <algorithm>

#include "harness/verdict/flat_index.hpp"
#include "harness/verdict/invariants.hpp"

namespace mrc::harness::inv {
namespace {

constexpr int kWcRetryExcErr = 12;  // ibv_wc_status IBV_WC_RETRY_EXC_ERR

}  // namespace

void retry_exceeded(Run& r) {
  r.judged_what = "data frames the DUT sent";
  const CompletionRecord* err = nullptr;
  for (const auto& c : r.ctx.dut.completions) {
    if (c.is_send && c.status == kWcRetryExcErr && (!err || c.at_ns < err->at_ns)) err = &c;
  }
  std::size_t data = 0;
  for (const PacketRec& p : r.t.packets) data += dut_data(p) ? 1 : 0;
  if (data == 0) return r.stop(Verdict::kInconclusive, "the DUT sent no data: no retry could be exhausted");
  if (!err) {
    Evidence e;
    e.ts_ns = r.ctx.end_ns;
    e.field = "completion.status";
    e.expected = "a send completion with IBV_WC_RETRY_EXC_ERR (12) once retry.linear + retry.exp retries are used up";
    e.observed = "none by the end of the run";
    e.note = std::to_string(r.ctx.dut.completions.size()) + " completions reported";
    r.judged = data;
    return r.violation(std::move(e));
  }
  // The QP is in error from the failed completion on: it sends no more data. The completion's
  // time comes from the binding, the frames' from the taps: the timing budget separates them.
  const std::string shown = "the retry-exceeded completion at " + std::to_string(err->at_ns) + " ns";
  const std::uint64_t last_allowed = r.within(err->at_ns, shown);
  // `transmissions` (optional): with no feedback reaching the DUT, the PSN that ran out was sent
  // exactly 1 + linear + exp times: the first send and every retry, no more, no fewer.
  const std::uint64_t want = r.param("transmissions", 0);
  FlatIndex sends(r.t.packets.size());  // (dqpn, psn) -> transmissions before the completion
  std::uint32_t most = 0;
  const PacketRec* most_at = nullptr;
  for (const PacketRec& p : r.t.packets) {
    if (!dut_data(p)) continue;
    ++r.judged;
    if (p.ts_ns > last_allowed) {
      r.violation(p, "bth.psn", "no data after " + shown + plus_budget(r.budget()),
                  "data PSN " + std::to_string(p.psn) + " sent " + std::to_string(p.ts_ns - err->at_ns) + " ns later");
      continue;
    }
    std::uint32_t* n = want != 0 ? sends.find_or_insert(psn_key(p.dqpn, p.psn)) : nullptr;
    if (n == nullptr) continue;
    *n = *n == FlatIndex::kNone ? 1 : *n + 1;
    if (*n > most) {
      most = *n;
      most_at = &p;
    }
  }
  if (want != 0 && most != want && most_at != nullptr) {
    r.violation(*most_at, "bth.psn",
                std::to_string(want) + " transmissions of the PSN that ran out of retries (1 + retry.linear + retry.exp)",
                std::to_string(most) + " transmissions of PSN " + std::to_string(most_at->psn) + " before " + shown);
  }
}

}  // namespace mrc::harness::inv
