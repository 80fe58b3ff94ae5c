// Test support: random RDMA WRITE / WRITE WITH IMMEDIATE traffic from A to B over a Pair, with a
// byte-exact check of every write when it completes and an exactly-once, in-order check of every
// immediate at B.
#pragma once

#include <cstdint>
#include <string>

#include "tests/reference/endpoint/endpoint_pair.hpp"

namespace mrc::ref::testing {

struct WorkloadOptions {
  std::uint32_t writes = 10000;
  std::uint32_t max_outstanding = 64;  // WRs in flight (each owns a destination slot)
  std::uint32_t max_len = 16384;
  double imm_fraction = 0.2;
  std::uint64_t limit_ns = 20'000'000'000ull;  // virtual time budget
  std::uint64_t seed = 11;
};

struct WorkloadResult {
  std::uint32_t completed = 0;  // successful send completions, each verified
  std::uint32_t imm_received = 0;
  std::uint64_t bytes = 0;
  std::uint64_t end_ns = 0;
  std::string failure;  // empty = everything matched
};

WorkloadResult run_random_writes(Pair& p, const WorkloadOptions& w);

}  // namespace mrc::ref::testing
