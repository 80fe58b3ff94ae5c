// junit.xml: valid against tests/harness/report/junit.xsd (checked with xmllint), outcome
// elements and counts agree, properties carry what CI dashboards group by, and hostile text is
// escaped so the file stays well-formed.
#include <gtest/gtest.h>

#include "harness/report/report.hpp"
#include "harness/report/text_escape.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

using test::run_command;
using test::shell_quote;

class JunitXml : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::have_program("xmllint")) {
      FAIL() << "xmllint is missing: install libxml2-utils (scripts/install-deps)";
    }
    dir_ = test::fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const RunResult& run, const std::string& name = "junit.xml") {
    const auto path = dir_ / name;
    test::write_file(path, render_junit_xml(run));
    return path;
  }
  static test::CommandResult validate(const std::filesystem::path& file) {
    return run_command("xmllint --noout --schema " + shell_quote(test::source_path("tests/harness/report/junit.xsd")) +
                           " " + shell_quote(file.string()),
                       60);
  }
  static std::string xpath(const std::filesystem::path& file, const std::string& expr) {
    const auto r = run_command("xmllint --xpath " + shell_quote(expr) + " " + shell_quote(file.string()), 30);
    EXPECT_EQ(r.status, 0) << expr << ": " << r.output;
    std::string out = r.output;
    if (!out.empty() && out.back() == '\n') out.pop_back();  // xmllint ends its answer with a newline
    return out;
  }

  std::filesystem::path dir_;
};

TEST_F(JunitXml, ValidatesAgainstTheJunitSchema) {
  RunResult interrupted = test::sample_run();
  interrupted.interrupted = true;
  int i = 0;
  for (const RunResult& run : {test::sample_run(), test::sample_run_with_wall_clock(), test::hostile_run(),
                               RunResult{}, interrupted}) {
    const auto file = write(run, "junit" + std::to_string(i++) + ".xml");
    const auto r = validate(file);
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("validates"), std::string::npos) << r.output;
  }
}

TEST_F(JunitXml, SchemaRefusesWhatCiToolsWouldNotRead) {
  // Proves the XSD check bites: a testcase without classname, a time with an exponent, a
  // failure outside a testcase.
  const std::string head = "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"s\" tests=\"1\">";
  for (const std::string& bad : {head + "<testcase name=\"a\"/></testsuite></testsuites>",
                                 head + "<testcase name=\"a\" classname=\"c\" time=\"1e-3\"/></testsuite></testsuites>",
                                 head + "<failure/></testsuite></testsuites>",
                                 std::string("<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"s\"/></testsuites>")}) {
    const auto file = dir_ / "bad.xml";
    test::write_file(file, bad);
    EXPECT_NE(validate(file).status, 0) << bad;
  }
}

TEST_F(JunitXml, CountsAgreeWithOutcomeElements) {
  const auto file = write(test::sample_run());
  EXPECT_EQ(xpath(file, "count(//testcase)"), "8");
  // 3 FAIL + 1 unexpected pass + 1 MUST case left INCONCLUSIVE (not-judged: the run is not
  // conformant, so a dashboard must not fold it away as skipped)
  EXPECT_EQ(xpath(file, "count(//testcase/failure)"), "5");
  EXPECT_EQ(xpath(file, "count(//testcase/failure[@type='not-judged'])"), "1");
  EXPECT_EQ(xpath(file, "count(//testcase/error)"), "1");
  EXPECT_EQ(xpath(file, "count(//testcase/skipped)"), "1");  // the UNSUPPORTED one
  EXPECT_EQ(xpath(file, "string(/testsuites/@tests)"), "8");
  EXPECT_EQ(xpath(file, "string(/testsuites/@failures)"), "5");
  EXPECT_EQ(xpath(file, "string(/testsuites/@errors)"), "1");
  EXPECT_EQ(xpath(file, "string(/testsuites/@skipped)"), "1");
  EXPECT_EQ(xpath(file, "count(/testsuites/testsuite)"), "7");  // one per area
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='mrc.spray']/@tests)"), "2");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='mrc.spray']/@failures)"), "1");
  EXPECT_EQ(xpath(file, "count(//testcase[@classname='mrc.spray'])"), "2");
  // Every suite's attributes are the counts of its own elements.
  EXPECT_EQ(xpath(file, "count(//testsuite[@tests != count(testcase) or @failures != count(testcase/failure) or "
                        "@errors != count(testcase/error) or @skipped != count(testcase/skipped)])"),
            "0");
  EXPECT_EQ(xpath(file, "count(//testcase[@name='spray-v-001']/*[self::failure or self::error or self::skipped])"),
            "0");
  // No wall clock in the run: every testcase, suite and the root still has a time, the testbed
  // time the cases ran for (deterministic: the same seed writes the same file).
  EXPECT_EQ(xpath(file, "count(//testcase[not(@time)])"), "0");
  EXPECT_EQ(xpath(file, "count(//testsuite[not(@time)])"), "0");
  EXPECT_EQ(xpath(file, "string(//testcase[@name='spray-v-001']/@time)"),
            format_fixed(static_cast<double>(test::sample_run().cases[0].sim_time_ns) / 1e9, 6));
}

