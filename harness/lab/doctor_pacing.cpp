// doctor check 8: the pacing jitter of the real-time bridge. The testbed's interfaces are bound
// as the DUT host of its fabric, exactly as a run binds them, and the fabric runs paced for a
// moment without traffic; how late its thread woke for the times it waited for is what every
// timing a case measures on this machine may be off by, on top of the capture path.
#include <cstdio>

#include "harness/lab/doctor_checks.hpp"

namespace mrc::run::doctor {
namespace {

std::string us(std::uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f us", static_cast<double>(ns) / 1000.0);
  return b;
}

// How the paced fabric's thread is scheduled (lab file fabric_priority, fabric_spin_us).
std::string scheduling(const harness::Testbed::BridgeDeclaration& d) {
  std::string s = d.fabric_priority > 0 ? "SCHED_FIFO " + std::to_string(d.fabric_priority) : "default scheduling";
  return s + (d.fabric_spin_ns > 0 ? ", awake the last " + us(d.fabric_spin_ns) + " of each wait" : ", asleep while it waits");
}

}  // namespace

void check_pacing(const std::string& fabric, const std::vector<harness::WirePortBinding>& ports,
                  const harness::Testbed::BridgeDeclaration& declared, std::chrono::milliseconds run, Findings& f) {
  const std::string what = "pacing jitter of the bridge";
  if (ports.empty()) return f.skip(what, "no interface of the testbed can be captured on");
  std::string why;
  auto tb = harness::make_sim_testbed(harness::TestbedRequest::named(fabric), 1, &why);
  if (!tb) return f.fail("fabric " + fabric + " cannot be built: " + why, "correct lab.fabric in the lab file");
  std::vector<harness::WirePortBinding> use;
  for (const auto& b : ports) {
    if (b.port <= tb->planes()) use.push_back(b);
  }
  if (use.empty()) return f.skip(what, "fabric " + fabric + " has no plane the testbed's interfaces serve");
  auto host = harness::open_wire_host(use, harness::WireHostOptions{}, &why);
  if (!host) return f.fail("the bridge cannot open the testbed's interfaces: " + why, "run as root");
  if (std::string e = tb->bind_wire(harness::kDutHost, std::move(host), declared); !e.empty()) {
    return f.fail("the bridge cannot bind to fabric " + fabric + ": " + e, "report this as a harness bug");
  }
  // Bounded: the paced run lasts `run` of the monotonic clock (kMinYield aside).
  const std::uint64_t until = tb->now() + static_cast<std::uint64_t>(run.count()) * 1'000'000;
  if (tb->run_until(until) == harness::RunStop::kError) {
    return f.fail("the bridge failed while paced: " + tb->run_error(), "check the interfaces and run doctor again");
  }
  const harness::LatencyHistogram* late = tb->pacing_lateness();
  if (late == nullptr || late->count() == 0) {
    return f.fail(what + ": the paced fabric did not wake once in " + std::to_string(run.count()) + " ms",
                  "the machine is overloaded; run doctor again on an idle machine");
  }
  const std::uint64_t p99 = late->quantile(0.99);
  const std::uint64_t budget = declared.budget.ns;
  const std::string figures = what + ": p50 " + us(late->quantile(0.5)) + ", p99 " + us(p99) + ", max " +
                              us(late->max()) + " over " + std::to_string(late->count()) + " wake-ups in " +
                              std::to_string(run.count()) + " ms (timing budget " + us(budget) + "; fabric thread: " +
                              scheduling(declared) + ")";
  if (p99 > budget / 4) {
    return f.warn(figures, "p99 is over a quarter of the timing budget, so timing checks may judge the machine, not the "
                           "DUT: run on an idle machine (or pin mrc-conform to a free core with taskset), give the "
                           "fabric thread a core (fabric_priority and fabric_spin_us in a lab file, on a machine with a "
                           "core to spare), or declare a larger budget (timing_budget_us)");
  }
  f.ok(figures);
}

}  // namespace mrc::run::doctor
