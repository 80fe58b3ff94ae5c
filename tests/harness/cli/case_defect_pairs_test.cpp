// Cases paired with the catalog defect each exists to catch: every one PASSes on the reference
// endpoint and FAILs on its defect, with the failing check naming the requirement (design.md §4:
// every check is proven to bite). The starter set (one per area and check type) comes first; the
// rest are the cases whose requirements needed a new observable (EV profile operations and EV
// events, endpoint operations, NSCC, invalid input, the QP error path, dynamic MPR). The campaign
// (`ctest -L campaign`) covers the whole library against the whole catalog.
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

struct Pair {
  const char* id;
  const char* defect;  // nullptr: no catalog defect breaks this behaviour
};

constexpr Pair kPairs[] = {
    {"spray-v-001", "spray-single-ev"},   {"spray-v-002", "use-denied-ev"},
    {"reorder-v-001", "sack-off-by-one"}, {"failover-v-001", "keep-failed-ev"},
    {"srcroute-v-001", "srh-wrong-sl"},   {"srcroute-v-002", "usid-reverse"},
    {"reliab-v-001", "no-trim-nack"},     {"evctl-v-001", "use-denied-ev"},
    {"invalid-i-001", "answer-read"},
    // EV profile operations and EV events
    {"evctl-i-101", "accept-invalid-profile"},    {"evctl-i-102", "ignore-count-limits"},
    {"evctl-o-103", "bad-profile-transition"},    {"evctl-o-104", "online-unpopulated"},
    {"evctl-o-105", "modify-online-without-cap"}, {"evctl-o-106", "modify-online-without-cap"},
    {"evctl-v-107", "no-ev-events"},              {"evctl-v-108", "events-ignore-mask"},
    {"evctl-v-109", "imprecise-drop-count"},
    // endpoint operations (SHOULD cases v-107..109: no catalog defect breaks them)
    {"reliab-v-101", "probe-needs-qp"},         {"reliab-v-102", "probe-reqid-mangled"},
    {"reliab-v-103", "probe-ignores-tc"},       {"reliab-v-104", "reqid-reuse"},
    {"reliab-v-105", "port-status-down-port-up"}, {"reliab-v-106", "probe-reqid-mangled"},
    {"reliab-v-107", nullptr},                  {"reliab-v-108", nullptr},
    {"reliab-v-109", nullptr},
    // invalid input and NSCC
    {"invalid-i-101", "accept-bad-rkey"},      {"invalid-i-102", "accept-wrong-pkey"},
    {"invalid-i-103", "accept-bad-icrc"},      {"invalid-i-104", "honour-ghost-ack"},
    {"invalid-i-008", "accept-truncated"},     {"invalid-i-012", "accept-wrong-qpn"},
    {"reliab-v-150", "nscc-exceed-max-cwnd"},  {"reliab-v-151", "nscc-no-decrease"},
    {"reliab-v-152", "nscc-md-below-target"},  {"reliab-v-153", "nscc-no-quick-adapt"},
    // the QP error path, completions at the responder, dynamic MPR
    {"reliab-v-019", "never-give-up"},         {"reorder-v-022", "double-completion"},
    {"reorder-o-002", "mpr-always-dynamic"},
    // the Transport ACK never runs ahead of cack_psn (W8)
    {"reorder-v-017", "ack-before-cack"},
    // issue 14: a trimmed stub's payload in memory, the 8-plane worst case, a flapping link timed on
    // both downs, SRv6 frames reaching the responder still encapsulated (a SHOULD case)
    {"reorder-v-019", "place-trimmed-stub"},  {"failover-v-022", "keep-failed-ev"},
    {"failover-v-023", "keep-failed-ev"},     {"srcroute-v-023", "drop-encapsulated"},
    // W2: the SRv6 EV tag, whatever its value, names one path
    {"srcroute-v-017", "srv6-tag-constant"},
    // W7, W11: a trim is congestion, not failure (SHOULD cases)
    {"reliab-v-110", "trim-nack-ignored"},    {"failover-v-024", "trim-marks-bad"},
    {"spray-v-028", "data-not-ect"},         {"spray-v-029", "feedback-data-class"},
    {"reliab-v-111", "trim-by-length"},
    // W13: the DSCP values are configuration (a SHOULD case)
    {"spray-v-030", "dscp-hardcoded"},
    // near misses: an ACK one PSN past the last sent; a P_Key one membership bit away (taken)
    {"invalid-i-109", "ghost-ack-boundary"},  {"reliab-v-156", "pkey-full-compare"},
    // one NACK TRIMMED per trimmed packet: none for a whole, ECN-CE marked one
    {"reliab-v-157", "nack-trimmed-on-ce"},
    // NSCC decreases once per base RTT, by at most max_md_jump; QuickAdapt to the achieved bytes, not below, and only when starved
    {"reliab-v-158", "nscc-md-every-mark"},    {"reliab-v-159", "nscc-qa-one-mtu"},
    {"reliab-v-160", "nscc-qa-ungated"},
    // a ghost ACK or SACK sent as the lost PSN leaves (inject after_packet), whatever the DUT's pace
    {"invalid-i-013", "honour-ghost-ack"},     {"invalid-i-015", "honour-ghost-ack"},
};