TEST_F(JunitXml, WallClockTimesWhenTheRunRecordedThem) {
  const auto file = write(test::sample_run_with_wall_clock());
  EXPECT_EQ(xpath(file, "string(//testcase[@name='spray-v-001']/@time)"), "0.250");
  EXPECT_EQ(xpath(file, "string(/testsuites/@time)"), "12.750");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='mrc.spray']/@time)"), "0.750");  // 250 + 500 ms
}

TEST_F(JunitXml, PropertiesCarryClauseLevelBehaviourSeedDutTestbed) {
  const auto file = write(test::sample_run());
  const std::string tc = "//testcase[@name='spray-v-001']/properties/property";
  EXPECT_EQ(xpath(file, "count(" + tc + "[@name='clause'])"), "2");
  EXPECT_EQ(xpath(file, "string(" + tc + "[@name='clause'][2]/@value)"), "SPRAY-UNIFORM-PLANES");
  EXPECT_EQ(xpath(file, "string(" + tc + "[@name='level']/@value)"), "MUST");
  EXPECT_EQ(xpath(file, "string(" + tc + "[@name='behaviour']/@value)"), "valid");
  EXPECT_EQ(xpath(file, "string(" + tc + "[@name='seed']/@value)"), "42");
  EXPECT_EQ(xpath(file, "string(" + tc + "[@name='dut']/@value)"), "reference:spray-single-ev");
  EXPECT_EQ(xpath(file, "string(" + tc + "[@name='testbed']/@value)"), "sim:mini");
  EXPECT_EQ(xpath(file, "string(//testcase[@name='failover-v-001']/properties/property[@name='expectation']/@value)"),
            "expected");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='mrc.spray']/properties/property[@name='git_hash']/@value)"),
            "8f4f26c0ab12");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='mrc.spray']/properties/property[@name='wire']/@value)"),
            "mrc-1.0 spec-derived, model rev 2");
}

TEST_F(JunitXml, PeerPropertyOnlyWhenThePeerIsNotTheDefault) {
  const auto plain = write(test::sample_run(), "plain.xml");
  EXPECT_EQ(xpath(plain, "count(//property[@name='peer'])"), "0");
  RunResult run = test::sample_run();
  run.meta.peer = "reference:sack-off-by-one";
  const auto file = write(run, "peer.xml");
  EXPECT_EQ(validate(file).status, 0);
  EXPECT_EQ(xpath(file, "count(/testsuites/testsuite/properties/property[@name='peer'])"), "7");  // every suite
  EXPECT_EQ(xpath(file, "count(//testcase/properties/property[@name='peer'])"), "8");            // every case
  EXPECT_EQ(xpath(file, "string(//testcase[@name='spray-v-001']/properties/property[@name='peer']/@value)"),
            "reference:sack-off-by-one");
}

