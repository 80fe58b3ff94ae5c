// The runner hands the timing budget of the case's testbed to the checks: a testbed that declares
// one (here the simulated fabric behind a decorator, as the real-time bridge will be) gets it into
// CheckContext::timing_budget, the timing check widens its bound by it and says so, the run
// drains that much longer, the case result carries it and results.json shows it (since schema 1.1).
// Without a budget the same case fails its tightened bound.
#include <memory>
#include <string>

#include "harness/case/case_loader.hpp"
#include "harness/dut/reference_binding.hpp"
#include "harness/run/case_result.hpp"
#include "harness/run/case_session.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

// A testbed that forwards everything to another and declares a timing budget of its own.
class BudgetTestbed final : public harness::Testbed {
 public:
  BudgetTestbed(std::unique_ptr<harness::Testbed> inner, std::uint64_t ns) : in_(std::move(inner)), ns_(ns) {}
  TimingBudget timing_budget() const override { return {ns_, "test bridge"}; }

  std::string name() const override { return in_->name(); }
  std::uint32_t planes() const override { return in_->planes(); }
  std::uint32_t hosts() const override { return in_->hosts(); }
  harness::HostAddress host_address(int h) const override { return in_->host_address(h); }
  std::string attach_port(int h, harness::FramePort& p) override { return in_->attach_port(h, p); }
  void wake(int h) override { in_->wake(h); }
  std::uint64_t now() const override { return in_->now(); }
  harness::RunStop run_until(std::uint64_t t) override { return in_->run_until(t); }
  std::string add_tap(std::string n, int h, int p, bool from) override { return in_->add_tap(std::move(n), h, p, from); }
  std::vector<harness::TapCapture> take_taps() override { return in_->take_taps(); }
  std::string inject_to(int h, int p, std::span<const std::uint8_t> f, std::uint64_t at) override {
    return in_->inject_to(h, p, f, at);
  }
  void set_impairment_hook(harness::ImpairmentHook hook) override { in_->set_impairment_hook(std::move(hook)); }
  std::string schedule_fault(const harness::FaultRequest& f) override { return in_->schedule_fault(f); }
  std::vector<harness::FaultEvent> faults() const override { return in_->faults(); }
  harness::LinkRef find_link(std::string_view n) const override { return in_->find_link(n); }
  harness::LinkRef host_link(int h, int p) const override { return in_->host_link(h, p); }
  bool switch_exists(std::string_view n) const override { return in_->switch_exists(n); }
  Path path_of(int src, int port, std::span<const std::uint8_t> f) const override { return in_->path_of(src, port, f); }
  NetworkFacts network_facts(int src, int dst, std::uint32_t mtu) const override { return in_->network_facts(src, dst, mtu); }
  DefaultEvs default_evs(wire::EvFmtMode m, int src, int dst, bool srh) const override {
    return in_->default_evs(m, src, dst, srh);
  }

 private:
  std::unique_ptr<harness::Testbed> in_;
  std::uint64_t ns_;
};

struct Judged {
  SessionResult session;
  harness::CaseResult result;
};

