// replay_bundle (harness/certify/replay.hpp) on real runs of a few cases: a fresh bundle re-judges to
// the recorded results, check for check; a tightened check, a frame taken out of the evidence and
// re-signed, a case file of another suite version, a run that kept no evidence or cut payload
// away, and a tampered bundle each come out as they should.
#include "harness/certify/replay.hpp"

#include <gtest/gtest.h>

#include "harness/capture/pcapng.hpp"
#include "harness/certify/bundle_crypto.hpp"
#include "harness/run/replay_context.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

// A positive control, distributions (spray-v-001), a golden and an invariant (spray-v-020), and
// scripted expects with control steps (evctl-i-101).
const std::vector<std::string> kCases{"spray-v-001", "spray-v-020", "evctl-i-101"};

class Replay : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    harness::generate_key_files(dir_->path() / "k", false);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path path(const std::string& name) { return dir_->path() / name; }

  static void run_into(const std::string& out, RunOptions o = {}) {
    for (const auto& id : kCases) o.cases.push_back(case_file(id).string());
    o.out = path(out);
    const SuiteRun r = run(o);
    ASSERT_TRUE(r.has_result) << r.err;
  }
  // The bundle file of a report folder.
  static fs::path bundle(const std::string& report) {
    harness::BundleRequest b;
    b.report_dir = path(report);
    b.key = path("k");
    b.cases_dir = source_dir() / "cases";
    b.suite_version = "0.9.0";
    b.git_hash = "feedbee";
    b.out = path(report + ".mrcb");
    harness::make_bundle(b);
    return b.out;
  }
  static ReplayReport replay(const fs::path& file, const fs::path& cases = source_dir() / "cases",
                             std::function<void(harness::Case&)> adjust = {}) {
    ReplayOptions o;
    o.pubkey = harness::read_public_key_file(path("k.pub"));
    o.cases_dir = cases;
    o.adjust_case = std::move(adjust);
    return replay_bundle(file, o);
  }
  static const ReplayedCase& find(const ReplayReport& r, const std::string& id) {
    for (const auto& c : r.cases) {
      if (c.id == id) return c;
    }
    throw std::runtime_error("no case " + id);
  }
  static TempDir* dir_;
};
TempDir* Replay::dir_ = nullptr;

TEST_F(Replay, AFreshBundleReJudgesToTheRecordedResultsCheckForCheck) {
  run_into("fresh");
  // Every case keeps a context file beside its pcapng, and the manifest names it.
  for (const auto& id : kCases) EXPECT_TRUE(fs::exists(path("fresh") / case_context_path(id))) << id;
  const fs::path file = bundle("fresh");
  EXPECT_NE(slurp(file).find("\"context\": \"evidence/spray-v-020.context.json\""), std::string::npos);
  const ReplayReport r = replay(file);
  EXPECT_TRUE(r.check.problems.empty());
  EXPECT_EQ(r.dut, "reference");
  ASSERT_EQ(r.cases.size(), kCases.size());
  const harness::RunResult recorded = harness::read_results_json(path("fresh") / "results.json");
  for (const ReplayedCase& c : r.cases) {
    ASSERT_EQ(c.status, ReplayStatus::kUnchanged) << c.id << ": " << c.reason << c.first_message;
    EXPECT_TRUE(c.notes.empty()) << c.id;
    const harness::CaseResult* was = nullptr;
    for (const auto& x : recorded.cases) was = x.id == c.id ? &x : was;
    ASSERT_NE(was, nullptr);
    // Not only the verdict: every check's name, verdict, message and evidence (metrics went
    // through results.json's number formatting, so they are not compared bit for bit).
    ASSERT_EQ(c.result.checks.size(), was->checks.size()) << c.id;
    for (std::size_t i = 0; i < was->checks.size(); ++i) {
      const harness::CheckResult& a = c.result.checks[i];
      const harness::CheckResult& b = was->checks[i];
      EXPECT_EQ(a.name, b.name) << c.id;
      EXPECT_EQ(a.verdict, b.verdict) << c.id << " " << b.name;
      EXPECT_EQ(a.message, b.message) << c.id << " " << b.name;
      EXPECT_EQ(a.evidence, b.evidence) << c.id << " " << b.name;
    }
    EXPECT_EQ(c.result.message, was->message) << c.id;
  }
  EXPECT_EQ(r.count(ReplayStatus::kUnchanged), kCases.size());
}

TEST_F(Replay, ATightenedCheckIsAChangedVerdict) {
  run_into("tight");
  const ReplayReport r = replay(bundle("tight"), source_dir() / "cases", [](harness::Case& c) {
    if (c.id != "spray-v-020") return;
    for (harness::Check& k : c.checks) {
      if (auto* p = std::get_if<harness::PositiveControlCheck>(&k.params)) p->min_packets = 1'000'000;
    }
  });
  const ReplayedCase& c = find(r, "spray-v-020");
  EXPECT_EQ(c.status, ReplayStatus::kChanged);
  EXPECT_EQ(c.recorded, harness::Verdict::kPass);
  EXPECT_EQ(c.now, harness::Verdict::kFail);
  EXPECT_EQ(c.first_check.rfind("positive_control", 0), 0u) << c.first_check;
  EXPECT_NE(c.first_message.find("(was PASS: "), std::string::npos) << c.first_message;
  EXPECT_EQ(find(r, "spray-v-001").status, ReplayStatus::kUnchanged);
  EXPECT_EQ(r.count(ReplayStatus::kChanged), 1u);
}