TEST_F(JunitXml, OutcomeElementsCarryMessageTypeAndEvidence) {
  const auto file = write(test::sample_run());
  const std::string fail = "//testcase[@name='spray-v-002']/failure";
  EXPECT_EQ(xpath(file, "string(" + fail + "/@type)"), "non-conformance");  // a MUST case under profile full
  // The finding first: requirement, field expected against observed, evidence file and frame.
  EXPECT_EQ(xpath(file, "string(" + fail + "/@message)"),
            "[SPRAY-PER-PACKET-EV] udp.sport expected 49152..65535 (hashed EV), observed 4791 "
            "(evidence/spray-v-002/dut0.pcapng frame 42); distribution/ev: 1 of 16 EVs carried 100% of packets "
            "(p < 1e-300)");
  const std::string body = xpath(file, "string(" + fail + ")");
  EXPECT_NE(body.find("clauses: SPRAY-PER-PACKET-EV (MUST)"), std::string::npos) << body;
  EXPECT_NE(body.find("[FAIL] distribution/ev (distribution): all packets on EV 0x3 <script>"), std::string::npos);
  EXPECT_NE(body.find("evidence/spray-v-002/dut0.pcapng frame 42 at 54250 ns; field udp.sport; expected 49152..65535 "
                      "(hashed EV), observed 4791; filter: frame.number == 42"),
            std::string::npos)
      << body;
  EXPECT_EQ(body.find("golden/headers"), std::string::npos);  // passing checks are not in the failure body
  EXPECT_NE(xpath(file, "string(//testcase[@name='spray-v-002']/system-out)").find("[PASS] golden/headers"),
            std::string::npos);

  EXPECT_EQ(xpath(file, "string(//testcase[@name='invalid-i-001']/error/@type)"), "ERROR");
  EXPECT_NE(xpath(file, "string(//testcase[@name='invalid-i-001']/error)").find("golden file missing"),
            std::string::npos);
  EXPECT_EQ(xpath(file, "string(//testcase[@name='srcroute-v-001']/skipped/@message)"),
            "UNSUPPORTED: the DUT does not declare capability srv6-usid");
  EXPECT_EQ(xpath(file, "string(//testcase[@name='reliab-v-001']/failure[@type='not-judged']/@message)"),
            "INCONCLUSIVE: capture dropped 3 packets on tap0: cannot judge");
  EXPECT_EQ(xpath(file, "string(//testcase[@name='evctl-o-001']/failure/@type)"), "unexpected-pass");
  EXPECT_EQ(xpath(file, "string(//testcase[@name='failover-v-001']/failure/@message)"),
            "[expected: late retransmit on the failed EV, fixed in fw 2.1] [FAILOVER-DETECT-TIME] mrc.ev expected not 3 "
            "after t=1.5 ms, observed 3 (evidence/failover-v-001/tap0.pcapng frame 1202); recovery took 700 us, bound 1 "
            "ms; but EV 3 kept 1 packet after the fault");
}

