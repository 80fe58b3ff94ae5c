// `mrc-conform replay` (cmd_replay.cpp) on real runs: the whole library against the clean reference
// and against a defect DUT replays to every recorded verdict, check for check (the proof that the
// evidence and its context hold everything the checks read); a results.json edited to PASS and
// re-signed verifies but replays to FAIL, exit 1; a folder, a bundle without evidence and a cut
// bundle are exit 2.
#include "harness/certify/bundle_crypto.hpp"
#include "harness/certify/replay.hpp"
#include "harness/cli/cmd_replay.hpp"
#include "harness/cli/commands.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

struct Cli {
  int rc = -1;
  std::string out, err;
};

class ReplayCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    std::ostringstream o, e;
    ASSERT_EQ(cli::run_keygen({.out = path("k"), .force = false}, o, e), 0) << e.str();
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path path(const std::string& name) { return dir_->path() / name; }
  static SuiteRun run_suite_into(const std::string& out, const std::string& dut, std::vector<std::string> cases = {}) {
    RunOptions o;
    o.cases = cases.empty() ? std::vector<std::string>{(source_dir() / "cases").string()} : cases;
    o.dut = dut;
    o.jobs = 2;
    o.out = path(out);
    return run(o);
  }
  static Cli bundle(const std::string& report, const std::string& file) {
    Cli c;
    std::ostringstream o, e;
    cli::BundleCliOptions b;
    b.report_dir = path(report);
    b.out = path(file);
    b.key = path("k");
    b.cases = (source_dir() / "cases").string();
    c.rc = cli::run_bundle(b, o, e);
    c.out = o.str();
    c.err = e.str();
    return c;
  }
  static Cli verify(const std::string& file) {
    Cli c;
    std::ostringstream o, e;
    c.rc = cli::run_verify({.bundle = path(file), .pubkey = path("k.pub").string(), .cases = (source_dir() / "cases").string()}, o, e);
    c.out = o.str();
    c.err = e.str();
    return c;
  }
  static Cli replay(const fs::path& file) {
    Cli c;
    std::ostringstream o, e;
    c.rc = cli::run_replay({.bundle = file, .pubkey = path("k.pub").string(), .cases = (source_dir() / "cases").string()}, o, e);
    c.out = o.str();
    c.err = e.str();
    return c;
  }
  static TempDir* dir_;
};
TempDir* ReplayCli::dir_ = nullptr;

std::string last_line(const std::string& s) {
  const std::size_t end = s.size() > 0 && s.back() == '\n' ? s.size() - 1 : s.size();
  const std::size_t start = s.rfind('\n', end == 0 ? 0 : end - 1);
  return s.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1));
}

// The most important test of replay: every case of the library, against the clean reference and
// against a defect DUT (not the reference's verdicts: FAILs among them), re-judged from the
// bundle alone to the verdict it was recorded with. A check whose input the context missed would
// differ here.
TEST_F(ReplayCli, TheWholeLibraryReplaysToEveryRecordedVerdict) {
  for (const std::string dut : {"reference", "reference:spray-single-ev"}) {
    const std::string name = dut == "reference" ? "full" : "defect-full";
    const SuiteRun r = run_suite_into(name, dut);
    ASSERT_TRUE(r.has_result) << r.err;
    ASSERT_EQ(bundle(name, name + ".mrcb").rc, 0);
    const Cli v = verify(name + ".mrcb");
    ASSERT_EQ(v.rc, 0) << v.out << v.err;
    const Cli p = replay(path(name + ".mrcb"));
    std::size_t not_judged = 0;
    for (const auto& c : r.result.cases) not_judged += c.checks.empty() ? 1 : 0;
    const std::size_t n = r.result.cases.size();
    EXPECT_EQ(last_line(p.out), "replay: " + std::to_string(n - not_judged) + " re-judged, " + std::to_string(n - not_judged) +
                                    " unchanged, 0 changed, " + std::to_string(not_judged) + " not re-judged")
        << dut << "\n"
        << p.out << p.err;
    EXPECT_EQ(p.rc, 0) << dut << "\n" << p.out << p.err;
    EXPECT_NE(p.out.find("of DUT " + dut + " (testbed mini, seed "), std::string::npos) << p.out;
    // Check for check: the same verdict, message and evidence references as the run wrote.
    ReplayOptions ro;
    ro.pubkey = harness::read_public_key_file(path("k.pub"));
    ro.cases_dir = source_dir() / "cases";
    const ReplayReport rep = replay_bundle(path(name + ".mrcb"), ro);
    for (const ReplayedCase& c : rep.cases) {
      if (c.status == ReplayStatus::kNotRejudged) continue;
      const harness::CaseResult* was = r.find(c.id);
      ASSERT_NE(was, nullptr);
      ASSERT_EQ(c.result.checks.size(), was->checks.size()) << c.id;
      for (std::size_t i = 0; i < was->checks.size(); ++i) {
        EXPECT_EQ(c.result.checks[i].verdict, was->checks[i].verdict) << dut << " " << c.id << " " << was->checks[i].name;
        EXPECT_EQ(c.result.checks[i].message, was->checks[i].message) << dut << " " << c.id << " " << was->checks[i].name;
        EXPECT_EQ(c.result.checks[i].evidence, was->checks[i].evidence) << dut << " " << c.id << " " << was->checks[i].name;
      }
    }
  }
}

