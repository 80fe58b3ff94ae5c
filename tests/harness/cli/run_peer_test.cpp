// `mrc-conform run --peer SPEC`: the harness's side (testbed host 1) is really the binding named,
// it is recorded in the reports only when it is not the default, a bad spec is bad input before
// any case, and the default peer leaves the reports byte for byte as they were.
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

// reorder-v-001: the DUT is the responder, so the peer is the requester whose data it judges.
RunOptions reorder_case(const fs::path& out) {
  RunOptions o;
  o.cases = {case_file("reorder-v-001").string()};
  o.seed = 5;
  o.out = out;
  return o;
}

TEST(RunPeer, AnUnreachableAgentPeerMakesEveryCaseAnErrorNamingThePeer) {
  TempDir out;
  RunOptions o = reorder_case(out.path());
  o.cases.push_back(case_file("spray-v-001").string());
  o.peer = "agent:127.0.0.1:1";  // nothing listens on port 1
  o.agent_token = "token";
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 3) << r.err;
  ASSERT_TRUE(r.has_result);
  ASSERT_EQ(r.result.cases.size(), 2u);
  for (const auto& c : r.result.cases) {
    EXPECT_EQ(c.verdict, harness::Verdict::kError) << c.id;
    EXPECT_EQ(c.message.rfind("peer: agent 127.0.0.1:1: cannot connect", 0), 0u) << c.message;
  }
  EXPECT_EQ(r.result.meta.peer, std::optional<std::string>("agent:127.0.0.1:1"));
  EXPECT_TRUE(has(slurp(out.path() / "junit.xml"), "<property name=\"peer\" value=\"agent:127.0.0.1:1\"/>"));
  EXPECT_TRUE(has(slurp(out.path() / "index.html"), "against peer <strong id=\"peer\">agent:127.0.0.1:1</strong>"));
}

TEST(RunPeer, ADefectivePeerChangesTheOutcomeAndWhatTheDutReceives) {
  TempDir clean_out, defective_out;
  const SuiteRun clean = run(reorder_case(clean_out.path()));
  RunOptions o = reorder_case(defective_out.path());
  o.peer = "reference:wrong-icrc";  // the peer's data frames fail the ICRC check: the DUT drops them
  const SuiteRun defective = run(o);
  ASSERT_TRUE(clean.has_result && defective.has_result);
  ASSERT_EQ(clean.result.cases.size(), 1u);
  ASSERT_EQ(defective.result.cases.size(), 1u);
  EXPECT_EQ(clean.result.cases[0].verdict, harness::Verdict::kPass) << clean.result.cases[0].message;
  EXPECT_EQ(defective.result.cases[0].verdict, harness::Verdict::kFail) << defective.result.cases[0].message;
  EXPECT_EQ(defective.rc, 1);
  EXPECT_FALSE(clean.result.meta.peer.has_value());
  EXPECT_EQ(defective.result.meta.peer, std::optional<std::string>("reference:wrong-icrc"));
  const std::string file = "evidence/reorder-v-001.pcapng";
  ASSERT_TRUE(fs::exists(clean_out.path() / file));
  EXPECT_NE(slurp(clean_out.path() / file), slurp(defective_out.path() / file));
}

TEST(RunPeer, ABadSpecIsBadInputBeforeAnyCaseRuns) {
  struct Bad {
    std::string peer;
    std::string token;
    std::string says;
  };
  for (const Bad& b : {Bad{"vendorx", "", "error: unknown DUT binding 'vendorx' in --peer vendorx; valid DUT bindings:"},
                       Bad{"reference:no-such-defect", "", "unknown defect or variant 'no-such-defect' in --peer reference:no-such-defect"},
                       Bad{"agent:127.0.0.1:1", "", "error: --peer agent:127.0.0.1:1 needs the agent's token"},
                       Bad{"agent:127.0.0.1", "token", "error: --peer agent:127.0.0.1: expected agent:HOST:PORT"}}) {
    TempDir out;
    RunOptions o = reorder_case(out.path() / "reports");
    o.peer = b.peer;
    o.agent_token = b.token;
    const SuiteRun r = run(o);
    EXPECT_EQ(r.rc, 2) << b.peer;
    EXPECT_TRUE(has(r.err, b.says)) << r.err;
    EXPECT_FALSE(fs::exists(out.path() / "reports")) << b.peer;  // checked before the output folder
  }
}

// The default peer and `--peer reference` are the same run, and neither report mentions a peer:
// a run that does not choose a peer reports exactly what it did before --peer existed.
TEST(RunPeer, TheDefaultPeerLeavesTheReportsUnchanged) {
  TempDir a, b;
  const SuiteRun by_default = run(reorder_case(a.path()));
  RunOptions o = reorder_case(b.path());
  o.peer = "reference";
  const SuiteRun named = run(o);
  EXPECT_EQ(by_default.rc, 0);
  EXPECT_EQ(named.rc, 0);
  for (const char* file : {"results.json", "junit.xml", "index.html"}) {
    const std::string text = slurp(a.path() / file);
    EXPECT_EQ(text, slurp(b.path() / file)) << file;
    EXPECT_FALSE(has(text, "peer\"")) << file;
    EXPECT_FALSE(has(text, "against peer")) << file;
  }
}

}  // namespace
}  // namespace mrc::run::testing
