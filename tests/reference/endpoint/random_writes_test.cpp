// Two endpoints, 10,000 random RDMA WRITE / WRITE WITH IMMEDIATE each run, every write checked
// byte-exact at completion and every immediate exactly once and in message order: first lossless,
// then under drops, reordering, duplicates and trims (and all of them at once).
#include <gtest/gtest.h>

#include "tests/reference/endpoint/write_workload.hpp"

namespace mrc::ref::testing {
namespace {

void run(const Impairment& imp, const PairOptions& o = {}, std::uint32_t writes = 10000) {
  Pair p(o, {}, imp);
  ASSERT_EQ(p.error, "");
  WorkloadOptions w;
  w.writes = writes;
  const WorkloadResult r = run_random_writes(p, w);
  EXPECT_EQ(r.failure, "");
  EXPECT_EQ(r.completed, writes);
  const auto& rs = p.a->requester(p.qp.qpn_a)->stats();
  ::testing::Test::RecordProperty("virtual_ns", std::to_string(r.end_ns));
  ::testing::Test::RecordProperty("retransmits", std::to_string(rs.retransmits));
  std::printf("completed=%u bytes=%llu t=%.3f ms retx=%llu timeouts=%llu inferred=%llu trim=%llu sacked=%llu dropped=%llu trimmed=%llu dup=%llu reord=%llu\n",
              r.completed, static_cast<unsigned long long>(r.bytes), r.end_ns / 1e6,
              static_cast<unsigned long long>(rs.retransmits), static_cast<unsigned long long>(rs.timeouts),
              static_cast<unsigned long long>(rs.inferred_losses), static_cast<unsigned long long>(rs.trim_nacks),
              static_cast<unsigned long long>(rs.sacked_psns),
              static_cast<unsigned long long>(p.fabric->dropped), static_cast<unsigned long long>(p.fabric->trimmed),
              static_cast<unsigned long long>(p.fabric->duplicated), static_cast<unsigned long long>(p.fabric->reordered));
}

TEST(RandomWrites, Lossless) { run({}); }

TEST(RandomWrites, Drops) {
  Impairment imp;
  imp.drop = 0.01;
  run(imp);
}

TEST(RandomWrites, Reordering) {
  Impairment imp;
  imp.reorder = 0.2;
  run(imp);
}

TEST(RandomWrites, Duplicates) {
  Impairment imp;
  imp.duplicate = 0.05;
  run(imp);
}

TEST(RandomWrites, Trims) {
  Impairment imp;
  imp.trim = 0.03;
  run(imp);
}

TEST(RandomWrites, EverythingAtOnce) {
  Impairment imp;
  imp.drop = 0.005;
  imp.reorder = 0.1;
  imp.duplicate = 0.02;
  imp.trim = 0.02;
  run(imp);
}

TEST(RandomWrites, Srv6AndUdpModes) {
  PairOptions o;
  o.fmt = wire::EvFmtMode::kSrv6;
  Impairment imp;
  imp.drop = 0.005;
  imp.trim = 0.01;
  run(imp, o, 2000);
  o.fmt = wire::EvFmtMode::kUdp;
  run(imp, o, 2000);
}

TEST(RandomWrites, AutoProfileAndIpv4) {
  Impairment imp;
  imp.drop = 0.005;
  imp.trim = 0.01;
  PairOptions o;
  o.auto_ev = true;  // AUTO: the endpoint sprays on UDP source ports 0xC000 | i
  run(imp, o, 2000);
  o = PairOptions{};
  o.ipv4 = true;
  o.fmt = wire::EvFmtMode::kUdp;
  run(imp, o, 2000);
}

}  // namespace
}  // namespace mrc::ref::testing