TEST_F(ReplayCli, AVerdictEditedToPassAndReSignedVerifiesButReplaysToFail) {
  const SuiteRun r = run_suite_into("defect", "reference:spray-single-ev", {case_file("spray-v-001").string()});
  ASSERT_TRUE(r.has_result);
  ASSERT_EQ(r.result.cases.at(0).verdict, harness::Verdict::kFail);
  std::string results = slurp(path("defect") / "results.json");
  for (std::size_t at = results.find("\"verdict\": \"FAIL\""); at != std::string::npos; at = results.find("\"verdict\": \"FAIL\"")) {
    results.replace(at, 17, "\"verdict\": \"PASS\"");
  }
  std::ofstream(path("defect") / "results.json", std::ios::binary) << results;
  ASSERT_EQ(bundle("defect", "edited.mrcb").rc, 0);
  const Cli v = verify("edited.mrcb");
  EXPECT_EQ(v.rc, 0) << v.out;  // it is signed: verify cannot tell
  const Cli p = replay(path("edited.mrcb"));
  EXPECT_EQ(p.rc, 1) << p.out << p.err;
  EXPECT_NE(p.out.find("\nspray-v-001: PASS -> FAIL: distribution/"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("(was PASS: "), std::string::npos) << p.out;
  EXPECT_EQ(last_line(p.out), "replay: 1 re-judged, 0 unchanged, 1 changed, 0 not re-judged");
}

TEST_F(ReplayCli, AFolderABundleWithoutEvidenceAndACutBundleAreBadInput) {
  const Cli folder = replay(dir_->path());
  EXPECT_EQ(folder.rc, 2);
  EXPECT_NE(folder.err.find(": a folder, not a bundle file"), std::string::npos) << folder.err;

  RunOptions o;
  o.cases = {case_file("spray-v-001").string()};
  o.evidence.keep = EvidenceKeep::kNone;
  o.out = path("none");
  ASSERT_TRUE(run(o).has_result);
  ASSERT_EQ(bundle("none", "none.mrcb").rc, 0);
  const Cli none = replay(path("none.mrcb"));
  EXPECT_EQ(none.rc, 2);
  EXPECT_NE(none.out.find("spray-v-001: not re-judged: no evidence file (the run kept --evidence none)"), std::string::npos)
      << none.out;
  EXPECT_NE(none.err.find("no case could be re-judged"), std::string::npos) << none.err;

  const std::string bytes = slurp(path("none.mrcb"));
  std::ofstream(path("cut.mrcb"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const Cli cut = replay(path("cut.mrcb"));
  EXPECT_EQ(cut.rc, 2);
  EXPECT_NE(cut.err.find("truncated"), std::string::npos) << cut.err;
}

}  // namespace
}  // namespace mrc::run::testing
