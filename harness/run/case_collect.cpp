// Step 5 of a case run: the testbed's taps are named for the evidence file (case_evidence.hpp), the scheduled faults and the
// impairment rules become FaultEvents with the EVs they hit (from the testbed's path query), the
// bindings' reports become DutObservations, and the scripted expects are judged.
#include <algorithm>
#include <set>

#include "harness/dut/profile_setup.hpp"
#include "harness/verdict/expect_eval.hpp"
#include "harness/run/bridge_trust.hpp"
#include "harness/run/case_evidence.hpp"
#include "harness/run/session_state.hpp"

namespace mrc::run {
namespace {

namespace stim = harness::stim;

int fmt_mode_value(agentproto::FormatMode m) {  // host-API EV format mode bits
  switch (m) {
    case agentproto::FormatMode::kStev: return 1;
    case agentproto::FormatMode::kSrv6: return 2;
    case agentproto::FormatMode::kUdp: return 4;
  }
  return 1;
}

// The path each of the DUT's EVs takes to the peer (index = EV position).
std::vector<harness::Testbed::Path> ev_paths(SessionState& s) {
  std::vector<harness::Testbed::Path> paths;
  const stim::FrameContext fc = s.frame_context(/*from_dut=*/true, /*encapsulated=*/true);
  harness::FrameSpec probe;
  probe.opcode = wire::opcode::kMrcWriteOnly;
  probe.payload = harness::PayloadSpec{harness::PayloadPattern::kZero, 16};
  for (std::size_t i = 0; i < s.dut_wire_evs.size(); ++i) {
    probe.ev = static_cast<std::uint32_t>(i);
    const stim::BuiltFrame f = stim::build_frame(probe, fc);
    paths.push_back(f.ok() ? s.tb->path_of(kDutHost, s.dut_wire_evs[i].port, f.bytes) : harness::Testbed::Path{});
  }
  return paths;
}

std::uint32_t echo_of(SessionState& s, std::size_t i) {
  for (const auto& e : s.dut_evs) {
    if (e.index == i) return e.echo;
  }
  return static_cast<std::uint32_t>(i);
}

void collect_faults(SessionState& s, std::uint64_t end_ns) {
  auto& out = s.result.ctx.faults;
  const std::vector<harness::Testbed::Path> paths = ev_paths(s);
  for (const ScheduledFault& f : s.faults) {
    if (f.req.at_ns > end_ns) continue;  // scheduled past the end of the run: never applied
    harness::FaultEvent e;
    e.at_ns = f.req.at_ns;
    e.kind = f.kind;
    e.target = f.req.target;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      bool hit = false;
      switch (f.req.kind) {
        case harness::FaultRequest::Kind::kLinkDown:
        case harness::FaultRequest::Kind::kLinkUp:
        case harness::FaultRequest::Kind::kBlackhole:
          e.plane = f.link.plane;
          hit = std::any_of(paths[i].links.begin(), paths[i].links.end(),
                            [&](const harness::LinkRef& l) { return l.id == f.link.id; });
          break;
        case harness::FaultRequest::Kind::kSwitchDown:
        case harness::FaultRequest::Kind::kSwitchUp:
          hit = std::find(paths[i].switches.begin(), paths[i].switches.end(), f.req.target) != paths[i].switches.end();
          break;
        case harness::FaultRequest::Kind::kPortDown:
        case harness::FaultRequest::Kind::kPortUp:
          e.plane = f.req.port;
          hit = i < s.dut_wire_evs.size() && s.dut_wire_evs[i].port == f.req.port;
          break;
      }
      if (hit) e.affected_evs.push_back(echo_of(s, i));
    }
    out.push_back(std::move(e));
  }
  if (s.impair) {  // one event per per-packet rule that acted on at least one packet
    const auto& rules = s.impair->rules();
    for (std::size_t r = 0; r < rules.size(); ++r) {
      if (s.impair->hits()[r] == 0) continue;
      const harness::ImpairSelect& sel = rules[r].select;
      harness::FaultEvent e;
      e.at_ns = std::max(rules[r].at_ns, sel.time_window ? sel.time_window->first : 0);
      e.kind = std::string(harness::to_string(rules[r].kind));
      e.target = "stimulus[" + std::to_string(rules[r].step) + "] " + e.kind + " on " +
                 std::to_string(s.impair->hits()[r]) + " packet(s)" + (sel.link.empty() ? "" : " of " + sel.link);
      e.plane = sel.plane ? static_cast<int>(*sel.plane) : 0;
      for (const auto& ev : s.dut_evs) {
        const bool by_ev = sel.evs.empty() || std::find(sel.evs.begin(), sel.evs.end(), ev.index) != sel.evs.end();
        const bool by_plane = !sel.plane || ev.port == *sel.plane;
        if (by_ev && by_plane) e.affected_evs.push_back(ev.echo);
      }
      out.push_back(std::move(e));
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const harness::FaultEvent& a, const harness::FaultEvent& b) { return a.at_ns < b.at_ns; });
}

// "ev 5, psn 100..100, first transmissions, from 50000 ns": what a selection picks.
std::string describe_select(const harness::ImpairSelect& sel, std::uint64_t from_ns) {
  std::string what;
  auto add = [&what](const std::string& part) { what += (what.empty() ? "" : ", ") + part; };
  if (!sel.evs.empty()) {
    std::string evs;
    for (std::uint32_t e : sel.evs) evs += (evs.empty() ? "" : " ") + std::to_string(e);
    add("ev " + evs);
  }
  if (sel.plane) add("plane " + std::to_string(*sel.plane));
  if (sel.opcode) add("opcode " + std::to_string(*sel.opcode));
  if (sel.psn_range) add("psn " + std::to_string(sel.psn_range->first) + ".." + std::to_string(sel.psn_range->second));
  if (sel.rtx) add(*sel.rtx ? "retransmissions" : "first transmissions");
  if (!sel.link.empty()) add("link " + sel.link);
  if (sel.time_window) {
    add("in [" + std::to_string(sel.time_window->first) + ", " + std::to_string(sel.time_window->second) + ") ns");
  } else if (from_ns > 0) {
    add("from " + std::to_string(from_ns) + " ns");
  }
  return what.empty() ? "any packet" : what;
}

// "stimulus[2] drop selecting ev 5, from 50000 ns" for each per-packet rule that acted on no packet.
std::vector<std::string> idle_rules(const SessionState& s) {
  std::vector<std::string> out;
  if (!s.impair) return out;
  const auto& rules = s.impair->rules();
  for (std::size_t r = 0; r < rules.size(); ++r) {
    if (s.impair->hits()[r] != 0) continue;
    out.push_back("stimulus[" + std::to_string(rules[r].step) + "] " + std::string(harness::to_string(rules[r].kind)) +
                  " selecting " + describe_select(rules[r].select, rules[r].at_ns));
  }
  return out;
}

// Injections timed by a packet of the DUT's: when each went out (a note), or that it never did
// (CheckContext::unsent_injects). False when the testbed refused one (s.result: the ERROR).
bool collect_triggered(SessionState& s) {
  if (!s.impair) return true;
  const stim::ImpairmentProgram& prog = *s.impair;
  for (std::size_t k = 0; k < s.triggered_injects.size() && k < prog.trigger_count(); ++k) {
    const SessionState::TriggeredInject& t = s.triggered_injects[k];
    const std::string step = "stimulus[" + std::to_string(t.step) + "]";
    if (!t.error.empty()) return s.fail(harness::Verdict::kError, step + ": " + t.error);
    const std::string what = describe_select(prog.trigger_select(k), 0);
    if (t.sent_at == UINT64_MAX) {
      s.result.ctx.unsent_injects.push_back(step + ": the DUT sent no packet its after_packet selects (" + what +
                                            "), so it was never injected");
      continue;
    }
    s.result.notes.push_back(step + " injected at " + std::to_string(t.sent_at) + " ns, after the DUT's packet (" +
                             what + ") at " + std::to_string(prog.trigger_fired_at(k)) + " ns");
  }
  return true;
}

// The EVs a golden's choice class accepts (verdict/ev_choice.hpp): the DUT's EV array less the
// EVs denied before traffic that no control step allows again. An EV denied or allowed mid-run is
// the no_denied_ev invariant's to judge, with its grace time.
std::vector<harness::WireEvRecord> eligible_wire_evs(const SessionState& s) {
  const std::vector<std::uint32_t>& denied = s.setups.dut.denied;
  std::vector<harness::WireEvRecord> out;
  for (const stim::WireEv& e : s.dut_wire_evs) {
    const bool was_denied = std::find(denied.begin(), denied.end(), e.index) != denied.end();
    const bool allowed = std::any_of(s.c.stimulus.begin(), s.c.stimulus.end(), [&](const harness::StimulusStep& st) {
      const auto* ctl = std::get_if<harness::ControlStep>(&st.body);
      return ctl && ctl->op == harness::ControlOp::kAllowEv && ctl->ev.value_or(0) == e.index;
    });
    if (!was_denied || allowed) out.push_back(harness::WireEvRecord{e.wire, e.port, e.index});
  }
  return out;
}

}  // namespace

