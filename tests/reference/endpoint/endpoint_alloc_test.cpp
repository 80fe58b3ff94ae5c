// The per-packet path allocates nothing: once a requester/responder pair is warm, moving
// thousands of data frames, their feedback and their completions performs no heap allocation.
// (Counts every operator new in this test binary; only the window inside the test matters.)
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "tests/reference/endpoint/endpoint_pair.hpp"

namespace {
std::atomic<std::uint64_t> g_allocs{0};
}  // namespace

void* operator new(std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace mrc::ref::testing {
namespace {

TEST(EndpointAllocations, SteadyStateDataPathAllocatesNothing) {
  PairOptions o;
  Pair p(o);
  ASSERT_EQ(p.error, "");
  transport::MemoryRegion src, dst;
  ASSERT_EQ(p.a->reg_mr(0, 1 << 20, IBV_ACCESS_LOCAL_WRITE, src), 0);
  ASSERT_EQ(p.b->reg_mr(0, 1 << 20, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, dst), 0);
  transport::TxFrame f;
  std::uint64_t now = 1000, id = 0, frames = 0;
  int posted = 0;
  auto round = [&] {
    transport::Completion c;
    while (p.a->poll_completion(c)) --posted;
    while (p.b->poll_completion(c)) {
    }
    while (posted < 32) {
      transport::SendWr wr;
      wr.wr_id = id;
      wr.opcode = (id % 4 == 0) ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
      wr.local_addr = src.addr + (id * 8192) % (1 << 19);
      wr.length = 8192;
      wr.lkey = src.lkey;
      wr.remote_addr = dst.addr + (id * 8192) % (1 << 19);
      wr.rkey = dst.rkey;
      if (wr.opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
        ASSERT_EQ(p.b->post_recv(p.qp.qpn_b, id), 0);
      }
      ASSERT_EQ(p.a->post_send(p.qp.qpn_a, wr), 0);
      ++posted;
      ++id;
    }
    while (p.a->poll_frame(f)) {
      now += 100;
      p.b->on_frame(f.port, f.view(), now);
      ++frames;
    }
    while (p.b->poll_frame(f)) p.a->on_frame(f.port, f.view(), now);
    now += 1000;
    p.a->advance(now);
    p.b->advance(now);
  };
  for (int i = 0; i < 50; ++i) round();  // warm up
  const std::uint64_t before_frames = frames;
  const std::uint64_t before = g_allocs.load();
  for (int i = 0; i < 200; ++i) round();
  const std::uint64_t allocs = g_allocs.load() - before;
  EXPECT_GT(frames - before_frames, 10'000u);
  EXPECT_EQ(allocs, 0u);
  EXPECT_EQ(p.a->requester(p.qp.qpn_a)->stats().retransmits, 0u);
  // The counter does see allocations (the check above could fail).
  const std::uint64_t probe = g_allocs.load();
  auto* v = new std::vector<int>(10);
  EXPECT_GE(g_allocs.load(), probe + 2);
  delete v;
}

}  // namespace
}  // namespace mrc::ref::testing
