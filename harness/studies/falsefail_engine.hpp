// Runs the false-fail measurement: every given statistical case once per seed (first_seed ..
// first_seed + seeds - 1, replacing the case's own) on one DUT binding, all runs through one case
// pool, tallied per case and per distribution check (falsefail.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <span>
#include <string>

#include "harness/case/case_model.hpp"
#include "harness/report/falsefail_result.hpp"
#include "harness/run/case_pool.hpp"

namespace mrc::run {

struct FalsefailPlan {
  std::string dut = "reference";  // binding spec every run uses
  std::uint64_t first_seed = 1;
  std::uint32_t seeds = 200;
  PoolOptions pool;               // testbed, jobs, watchdog; no evidence is written
  std::ostream* progress = nullptr;  // a line per non-PASS run (and every 50th) when set
};

harness::FalsefailResult measure_falsefail(std::span<const harness::Case* const> cases,
                                           const std::filesystem::path& suite_root, const FalsefailPlan& plan);

}  // namespace mrc::run
