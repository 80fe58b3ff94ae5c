// `list`, `diff` and `golden` as functions.
#include "harness/cli/commands.hpp"
#include "harness/report/file_digest.hpp"
#include <sys/wait.h>

#include <cstdio>
#include <cstring>

#include "harness/capture/pcapng.hpp"

#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

using cli::DiffCliOptions;
using cli::GoldenOptions;
using cli::ListOptions;
using cli::run_diff;
using cli::run_golden;
using cli::run_list;

DiffCliOptions diff_opts(const std::string& a, const std::string& b) {
  DiffCliOptions o;
  o.a = a;
  o.b = b;
  return o;
}

TEST(ListCommand, ListsTheStarterSetWithLevelsAndClauses) {
  ListOptions o;
  o.cases = {(source_dir() / "cases").string()};
  std::ostringstream out, err;
  EXPECT_EQ(run_list(o, out, err), 0) << err.str();
  const std::string s = out.str();
  for (const char* id : {"spray-v-001", "reorder-v-001", "failover-v-001", "srcroute-v-001", "evctl-v-001",
                         "reliab-v-001", "invalid-i-001"}) {
    EXPECT_NE(s.find(id), std::string::npos) << id;
  }
  EXPECT_NE(s.find("clauses=SPRAY-PER-PACKET-EV,SPRAY-UNIFORM-PLANES"), std::string::npos);
  o.tags = {"srv6"};
  std::ostringstream only;
  EXPECT_EQ(run_list(o, only, err), 0);
  EXPECT_NE(only.str().find("srcroute-v-001"), std::string::npos);
  EXPECT_EQ(only.str().find("spray-v-001"), std::string::npos);
}

TEST(DiffCommand, SameDifferentAndBadInput) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("spray-v-001").string()};
  o.out = out.path();
  ASSERT_EQ(run(o).rc, 0);
  o.seed = 99;
  o.out = out.path() / "other";
  ASSERT_EQ(run(o).rc, 0);
  const std::string a = (out.path() / "evidence/spray-v-001.pcapng").string();
  const std::string b = (out.path() / "other/evidence/spray-v-001.pcapng").string();
  DiffCliOptions tx = diff_opts(a, a);
  tx.iface = "dut.p1.tx";
  std::ostringstream s1, e1;
  EXPECT_EQ(run_diff(tx, s1, e1), 0) << s1.str() << e1.str();
  tx.b = b;
  std::ostringstream s2, e2;
  EXPECT_EQ(run_diff(tx, s2, e2), 1) << s2.str() << e2.str();
  EXPECT_FALSE(s2.str().empty());
  std::ostringstream s3, e3;
  EXPECT_EQ(run_diff(diff_opts(a, "/nonexistent.pcapng"), s3, e3), 2);
  EXPECT_NE(e3.str().find("nonexistent"), std::string::npos);
  DiffCliOptions masked = diff_opts(a, a);
  masked.masks = {"no.such.field"};
  masked.iface = "dut.p1.tx";
  std::ostringstream s4, e4;
  EXPECT_EQ(run_diff(masked, s4, e4), 2);
}

// The bytes of a pcapng file of two interfaces whose second one (`late`) is described only after
// the first one's packets: the SHB and IDB of `first`'s file, its packets, then `late`'s IDB and
// packets, renumbered to interface 1.
std::string late_interface_file(const harness::Capture& first, const harness::Capture& late) {
  std::string out = harness::pcapng_bytes(first);
  const std::string second = harness::pcapng_bytes(late);
  const auto u32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, second.data() + at, 4);
    return v;
  };
  for (std::size_t pos = u32(4); pos < second.size(); pos += u32(pos + 4)) {  // every block after the SHB
    std::string block = second.substr(pos, u32(pos + 4));
    if (u32(pos) == 6) block[8] = 1;  // an EPB's interface id (little-endian, as we write)
    out += block;
  }
  return out;
}