// failover-v-001 with its failover-time bound cut from 500 us to 10 us: the reference's last data
// on a failed EV leaves 22.3 us after the fault (new data queued before the window filled; its
// retransmissions keep off the EVs whose timeouts are pending), so 12.3 us past the bound.
// `wire_overrun`: judged as if a real-time bridge had broken its budget in the run.
Judged run_tight_failover(std::uint64_t budget_ns, const std::string& wire_overrun = "") {
  TempSuite suite;
  std::string yaml = slurp(case_file("failover-v-001"));
  const std::string bound = "bound_ns: 7 T + 41.248 us";  // 500 us at the case's timeout 6
  const auto at = yaml.find(bound);
  EXPECT_NE(at, std::string::npos);
  yaml.replace(at, bound.size(), "bound_ns: 10000");
  const auto loaded = harness::load_case(suite.write_case("failover-v-001", yaml));
  EXPECT_TRUE(loaded.ok()) << loaded.diagnostics.to_string();
  const harness::Case& c = *loaded.value;
  harness::ReferenceBinding dut;
  harness::ReferenceBinding peer;
  SessionOptions so;
  so.seed = c.seed;
  so.out_dir = suite.path() / "out";
  if (budget_ns != 0) {
    so.make_testbed = [budget_ns](const harness::TestbedRequest& r, std::uint64_t seed, std::string* err) {
      std::unique_ptr<harness::Testbed> sim = harness::make_sim_testbed(r, seed, err);
      return sim ? std::make_unique<BudgetTestbed>(std::move(sim), budget_ns) : nullptr;
    };
  }
  Judged j{run_session(c, dut, peer, so), {}};
  j.session.wire_overrun = wire_overrun;
  j.result = judge_case(c, j.session, suite.path(), c.seed);
  return j;
}

