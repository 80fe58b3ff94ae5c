// `mrc-conform interop` on a 2 x 2 matrix of the clean reference and reference:spray-single-ev
// over two tiny cases (one sees the defect, one is blind to it): rows are judged, every cell links
// to a real pair report, the same seed gives the same bytes, bad input stops before anything runs,
// and an interrupt leaves a partial matrix that says so.
#include <signal.h>

#include <nlohmann/json.hpp>

#include "harness/cli/commands.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

using cli::InteropOptions;
using Json = nlohmann::json;

constexpr const char* kDefective = "reference:spray-single-ev";

// The two tiny cases of cli_test_support.hpp: spray-v-001 FAILs on spray-single-ev as the DUT,
// spray-v-002 PASSes on it.
class Interop : public ::testing::Test {
 protected:
  void SetUp() override {
    suite_.write_case("spray-v-001", kTinySprayCase);
    suite_.write_case("spray-v-002", kTinyPlainCase);
  }
  void TearDown() override { interrupt_flag() = false; }

  InteropOptions options(const fs::path& out) const {
    InteropOptions o;
    o.impls = {std::string("reference,") + kDefective};
    o.run.cases = {(suite_.path() / "cases").string()};
    o.run.out = out;
    o.run.jobs = 2;
    o.run.progress = false;
    o.seed_text = "7";
    return o;
  }

  struct Result {
    int rc = -1;
    std::string out;
    std::string err;
  };
  static Result run(const InteropOptions& o) {
    Result r;
    std::ostringstream out, err;
    r.rc = cli::run_interop(o, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
  }

  TempSuite suite_;
};

TEST_F(Interop, TwoByTwoMatrixJudgesTheRows) {
  TempDir out;
  const Result r = run(options(out.path()));
  EXPECT_EQ(r.rc, 1) << r.err;  // the defective reference FAILs in its row
  const Json j = Json::parse(slurp(out.path() / "interop.json"));
  EXPECT_EQ(j["schema"], "mrc-conform/interop/1");
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["interrupted"], false);
  EXPECT_EQ(j["impls"], Json::array({"reference", kDefective}));
  EXPECT_EQ(j["selection"]["cases"], Json::array({"spray-v-001", "spray-v-002"}));
  EXPECT_EQ(j["meta"]["seed"], 7);
  ASSERT_EQ(j["cells"].size(), 4u);
  const std::string html = slurp(out.path() / "index.html");
  for (std::size_t k = 0; k < 4; ++k) {
    const Json& c = j["cells"][k];
    SCOPED_TRACE(c.dump());
    EXPECT_EQ(c["row"], k / 2);
    EXPECT_EQ(c["col"], k % 2);
    EXPECT_EQ(c["dut"], j["impls"][k / 2]);
    EXPECT_EQ(c["peer"], j["impls"][k % 2]);
    EXPECT_EQ(c["counts"]["total"], 2);
    EXPECT_EQ(c["interrupted"], false);
    // The cell is the pair's own run: its results.json holds the same counts, DUT and peer.
    const auto pair = harness::read_results_json(out.path() / c["results"].get<std::string>());
    ASSERT_EQ(pair.cases.size(), 2u);
    std::size_t fails = 0;
    for (const auto& pc : pair.cases) fails += pc.verdict == harness::Verdict::kFail;
    EXPECT_EQ(c["counts"]["FAIL"], fails);
    EXPECT_EQ(pair.meta.dut, c["dut"].get<std::string>());
    if (k % 2 == 0) {
      EXPECT_FALSE(pair.meta.peer.has_value());  // the default peer is not recorded
    } else {
      EXPECT_EQ(pair.meta.peer, std::optional<std::string>(kDefective));
    }
    const fs::path pair_dir = (out.path() / c["report"].get<std::string>()).parent_path();
    EXPECT_TRUE(fs::exists(pair_dir / "junit.xml"));
    EXPECT_TRUE(fs::exists(pair_dir / "evidence" / "spray-v-001.pcapng"));
    // The matrix links the cell to that pair's existing index.html.
    const std::string report = c["report"].get<std::string>();
    EXPECT_TRUE(fs::is_regular_file(out.path() / report)) << report;
    EXPECT_NE(html.find("<a href=\"" + report + "\">"), std::string::npos) << report;
  }
  // Row 0 (the clean reference as DUT) passes against both peers, the diagonal included.
  for (std::size_t k : {0u, 1u}) {
    EXPECT_EQ(j["cells"][k]["counts"]["PASS"], 2);
    EXPECT_EQ(j["cells"][k]["worst"], "PASS");
    EXPECT_EQ(j["cells"][k]["exit_code"], 0);
  }
  // Row 1 (the defective reference as DUT) fails spray-v-001 against both peers.
  for (std::size_t k : {2u, 3u}) {
    EXPECT_EQ(j["cells"][k]["counts"]["FAIL"], 1);
    EXPECT_EQ(j["cells"][k]["counts"]["PASS"], 1);
    EXPECT_EQ(j["cells"][k]["worst"], "FAIL");
    EXPECT_EQ(j["cells"][k]["exit_code"], 1);
  }
  EXPECT_EQ(j["cells"][0]["report"], "pairs/0_reference--0_reference/index.html");
  EXPECT_EQ(j["cells"][1]["report"], "pairs/0_reference--1_reference-spray-single-ev/index.html");
  EXPECT_NE(html.find("id=\"cell-1-0\""), std::string::npos);
  EXPECT_NE(html.find("<td class=\"cell v-fail\" id=\"cell-1-0\">"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"cell v-pass diagonal\" id=\"cell-0-0\">"), std::string::npos);
  EXPECT_NE(html.find("Rows are judged."), std::string::npos);
  // A line per pair on stdout, then where the reports are.
  EXPECT_NE(r.out.find("reference:spray-single-ev  x  reference:spray-single-ev  FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reports: " + (out.path() / "interop.json").string()), std::string::npos) << r.out;
}