// A file describes its second interface only after the first one's packets: the diff learns that
// the files have two interfaces only by reading them through, and then compares the interfaces
// name by name as it always did, not just the first one.
TEST(DiffCommand, AnInterfaceDescribedLateIsComparedByName) {
  TempDir dir;
  std::vector<harness::ReadInterface> x;
  std::vector<harness::ReadInterface> y;
  ASSERT_EQ(harness::read_capture_file(source_dir() / "pcaps/spray/spray-v-005.pcapng", x), "");
  ASSERT_EQ(harness::read_capture_file(source_dir() / "pcaps/spray/spray-v-018.pcapng", y), "");
  harness::Capture first("t1");
  harness::Capture late("t2");
  harness::Capture late_changed("t2");
  for (std::size_t i = 0; i < x[0].capture.size(); ++i) first.add(x[0].capture.packet(i).ts_ns, x[0].capture.bytes(i));
  for (std::size_t i = 0; i < y[0].capture.size(); ++i) {
    std::vector<std::uint8_t> bytes(y[0].capture.bytes(i).begin(), y[0].capture.bytes(i).end());
    late.add(y[0].capture.packet(i).ts_ns, bytes);
    if (i == 2) bytes[bytes.size() - 10] ^= 0xFF;  // a payload byte: the payload digest differs
    late_changed.add(y[0].capture.packet(i).ts_ns, bytes);
  }
  const auto a = dir.path() / "a.pcapng";
  const auto b = dir.path() / "b.pcapng";
  ASSERT_EQ(harness::write_whole_file(a, late_interface_file(first, late)), "");
  ASSERT_EQ(harness::write_whole_file(b, late_interface_file(first, late_changed)), "");
  std::ostringstream out, err;
  EXPECT_EQ(run_diff(diff_opts(a.string(), b.string()), out, err), 1) << out.str() << err.str();
  EXPECT_NE(out.str().find("interface t1:"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("interface t2:"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("payload"), std::string::npos) << out.str();
}

// W13: a case may configure its trim DSCPs (spray-v-030: 21 and 23), and the diff decodes a
// packet in them as a stub only when told: then a stub's last byte is payload, not a stale ICRC,
// so changing it is a payload difference.
TEST(DiffCommand, TheTrimmedDscpOptionsDecodeACasesOwnTrimsAsStubs) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("spray-v-030").string()};
  o.out = out.path();
  ASSERT_EQ(run(o).rc, 0);
  std::vector<harness::ReadInterface> taps;
  ASSERT_EQ(harness::read_capture_file(out.path() / "evidence/spray-v-030.pcapng", taps), "");
  harness::Capture a("tap");
  harness::Capture b("tap");
  for (const auto& t : taps) {
    int stub = -1;
    for (std::size_t i = 0; i < t.capture.size() && stub < 0; ++i) {
      const auto bytes = t.capture.bytes(i);
      const bool v6 = bytes.size() > 16 && bytes[12] == 0x86 && bytes[13] == 0xDD;
      if (v6 && (((bytes[14] & 0x0F) << 4 | bytes[15] >> 4) >> 2) == 21) stub = static_cast<int>(i);
    }
    if (stub < 0) continue;
    for (std::size_t i = 0; i < t.capture.size(); ++i) {
      std::vector<std::uint8_t> bytes(t.capture.bytes(i).begin(), t.capture.bytes(i).end());
      a.add(t.capture.packet(i).ts_ns, bytes);
      if (static_cast<int>(i) == stub) bytes.back() ^= 0xFF;
      b.add(t.capture.packet(i).ts_ns, bytes);
    }
    break;
  }
  ASSERT_GT(a.size(), 0u) << "no frame in DSCP 21 in the run's evidence";
  const auto pa = out.path() / "a.pcapng";
  const auto pb = out.path() / "b.pcapng";
  ASSERT_EQ(harness::write_whole_file(pa, harness::pcapng_bytes(a)), "");
  ASSERT_EQ(harness::write_whole_file(pb, harness::pcapng_bytes(b)), "");
  DiffCliOptions d = diff_opts(pa.string(), pb.string());
  std::ostringstream s1, e1;
  EXPECT_EQ(run_diff(d, s1, e1), 0) << s1.str() << e1.str();  // W13's 11: a full frame whose ICRC differs
  d.trimmed_dscp = 21;
  d.trimmed_lasthop_dscp = 23;
  std::ostringstream s2, e2;
  EXPECT_EQ(run_diff(d, s2, e2), 1) << s2.str() << e2.str();
  EXPECT_NE(s2.str().find("payload (exact)"), std::string::npos) << s2.str();
}

