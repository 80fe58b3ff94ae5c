// The WRITE traffic program (sim_write.hpp).
#include "harness/testbed/sim/sim_write.hpp"

#include <algorithm>
#include <cstring>

#include "reference/ev/controller.hpp"

namespace mrc::sim {

std::string WriteTransfer::start(Simulator& sim, const Connection& c, const WriteJob& job) {
  sim_ = &sim;
  c_ = c;
  job_ = job;
  if (c.a == nullptr || c.b == nullptr) return failure_ = "connection has no endpoints";
  if (job.bytes == 0) return failure_ = "nothing to write";
  const std::uint64_t chunk = job.chunk != 0 ? job.chunk : job.bytes;
  if (chunk > 0xFFFFFFFFull) return failure_ = "one request cannot exceed 4 GiB - 1";
  total_ = static_cast<std::uint32_t>((job.bytes + chunk - 1) / chunk);
  if (c.a->reg_mr(0, job.bytes, IBV_ACCESS_LOCAL_WRITE, src_) ||
      c.b->reg_mr(0, job.bytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, dst_)) {
    return failure_ = "reg_mr failed";
  }
  // Source bytes from splitmix64, 8 at a time (the same on every platform).
  std::span<std::uint8_t> s = c.a->mr_bytes(src_.lkey);
  ev::SplitMix64 rng(job.seed);
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    const std::uint64_t v = rng.next();
    for (int b = 0; b < 8; ++b) s[i + b] = static_cast<std::uint8_t>(v >> (8 * b));
  }
  for (; i < s.size(); ++i) s[i] = static_cast<std::uint8_t>(rng.next());
  while (posted_ < total_ && posted_ - completed_ < job_.max_outstanding && post_next()) {
  }
  sim.notify(c.host_a);
  return failure_;
}

bool WriteTransfer::post_next() {
  const std::uint64_t chunk = job_.chunk != 0 ? job_.chunk : job_.bytes;
  const std::uint64_t off = std::uint64_t{posted_} * chunk;
  transport::SendWr wr;
  wr.wr_id = posted_;
  wr.opcode = job_.with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
  wr.local_addr = src_.addr + off;
  wr.length = static_cast<std::uint32_t>(std::min(chunk, job_.bytes - off));
  wr.lkey = src_.lkey;
  wr.remote_addr = dst_.addr + off;
  wr.rkey = dst_.rkey;
  wr.imm_data = posted_;
  if (job_.with_imm) {
    if (int rc = c_.b->post_recv(c_.qpn_b, posted_)) {
      failure_ = "post_recv rc=" + std::to_string(rc);
      return false;
    }
  }
  if (int rc = c_.a->post_send(c_.qpn_a, wr)) {
    failure_ = "post_send rc=" + std::to_string(rc);
    return false;
  }
  ++posted_;
  return true;
}

bool WriteTransfer::poll() {
  transport::Completion cq;
  while (c_.a->poll_completion(cq)) {
    if (cq.status != IBV_WC_SUCCESS) {
      failure_ = "request " + std::to_string(cq.wr_id) + " completed with status " + std::to_string(cq.status);
      return true;
    }
    if (cq.is_send) ++completed_;
  }
  while (c_.b->poll_completion(cq)) {
    if (cq.status != IBV_WC_SUCCESS) {
      failure_ = "receive completion status " + std::to_string(cq.status);
      return true;
    }
  }
  const std::uint32_t before = posted_;
  while (posted_ < total_ && posted_ - completed_ < job_.max_outstanding && failure_.empty() && post_next()) {
  }
  if (posted_ != before) sim_->notify(c_.host_a);
  return done();
}

bool WriteTransfer::verify() const {
  if (c_.a == nullptr || c_.b == nullptr) return false;
  const auto s = c_.a->mr_bytes(src_.lkey);
  const auto d = c_.b->mr_bytes(dst_.lkey);
  return s.size() == d.size() && !s.empty() && std::memcmp(s.data(), d.data(), s.size()) == 0;
}

WriteOutcome run_write(Simulator& sim, const Connection& c, const WriteJob& job) {
  WriteOutcome out;
  WriteTransfer t;
  out.start_ns = sim.now();
  out.failure = t.start(sim, c, job);
  out.requests = t.total();
  if (!out.failure.empty()) return out;
  const std::uint64_t limit = out.start_ns + job.limit_ns;
  const std::uint64_t slice = std::max<std::uint64_t>(job.slice_ns, 1);
  while (!t.poll() && sim.now() < limit) sim.run_until(std::min(limit, sim.now() + slice));
  out.end_ns = sim.now();
  if (!t.failure().empty()) {
    out.failure = t.failure();
    return out;
  }
  out.completed = t.done();
  out.data_ok = t.verify();
  if (!out.completed) {
    out.failure = "timed out: " + std::to_string(t.completed()) + "/" + std::to_string(t.total()) +
                  " requests completed by t=" + std::to_string(out.end_ns) + " ns";
  } else if (!out.data_ok) {
    out.failure = "destination bytes differ from the source";
  }
  return out;
}

}  // namespace mrc::sim