const harness::CheckResult* check(const harness::CaseResult& r, const std::string& name) {
  for (const auto& c : r.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST(RunnerTimingBudget, TheTestbedsBudgetReachesTheChecksTheResultAndTheReport) {
  const Judged plain = run_tight_failover(0);
  ASSERT_EQ(plain.session.status, harness::Verdict::kPass) << plain.session.message;
  EXPECT_EQ(plain.session.ctx.timing_budget.ns, 0u);
  const harness::CheckResult* tight = check(plain.result, "failover-time");
  ASSERT_NE(tight, nullptr);
  EXPECT_EQ(tight->verdict, harness::Verdict::kFail) << tight->message;
  EXPECT_EQ(plain.result.timing_budget.ns, 0u);

  const Judged short_budget = run_tight_failover(10'000);
  EXPECT_EQ(check(short_budget.result, "failover-time")->verdict, harness::Verdict::kFail);

  const Judged bridged = run_tight_failover(20'000);
  EXPECT_EQ(bridged.session.ctx.timing_budget.ns, 20'000u);
  EXPECT_EQ(bridged.session.ctx.timing_budget.source, "test bridge");
  const harness::CheckResult* widened = check(bridged.result, "failover-time");
  ASSERT_NE(widened, nullptr);
  EXPECT_EQ(widened->verdict, harness::Verdict::kPass) << widened->message;
  EXPECT_NE(widened->message.find("within the bound 10.000 us + 20.000 us timing budget (test bridge)"), std::string::npos)
      << widened->message;
  EXPECT_EQ(bridged.result.timing_budget.ns, 20'000u);
  EXPECT_EQ(bridged.result.timing_budget.source, "test bridge");
  // The drain after the stimulus grew by the budget, so a frame a widened window accepts is seen.
  EXPECT_EQ(bridged.session.sim_time_ns, plain.session.sim_time_ns + 20'000);

  harness::RunResult run;
  run.cases = {plain.result, bridged.result};
  const std::string json = harness::render_results_json(run);
  EXPECT_NE(json.find("\"schema\": \"mrc-conform/results/1.7\""), std::string::npos);  // 1.1 brought the budget
  EXPECT_NE(json.find("\"timing_budget\": {\n        \"ns\": 20000,\n        \"source\": \"test bridge\"\n      }"),
            std::string::npos);
}

TEST(RunnerTimingBudget, AFailInARunWhoseBridgeBrokeItsBudgetIsInconclusiveAndKeepsWhatItFound) {
  const std::string overrun = "the real-time bridge lost 3 frame(s) to or from the DUT";
  const Judged j = run_tight_failover(0, overrun);
  ASSERT_EQ(j.session.status, harness::Verdict::kPass) << j.session.message;
  const harness::CheckResult* tight = check(j.result, "failover-time");
  ASSERT_NE(tight, nullptr);
  EXPECT_EQ(tight->verdict, harness::Verdict::kInconclusive) << tight->message;
  EXPECT_EQ(tight->message.find("not judged, " + overrun + " (the checks found: "), 0u) << tight->message;
  EXPECT_NE(tight->message.find("exceeds the bound 10.000 us"), std::string::npos) << tight->message;
  EXPECT_EQ(j.result.verdict, harness::Verdict::kInconclusive);
  // The checks that passed still pass: the DUT met them under worse conditions.
  std::size_t passed = 0;
  for (const auto& c : j.result.checks) passed += c.verdict == harness::Verdict::kPass;
  EXPECT_GE(passed, 1u);
}

// spray-v-030 run in-process on the reference, clean or with the catalog's dscp-hardcoded.
SessionResult spray_v030(const TempSuite& suite, const harness::Case& c, bool dscp_hardcoded) {
  ref::DefectSet defects;
  if (dscp_hardcoded) defects.add(ref::Defect::kDscpHardcoded);
  harness::ReferenceBinding dut(defects);
  harness::ReferenceBinding peer;
  SessionOptions so;
  so.seed = c.seed;
  so.out_dir = suite.path() / (dscp_hardcoded ? "bad" : "clean");
  return run_session(c, dut, peer, so);
}

// spray-v-030 (dscp_marking, a check of the DUT's frames by their own bytes) on the catalog's
// dscp-hardcoded: its FAIL stands when the bridge was late (a wrong DSCP is the DUT's however late
// its frames were), and is not judged when the bridge lost frames (a resent copy whose first one
// is missing from the capture looks like a first transmission).
TEST(RunnerTimingBudget, AFailOfACheckOfTheDutsOwnBytesStandsWhenTheBridgeWasLateNotWhenItLostFrames) {
  TempSuite suite;
  const auto loaded = harness::load_case(suite.write_case("spray-v-030", slurp(case_file("spray-v-030"))));
  ASSERT_TRUE(loaded.ok()) << loaded.diagnostics.to_string();
  const harness::Case& c = *loaded.value;
  ref::DefectSet defects;
  defects.add(ref::Defect::kDscpHardcoded);
  harness::ReferenceBinding dut(defects);
  harness::ReferenceBinding peer;
  SessionOptions so;
  so.seed = c.seed;
  so.out_dir = suite.path() / "out";
  SessionResult s = run_session(c, dut, peer, so);
  ASSERT_EQ(s.status, harness::Verdict::kPass) << s.message;
  s.wire_overrun = "the real-time bridge's lag towards the DUT reached p99 600.0 us, over its declared timing budget";
  s.bridge = harness::BridgeStats{};
  s.bridge->lost = 0;
  const harness::CaseResult late = judge_case(c, s, suite.path(), c.seed);
  EXPECT_EQ(late.verdict, harness::Verdict::kFail) << late.message;
  EXPECT_NE(late.message.find("dscp_marking"), std::string::npos) << late.message;

  s.bridge->lost = 3;
  const harness::CaseResult lost = judge_case(c, s, suite.path(), c.seed);
  EXPECT_EQ(lost.verdict, harness::Verdict::kInconclusive) << lost.message;
  EXPECT_EQ(lost.message.find("dscp_marking: not judged, the real-time bridge's lag"), 0u) << lost.message;
}

// Frames the DUT sent that the bridge lost before the harness saw them (SessionResult::capture_gap):
// spray-v-030's dscp_marking, which rests on every frame the DUT sent, is not judged on a clean run
// (the one with the wrong DSCP may be among them), while its positive control, which only counts
// frames, PASSes; dscp-hardcoded's FAIL is untouched (on a real bridge the lost frames also break
// its budget, wire_overrun, which withholds that FAIL: the test above).
TEST(RunnerTimingBudget, APassThatRestsOnEveryFrameIsNotJudgedWhenFramesFromTheDutWereLost) {
  TempSuite suite;
  const auto loaded = harness::load_case(suite.write_case("spray-v-030", slurp(case_file("spray-v-030"))));
  ASSERT_TRUE(loaded.ok()) << loaded.diagnostics.to_string();
  const harness::Case& c = *loaded.value;
  const std::string gap = "the real-time bridge lost 4 frame(s) from the DUT before the harness saw them";
  for (const bool defective : {false, true}) {
    SessionResult s = spray_v030(suite, c, defective);
    ASSERT_EQ(s.status, harness::Verdict::kPass) << s.message;
    const harness::CaseResult whole = judge_case(c, s, suite.path(), c.seed);
    EXPECT_EQ(whole.verdict, defective ? harness::Verdict::kFail : harness::Verdict::kPass) << whole.message;
    s.capture_gap = gap;
    s.bridge = harness::BridgeStats{};
    s.bridge->lost = 4;
    const harness::CaseResult r = judge_case(c, s, suite.path(), c.seed);
    const harness::CheckResult* control = check(r, "positive_control");
    ASSERT_NE(control, nullptr);
    EXPECT_EQ(control->verdict, harness::Verdict::kPass) << control->message;
    const harness::CheckResult* dscp = check(r, "dscp_marking");
    ASSERT_NE(dscp, nullptr);
    if (defective) {
      EXPECT_EQ(dscp->verdict, harness::Verdict::kFail) << dscp->message;  // no overrun said: judged
      EXPECT_EQ(r.verdict, harness::Verdict::kFail) << r.message;
    } else {
      EXPECT_EQ(dscp->verdict, harness::Verdict::kInconclusive) << dscp->message;
      EXPECT_NE(dscp->message.find("not judged, " + gap + ": the one that breaks it may be among them (on what it "
                                   "captured, it passed: "),
                std::string::npos)
          << dscp->message;
      EXPECT_EQ(r.verdict, harness::Verdict::kInconclusive) << r.message;
    }
  }
}

// A wire run this machine could not carry in real time stops early (SessionResult::cut_short) and
// is judged on what it captured: spray-v-030's dscp_marking FAIL on dscp-hardcoded stands (the
// DUT's own bytes), while a check that passed judged only part of the run and is not judged; the
// clean reference cut short is INCONCLUSIVE, never PASS.
TEST(RunnerTimingBudget, ARunCutShortKeepsOnlyTheFailOfACheckOfTheDutsOwnBytes) {
  TempSuite suite;
  const auto loaded = harness::load_case(suite.write_case("spray-v-030", slurp(case_file("spray-v-030"))));
  ASSERT_TRUE(loaded.ok()) << loaded.diagnostics.to_string();
  const harness::Case& c = *loaded.value;
  const std::string why = "the real-time bridge's queue towards the DUT reached 58 ms (limit 50 ms)";
  for (const bool defective : {true, false}) {
    SessionResult s = spray_v030(suite, c, defective);
    ASSERT_EQ(s.status, harness::Verdict::kPass) << s.message;
    s.cut_short = why;
    s.bridge = harness::BridgeStats{};
    const harness::CaseResult r = judge_case(c, s, suite.path(), c.seed);
    std::size_t withheld_passes = 0;
    for (const auto& cr : r.checks) {
      if (cr.message.find("not judged, " + why + " (on what it captured, it passed: ") == 0) ++withheld_passes;
      EXPECT_NE(cr.verdict, harness::Verdict::kPass) << cr.name << ": " << cr.message;
    }
    EXPECT_GE(withheld_passes, 1u);
    if (defective) {
      EXPECT_EQ(r.verdict, harness::Verdict::kFail) << r.message;
      EXPECT_NE(r.message.find("dscp_marking"), std::string::npos) << r.message;
    } else {
      EXPECT_EQ(r.verdict, harness::Verdict::kInconclusive) << r.message;
    }
  }
}

}  // namespace
}  // namespace mrc::run::testing
