// A simple traffic program over a Connection: RDMA WRITE `bytes` from A's memory into B's in
// `chunk`-sized work requests (all posted up front, up to the send queue depth, the rest as
// completions free slots), source bytes from a seeded generator, and a byte-exact check of B's
// memory at the end. Used by tests and the benchmark; the harness's stimulus layer has its own
// richer traffic programs.
#pragma once

#include <cstdint>
#include <string>

#include "harness/testbed/sim/host_setup.hpp"

namespace mrc::sim {

struct WriteJob {
  std::uint64_t bytes = 1u << 20;
  std::uint32_t chunk = 0;          // bytes per work request; 0 = one request (bytes < 4 GiB)
  bool with_imm = false;            // WRITE WITH IMMEDIATE (a receive is posted per request)
  std::uint64_t seed = 1;
  std::uint64_t limit_ns = 1'000'000'000;  // virtual-time budget from the start
  std::uint64_t slice_ns = 1000;           // completion polling granularity
  std::uint32_t max_outstanding = 512;     // work requests in flight at once
};

struct WriteOutcome {
  bool completed = false;     // every request completed successfully in time
  bool data_ok = false;       // B's memory equals A's source
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;   // first slice boundary after the last completion
  std::uint32_t requests = 0;
  std::string failure;        // empty when completed && data_ok
};

class WriteTransfer {
 public:
  // Registers memory on both sides, fills the source, posts the first requests.
  std::string start(Simulator& sim, const Connection& c, const WriteJob& job);
  // Drains completions and posts more; true when finished (done or failed).
  bool poll();
  bool done() const { return completed_ == total_ || !failure_.empty(); }
  std::string failure() const { return failure_; }
  bool verify() const;  // B's destination bytes == A's source bytes
  std::uint32_t total() const { return total_; }
  std::uint32_t completed() const { return completed_; }

 private:
  bool post_next();
  Simulator* sim_ = nullptr;
  Connection c_;
  WriteJob job_;
  transport::MemoryRegion src_, dst_;
  std::uint32_t total_ = 0;
  std::uint32_t posted_ = 0;
  std::uint32_t completed_ = 0;
  std::string failure_;
};

// start(), then run the simulator in slices until done or out of budget, then verify().
WriteOutcome run_write(Simulator& sim, const Connection& c, const WriteJob& job);

}  // namespace mrc::sim