// A FAIL that does not count stays a <failure> (CI dashboards hide <skipped>), typed advisory;
// every suite says whether the run is conformant.
TEST_F(JunitXml, AdvisoriesStayFailuresTypedAdvisoryAndSuitesSayIfConformant) {
  RunResult run = test::sample_run();
  run.cases = {run.cases[0], run.cases[1]};  // spray-v-001 PASS, spray-v-002 MUST FAIL (published)
  CaseResult should = test::make_case("reorder-v-016", "reorder", Verdict::kFail, "SHOULD");
  should.basis = Basis::kModel;
  should.message = "no loss NACK for the hole at PSN 7";
  run.cases.push_back(should);

  const auto full = write(run, "full.xml");
  EXPECT_EQ(validate(full).status, 0);
  EXPECT_EQ(xpath(full, "count(//testcase/failure)"), "2");
  EXPECT_EQ(xpath(full, "string(/testsuites/@failures)"), "2");
  EXPECT_EQ(xpath(full, "string(//testcase[@name='spray-v-002']/failure/@type)"), "non-conformance");
  EXPECT_EQ(xpath(full, "string(//testcase[@name='reorder-v-016']/failure/@type)"), "advisory");
  EXPECT_EQ(xpath(full, "string(//testcase[@name='reorder-v-016']/failure/@message)"),
            "[advisory] no loss NACK for the hole at PSN 7");
  EXPECT_EQ(xpath(full, "string(//testcase[@name='reorder-v-016']/properties/property[@name='basis']/@value)"), "model");
  EXPECT_EQ(xpath(full, "count(/testsuites/testsuite/properties/property[@name='conformant'][@value='false'])"), "2");
  EXPECT_EQ(xpath(full, "string(//testsuite[@name='mrc.reorder']/properties/property[@name='profile']/@value)"), "full");
  EXPECT_EQ(xpath(full, "string(//testsuite[@name='mrc.reorder']/properties/property[@name='conformance']/@value)"),
            "conformant: no (profile full): MUST failures 1 (published 1, spec 0, spec-single 0, model 0), MUST not "
            "judged 0, advisories 1 (SHOULD/MAY 1, MUST outside the profile 0)");

  // Without the MUST failure the run is conformant; the advisory is still a failure.
  run.cases.erase(run.cases.begin() + 1);
  const auto ok = write(run, "ok.xml");
  EXPECT_EQ(xpath(ok, "count(/testsuites/testsuite/properties/property[@name='conformant'][@value='true'])"), "2");
  EXPECT_EQ(xpath(ok, "count(//testcase/failure[@type='advisory'])"), "1");

  // Profile published: a model-basis MUST FAIL is an advisory too.
  run.cases[1].level = "MUST";
  run.profile = ConformanceProfile::kPublished;
  const auto published = write(run, "published.xml");
  EXPECT_EQ(xpath(published, "string(//testcase[@name='reorder-v-016']/failure/@type)"), "advisory");
  EXPECT_EQ(xpath(published, "string(//testsuite[@name='mrc.spray']/properties/property[@name='profile']/@value)"),
            "published");
  run.profile = ConformanceProfile::kFull;
  const auto full_again = write(run, "full-again.xml");
  EXPECT_EQ(xpath(full_again, "string(//testcase[@name='reorder-v-016']/failure/@type)"), "non-conformance");
}

TEST_F(JunitXml, HostileTextIsEscapedAndStaysWellFormed) {
  const RunResult run = test::hostile_run();
  const std::string xml = render_junit_xml(run);
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
  EXPECT_EQ(xml.find("]]></failure><script>"), std::string::npos);
  for (char c : xml) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_FALSE(u < 0x20 && c != '\n' && c != '\t') << "raw control byte " << int(u);
  }
  const auto file = write(run);
  EXPECT_EQ(validate(file).status, 0);
  // The parser reads back exactly the text, with controls made visible.
  EXPECT_EQ(xpath(file, "string(//testcase[@name='reorder-v-001']/properties/property[@name='title']/@value)"),
            "<script>alert('x')</script> & \"quoted\" \\u0001\\u0007\\u001B[31m");
  EXPECT_EQ(xpath(file, "string(//testcase[@name='reorder-v-001']/failure/@message)"),
            "[REORDER-PLACE-BY-RETH] bth.psn\"><b> expected <1>, observed 2 (javascript:alert(1) frame 1); "
            "]]></failure><script>evil()</script>\ttab\r\nCRLF \\u007F del \\u0085 nel");
  EXPECT_EQ(xpath(file, "string(//testsuite[@name='mrc.spray']/properties/property[@name='dut']/@value)"),
            "dut bad utf8 \xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD trunc "
            "\xEF\xBF\xBD\xEF\xBF\xBDnul[\\u0000] bell\\u0007 <script>alert(1)</script> & \"'");
}

TEST_F(JunitXml, SameRunGivesByteIdenticalText) {
  EXPECT_EQ(render_junit_xml(test::sample_run()), render_junit_xml(test::sample_run()));
  EXPECT_EQ(render_junit_xml(test::hostile_run()), render_junit_xml(test::hostile_run()));
}

}  // namespace
}  // namespace mrc::harness
