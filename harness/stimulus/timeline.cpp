#include "harness/stimulus/timeline.hpp"

#include <algorithm>
#include <cmath>

namespace mrc::harness::stim {

std::uint64_t expect_deadline(const ExpectStep& e, std::uint64_t anchor_ns) {
  const double pct = std::max(0.0, e.tolerance_pct);
  const auto rel = static_cast<std::uint64_t>(std::ceil(static_cast<double>(e.within_ns) * pct / 100.0));
  return anchor_ns + e.within_ns + e.tolerance_ns + rel;
}

Timeline plan_timeline(const Case& c) {
  Timeline t;
  std::uint64_t prev_time = 0;          // fixed anchor from the last timed step
  bool prev_is_expect = false;
  bool prev_is_inject = false;
  std::uint32_t prev_inject_port = 0;
  std::uint64_t prev_expect_bound = 0;  // latest possible match time of the previous expect
  for (std::size_t i = 0; i < c.stimulus.size(); ++i) {
    const StepBody& body = c.stimulus[i].body;
    const bool after_inject = prev_is_inject;
    prev_is_inject = false;
    if (const auto* s = std::get_if<InjectStep>(&body); s && s->after_packet) {
      // Sent when the DUT's packet appears (the impairment program's trigger): no time to plan
      // by, so nothing later is timed from it (an expect after it is refused at load).
      continue;
    } else if (s) {
      t.actions.push_back({s->at_ns, i});
      prev_time = s->at_ns;
      prev_is_expect = false;
      prev_is_inject = true;
      prev_inject_port = s->port;
    } else if (const auto* s = std::get_if<ControlStep>(&body)) {
      t.actions.push_back({s->at_ns, i});
      prev_time = s->at_ns;
      prev_is_expect = false;
    } else if (const auto* s = std::get_if<ImpairStep>(&body)) {
      prev_time = s->at_ns;
      prev_is_expect = false;
    } else if (const auto* s = std::get_if<TrafficStep>(&body)) {
      prev_time = s->start_ns;
      prev_is_expect = false;
    } else if (const auto* s = std::get_if<ExpectStep>(&body)) {
      ExpectPlan p;
      p.step = i;
      p.expect = s;
      std::uint64_t anchor_bound = prev_time;
      if (prev_is_expect) {
        p.anchored_on_expect = true;
        p.prev_expect = t.expects.size() - 1;
        anchor_bound = prev_expect_bound;
      } else {
        p.anchor_ns = prev_time;
        p.anchored_on_inject = after_inject;
        p.inject_port = after_inject ? prev_inject_port : 0;
      }
      t.expects.push_back(p);
      prev_expect_bound = expect_deadline(*s, anchor_bound);
      t.horizon_ns = std::max(t.horizon_ns, prev_expect_bound);
      prev_is_expect = true;
    }
    t.horizon_ns = std::max(t.horizon_ns, prev_time);
  }
  std::stable_sort(t.actions.begin(), t.actions.end(),
                   [](const TimedStep& a, const TimedStep& b) { return a.at_ns < b.at_ns; });
  return t;
}

}  // namespace mrc::harness::stim
