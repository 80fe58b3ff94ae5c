// An injection timed by a packet of the DUT's (inject `after_packet`, harness/run/case_impair.cpp):
// it goes out as that packet leaves, the run's notes say when, and one whose packet never came
// leaves the case INCONCLUSIVE (its stimulus never happened), never a PASS that judged nothing.
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

std::string case_text(const std::string& id) {
  std::ifstream in(case_file(id));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const harness::CaseResult* run_one(const TempSuite& suite, const std::string& id, SuiteRun& r, TempDir& out) {
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  r = run(o);
  return r.has_result ? r.find(id) : nullptr;
}

TEST(TriggeredInject, GoesOutAsTheDutsPacketLeavesAndTheNotesSayWhen) {
  TempSuite suite;
  suite.copy_case("invalid-i-013");
  TempDir out;
  SuiteRun r;
  const harness::CaseResult* c = run_one(suite, "invalid-i-013", r, out);
  ASSERT_NE(c, nullptr) << r.err;
  EXPECT_EQ(c->verdict, harness::Verdict::kPass) << c->message;
  EXPECT_NE(c->message.find("stimulus[2] injected at "), std::string::npos) << c->message;
  EXPECT_NE(c->message.find("after the DUT's packet (psn 100..100, first transmissions) at "), std::string::npos)
      << c->message;
}

TEST(TriggeredInject, OneWhosePacketNeverCameLeavesTheCaseInconclusive) {
  TempSuite suite;
  std::string text = case_text("invalid-i-013");
  const std::string trigger = "after_packet: {psn_range: [100, 100], rtx: false}";
  ASSERT_NE(text.find(trigger), std::string::npos);
  text.replace(text.find(trigger), trigger.size(), "after_packet: {psn_range: [9000, 9000]}");  // 640 PSNs are sent
  suite.write_case("invalid-i-013", text);
  TempDir out;
  SuiteRun r;
  const harness::CaseResult* c = run_one(suite, "invalid-i-013", r, out);
  ASSERT_NE(c, nullptr) << r.err;
  EXPECT_EQ(c->verdict, harness::Verdict::kInconclusive) << c->message;
  ASSERT_FALSE(c->checks.empty());
  const harness::CheckResult& last = c->checks.back();
  EXPECT_EQ(last.name, "stimulus");
  EXPECT_EQ(last.verdict, harness::Verdict::kInconclusive);
  EXPECT_EQ(last.message,
            "[INVALID-GHOST-ACK] stimulus[2]: the DUT sent no packet its after_packet selects (psn 9000..9000), so it "
            "was never injected: nothing the case is about was judged");
  EXPECT_EQ(r.rc, 1) << r.out;  // a MUST case not judged: not conformant
}

}  // namespace
}  // namespace mrc::run::testing
