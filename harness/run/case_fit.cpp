// The case fitted to the testbed it runs on, before anything is configured: its times in T raised
// for a slow wire, its times in F evaluated at the rate the DUT's QP sprays at here, and the
// verdict UNSUPPORTED where the wire cannot carry it. Runs for every testbed: a simulated one of
// other link rates moves F as a real-time bridge does.
#include <optional>
#include <utility>

#include "harness/run/session_state.hpp"
#include "harness/run/wire_fit.hpp"

namespace mrc::run {

bool fit_to_testbed(SessionState& s, int dut_host, int peer_host) {
  const harness::Case& c = s.c;
  const std::optional<WireFacts> wire =
      s.real_time() ? std::optional{wire_facts(*s.tb, c, dut_host, peer_host, s.o.virtual_limit_ns)} : std::nullopt;
  const std::uint64_t spray_bps = s.tb->network_facts(dut_host, peer_host, c.config.qp.mtu).line_rate_bps;
  WireRescale r = rescale_for_testbed(c, wire ? &*wire : nullptr, spray_bps, s.o.fallback_clauses);
  if (!r.error.empty()) return s.fail(harness::Verdict::kError, r.error);
  if (r.rescaled) {
    s.case_run = std::move(*r.rescaled);
    s.rescaled = true;
    for (std::string& n : r.notes) s.result.notes.push_back(std::move(n));
  }
  if (const std::string misfit = wire ? wire_misfit(c, *wire) : ""; !misfit.empty()) {
    return s.fail(harness::Verdict::kUnsupported, "cannot run on this wire: " + misfit);
  }
  return true;
}

}  // namespace mrc::run
