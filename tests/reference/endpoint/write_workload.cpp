// Not a *_test.cpp: included by endpoint_pair_support_test.cpp.
#include "tests/reference/endpoint/write_workload.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

namespace mrc::ref::testing {
namespace {

std::uint32_t imm_of(std::uint64_t i) { return static_cast<std::uint32_t>(i * 2654435761u) ^ 0x5A5A0000u; }
std::uint8_t canary(std::uint32_t slot) { return static_cast<std::uint8_t>(0xA5 ^ slot); }

}  // namespace

WorkloadResult run_random_writes(Pair& p, const WorkloadOptions& w) {
  WorkloadResult res;
  std::mt19937_64 rng(w.seed);
  Endpoint& a = *p.a;
  Endpoint& b = *p.b;
  const std::size_t src_size = 1u << 20;
  const std::uint32_t slot_size = w.max_len;
  transport::MemoryRegion src, dst;
  if (a.reg_mr(0, src_size, IBV_ACCESS_LOCAL_WRITE, src) ||
      b.reg_mr(0, std::size_t{slot_size} * w.max_outstanding,
               IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, dst)) {
    res.failure = "reg_mr failed";
    return res;
  }
  auto sbytes = a.mr_bytes(src.lkey);
  for (auto& x : sbytes) x = static_cast<std::uint8_t>(rng());
  auto dbytes = b.mr_bytes(dst.lkey);

  struct Pending {
    std::uint32_t slot;
    std::uint32_t len;
    std::uint32_t src_off;
    bool imm;
  };
  std::map<std::uint64_t, Pending> pending;
  std::vector<std::uint32_t> free_slots;
  for (std::uint32_t s = 0; s < w.max_outstanding; ++s) free_slots.push_back(w.max_outstanding - 1 - s);
  std::map<std::uint32_t, std::pair<std::uint64_t, std::uint32_t>> imm_expect;  // imm -> (i, len)
  std::uint64_t last_imm_i = 0;
  bool any_imm = false;
  std::uint64_t posted = 0;

  auto pick_len = [&]() -> std::uint32_t {
    const auto r = rng() % 100;
    if (r < 10) return static_cast<std::uint32_t>(rng() % 65);
    if (r < 70) return static_cast<std::uint32_t>(rng() % 2049);
    return static_cast<std::uint32_t>(rng() % (w.max_len + 1));
  };

  auto post_more = [&]() {
    while (posted < w.writes && !free_slots.empty() && res.failure.empty()) {
      Pending pd;
      pd.slot = free_slots.back();
      pd.len = pick_len();
      pd.src_off = static_cast<std::uint32_t>(rng() % (src_size - pd.len + 1));
      pd.imm = std::uniform_real_distribution<double>(0, 1)(rng) < w.imm_fraction;
      std::memset(dbytes.data() + std::size_t{pd.slot} * slot_size, canary(pd.slot), slot_size);
      transport::SendWr wr;
      wr.wr_id = posted;
      wr.opcode = pd.imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
      wr.local_addr = src.addr + pd.src_off;
      wr.length = pd.len;
      wr.lkey = src.lkey;
      wr.remote_addr = dst.addr + std::uint64_t{pd.slot} * slot_size;
      wr.rkey = dst.rkey;
      wr.imm_data = imm_of(posted);
      if (pd.imm) {
        if (int rc = b.post_recv(p.qp.qpn_b, 1'000'000 + posted)) {
          res.failure = "post_recv rc=" + std::to_string(rc);
          return;
        }
        imm_expect[wr.imm_data] = {posted, pd.len};
      }
      if (int rc = a.post_send(p.qp.qpn_a, wr)) {
        res.failure = "post_send rc=" + std::to_string(rc);
        return;
      }
      free_slots.pop_back();
      pending[posted] = pd;
      ++posted;
    }
  };

  auto drain = [&]() {
    transport::Completion c;
    while (b.poll_completion(c)) {
      if (c.is_send || c.opcode != IBV_WC_RECV_RDMA_WITH_IMM || c.status != IBV_WC_SUCCESS) {
        res.failure = "unexpected completion at B status=" + std::to_string(c.status);
        return;
      }
      auto it = imm_expect.find(c.imm_data);
      if (it == imm_expect.end()) {
        res.failure = "immediate completed twice or unknown: " + std::to_string(c.imm_data);
        return;
      }
      if (c.byte_len != it->second.second) {
        res.failure = "WIMM byte_len " + std::to_string(c.byte_len) + " != " + std::to_string(it->second.second);
        return;
      }
      if (any_imm && it->second.first < last_imm_i) {
        res.failure = "WIMM completions out of message order";
        return;
      }
      last_imm_i = it->second.first;
      any_imm = true;
      imm_expect.erase(it);
      ++res.imm_received;
    }
    while (a.poll_completion(c)) {
      if (c.status != IBV_WC_SUCCESS) {
        res.failure = "send completion wr " + std::to_string(c.wr_id) + " status " + std::to_string(c.status);
        return;
      }
      auto it = pending.find(c.wr_id);
      if (it == pending.end()) {
        res.failure = "unknown or repeated send completion " + std::to_string(c.wr_id);
        return;
      }
      const Pending& pd = it->second;
      const std::uint8_t* got = dbytes.data() + std::size_t{pd.slot} * slot_size;
      if (std::memcmp(got, sbytes.data() + pd.src_off, pd.len) != 0) {
        res.failure = "write " + std::to_string(c.wr_id) + " bytes differ (len " + std::to_string(pd.len) + ")";
        return;
      }
      for (std::uint32_t k = pd.len; k < slot_size; ++k) {
        if (got[k] != canary(pd.slot)) {
          res.failure = "write " + std::to_string(c.wr_id) + " wrote past its end at " + std::to_string(k);
          return;
        }
      }
      if (pd.imm && imm_expect.count(imm_of(c.wr_id))) {
        res.failure = "send completion of WIMM " + std::to_string(c.wr_id) + " before its receive completion";
        return;
      }
      res.bytes += pd.len;
      ++res.completed;
      free_slots.push_back(pd.slot);
      pending.erase(it);
    }
  };

  post_more();
  const bool done = p.fabric->run_until(
      [&] {
        drain();
        if (!res.failure.empty()) return true;
        post_more();
        return posted == w.writes && pending.empty();
      },
      w.limit_ns);
  res.end_ns = p.fabric->now();
  if (res.failure.empty() && !done) {
    res.failure = "timed out: " + std::to_string(res.completed) + "/" + std::to_string(w.writes) +
                  " completed at t=" + std::to_string(res.end_ns);
  }
  if (res.failure.empty() && !imm_expect.empty()) res.failure = "immediates missing at B";
  return res;
}

}  // namespace mrc::ref::testing
