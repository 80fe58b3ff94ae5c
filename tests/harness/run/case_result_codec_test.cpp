// The case result codec (harness/run/case_result_codec.hpp): what an isolated case's child hands
// back must arrive field for field, and anything else must be refused with a clear error.
#include "harness/run/case_result_codec.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

namespace mrc::run {
namespace {

using harness::CaseResult;
using harness::Chart;
using harness::CheckResult;
using harness::Evidence;
using harness::ExpectationOutcome;
using harness::Verdict;

// A tripwire for the next field: the round trip below proves only what full_result() sets. When a
// size changes, encode the new field (visit_* in case_result_codec.cpp), set it in full_result(),
// then update the number here. (Sizes of 64-bit libstdc++, the project's platform.)
#if defined(__GLIBCXX__) && __SIZEOF_POINTER__ == 8
static_assert(sizeof(CaseResult) == 608 && sizeof(CheckResult) == 200 && sizeof(Evidence) == 208 &&
                  sizeof(Chart) == 248,
              "a field was added to the verdict model: see the comment above");
#endif

// Every field set to something other than its default, so a field the codec forgot differs.
CaseResult full_result() {
  CaseResult r;
  r.id = "spray-v-001";
  r.title = "Per-packet spraying \xc3\xa9 with a NUL \0 inside";
  r.title.push_back('\0');
  r.area = "spray";
  r.file = "cases/spray/spray-v-001.yaml";
  r.clauses = {"SPRAY-PER-PACKET-EV", "EV-DENIED-NEVER-USED"};
  r.level = "MUST";
  r.fail_level = "SHOULD";
  r.basis = harness::Basis::kModel;
  r.behaviour = "valid";
  r.tags = {"spraying", "smoke", ""};
  r.seed = 0xFEDCBA9876543210ull;
  r.verdict = Verdict::kFail;
  r.message = "distribution/ev: [SPRAY-PER-PACKET-EV] p=1e-9";
  r.evidence_files = {"evidence/spray-v-001.pcapng"};
  r.evidence_error = "evidence/spray-v-002.pcapng: No space left on device";
  r.sim_time_ns = 123456789;
  r.wall_ms = 41.25;
  r.timing_budget = harness::TimingBudget{200'000, "real-time bridge (--testbed netns)", 1'000'000'000};
  r.bridge = harness::BridgeStats{1200, 900, 3, 250'000, 1'500'000, 120'000};
  r.expectation = ExpectationOutcome::kUnexpectedOther;
  r.expectation_reason = "vendor quirk";
  r.expectation_link = "https://example.invalid/bug/1";
  CheckResult c;
  c.type = "distribution";
  c.name = "distribution/ev";
  c.verdict = Verdict::kInconclusive;
  c.message = "too few samples";
  Evidence e;
  e.pcap = "evidence/spray-v-001/dut.p0.tx.pcapng";
  e.packet_index = -1;
  e.ts_ns = 999;
  e.field = "udp.sport";
  e.expected = "0xc000";
  e.observed = "0xc001";
  e.display_filter = "frame.number == 12";
  e.note = "first difference";
  c.evidence = {e, Evidence{}};
  c.evidence[1].packet_index = 7;
  c.metrics = {{"p_value", 1e-300}, {"n", 512}, {"effect_size", -0.0}};
  Chart bars;
  bars.kind = Chart::Kind::kBars;
  bars.title = "per EV";
  bars.x_label = "EV";
  bars.y_label = "packets";
  bars.labels = {"ev0", "ev1"};
  bars.values = {10, 12.5};
  bars.expected = {11.25, 11.25};
  bars.markers = {1};
  bars.limits = {2.5};
  bars.groups = {"plane 1", "plane 2"};
  Chart timeline = bars;
  timeline.kind = Chart::Kind::kRaster;  // the last kind: the codec's range check admits it
  timeline.markers = {std::numeric_limits<double>::infinity(), 3e9};
  c.charts = {bars, timeline};
  CheckResult other;
  other.type = "positive_control";
  other.name = "positive_control";
  other.verdict = Verdict::kPass;
  r.checks = {c, other};
  return r;
}

std::vector<std::uint8_t> bytes_of(const CaseResult& r) { return encode_case_result(r); }

TEST(CaseResultCodec, EveryFieldSurvivesARoundTrip) {
  const CaseResult r = full_result();
  const DecodedCaseResult d = decode_case_result(bytes_of(r));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.result, r);  // defaulted operator==: every member of every nested struct
  // Spot checks that the comparison itself looks at what it should.
  EXPECT_EQ(d.result.checks.at(0).charts.at(1).kind, Chart::Kind::kRaster);
  EXPECT_TRUE(std::signbit(d.result.checks.at(0).metrics.at("effect_size")));
  EXPECT_EQ(d.result.title.size(), r.title.size());
}

TEST(CaseResultCodec, TheComparisonSeesEachKindOfChange) {
  // A round trip that dropped any of these would be caught by EveryFieldSurvivesARoundTrip.
  const CaseResult base = full_result();
  std::vector<CaseResult> changed(7, base);
  changed[6].bridge->lost = 4;
  changed[0].wall_ms.reset();
  changed[1].checks[0].charts[1].markers.pop_back();
  changed[2].checks[0].evidence[0].note = "other";
  changed[3].checks[0].metrics["n"] = 513;
  changed[4].expectation_link.clear();
  changed[5].checks[1].verdict = Verdict::kError;
  for (const auto& c : changed) {
    EXPECT_FALSE(c == base);
    EXPECT_NE(bytes_of(c), bytes_of(base));
  }
}

TEST(CaseResultCodec, DefaultAndErrorResultsRoundTrip) {
  for (CaseResult r : {CaseResult{}, full_result()}) {
    r.checks.clear();
    r.verdict = Verdict::kError;
    r.wall_ms.reset();
    const DecodedCaseResult d = decode_case_result(bytes_of(r));
    ASSERT_TRUE(d.ok()) << d.error;
    EXPECT_EQ(d.result, r);
  }
}

TEST(CaseResultCodec, NanKeepsItsBits) {
  CaseResult r = full_result();
  const double nan = std::bit_cast<double>(0x7ff8000000000123ull);
  r.checks[0].metrics["p_value"] = nan;
  const DecodedCaseResult d = decode_case_result(bytes_of(r));
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(std::bit_cast<std::uint64_t>(d.result.checks[0].metrics.at("p_value")), 0x7ff8000000000123ull);
}

TEST(CaseResultCodec, EveryTruncationIsRefused) {
  const std::vector<std::uint8_t> good = bytes_of(full_result());
  for (std::size_t n = 0; n < good.size(); ++n) {
    const DecodedCaseResult d = decode_case_result(std::span(good).first(n));
    ASSERT_FALSE(d.ok()) << n;
    EXPECT_EQ(d.error.rfind("truncated: ", 0), 0u) << n << ": " << d.error;
  }
}

TEST(CaseResultCodec, ABodyCutShortUnderItsLengthNamesTheField) {
  // The header agrees with the (shortened) body, so the body reader finds the cut.
  std::vector<std::uint8_t> b = bytes_of(full_result());
  b.resize(b.size() - 3);
  const std::uint32_t len = static_cast<std::uint32_t>(b.size() - 10);
  b[6] = static_cast<std::uint8_t>(len >> 24);
  b[7] = static_cast<std::uint8_t>(len >> 16);
  b[8] = static_cast<std::uint8_t>(len >> 8);
  b[9] = static_cast<std::uint8_t>(len);
  const DecodedCaseResult d = decode_case_result(b);
  EXPECT_EQ(d.error, "truncated: expectation_link: body ends inside this field");
}

TEST(CaseResultCodec, TrailingBytesAreRefused) {
  std::vector<std::uint8_t> b = bytes_of(full_result());
  b.push_back(0);
  EXPECT_EQ(decode_case_result(b).error.rfind("trailing bytes: 1 byte(s) after the ", 0), 0u)
      << decode_case_result(b).error;
  // Bytes inside the announced body but after the last field.
  b = bytes_of(full_result());
  b.insert(b.end(), {0, 0});
  const std::uint32_t len = static_cast<std::uint32_t>(b.size() - 10);
  b[8] = static_cast<std::uint8_t>(len >> 8);
  b[9] = static_cast<std::uint8_t>(len);
  EXPECT_EQ(decode_case_result(b).error, "trailing bytes: 2 byte(s) inside the body after its last field");
}

TEST(CaseResultCodec, WrongVersionAndMagicAreNamed) {
  std::vector<std::uint8_t> b = bytes_of(full_result());
  b[5] = 4;
  EXPECT_EQ(decode_case_result(b).error,
            "wrong version: 4, this build reads version 5 (parent and child are different builds?)");
  b = bytes_of(full_result());
  b[0] = 'X';
  EXPECT_EQ(decode_case_result(b).error, "not a case result: the first bytes are not \"MRCR\"");
}

TEST(CaseResultCodec, OutOfRangeEnumsAndRepeatedMetricsAreRefused) {
  CaseResult r;
  r.id = "x";
  r.verdict = Verdict::kPass;
  std::vector<std::uint8_t> b = bytes_of(r);
  // The verdict byte follows id, title, area, file (4-byte length each, "x" has 1), 2 empty lists,
  // level, fail_level, the basis byte, behaviour and the 8-byte seed.
  const std::size_t verdict_at = 10 + 5 + 4 * 3 + 4 + 4 * 2 + 4 + 4 + 1 + 8;
  ASSERT_EQ(b[verdict_at], 0);
  b[verdict_at] = 5;
  EXPECT_EQ(decode_case_result(b).error, "bad value: verdict: 5 is not a valid value");
  b = bytes_of(r);
  const std::size_t basis_at = 10 + 5 + 4 * 3 + 4 + 4 + 4;  // right after level and fail_level
  ASSERT_EQ(b[basis_at], 0);                             // published
  b[basis_at] = 4;  // published, spec, spec-single, model: 0..3
  EXPECT_EQ(decode_case_result(b).error, "bad value: basis: 4 is not a valid value");

  CheckResult c;
  c.metrics = {{"a", 1}, {"b", 2}};
  r.checks = {c};
  b = bytes_of(r);
  // Turn key "b" into a second "a".
  for (std::size_t i = b.size(); i-- > 0;) {
    if (b[i] == 'b' && b[i - 1] == 1) {
      b[i] = 'a';
      break;
    }
  }
  EXPECT_EQ(decode_case_result(b).error, "bad value: check.metrics: metric 'a' appears twice");
}

TEST(CaseResultCodec, ACountTheBytesCannotBackIsRefusedBeforeAnyAllocation) {
  CaseResult r;
  r.id = "x";
  std::vector<std::uint8_t> b = bytes_of(r);
  // The clauses count (after id, title, area, file): claim 2^31 entries.
  const std::size_t at = 10 + 5 + 4 * 3;
  b[at] = 0x80;
  EXPECT_EQ(decode_case_result(b).error, "bad value: clauses: 2147483648 exceeds the limit of 16777216");
  b[at] = 0x00;
  b[at + 1] = 0x10;  // 1 Mi entries: under the limit, over the bytes left
  EXPECT_EQ(decode_case_result(b).error, "truncated: clauses: list count runs past the end of the body");
}

TEST(CaseResultCodec, RandomBytesNeverCrash) {
  std::uint64_t x = 88172645463325252ull;
  const std::vector<std::uint8_t> good = bytes_of(full_result());
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::uint8_t> b = good;
    for (int k = 0; k < 4; ++k) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      b[10 + x % (b.size() - 10)] = static_cast<std::uint8_t>(x >> 32);
    }
    const DecodedCaseResult d = decode_case_result(b);
    if (!d.ok()) {
      EXPECT_EQ(d.result, CaseResult{});
    }
  }
}

}  // namespace
}  // namespace mrc::run
