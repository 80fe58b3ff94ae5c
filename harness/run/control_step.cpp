// One `control` step of a case: the binding call it names, made at its time, and its result
// recorded as the step's expectation (the errno the case expects against the one returned). A
// DENIED change is also recorded as an EV event, since the controller's flag raises none.
#include "harness/run/control_step.hpp"

#include <algorithm>
#include <cerrno>
#include <string>

#include "harness/run/case_setup.hpp"

namespace mrc::run {
namespace {

using harness::Verdict;

int errno_of(harness::ControlResult r) {
  switch (r) {
    case harness::ControlResult::kOk: return 0;
    case harness::ControlResult::kEinval: return EINVAL;
    case harness::ControlResult::kEbusy: return EBUSY;
    case harness::ControlResult::kEperm: return EPERM;
    case harness::ControlResult::kEnoent: return ENOENT;
    case harness::ControlResult::kEopnotsupp: return EOPNOTSUPP;
    case harness::ControlResult::kEtimedout: return ETIMEDOUT;
    case harness::ControlResult::kEnospc: return ENOSPC;
    case harness::ControlResult::kE2big: return E2BIG;
  }
  return 0;
}

}  // namespace

bool run_control_step(SessionState& s, std::size_t step, std::uint64_t at) {
  const auto& ctl = std::get<harness::ControlStep>(s.c.stimulus[step].body);
  const std::uint64_t now = s.tb->now();
  harness::DutBinding& d = s.dut;
  harness::DutStatus st;
  s.activity("dut.control");
  switch (ctl.op) {
    case harness::ControlOp::kDenyEv: st = d.set_ev_denied(ctl.ev.value_or(0), true); break;
    case harness::ControlOp::kAllowEv: st = d.set_ev_denied(ctl.ev.value_or(0), false); break;
    case harness::ControlOp::kPortAdminDown: st = d.port_admin(static_cast<std::uint8_t>(ctl.port.value_or(1)), false); break;
    case harness::ControlOp::kPortAdminUp: st = d.port_admin(static_cast<std::uint8_t>(ctl.port.value_or(1)), true); break;
    case harness::ControlOp::kProbeEv: st = d.probe_ev(ctl.ev.value_or(0), ctl.tc.value_or(s.setups.dut.dscp.control), now); break;
    case harness::ControlOp::kPortStatusUpdate: st = d.port_status_update(now); break;
    case harness::ControlOp::kProfileOffline: st = d.set_profile_online(false); break;
    case harness::ControlOp::kProfileOnline: st = d.set_profile_online(true); break;
    case harness::ControlOp::kEvProfileSet:
      st = d.ev_profile_op(ev_profile_change(ctl.ev_profile.value_or(harness::EvProfileOp{})));
      break;
    case harness::ControlOp::kCcProfileSet:
      st = d.cc_profile_op(cc_profile_change(ctl.cc_profile.value_or(harness::CcProfileOp{})));
      break;
    case harness::ControlOp::kReplaceEv: st = d.replace_ev(ev_replacement(ctl.replace.value_or(harness::ReplaceEvOp{}))); break;
  }
  // The same as `now` on virtual time; later by the request's round trip for an agent on a wire
  // (the clock's time: the fabric may trail it).
  const std::uint64_t returned = std::max(now, s.tb->clock_now());
  s.result.ctx.late_steps.emplace_back(at, returned);
  if (st.code == harness::DutStatus::Code::kUnimplemented || st.code == harness::DutStatus::Code::kFailed) {
    return s.fail(Verdict::kError, "stimulus[" + std::to_string(step) + "] control " +
                                        std::string(harness::to_string(ctl.op)) + ": " + st.message);
  }
  harness::ExpectRecord r;
  const std::string want(harness::enum_name(harness::kControlResultNames, ctl.expect));
  r.description = "stimulus[" + std::to_string(step) + "] control " + std::string(harness::to_string(ctl.op)) +
                  (ctl.ev ? " ev=" + std::to_string(*ctl.ev) : "") + (ctl.port ? " port=" + std::to_string(*ctl.port) : "") +
                  " at t=" + std::to_string(now) + " ns returns " + want;
  r.window_start_ns = r.window_end_ns = r.matched_at_ns = now;
  r.control = true;
  const int got = st.ok() ? 0 : st.err;
  r.matched = got == errno_of(ctl.expect);
  if (st.ok() && (ctl.op == harness::ControlOp::kDenyEv || ctl.op == harness::ControlOp::kAllowEv)) {
    // The controller's DENIED flag raises no EV event of its own: record when it changed so the
    // checks judge packets against the state at their time (ev::EvState bit values).
    harness::EvEventRecord e;
    // DENIED binds once the call has returned (the DUT may still send on the EV while it runs);
    // an allowed EV may be used from the moment the call was made.
    e.at_ns = ctl.op == harness::ControlOp::kDenyEv ? returned : now;
    e.ev_index = ctl.ev.value_or(0);
    for (const auto& rec : s.dut_evs) {
      if (rec.index == e.ev_index) e.port = rec.port;
    }
    e.state = ctl.op == harness::ControlOp::kDenyEv ? 1u << 2 : 1u << 0;
    e.controller_change = true;
    s.result.ctx.dut.ev_events.push_back(e);
  }
  if (!r.matched) r.mismatch = "returned " + (st.ok() ? std::string("ok") : st.message);
  s.control_records.push_back(std::move(r));
  return true;
}

}  // namespace mrc::run