TEST_F(Interop, SameSeedGivesByteIdenticalMatrixAndPairReports) {
  TempDir a, b;
  InteropOptions o = options(a.path());
  ASSERT_EQ(run(o).rc, 1);
  o.run.out = b.path();
  o.run.jobs = 1;  // another schedule must not change a byte
  ASSERT_EQ(run(o).rc, 1);
  EXPECT_EQ(slurp(a.path() / "interop.json"), slurp(b.path() / "interop.json"));
  EXPECT_EQ(slurp(a.path() / "index.html"), slurp(b.path() / "index.html"));
  const std::string pair = "pairs/1_reference-spray-single-ev--0_reference/results.json";
  EXPECT_EQ(slurp(a.path() / pair), slurp(b.path() / pair));
  EXPECT_FALSE(slurp(a.path() / pair).empty());
}

TEST_F(Interop, BadInputExitsTwoBeforeAnythingRuns) {
  struct Bad {
    std::vector<std::string> impls;
    std::string tags;
    std::string seed;
    std::string says;
  };
  const std::vector<Bad> bad = {
      {{"reference,vendorx"}, "", "7", "unknown DUT binding 'vendorx' in --impls vendorx"},
      {{"reference,reference"}, "", "7", "--impls: 'reference' is given twice"},
      {{"reference", "reference"}, "", "7", "--impls: 'reference' is given twice"},
      {{""}, "", "7", "--impls is empty"},
      {{" , "}, "", "7", "--impls is empty"},
      {{"agent:127.0.0.1:1"}, "", "7", "--impls agent:127.0.0.1:1 needs the agent's token"},
      {{"reference"}, "no-such-tag", "7", "error: no case selected"},
      {{"reference"}, "", "x7", "--seed 'x7' is not a number"},
      // The defect list of a spec stays with it: the repeat is what is wrong, not "use-denied-ev".
      {{std::string(kDefective) + ",use-denied-ev,reference,reference"}, "", "7", "'reference' is given twice"},
  };
  for (const Bad& b : bad) {
    TempDir out;
    InteropOptions o = options(out.path() / "interop");
    o.impls = b.impls;
    if (!b.tags.empty()) o.run.tags = {b.tags};
    o.seed_text = b.seed;
    const Result r = run(o);
    EXPECT_EQ(r.rc, 2) << b.says;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out.path() / "interop")) << b.says;  // nothing ran, nothing written
  }
}

TEST_F(Interop, InterruptAfterThePairInProgressLeavesAPartialMatrix) {
  TempDir out;
  InteropOptions o = options(out.path());
  int pairs_done = 0;
  o.on_pair_done = [&](const harness::InteropCell&) {
    ++pairs_done;
    interrupt_flag() = true;  // what SIGINT does while the first pair runs
  };
  const Result r = run(o);
  EXPECT_EQ(r.rc, 3);
  EXPECT_EQ(pairs_done, 1);
  const Json j = Json::parse(slurp(out.path() / "interop.json"));
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_EQ(j["exit_code"], 3);
  ASSERT_EQ(j["cells"].size(), 1u);
  EXPECT_EQ(j["cells"][0]["counts"]["PASS"], 2);
  EXPECT_TRUE(fs::exists(out.path() / "pairs/0_reference--0_reference/results.json"));
  EXPECT_FALSE(fs::exists(out.path() / "pairs/0_reference--1_reference-spray-single-ev"));
  const std::string html = slurp(out.path() / "index.html");
  EXPECT_NE(html.find("Partial matrix."), std::string::npos);
  EXPECT_NE(html.find("id=\"cell-1-1\">not run</td>"), std::string::npos);
  EXPECT_NE(r.out.find("(interrupted: partial matrix)"), std::string::npos) << r.out;
}

TEST_F(Interop, InterruptBeforeTheFirstPairStillWritesTheMatrix) {
  TempDir out;
  interrupt_flag() = true;
  const Result r = run(options(out.path()));
  EXPECT_EQ(r.rc, 3);
  const Json j = Json::parse(slurp(out.path() / "interop.json"));
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_TRUE(j["cells"].empty());
  EXPECT_NE(slurp(out.path() / "index.html").find("Interrupted after 0 of 4 pair(s)"), std::string::npos);
}

#ifdef MRC_CONFORM_BIN
// The real binary: SIGINT while the second pair runs stops it after its running case, and the
// matrix is written, marked interrupted, exit 3.
TEST_F(Interop, SigintStopsTheBinaryWithAPartialMatrix) {
  TempDir out;
  const Child child = start_conform({"interop", "--impls", std::string("reference,") + kDefective, "--cases",
                                     (suite_.path() / "cases").string(), "--out", out.path().string(), "--jobs", "1"});
  ASSERT_GT(child.pid, 0);
  const std::string first_pair = "[1/4] DUT reference x peer reference: PASS";
  const std::string seen = read_stderr_until(child, first_pair);
  ASSERT_NE(seen.find(first_pair), std::string::npos) << seen;
  ASSERT_EQ(::kill(child.pid, SIGINT), 0);
  EXPECT_EQ(wait_for_exit(child), 3);
  const Json j = Json::parse(slurp(out.path() / "interop.json"));
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_GE(j["cells"].size(), 1u);
  EXPECT_LT(j["cells"].size(), 4u);
}
#endif

}  // namespace
}  // namespace mrc::run::testing