void collect(SessionState& s) {
  harness::CheckContext& ctx = s.result.ctx;
  const std::uint64_t end = s.tb->now();
  ctx.case_id = s.c.id;
  ctx.out_dir = s.o.out_dir;
  ctx.golden_dir = s.o.golden_dir;
  ctx.traffic_start_ns = s.traffic_start_ns == UINT64_MAX ? 0 : s.traffic_start_ns;
  ctx.end_ns = end;
  // What this testbed declares it may add to measured times: the timing checks and the expect
  // windows below widen their bounds by it (verdict/timing_budget.hpp).
  ctx.timing_budget = s.tb->timing_budget();
  s.result.sim_time_ns = end;

  s.activity("collect.taps");
  ctx.taps = s.tb->take_taps();
  for (auto& t : ctx.taps) {
    t.from_dut = t.from_dut && t.host == kDutHost;
    // The checks cite a tap by this key; once they have run, keep_evidence() maps each citation to
    // the case's one file and the packet's frame in it (case_evidence.hpp).
    t.pcap = tap_evidence_key(s.c.id, t.name);
  }
  s.activity("collect.faults");
  collect_faults(s, end);
  ctx.idle_impairments = idle_rules(s);
  if (!collect_triggered(s)) return;

  s.activity("dut.ev_table");
  harness::DutObservations& d = ctx.dut;
  d.evs = s.dut.ev_table();
  d.writes = s.writes;
  s.activity("dut.read_local");
  for (harness::InjectedWriteRecord& w : s.injected_writes) {
    w.after.resize(w.payload.size());
    if (!s.dut.read_local(w.offset, w.after).ok()) w.after.clear();
  }
  d.injected_writes = s.injected_writes;
  s.activity("dut.counters");
  d.counters = s.dut.counters();
  d.ev_fmt_mode = fmt_mode_value(s.setups.dut.format_mode);
  d.first_psn = s.dut_local.first_psn;
  d.dut_qpn = s.dut_local.qpns.empty() ? 0 : s.dut_local.qpns.front();
  d.peer_qpn = s.peer_local.qpns.empty() ? 0 : s.peer_local.qpns.front();

  // The DUT's configured limits (W12, W16), as the window and WIMM checks judge them.
  const agentproto::QpParams& q = s.setups.dut.qp;
  ctx.peer_qpns = s.peer_local.qpns;
  ctx.requester_window_psns = std::min<std::uint32_t>(q.mpr, s.peer_local.mpr_dest) * 128u;
  ctx.responder_window_psns = std::uint32_t{q.mpr_dest} * 128u;
  ctx.wimm_limit = std::min<std::uint32_t>(q.max_wimm, s.peer_local.max_wimm_dest);
  ctx.ev_min_active = s.setups.dut.ev_min_active;
  ctx.ev_event_mask = s.setups.dut.ev_event_mask;
  ctx.dut_dscp = harness::wire_dscp(s.setups.dut.dscp);
  ctx.dut_ev_mode = harness::wire_mode(s.setups.dut.format_mode);
  ctx.dut_wire_evs = eligible_wire_evs(s);
  const auto caps = s.dut.capabilities();
  const auto& off = s.c.config.device.caps_off;
  ctx.ev_precise_drop_count =
      std::find(caps.begin(), caps.end(), "precise_drop_count") != caps.end() &&
      std::find(off.begin(), off.end(), harness::Capability::kPreciseDropCount) == off.end();

  if (const harness::BridgeFigures* b = s.tb->bridge_figures(kDutHost); b != nullptr) {
    ctx.bridge_lag = {true, b->tx_lag.max(), b->rx_entry.max()};
  }
  ctx.expects = evaluate_expects(s.timeline, ctx);
  for (auto& r : s.control_records) ctx.expects.push_back(std::move(r));

  // What the bridge added (a certifier reads whether the declared budget covered it), and whether
  // it kept to its budget.
  std::uint64_t lag_max = 0;
  for (const auto& [host, who] : {std::pair{kDutHost, "DUT"}, std::pair{kPeerHost, "peer"}}) {
    if (const harness::BridgeFigures* b = s.tb->bridge_figures(host)) {
      s.result.notes.push_back(bridge_note(*b, who));
      if (host == kDutHost) {
        s.result.bridge = bridge_stats(*b);
        s.result.capture_gap = capture_gap(*b);
      }
      if (s.result.wire_overrun.empty()) s.result.wire_overrun = bridge_overrun(*b, s.tb->timing_budget().ns, who);
      lag_max = std::max({lag_max, b->tx_lag.max(), b->rx_entry.max()});
    }
  }
  if (const harness::LatencyHistogram* pauses = s.tb->pacing_pauses(); pauses != nullptr && pauses->count() > 0) {
    s.result.notes.push_back(pause_note(*pauses));
    if (s.result.wire_overrun.empty()) s.result.wire_overrun = pause_overrun(*pauses, lag_max, s.tb->timing_budget().ns);
  }

  if (s.hit_virtual_limit) {
    std::size_t unfinished = 0;
    for (const ProgramRun& p : s.programs) unfinished += p.prog.done() ? 0 : 1;
    s.result.notes.push_back("virtual time limit reached at " + std::to_string(end) + " ns with " +
                             std::to_string(unfinished) + " traffic program(s) unfinished");
  }
}

}  // namespace mrc::run
