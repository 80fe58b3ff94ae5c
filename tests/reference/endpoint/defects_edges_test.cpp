// Wire symptoms of the framing defects that show only at the edge of their requirement (issue 13
// item 6), each against a control run without the defect and a run in the middle of the
// requirement where the defect changes nothing: last-reth-len-mtu (a message whose length is not a
// multiple of the MTU) and usid-short-container (an outer DA whose every uSID slot is in use).
#include <gtest/gtest.h>

#include <set>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

std::vector<WireFrame> data_from_a(PairOptions o, std::uint32_t len) {
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 8, len);
  p.fabric->run_for(2'000'000);
  std::vector<WireFrame> out;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 0 && w.ok && is_data(w.f)) out.push_back(w);
  }
  return out;
}

// Data packets whose RETH length is not the message's (W4: every write here is `len` bytes).
std::size_t reth_len_mismatches(const std::vector<WireFrame>& frames, std::size_t len) {
  std::size_t n = 0;
  for (const auto& w : frames) n += w.f.has_reth && w.f.reth.dma_length != len;
  return n;
}

TEST(DefectSymptoms, LastRethLenMtu) {
  PairOptions o;  // path MTU 1024
  EXPECT_EQ(reth_len_mismatches(data_from_a(o, 4096), 4096), 0u);
  EXPECT_EQ(reth_len_mismatches(data_from_a(o, 1500), 1500), 0u);
  o.defects_a = with(Defect::kLastRethLenMtu);
  EXPECT_EQ(reth_len_mismatches(data_from_a(o, 4096), 4096), 0u);  // a multiple of the MTU: no edge
  const auto bad = data_from_a(o, 1500);
  ASSERT_FALSE(bad.empty());
  EXPECT_GT(reth_len_mismatches(bad, 1500), 0u);
  for (const auto& w : bad) {
    if (w.f.payload.size() == 1500 - 1024) {
      EXPECT_EQ(w.f.reth.dma_length, 2048u);  // the short LAST names two whole MTUs
    }
  }
}

// Data frames whose outer DA is not the first 16 bytes of any EV of A's profile.
std::size_t foreign_das(PairOptions o, std::size_t* frames) {
  Pair p(o);
  EXPECT_EQ(p.error, "");
  std::set<wire::Ipv6Addr> valid;
  for (const auto& e : p.a->controller().ev_array(0)) {
    wire::Ipv6Addr da{};
    std::copy(e.wire.begin(), e.wire.begin() + 16, da.begin());
    valid.insert(da);
  }
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 16, 4096);
  p.fabric->run_for(2'000'000);
  std::size_t n = 0;
  *frames = 0;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() != 0 || !w.ok || !is_data(w.f)) continue;
    ++*frames;
    n += valid.count(w.f.ip6.dst) == 0;
  }
  return n;
}

TEST(DefectSymptoms, UsidShortContainer) {
  PairOptions o;
  o.fmt = wire::EvFmtMode::kSrv6;
  std::size_t frames = 0;
  o.defects_a = with(Defect::kUsidShortContainer);
  EXPECT_EQ(foreign_das(o, &frames), 0u);  // three uSIDs: the last slot is End-of-Carrier anyway
  EXPECT_GT(frames, 0u);
  o.full_usid = true;
  EXPECT_EQ(foreign_das(o, &frames), frames);  // every uSID slot in use: the last one is lost
  EXPECT_GT(frames, 0u);
  o.defects_a = {};
  EXPECT_EQ(foreign_das(o, &frames), 0u);
  EXPECT_GT(frames, 0u);
}

}  // namespace
}  // namespace mrc::ref::testing
