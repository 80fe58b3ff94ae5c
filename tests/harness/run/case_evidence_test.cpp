// A case's evidence: one pcapng for all taps, every check's reference mapped to the frame in that
// file, the keep policy, the snap length, and a failed write.
#include "harness/run/case_evidence.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "harness/capture/pcapng.hpp"

namespace mrc::run {
namespace {

namespace fs = std::filesystem;

class Scratch {
 public:
  Scratch() {
    std::string tmpl = (fs::temp_directory_path() / "mrc-evidence-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

harness::TapCapture tap(const std::string& case_id, const std::string& name, bool from_dut, int port,
                        const std::vector<std::uint64_t>& ts, std::size_t len) {
  harness::TapCapture t;
  t.name = name;
  t.pcap = tap_evidence_key(case_id, name);
  t.host = 0;
  t.port = port;
  t.from_dut = from_dut;
  std::vector<std::uint8_t> b(len, 0x55);
  for (std::size_t i = 0; i < ts.size(); ++i) {
    b[0] = static_cast<std::uint8_t>(from_dut ? 0xB0 : 0xA0);
    b[1] = static_cast<std::uint8_t>(i);
    t.capture.add(ts[i], b);
  }
  return t;
}

struct Fixture {
  harness::Case c;
  SessionResult s;
  harness::CaseResult r;
  Fixture() {
    c.id = "spray-v-901";
    harness::Check k;
    k.params = harness::DistributionCheck{};
    c.checks.push_back(k);
    // rx: 100 300 500; tx: 50 300 400 -> file: tx0 rx0 rx1 tx1 tx2 rx2
    s.ctx.taps.push_back(tap(c.id, "dut.p1.rx", false, 1, {100, 300, 500}, 1000));
    s.ctx.taps.push_back(tap(c.id, "dut.p1.tx", true, 1, {50, 300, 400}, 1000));
    r.id = c.id;
    r.verdict = harness::Verdict::kFail;
    harness::CheckResult cr;
    cr.verdict = harness::Verdict::kFail;
    cr.message = "EV 3 twice (evidence/spray-v-901/dut.p1.tx.pcapng packet 2)";
    harness::Evidence e;
    e.pcap = tap_evidence_key(c.id, "dut.p1.tx");
    e.packet_index = 2;
    e.display_filter = "frame.number == 3 && mrc.bth.psn == 9";
    cr.evidence.push_back(e);
    harness::Evidence g;  // a golden's own packet: not a tap, left alone
    g.pcap = "pcaps/spray/spray-v-901.pcapng";
    g.packet_index = 2;
    g.display_filter = "frame.number == 3";
    cr.evidence.push_back(g);
    r.checks.push_back(cr);
  }
};

TEST(CaseEvidence, ReferencesPointAtTheSameFrameInTheCaseFile) {
  Scratch out;
  Fixture f;
  keep_evidence(f.r, f.c, f.s, out.path(), true, EvidenceOptions{});
  ASSERT_EQ(f.r.evidence_error, "");
  ASSERT_EQ(f.r.evidence_files,
            (std::vector<std::string>{"evidence/spray-v-901.pcapng", "evidence/spray-v-901.context.json"}));
  const harness::Evidence& e = f.r.checks[0].evidence[0];
  EXPECT_EQ(e.pcap, "evidence/spray-v-901.pcapng");
  EXPECT_EQ(e.packet_index, 4);
  EXPECT_EQ(e.display_filter, "frame.number == 5 && mrc.bth.psn == 9");
  EXPECT_EQ(f.r.checks[0].message, "EV 3 twice (evidence/spray-v-901.pcapng frame 5)");  // Wireshark's number
  const harness::Evidence& g = f.r.checks[0].evidence[1];
  EXPECT_EQ(g.pcap, "pcaps/spray/spray-v-901.pcapng");
  EXPECT_EQ(g.packet_index, 2);

  // The frame the reference names is the packet the check cited: tx packet 2.
  std::vector<harness::ReadInterface> file;
  ASSERT_EQ(harness::read_capture_file(out.path() / e.pcap, file), "");
  ASSERT_EQ(file.size(), 2u);
  EXPECT_EQ(file[1].name, "dut.p1.tx");
  ASSERT_EQ(file[1].file_index.size(), 3u);
  EXPECT_EQ(file[1].file_index[2], 4u);
  EXPECT_EQ(file[1].capture.bytes(2)[1], 2);
}

TEST(CaseEvidence, FailuresKeepsOnlyCasesThatDidNotPass) {
  for (const harness::Verdict v : {harness::Verdict::kPass, harness::Verdict::kFail, harness::Verdict::kError}) {
    Scratch out;
    Fixture f;
    f.r.verdict = v;
    EvidenceOptions o;
    o.keep = EvidenceKeep::kFailures;
    keep_evidence(f.r, f.c, f.s, out.path(), true, o);
    const bool kept = v != harness::Verdict::kPass;
    EXPECT_EQ(fs::exists(out.path() / "evidence/spray-v-901.pcapng"), kept) << to_string(v);
    EXPECT_EQ(f.r.evidence_files.size(), kept ? 2u : 0u) << to_string(v);  // the pcapng and its context
    EXPECT_EQ(f.r.checks[0].evidence[0].packet_index, 4) << "mapped whether kept or not";
  }
  Scratch out;
  Fixture f;
  EvidenceOptions none;
  none.keep = EvidenceKeep::kNone;
  keep_evidence(f.r, f.c, f.s, out.path(), true, none);
  EXPECT_FALSE(fs::exists(out.path() / "evidence"));
  EXPECT_TRUE(f.r.evidence_files.empty());
}

TEST(CaseEvidence, AutoSnapLengthKeepsHeadersUnlessACheckReadsPayload) {
  Fixture f;
  EXPECT_FALSE(case_needs_payload(f.c));
  EXPECT_EQ(case_snaplen(f.c, EvidenceOptions{}), kHeaderSnaplen);
  EvidenceOptions full;
  full.snap = SnapMode::kFull;
  EXPECT_EQ(case_snaplen(f.c, full), harness::kFullSnaplen);

  harness::Check golden;
  golden.params = harness::GoldenCheck{};
  harness::Case g = f.c;
  g.checks.push_back(golden);
  EXPECT_TRUE(case_needs_payload(g));
  EXPECT_EQ(case_snaplen(g, EvidenceOptions{}), harness::kFullSnaplen);

  harness::Case icrc = f.c;
  harness::Check inv;
  inv.params = harness::InvariantCheck{"icrc_valid", {}};
  icrc.checks.push_back(inv);
  EXPECT_TRUE(case_needs_payload(icrc));
  harness::Case sack = f.c;
  inv.params = harness::InvariantCheck{"sack_exact", {}};
  sack.checks.push_back(inv);
  EXPECT_FALSE(case_needs_payload(sack));

  harness::Case expect = f.c;
  harness::ExpectStep x;
  x.match.push_back(harness::FieldMatch{"payload", {}, {}});
  expect.stimulus.push_back(harness::StimulusStep{{}, x});
  EXPECT_TRUE(case_needs_payload(expect));

  // The written file: every frame cut to the header stack, original length kept.
  Scratch out;
  keep_evidence(f.r, f.c, f.s, out.path(), true, EvidenceOptions{});
  std::vector<harness::ReadInterface> file;
  ASSERT_EQ(harness::read_capture_file(out.path() / "evidence/spray-v-901.pcapng", file), "");
  EXPECT_EQ(file[0].capture.packet(0).caplen, kHeaderSnaplen);
  EXPECT_EQ(file[0].capture.packet(0).origlen, 1000u);
}

TEST(CaseEvidence, AFailedWriteLeavesNoFileAndSaysWhy) {
  Scratch out;
  std::ofstream(out.path() / "evidence") << "a file where the folder should be";
  Fixture f;
  keep_evidence(f.r, f.c, f.s, out.path(), true, EvidenceOptions{});
  EXPECT_TRUE(f.r.evidence_files.empty());
  EXPECT_EQ(f.r.evidence_error, std::string("evidence/spray-v-901.pcapng: ") + std::strerror(ENOTDIR));
}

TEST(CaseEvidence, OptionValuesAreCheckedWithTheirRange) {
  EvidenceOptions o;
  EXPECT_EQ(parse_evidence_keep("failures", o.keep), "");
  EXPECT_EQ(o.keep, EvidenceKeep::kFailures);
  EXPECT_NE(parse_evidence_keep("on", o.keep).find("all (a pcapng per case), failures"), std::string::npos);
  EXPECT_EQ(parse_snaplen("full", o), "");
  EXPECT_EQ(o.snap, SnapMode::kFull);
  EXPECT_EQ(parse_snaplen("1024", o), "");
  EXPECT_EQ(snaplen_spelling(o), "1024");
  for (const char* bad : {"0", "-1", "289", "262145", "99999999999999999999999", "abc", "", "12k"}) {
    EXPECT_NE(parse_snaplen(bad, o).find("--snaplen"), std::string::npos) << bad;
  }
  EXPECT_NE(parse_snaplen("0", o).find("290 .. 262144"), std::string::npos);
}

}  // namespace
}  // namespace mrc::run