TEST(CaseDefectPairs, AllPassOnTheReferenceEndpoint) {
  TempDir out;
  RunOptions o;
  for (const auto& s : kPairs) o.cases.push_back(case_file(s.id).string());
  o.out = out.path();
  o.jobs = 2;
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result) << r.err;
  for (const auto& s : kPairs) {
    const harness::CaseResult* c = r.find(s.id);
    ASSERT_NE(c, nullptr) << s.id;
    EXPECT_EQ(c->verdict, harness::Verdict::kPass) << s.id << ": " << c->message;
    for (const auto& chk : c->checks) {
      EXPECT_EQ(chk.verdict, harness::Verdict::kPass) << s.id << " " << chk.name << ": " << chk.message;
    }
  }
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  // Evidence: one pcapng for the case (an interface per tap of the DUT's ports), where the report says.
  const harness::CaseResult* c = r.find("spray-v-001");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->evidence_files, (std::vector<std::string>{"evidence/spray-v-001.pcapng", "evidence/spray-v-001.context.json"}));
  for (const auto& f : c->evidence_files) EXPECT_TRUE(fs::exists(out.path() / f)) << f;
}

class CaseDefectPair : public ::testing::TestWithParam<Pair> {};

TEST_P(CaseDefectPair, FailsOnItsDefect) {
  const Pair s = GetParam();
  TempDir out;
  RunOptions o;
  o.cases = {case_file(s.id).string()};
  o.out = out.path();
  o.dut = std::string("reference:") + s.defect;
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result) << r.err;
  const harness::CaseResult* c = r.find(s.id);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->verdict, harness::Verdict::kFail) << c->message;
  EXPECT_EQ(r.rc, c->level == "MUST" ? 1 : 0);  // a SHOULD case's FAIL is an advisory
  // The failing check's message names the requirement it proves.
  bool prefixed = false;
  for (const auto& chk : c->checks) {
    if (chk.verdict == harness::Verdict::kFail) prefixed |= chk.message.rfind('[', 0) == 0;
  }
  EXPECT_TRUE(prefixed);
}

std::vector<Pair> with_defects() {
  std::vector<Pair> v;
  for (const auto& s : kPairs) {
    if (s.defect) v.push_back(s);
  }
  return v;
}

// A MUST case whose only FAILing check is scoped to a SHOULD requirement failed a SHOULD: an
// advisory, exit 0 (failover-v-003's throughput recovery proves FAILOVER-STOP-USING-FAILED only).
TEST(CaseDefectPairs, AMustCaseFailingOnlyAShouldScopedCheckIsAnAdvisory) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("failover-v-003").string()};
  o.out = out.path();
  o.dut = "reference:keep-failed-ev";
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result) << r.err;
  const harness::CaseResult* c = r.find("failover-v-003");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->verdict, harness::Verdict::kFail) << c->message;
  EXPECT_EQ(c->level, "MUST");
  EXPECT_EQ(c->fail_level, "SHOULD");
  EXPECT_EQ(r.rc, 0) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Catalog, CaseDefectPair, ::testing::ValuesIn(with_defects()),
                         [](const ::testing::TestParamInfo<Pair>& i) {
                           std::string n = std::string(i.param.id) + "_" + i.param.defect;
                           for (char& ch : n) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return n;
                         });

}  // namespace
}  // namespace mrc::run::testing