#ifdef MRC_CONFORM_BIN
// The diff's window and tolerance are limited on the command line as in cases
// (harness/case/limits.hpp): out of range, negative or NaN is exit 2 naming the option.
TEST(DiffCommand, OptionsOutsideTheirLimitsAreExit2) {
  const std::string golden = (source_dir() / "pcaps/spray/spray-v-005.pcapng").string();
  for (const char* bad : {"--window 1000001", "--window 0", "--tolerance-pct nan", "--tolerance-pct -50",
                          "--tolerance-pct 101", "--trimmed-dscp 64", "--trimmed-lasthop-dscp -1"}) {
    const std::string cmd = std::string(MRC_CONFORM_BIN) + " diff " + golden + " " + golden + " " + bad + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string text;
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) text += buf;
    const int status = ::pclose(p);
    EXPECT_EQ(WEXITSTATUS(status), 2) << bad << ": " << text;
    EXPECT_NE(text.find(std::string(bad).substr(0, std::string(bad).find(' '))), std::string::npos) << text;
  }
}
#endif

TEST(GoldenCommand, TheCommittedGoldensAreUpToDate) {
  GoldenOptions o;
  o.cases = {(source_dir() / "cases").string()};
  o.check_only = true;
  std::ostringstream out, err;
  EXPECT_EQ(run_golden(o, out, err), 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("same     pcaps/srcroute/srcroute-v-002.pcapng"), std::string::npos) << out.str();
}

TEST(GoldenCommand, WritesGoldensAndTheirManifestLines) {
  TempSuite suite;
  suite.copy_case("srcroute-v-002");
  GoldenOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.generator = "mrc-conform/test";
  std::ostringstream out, err;
  ASSERT_EQ(run_golden(o, out, err), 0) << err.str();
  const fs::path golden = suite.path() / "pcaps/srcroute/srcroute-v-002.pcapng";
  ASSERT_TRUE(fs::exists(golden));
  const std::string manifest = slurp(suite.path() / "pcaps/MANIFEST");
  const std::string line =
      harness::sha256_file_hex(golden).value() + "  pcaps/srcroute/srcroute-v-002.pcapng  7  mrc-conform/test";
  EXPECT_NE(manifest.find(line), std::string::npos) << manifest;
  // Regenerating gives the same bytes; the check mode agrees.
  const std::string first = slurp(golden);
  std::ostringstream out2;
  ASSERT_EQ(run_golden(o, out2, err), 0);
  EXPECT_EQ(slurp(golden), first);
  o.check_only = true;
  std::ostringstream out3;
  EXPECT_EQ(run_golden(o, out3, err), 0) << out3.str();
  // The golden's case passes against it.
  TempDir res;
  RunOptions ro;
  ro.cases = {(suite.path() / "cases").string()};
  ro.out = res.path();
  EXPECT_EQ(run(ro).rc, 0);
  // Nor does a conformant DUT fail it with another seed (the golden's payload is its case's own
  // seed's) or another EV order (the EV fields are a choice among the eligible EVs).
  ro.seed = 99;
  EXPECT_EQ(run(ro).rc, 0) << "--seed 99";
  ro.dut = "reference-random";
  EXPECT_EQ(run(ro).rc, 0) << "--dut reference-random --seed 99";
}

// An EV denied before traffic is not eligible: a golden case whose profile denies EV 2 passes on
// any conformant EV order and fails a DUT that sprays on the denied EV, naming the choice class.
TEST(GoldenCommand, ADeniedEvIsNotAnEligibleChoice) {
  TempSuite suite;
  std::ifstream in(case_file("spray-v-005"));
  std::stringstream yaml;
  yaml << in.rdbuf();
  std::string text = yaml.str();
  auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("id: spray-v-005", "id: spray-v-901");
  replace("pcaps/spray/spray-v-005.pcapng", "pcaps/spray/spray-v-901.pcapng");
  replace("      - {value: \"0xAA63\", port: 8}\n", "      - {value: \"0xAA63\", port: 8}\n    denied: [2]\n");
  suite.write_case("spray-v-901", text);
  GoldenOptions o;
  o.cases = {(suite.path() / "cases").string()};
  std::ostringstream out, err;
  ASSERT_EQ(run_golden(o, out, err), 0) << err.str();
  TempDir res;
  RunOptions ro;
  ro.cases = o.cases;
  ro.out = res.path();
  ro.dut = "reference-random";
  EXPECT_EQ(run(ro).rc, 0) << "another order of the eligible EVs";
  ro.dut = "reference:use-denied-ev";
  const SuiteRun bad = run(ro);
  EXPECT_EQ(bad.rc, 1);
  ASSERT_TRUE(bad.find("spray-v-901"));
  EXPECT_NE(bad.find("spray-v-901")->message.find("is not the expansion of any eligible EV (7 eligible) (choice)"),
            std::string::npos)
      << bad.find("spray-v-901")->message;
}

}  // namespace
}  // namespace mrc::run::testing
