// Runs the conformant-variant family (design.md §4 "a conformant DUT never FAILs"): the selected
// cases against the default reference and against `reference:<variant>` for every chosen variant
// of the catalog (reference/variants.hpp), each case with its own seed and `seeds - 1` more, all
// case runs of all variants through one pool so the jobs stay busy. Nothing is written: the caller
// renders the result (harness/report/variants_report.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/report/variants_result.hpp"
#include "harness/run/case_pool.hpp"

namespace mrc::run {

struct VariantSpec {
  std::string name;                      // catalog name
  std::string choice;                    // what it chooses, one line
  std::vector<std::string> leaves_open;  // requirement ids (cases/variants.yaml)
};

struct VariantsPlan {
  std::vector<VariantSpec> variants;  // in catalog order; the default reference always runs first
  std::uint32_t seeds = 1;            // runs per case and variant: seed, seed+1, ...
  PoolOptions pool;                   // testbed, jobs, watchdog; evidence is not written
  std::ostream* progress = nullptr;   // a line per finished case run when set
  // The default reference's run (always first). A shard of `variants --shard` that was not dealt
  // the default runs only its variants.
  bool include_default = true;
  // The conformant variants' DUT: `reference`, or a plugin serving the reference's catalog by name
  // (binding_factory.hpp spec_with_names).
  std::string dut = "reference";
};

harness::VariantsResult run_variants(std::span<const harness::Case* const> cases,
                                     const std::filesystem::path& suite_root, const VariantsPlan& plan);

// Files one finished case run of `run` (a pure function, unit-tested): PASS counts, FAIL becomes a
// false fail with its FAILing checks, ERROR and the other verdicts are listed apart.
void record_variant_case(harness::VariantRun& run, const harness::Case& c, const harness::CaseResult& r);

}  // namespace mrc::run