TEST_F(Replay, AFrameTakenOutOfTheEvidenceAndReSignedChangesTheVerdict) {
  run_into("cut");
  const fs::path file = path("cut") / "evidence/spray-v-020.pcapng";
  std::vector<harness::ReadInterface> read;
  ASSERT_EQ(harness::read_capture_file(file, read), "");
  std::vector<harness::Capture> kept(read.size());
  std::vector<harness::PcapngInterface> ifaces;
  std::size_t busiest = 0;  // the tap with the most frames loses its middle one
  for (std::size_t i = 0; i < read.size(); ++i) busiest = read[i].capture.size() > read[busiest].capture.size() ? i : busiest;
  bool dropped = false;
  const std::string tap = read.at(busiest).name;
  for (std::size_t i = 0; i < read.size(); ++i) {
    const harness::Capture& c = read[i].capture;
    for (std::size_t p = 0; p < c.size(); ++p) {
      if (i == busiest && p == c.size() / 2) {
        dropped = true;
        continue;
      }
      kept[i].add(c.packet(p).ts_ns, c.bytes(p), c.packet(p).origlen);
    }
    ifaces.push_back({&kept[i], read[i].name, "", read[i].name.ends_with(".tx")});
  }
  ASSERT_TRUE(dropped);
  ASSERT_EQ(harness::write_multi_pcapng(file, ifaces, harness::kFullSnaplen), "");
  const ReplayReport r = replay(bundle("cut"));  // signed with the same key: verify finds nothing
  EXPECT_TRUE(r.check.problems.empty());
  const ReplayedCase& c = find(r, "spray-v-020");
  EXPECT_EQ(c.status, ReplayStatus::kChanged);
  EXPECT_EQ(c.recorded, harness::Verdict::kPass);
  EXPECT_NE(c.now, harness::Verdict::kPass);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("interface " + tap + ": "), std::string::npos) << c.notes[0];
  EXPECT_EQ(find(r, "evctl-i-101").status, ReplayStatus::kUnchanged);
}

TEST_F(Replay, ACaseFileOfAnotherSuiteVersionIsNotReJudgedAndNamed) {
  run_into("suite");
  const fs::path bytes = bundle("suite");
  const fs::path suite = path("tree");
  fs::create_directories(suite);
  fs::copy(source_dir() / "cases", suite / "cases", fs::copy_options::recursive);
  fs::copy(source_dir() / "pcaps", suite / "pcaps", fs::copy_options::recursive);
  std::ofstream(suite / "cases/spray/spray-v-001.yaml", std::ios::app) << "# a later edit\n";
  std::ofstream(suite / "pcaps/spray/spray-v-020.pcapng", std::ios::app) << "later";
  const ReplayReport r = replay(bytes, suite / "cases");
  EXPECT_EQ(r.check.problems.size(), 2u);
  EXPECT_EQ(find(r, "spray-v-001").reason, "its case file cases/spray/spray-v-001.yaml differs from this suite's tree");
  EXPECT_EQ(find(r, "spray-v-020").reason, "its golden pcaps/spray/spray-v-020.pcapng differs from this suite's tree");
  EXPECT_EQ(find(r, "evctl-i-101").status, ReplayStatus::kUnchanged);
}

TEST_F(Replay, EvidenceKeptForFailuresOnlyOrCutShortIsNotReJudgedWithItsReason) {
  RunOptions failures;
  failures.evidence.keep = EvidenceKeep::kFailures;
  run_into("failures", failures);
  const ReplayReport f = replay(bundle("failures"));
  for (const auto& c : f.cases) {
    EXPECT_EQ(c.status, ReplayStatus::kNotRejudged) << c.id;
    EXPECT_EQ(c.reason, "no evidence file (the run kept --evidence failures)") << c.id;
  }
  RunOptions cut;
  ASSERT_EQ(parse_snaplen("366", cut.evidence), "");
  run_into("snap", cut);
  const ReplayReport s = replay(bundle("snap"));
  // The golden reads payload: not judged on cut frames. The distributions read headers only.
  EXPECT_EQ(find(s, "spray-v-020").status, ReplayStatus::kNotRejudged);
  EXPECT_NE(find(s, "spray-v-020").reason.find("its checks read payload and evidence/spray-v-020.pcapng keeps "),
            std::string::npos)
      << find(s, "spray-v-020").reason;
  EXPECT_NE(find(s, "spray-v-020").reason.find("cut at 366 bytes (run --snaplen 366; auto or full keeps them whole)"),
            std::string::npos);
  EXPECT_EQ(find(s, "spray-v-001").status, ReplayStatus::kUnchanged);
}

TEST_F(Replay, ATamperedBundleIsRefusedWithVerifysMessage) {
  run_into("tamper");
  std::string bytes = slurp(bundle("tamper"));
  const std::string needle = "\"verdict\": \"PASS\"";
  const std::size_t at = bytes.rfind(needle);  // in results.json (after the manifest)
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, needle.size(), "\"verdict\": \"FAIL\"");
  std::ofstream(path("tampered.mrcb"), std::ios::binary) << bytes;
  try {
    replay(path("tampered.mrcb"));
    FAIL() << "a tampered bundle was replayed";
  } catch (const ReplayRefused& e) {
    EXPECT_NE(std::string(e.what()).find("results.json: changed: its sha256 differs from the manifest's\n"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("bundle NOT OK: 1 problem(s); nothing re-judged"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mrc::run::testing
