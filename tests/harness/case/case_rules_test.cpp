// The whole-case rules that no single key shows: what a case's stimulus may move in total
// (kMaxCaseWrites, kMaxCaseTrafficBytes, kMaxCaseInjects in limits.hpp), enforced at load.
#include <string>

#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "harness/case/limits.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::project_clauses;
using testing::scratch_dir;
using testing::write_file;

std::string with_stimulus(const std::string& steps) {
  return "id: spray-v-001\ntitle: Budget\nclauses: [SPRAY-PER-PACKET-EV]\nlevel: MUST\nbehaviour: valid\n"
         "rationale: A test fixture.\nrole: requester\nstimulus:\n" +
         steps + "checks:\n  - {type: positive_control}\n";
}

LoadResult load(const std::string& text) {
  return load_case(write_file(scratch_dir() / "spray-v-001.yaml", text), project_clauses());
}

std::string traffic(std::uint64_t writes, std::uint64_t size) {
  return "  - traffic: {writes: " + std::to_string(writes) + ", size: " + std::to_string(size) + ", window: 8}\n";
}

TEST(CaseBudget, TrafficUpToTheLimitsLoads) {
  const auto r = load(with_stimulus(traffic(limits::kMaxCaseWrites / 2, 4096) + traffic(limits::kMaxCaseWrites / 2, 4096)));
  EXPECT_TRUE(r.ok()) << r.diagnostics.to_string();
}

TEST(CaseBudget, WritesOverTheLimitAreRefusedAtTheStepThatCrossesIt) {
  const auto r = load(with_stimulus(traffic(10, 1) + traffic(limits::kMaxCaseWrites, 1)));
  ASSERT_EQ(r.diagnostics.size(), 1u) << r.diagnostics.to_string();
  EXPECT_EQ(r.diagnostics.items()[0].loc.line, 10);
  EXPECT_EQ(r.diagnostics.items()[0].key, "stimulus[1].traffic.writes");
  EXPECT_EQ(r.diagnostics.items()[0].message,
            "the case's traffic programs add up to 65546 writes, over 65536 (kMaxCaseWrites, harness/case/limits.hpp)");
}

TEST(CaseBudget, BytesOverTheLimitAreRefused) {
  // Each step is within the schema (size <= 2^31); together they move 16 GiB.
  const auto r = load(with_stimulus(traffic(4, 1ull << 31) + traffic(4, 1ull << 31)));
  EXPECT_TRUE(r.diagnostics.contains(
      "9:5: stimulus[0].traffic: the case's traffic programs move 8589934592 bytes (writes x size), over 268435456 "
      "(kMaxCaseTrafficBytes, harness/case/limits.hpp)"))
      << r.diagnostics.to_string();
  EXPECT_EQ(r.diagnostics.size(), 1u) << r.diagnostics.to_string();  // said once, at the first step over
}

TEST(CaseBudget, InjectStepsOverTheLimitAreRefused) {
  std::string steps;
  for (std::uint64_t i = 0; i <= limits::kMaxCaseInjects; ++i) {
    steps += "  - inject: {at_ns: " + std::to_string(i) + ", frame: {opcode: ack, psn: 1}}\n";
  }
  const auto r = load(with_stimulus(steps));
  EXPECT_TRUE(r.diagnostics.contains(
      "stimulus[4096].inject: more than 4096 inject steps in one case (kMaxCaseInjects, harness/case/limits.hpp)"))
      << r.diagnostics.to_string().substr(0, 2000);
}

}  // namespace
}  // namespace mrc::harness
