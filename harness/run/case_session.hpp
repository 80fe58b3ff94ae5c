// One case, run (design.md §2 steps 1-5): capabilities, testbed, both bindings applied and
// connected, taps on the DUT's ports, the stimulus played (scripted injects and control calls,
// traffic programs, impairment rules and faults) on the testbed's clock, then everything
// collected into a CheckContext. Checks (step 6) are case_result.hpp's job, so `golden` can reuse
// this to record what the reference endpoint does.
//
// Bounds: the virtual clock stops at the scripted horizon plus `virtual_limit_ns`; the wall clock
// is checked between simulation slices against `deadline` (a DUT binding that makes the fabric
// spin forever becomes ERROR). A binding call that never returns is the caller's to bound (the
// suite runner runs each case on its own thread with a watchdog).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <optional>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/dut/dut_binding.hpp"
#include "harness/testbed/testbed.hpp"
#include "harness/verdict/check_context.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

struct SessionOptions {
  std::string testbed = "mini";            // used when the case names none
  std::uint64_t seed = 1;                  // the case's effective seed
  std::filesystem::path out_dir;           // the run's output folder (the checks' CheckContext::out_dir)
  std::filesystem::path golden_dir;        // the suite's pcaps/
  std::uint64_t virtual_limit_ns = 100'000'000;   // virtual time allowed past the scripted horizon
  std::uint64_t drain_ns = 50'000;         // quiet time after the stimulus finished
  std::uint64_t slice_ns = 1'000;          // polling granularity while traffic waits on completions
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Updated with the name of the binding call in progress, for a watchdog's message.
  std::atomic<const char*>* activity = nullptr;
  // Builds the case's testbed; empty = the simulated fabric (make_sim_testbed). Another testbed
  // (a test's, a real-time one) brings its own timing budget, which the checks then apply.
  std::function<std::unique_ptr<harness::Testbed>(const harness::TestbedRequest&, std::uint64_t seed, std::string* error)>
      make_testbed;
  // clauses.yaml for a case file with none above it, when the case is loaded again with a raised
  // ACK timeout (a `timing: scales` case on a slow wire).
  std::filesystem::path fallback_clauses;
};

struct SessionResult {
  // kPass: the stimulus ran and `ctx` is complete; kUnsupported / kInconclusive / kError: it did
  // not (message).
  harness::Verdict status = harness::Verdict::kPass;
  std::string message;
  harness::CheckContext ctx;
  std::uint64_t sim_time_ns = 0;
  std::vector<std::string> notes;           // facts worth a line in the case message
  std::optional<harness::BridgeStats> bridge;  // a real-time bridge's figures for the DUT's side
  // The case as it ran when the runner raised its ACK timeout for the wire or evaluated its times
  // in F at the testbed's rate (rescale_for_testbed): its checks are the ones to judge with.
  std::optional<harness::Case> rescaled;
  std::optional<std::uint8_t> wire_timeout;  // its config.qp.timeout (also read back by replay)
  std::optional<std::uint64_t> spray_bps;    // the rate its F was evaluated at (also read back by replay)
  // How a real-time bridge broke what it declared (lag over its budget, lost frames); "" when it
  // kept to it or there is none. A FAIL of such a run is INCONCLUSIVE (case_result.cpp).
  std::string wire_overrun;
  // Why a real-time run stopped before its end (the bridge's queue or the fabric past the limit
  // behind real time, two thirds of the wall-clock bound used; bridge_trust.hpp); "" when it ran
  // to its end. What it captured is judged, and only a check of the DUT's frames by their own
  // bytes keeps its FAIL (case_result.cpp): a wrong DSCP is the DUT's in any part of a run.
  std::string cut_short;
  // Frames the DUT sent that a real-time bridge lost before the harness saw them (its capture ring
  // or its queue overflowed), as a reason; "" when none. A PASS that rests on every frame the DUT
  // sent is then INCONCLUSIVE (case_result.cpp): the one that breaks it may be among them.
  std::string capture_gap;
  // Wall time spent inside the testbed (building it, injecting, run_until), to measure the
  // harness's own overhead; never written into a report.
  double testbed_wall_s = 0;
  // The same in this thread's CPU time (immune to a loaded machine): the session's CPU time times
  // the testbed's share of its wall time (the CPU clock is read twice per session, not per step).
  double testbed_cpu_s = 0;
};

// `peer` is the harness's side (the in-process reference by default; any binding will do). The
// DUT sits on testbed host 0, the peer on host 1.
SessionResult run_session(const harness::Case& c, harness::DutBinding& dut, harness::DutBinding& peer,
                          const SessionOptions& o);

// Capabilities the case requires that the binding does not declare (empty: supported).
std::vector<std::string> missing_capabilities(const harness::Case& c, const harness::DutBinding& dut);

}  // namespace mrc::run
