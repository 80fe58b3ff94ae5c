// Evidence of a real run: one pcapng per case, every check's reference naming the frame it cites
// in that file, --evidence failures, and --snaplen never changing a verdict.
#include "harness/capture/pcapng.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

#include <iostream>

namespace mrc::run::testing {
namespace {

std::uint64_t bytes_under(const fs::path& dir) {
  std::uint64_t n = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) n += e.file_size();
  }
  return n;
}

// Every packet reference of a FAILing run names a frame of the case file that is the packet
// cited: same timestamp, on a tap of the right direction.
TEST(EvidenceRun, EveryReferenceNamesTheCitedFrameOfTheCaseFile) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("reorder-v-001").string(), case_file("failover-v-002").string()};
  o.dut = "reference:sack-off-by-one,retransmit-same-ev";
  o.out = out.path();
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result) << r.err;
  std::size_t cited = 0;
  for (const auto& c : r.result.cases) {
    EXPECT_EQ(c.evidence_files, (std::vector<std::string>{"evidence/" + c.id + ".pcapng", "evidence/" + c.id + ".context.json"}))
        << c.id;
    std::vector<harness::ReadInterface> file;
    ASSERT_EQ(harness::read_capture_file(out.path() / c.evidence_files.at(0), file), "");
    for (const auto& ch : c.checks) {
      EXPECT_EQ(ch.message.find("evidence/" + c.id + "/"), std::string::npos) << ch.message;
      for (const auto& e : ch.evidence) {
        if (e.pcap.rfind("pcaps/", 0) == 0) continue;  // a golden's own packet
        EXPECT_EQ(e.pcap, "evidence/" + c.id + ".pcapng") << c.id << " " << ch.name;
        if (e.packet_index < 0) continue;
        bool found = false;
        for (const auto& i : file) {
          for (std::size_t k = 0; k < i.file_index.size(); ++k) {
            if (i.file_index[k] != static_cast<std::uint64_t>(e.packet_index)) continue;
            found = true;
            EXPECT_EQ(i.capture.packet(k).ts_ns, e.ts_ns) << c.id << " " << ch.name << " frame " << e.packet_index;
          }
        }
        EXPECT_TRUE(found) << c.id << ": no frame " << e.packet_index;
        EXPECT_EQ(e.display_filter.rfind("frame.number == " + std::to_string(e.packet_index + 1), 0), 0u)
            << e.display_filter;
        ++cited;
      }
    }
  }
  EXPECT_GT(cited, 0u) << "the defects left no packet evidence: the test checked nothing";
  EXPECT_EQ(r.result.evidence.files, 4u);  // a pcapng and its context file per case
  EXPECT_EQ(r.result.evidence.bytes, bytes_under(out.path() / "evidence"));
  EXPECT_NE(r.out.find("evidence: 4 files, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" MB (--evidence all, --snaplen auto)"), std::string::npos) << r.out;
}

TEST(EvidenceRun, FailuresKeepsOnlyTheFilesOfCasesThatDidNotPass) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("reorder-v-001").string(), case_file("spray-v-001").string()};
  o.dut = "reference:sack-off-by-one";
  o.out = out.path();
  o.evidence.keep = EvidenceKeep::kFailures;
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result) << r.err;
  ASSERT_EQ(r.find("spray-v-001")->verdict, harness::Verdict::kPass);
  ASSERT_NE(r.find("reorder-v-001")->verdict, harness::Verdict::kPass);
  EXPECT_TRUE(fs::exists(out.path() / "evidence/reorder-v-001.pcapng"));
  EXPECT_FALSE(fs::exists(out.path() / "evidence/spray-v-001.pcapng"));
  EXPECT_TRUE(r.find("spray-v-001")->evidence_files.empty());
  EXPECT_EQ(r.result.evidence.keep, "failures");
  EXPECT_EQ(r.result.evidence.files, 2u);  // reorder-v-001's pcapng and context file
}

// The checks judge the in-memory captures: the snap length of the files changes no verdict, no
// check message, no evidence reference, over the whole library.
TEST(EvidenceRun, SnapLengthNeverChangesAVerdictOverTheWholeLibrary) {
  TempDir full_out, auto_out;
  RunOptions o;
  o.cases = {(source_dir() / "cases").string()};
  o.jobs = 2;
  o.out = full_out.path();
  o.evidence.snap = SnapMode::kFull;
  const SuiteRun full = run(o);
  o.out = auto_out.path();
  o.evidence.snap = SnapMode::kAuto;
  const SuiteRun cut = run(o);
  ASSERT_TRUE(full.has_result && cut.has_result) << full.err << cut.err;
  ASSERT_EQ(full.result.cases.size(), cut.result.cases.size());
  ASSERT_GE(full.result.cases.size(), 180u);
  for (std::size_t i = 0; i < full.result.cases.size(); ++i) {
    const auto& a = full.result.cases[i];
    const auto& b = cut.result.cases[i];
    EXPECT_EQ(a.verdict, b.verdict) << a.id;
    EXPECT_EQ(a.message, b.message) << a.id;
    EXPECT_EQ(a.checks, b.checks) << a.id;
  }
  EXPECT_EQ(full.rc, cut.rc);
  EXPECT_EQ(full.result.evidence.files, cut.result.evidence.files);
  EXPECT_LT(cut.result.evidence.bytes, full.result.evidence.bytes);
  // About half a megabyte a case (206 cases: 100 MB). The bound catches one case whose evidence
  // runs away (a retry case probing an unanswered path every 50 us for 40 s wrote 128 MB alone).
  EXPECT_LT(cut.result.evidence.bytes, 120'000'000u) << "the default keeps a passing run under 120 MB";
  std::cout << "evidence volume: --snaplen full " << full.result.evidence.bytes << " bytes in "
            << full.result.evidence.files << " files; auto " << cut.result.evidence.bytes << " bytes\n";
}

}  // namespace
}  // namespace mrc::run::testing
