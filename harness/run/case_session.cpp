#include "harness/run/case_session.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "harness/run/bridge_trust.hpp"
#include "harness/run/control_step.hpp"
#include "harness/run/injected_write.hpp"
#include "harness/run/interrupt.hpp"
#include "harness/run/session_state.hpp"
#include "harness/run/testbed_timer.hpp"
#include "harness/dut/profile_setup.hpp"
#include "harness/stimulus/payload.hpp"
#include "reference/wire/ev_placement.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::run {
namespace {

using harness::Verdict;
namespace stim = harness::stim;

constexpr std::uint64_t kBufferBudget = 64ull << 20;  // traffic slots per side
constexpr std::uint64_t kMinBuffer = 64ull << 10;     // room for scripted frames' default RETH
constexpr std::uint64_t kInitialRecvs = 256;

std::string port_name(int port) { return "p" + std::to_string(port); }

class Session {
 public:
  explicit Session(SessionState& s) : s_(s) {}

  bool setup();
  bool play();

 private:
  std::vector<stim::WireEv> expected_wire_evs(const harness::DutSetup& setup) const;
  bool setup_traffic(std::uint64_t& buffer_bytes);
  bool setup_injects();
  bool run_control(std::size_t step, std::uint64_t at);
  bool post_due(std::uint64_t now);
  bool poll(std::uint64_t now);
  void poll_ev_events(std::uint64_t now, bool last);
  bool on_completion(harness::DutBinding& side, const harness::CompletionRecord& c);
  bool post_recvs(RecvNeed& r, std::uint64_t n);
  bool status_ok(const harness::DutStatus& st, const std::string& what);

  SessionState& s_;
  std::vector<harness::CompletionRecord> polled_;
  std::uint64_t next_ev_poll_ = 0;
  // Counts what the session handed to or took from the bindings (controls, injections, posted
  // writes, completions, EV events): a slice after which none of it happened, and in which the
  // testbed moved nothing, changes nothing (quiet_until()).
  std::uint64_t handed_ = 0;
};

bool Session::status_ok(const harness::DutStatus& st, const std::string& what) {
  if (st.ok()) return true;
  const Verdict v = Verdict::kError;
  return s_.fail(v, what + ": " + st.message);
}

bool Session::setup() {
  const harness::Case& c = s_.c;
  std::string why;
  s_.activity("testbed");
  {
    const TestbedTimer timer(s_.result);
    const auto request = testbed_request(c.testbed, s_.o.testbed, c.config.dscp);
    s_.tb = s_.o.make_testbed ? s_.o.make_testbed(request, s_.o.seed, &why)
                              : harness::make_sim_testbed(request, s_.o.seed, &why);
  }
  if (!s_.tb) return s_.fail(Verdict::kError, "testbed: " + why);
  s_.activity("dut.attach");
  if (const harness::DutStatus at = s_.dut.attach(*s_.tb, kDutHost); at.code == harness::DutStatus::Code::kUnsupported) {
    return s_.fail(Verdict::kUnsupported, "DUT attach: " + at.message);  // e.g. more planes than the DUT's wire
  } else if (!status_ok(at, "DUT attach")) {
    return false;
  }
  if (!status_ok(s_.peer.attach(*s_.tb, kPeerHost), "peer attach")) return false;
  if (!fit_to_testbed(s_, kDutHost, kPeerHost)) return false;

  std::uint64_t buffer_bytes = 0;
  if (!setup_traffic(buffer_bytes)) return false;
  s_.setups = make_setups(c, *s_.tb, kDutHost, kPeerHost, buffer_bytes, s_.o.seed);
  if (!s_.setups.error.empty()) return s_.fail(Verdict::kError, s_.setups.error);
  const harness::DeviceConfig& dev = c.config.device;
  if (!dev.caps_off.empty() || dev.event_queue_depth != 0) {
    s_.activity("dut.restrict_device");
    if (!status_ok(s_.dut.restrict_device(device_restriction(dev)), "DUT config.device")) return false;
  }
  s_.activity("dut.apply");
  if (!status_ok(s_.dut.apply(s_.setups.dut, s_.dut_local), "DUT apply")) return false;
  if (!status_ok(s_.peer.apply(s_.setups.peer, s_.peer_local), "peer apply")) return false;
  s_.activity("dut.connect");
  if (!status_ok(s_.dut.connect(s_.peer_local), "DUT connect")) return false;
  if (!status_ok(s_.peer.connect(s_.dut_local), "peer connect")) return false;
  // config.qp.count 0 is a case of connectionless endpoint operations only (no QP by design).
  if (s_.dut_local.qpns.size() < c.config.qp.count || s_.peer_local.qpns.size() < c.config.qp.count) {
    return s_.fail(Verdict::kError, "fewer QPs were created than config.qp.count");
  }

  s_.activity("dut.ev_table");
  s_.dut_evs = s_.dut.ev_table();
  s_.dut_wire_evs = expected_wire_evs(s_.setups.dut);
  s_.peer_wire_evs = expected_wire_evs(s_.setups.peer);
  if (s_.dut_evs.empty()) {  // a binding without an EV table: what the harness configured
    const wire::EvFmtMode mode = harness::wire_mode(s_.setups.dut.format_mode);
    for (std::size_t i = 0; i < s_.dut_wire_evs.size(); ++i) {
      const stim::WireEv& e = s_.dut_wire_evs[i];
      harness::EvRecord r;
      r.index = static_cast<std::uint32_t>(i);
      r.port = e.port;
      r.echo = wire::ev_echo_identity(mode, e.wire, e.index);
      s_.dut_evs.push_back(r);
    }
  }

  s_.activity("taps");
  // Every receive tap before every transmit tap: checks merge taps in time order and break ties
  // by tap order, and a frame that arrives at the DUT is the cause of what the DUT sends at the
  // same nanosecond (a SACK, a TRIM NACK), never the other way round.
  for (bool tx : {false, true}) {
    for (const harness::PortRef& p : s_.dut.data_ports()) {
      const std::string name = "dut." + port_name(p.port) + (tx ? ".tx" : ".rx");
      if (std::string e = s_.tb->add_tap(name, p.host, p.port, tx); !e.empty()) return s_.fail(Verdict::kError, e);
    }
  }
  if (!setup_impairments(s_)) return false;
  if (!setup_injects()) return false;
  s_.timeline = stim::plan_timeline(c);
  for (const auto& a : s_.timeline.actions) {
    if (std::holds_alternative<harness::ControlStep>(c.stimulus[a.step].body)) s_.controls.emplace_back(a.at_ns, a.step);
  }
  std::stable_sort(s_.held_injects.begin(), s_.held_injects.end(),
                   [](const auto& a, const auto& b) { return a.at_ns < b.at_ns; });
  return true;
}

// The EV array a side configured with `setup` holds, on the wire: the reference model's
// expansion, which is the host API's, so any conformant DUT puts the same bytes on the wire.
// Empty when the setup is one the DUT must refuse.
std::vector<stim::WireEv> Session::expected_wire_evs(const harness::DutSetup& setup) const {
  std::vector<stim::WireEv> out;
  for (const ev::EvEntry& e : harness::expected_ev_array(setup, s_.tb->planes(), nullptr)) {
    out.push_back(stim::WireEv{e.wire, e.port, e.index});
  }
  return out;
}

bool Session::setup_traffic(std::uint64_t& buffer_bytes) {
  const harness::Case& c = s_.c;
  std::vector<const harness::TrafficStep*> steps;
  std::vector<bool> dut_requests;
  for (const auto& st : c.stimulus) {
    const auto* t = std::get_if<harness::TrafficStep>(&st.body);
    if (!t) continue;
    if (c.role != harness::Role::kResponder) {
      steps.push_back(t);
      dut_requests.push_back(true);
    }
    if (c.role != harness::Role::kRequester) {
      steps.push_back(t);
      dut_requests.push_back(false);
    }
    s_.traffic_start_ns = std::min(s_.traffic_start_ns, t->start_ns);
  }
  std::vector<stim::TrafficLayout> layouts;
  buffer_bytes = std::max(stim::layout_traffic(steps, kBufferBudget, layouts), kMinBuffer);
  buffer_bytes = (buffer_bytes + 0xFFFF) & ~std::uint64_t{0xFFFF};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    ProgramRun r{stim::TrafficProgram(*steps[i], static_cast<std::uint32_t>(i), layouts[i])};
    r.requester = dut_requests[i] ? &s_.dut : &s_.peer;
    r.responder = dut_requests[i] ? &s_.peer : &s_.dut;
    r.responder_local = dut_requests[i] ? &s_.peer_local : &s_.dut_local;
    if (steps[i]->qp >= c.config.qp.count) {
      return s_.fail(Verdict::kError, "traffic on QP " + std::to_string(steps[i]->qp) + " but only " +
                                          std::to_string(c.config.qp.count) + " QP(s) are configured");
    }
    if (steps[i]->with_imm) {
      auto it = std::find_if(s_.recvs.begin(), s_.recvs.end(),
                             [&](const RecvNeed& n) { return n.side == r.responder && n.qp == steps[i]->qp; });
      if (it == s_.recvs.end()) it = s_.recvs.insert(s_.recvs.end(), RecvNeed{r.responder, steps[i]->qp, 0, 0});
      it->needed += steps[i]->writes;
    }
    s_.programs.push_back(std::move(r));
  }
  return true;
}

bool Session::setup_injects() {
  const harness::Case& c = s_.c;
  const stim::FrameContext fc = s_.frame_context(/*from_dut=*/false, /*encapsulated=*/false);
  std::uint64_t first_control = UINT64_MAX;
  std::uint64_t first_traffic = UINT64_MAX;
  for (const harness::StimulusStep& st : c.stimulus) {
    if (const auto* ctl = std::get_if<harness::ControlStep>(&st.body)) first_control = std::min(first_control, ctl->at_ns);
    if (const auto* t = std::get_if<harness::TrafficStep>(&st.body)) first_traffic = std::min(first_traffic, t->start_ns);
  }
  for (std::size_t i = 0; i < c.stimulus.size(); ++i) {
    const auto* inj = std::get_if<harness::InjectStep>(&c.stimulus[i].body);
    if (!inj) continue;
    const std::string where = "stimulus[" + std::to_string(i) + "]: ";
    const stim::BuiltFrame f = stim::build_frame(inj->frame, fc);
    if (!f.ok()) return s_.fail(Verdict::kError, where + f.error);
    note_injected_write(s_, f.bytes);
    if (inj->after_packet) {  // sent by the impairment hook when the DUT's packet leaves (case_impair.cpp)
      s_.triggered_injects.push_back(
          SessionState::TriggeredInject{i, f.bytes, static_cast<int>(inj->port), inj->delay_ns, UINT64_MAX, ""});
      continue;
    }
    // On a real-time testbed: after a control call (it takes real time), or after the start of
    // traffic (its first write may return late, and the injection follows it).
    if (s_.real_time() && (inj->at_ns >= first_control || (first_traffic != UINT64_MAX && inj->at_ns > first_traffic))) {
      s_.held_injects.push_back(
          SessionState::HeldInject{inj->at_ns, i, f.bytes, static_cast<int>(inj->port), inj->at_ns, false});
      continue;
    }
    const TestbedTimer timer(s_.result);
    if (std::string e = s_.tb->inject_to(kDutHost, static_cast<int>(inj->port), f.bytes, inj->at_ns); !e.empty()) {
      return s_.fail(Verdict::kError, where + "inject on port " + std::to_string(inj->port) + ": " + e);
    }
  }
  return true;
}

bool Session::run_control(std::size_t step, std::uint64_t at) {
  ++handed_;
  return run_control_step(s_, step, at);
}

bool Session::post_due(std::uint64_t now) {
  for (ProgramRun& p : s_.programs) {
    while (auto w = p.prog.next(now)) {
      s_.activity(p.requester == &s_.dut ? "dut.post_write" : "peer.post_write");
      // Made in place when the requester's buffer is in this process, else copied in.
      if (w->index < p.prefilled) {  // made before the clock started (prefill_traffic)
      } else if (const std::span<std::uint8_t> in_place = p.requester->overwrite_local(w->src_offset, w->length);
                 in_place.size() == w->length && w->length > 0) {
        stim::fill_write_data(s_.payload_seed(), p.prog.program(), w->index, in_place);
      } else {
        s_.scratch.resize(w->length);
        stim::fill_write_data(s_.payload_seed(), p.prog.program(), w->index, s_.scratch);
        if (!status_ok(p.requester->fill_local(w->src_offset, s_.scratch), "fill source buffer")) return false;
      }
      harness::WriteRequest req;
      req.qp = p.prog.qp();
      req.wr_id = w->wr_id;
      req.local_offset = w->src_offset;
      req.length = w->length;
      req.remote_addr = p.responder_local->buffer_va + w->dst_offset;
      req.rkey = p.responder_local->rkey;
      req.with_imm = w->with_imm;
      req.imm = w->imm;
      ++handed_;
      const harness::DutStatus st = p.requester->post_write(req, now);
      if (st.code == harness::DutStatus::Code::kUnimplemented || st.code == harness::DutStatus::Code::kFailed) {
        return status_ok(st, "post_write");
      }
      s_.write_by_id[w->wr_id] = s_.writes.size();
      s_.writes.push_back(harness::WriteRecord{w->wr_id, now, w->length, w->with_imm, false,
                                               p.requester == &s_.dut, w->imm});
      s_.write_dst.push_back(w->dst_offset);
      if (const std::uint64_t took = std::exchange(p.started, true) ? 0 : s_.tb->clock_now(); took > now) {
        traffic_left_late(s_, p.prog.step().start_ns, took);
      }
      if (st.ok()) {
        p.prog.posted(*w, now);
      } else {
        p.prog.refused(*w);  // the DUT said no (e.g. ENOMEM): the write failed, move on
        s_.result.notes.push_back("post_write " + std::to_string(w->wr_id) + " refused: " + st.message);
      }
    }
  }
  return true;
}

bool Session::post_recvs(RecvNeed& r, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n && r.posted < r.needed; ++i) {
    const std::uint64_t wr_id = (std::uint64_t{1} << 63) | (std::uint64_t{r.qp} << 32) | r.posted;
    s_.activity("post_recv");
    if (!status_ok(r.side->post_recv(r.qp, wr_id), "post_recv")) return false;
    ++r.posted;
  }
  return true;
}

bool Session::on_completion(harness::DutBinding& side, const harness::CompletionRecord& c) {
  ++handed_;
  if (!c.is_send) {  // a WRITE-with-IMM arrived: hand the responder another receive buffer
    const auto qp = static_cast<std::uint32_t>((c.wr_id >> 32) & 0x7FFFFFFF);
    for (RecvNeed& r : s_.recvs) {
      if (r.side == &side && r.qp == qp) return post_recvs(r, 1);
    }
    return true;
  }
  const std::uint32_t p = stim::TrafficProgram::program_of(c.wr_id);
  if (p >= s_.programs.size() || s_.programs[p].requester != &side) return true;
  ProgramRun& run = s_.programs[p];
  if (!run.prog.completed(c.wr_id, c.status == 0) || c.status != 0) return true;
  // The write is complete at the requester, so its bytes must be in place at the responder.
  const std::uint64_t index = stim::TrafficProgram::index_of(c.wr_id);
  const auto w = s_.write_by_id.find(c.wr_id);
  if (w == s_.write_by_id.end()) return true;
  harness::WriteRecord& rec = s_.writes[w->second];
  s_.activity("read_local");
  // Checked in place when the responder's buffer is in this process, else read out first.
  if (const std::span<const std::uint8_t> in_place = run.responder->view_local(s_.write_dst[w->second], rec.length);
      in_place.size() == rec.length && rec.length > 0) {
    rec.data_verified = stim::check_write_data(s_.payload_seed(), run.prog.program(), index, in_place);
    return true;
  }
  s_.scratch.resize(rec.length);
  const harness::DutStatus st = run.responder->read_local(s_.write_dst[w->second], s_.scratch);
  rec.data_verified = st.ok() && stim::check_write_data(s_.payload_seed(), run.prog.program(), index, s_.scratch);
  return true;
}

bool Session::poll(std::uint64_t now) {
  for (harness::DutBinding* side : {&s_.dut, &s_.peer}) {
    polled_.clear();
    s_.activity(side == &s_.dut ? "dut.poll_completions" : "peer.poll_completions");
    side->poll_completions(polled_, now);
    // An external DUT's reply took real time: what it reports happened before the reply, so it
    // carries the clock's time after the call less its age there, never the earlier loop time (a
    // DUT's frames sent before its completion must not look later than it): date_report().
    const ReplyClock clock = s_.reply_clock(now);
    for (auto& c : polled_) {
      const auto& mine = s_.result.ctx.dut.completions;
      c.at_ns = date_report(clock.real_time ? c.age_ns : 0, clock, side == &s_.dut && !mine.empty() ? mine.back().at_ns : 0);
      c.age_ns = 0;
      if (side == &s_.dut) s_.result.ctx.dut.completions.push_back(c);
      if (!on_completion(*side, c)) return false;
    }
  }
  poll_ev_events(now, false);
  return true;
}

// config.device.event_poll_ns spaces the reads out, so a DUT's event queue can fill up between
// them (EV-EVENT-DROP-COUNT); the last read comes after the run.
void Session::poll_ev_events(std::uint64_t now, bool last) {
  const std::uint64_t every = s_.c.config.device.event_poll_ns;
  if (!last && every != 0 && now < next_ev_poll_) return;
  if (every != 0) next_ev_poll_ = (now / every + 1) * every;
  s_.activity("dut.poll_ev_events");
  const std::size_t events = s_.result.ctx.dut.ev_events.size();
  s_.dut.poll_ev_events(s_.result.ctx.dut.ev_events, now);
  const ReplyClock clock = s_.reply_clock(now);  // as in poll()
  auto& all = s_.result.ctx.dut.ev_events;
  for (std::size_t i = events; i < all.size(); ++i) {
    all[i].at_ns = date_report(clock.real_time ? all[i].age_ns : 0, clock, i > 0 ? all[i - 1].at_ns : 0);
    all[i].age_ns = 0;
  }
  handed_ += s_.result.ctx.dut.ev_events.size() - events;
}

bool Session::play() {
  for (RecvNeed& r : s_.recvs) {
    if (!post_recvs(r, kInitialRecvs)) return false;
  }
  prefill_traffic(s_);
  s_.tb->start_clock();
  const std::pair clock0{std::chrono::steady_clock::now(), s_.tb->now()};  // wall and testbed time
  const std::uint64_t horizon = s_.timeline.horizon_ns;
  const std::uint64_t limit = horizon + s_.o.virtual_limit_ns;
  std::size_t next_control = 0;
  std::size_t& next_inject = s_.held_sent;  // traffic that leaves late moves the held injections after it
  bool draining = false;
  std::uint64_t drain_until = 0;
  while (true) {
    if (interrupt_grace_flag().load()) return s_.fail(Verdict::kError, interrupted_case_message());
    if (std::chrono::steady_clock::now() > s_.o.deadline) {
      return s_.fail(Verdict::kError, "wall-clock bound of " + std::to_string(s_.c.timeout_s) +
                                          " s exceeded at virtual t=" + std::to_string(s_.tb->now()) + " ns");
    }
    // Read with the fabric held (the runner holds it between run_until() calls), without a system call.
    std::string lost = real_time_lost(s_.tb->pacing_behind_ns(), s_.tb->running_bridge_figures(kDutHost),
                                      s_.tb->running_bridge_figures(kPeerHost));
    if (lost.empty() && s_.real_time()) {
      lost = wall_clock_short(clock0.first, s_.o.deadline, std::chrono::steady_clock::now(), s_.tb->now() - clock0.second);
    }
    if (!lost.empty()) {  // judged on what it captured (SessionResult::cut_short)
      s_.result.cut_short = std::move(lost);
      break;
    }
    const std::uint64_t now = s_.tb->now();
    const std::uint64_t handed_before = handed_;
    while (next_control < s_.controls.size() && s_.controls[next_control].first <= now) {
      const auto& [at, step] = s_.controls[next_control++];
      if (!run_control(step, at)) return false;
    }
    // Held injections go out once due and once every control scheduled before them has returned.
    while (next_inject < s_.held_injects.size() && s_.held_injects[next_inject].at_ns <= now &&
           (next_control == s_.controls.size() || s_.controls[next_control].first > s_.held_injects[next_inject].at_ns)) {
      ++handed_;
      if (!send_held_inject(s_, s_.held_injects[next_inject++])) return false;
    }
    if (!post_due(now) || !poll(now)) return false;
    const bool traffic_done =
        std::all_of(s_.programs.begin(), s_.programs.end(), [](const ProgramRun& p) { return p.prog.done(); });
    if (!draining && traffic_done && now >= horizon && next_control == s_.controls.size() &&
        next_inject == s_.held_injects.size()) {
      draining = true;
      // Plus the timing budget, so a frame the widened expect windows still accept is captured.
      drain_until = now + s_.o.drain_ns + s_.tb->timing_budget().ns;
    }
    if (draining && now >= drain_until) break;
    if (now >= limit) {
      s_.hit_virtual_limit = true;
      break;
    }
    std::uint64_t next = limit;
    if (draining) next = std::min(next, drain_until);
    if (now < horizon) next = std::min(next, horizon);
    if (next_control < s_.controls.size()) next = std::min(next, s_.controls[next_control].first);
    if (next_inject < s_.held_injects.size()) next = std::min(next, s_.held_injects[next_inject].at_ns);
    // Traffic waiting on completions is polled every slice_ns. When the last slice moved nothing
    // on the testbed and this iteration handed nothing to the bindings, the slices before the
    // testbed's next event (quiet_until) and the next EV event read would do nothing either: they
    // are skipped whole, landing on the slice boundary the polling would have reached. The same
    // run, without millions of empty slices while a DUT waits out a long ACK timeout.
    bool waiting = false;
    for (const ProgramRun& p : s_.programs) {
      next = std::min(next, p.prog.wake_time(now));
      waiting |= !p.prog.done();
    }
    if (waiting) {
      std::uint64_t quiet = handed_ != handed_before ? now : std::min(s_.tb->quiet_until(), limit);
      if (s_.c.config.device.event_poll_ns != 0 && next_ev_poll_ > now) quiet = std::min(quiet, next_ev_poll_);
      const std::uint64_t slice = std::max<std::uint64_t>(s_.o.slice_ns, 1);
      const std::uint64_t slices = quiet > now + slice ? (quiet - now + slice - 1) / slice : 1;
      next = std::min(next, now + slices * slice);
    }
    if (next <= now) next = now + 1;
    s_.activity("testbed.run_until");
    const TestbedTimer timer(s_.result);
    if (s_.tb->run_until(next) == harness::RunStop::kError) {
      return s_.fail(Verdict::kError, "testbed " + s_.tb->name() + ": " + s_.tb->run_error());
    }
    if (!s_.bindings_healthy()) return false;
  }
  poll_ev_events(s_.tb->now(), true);
  s_.activity("collect");
  return true;
}

}  // namespace

std::vector<std::string> missing_capabilities(const harness::Case& c, const harness::DutBinding& dut) {
  const std::vector<std::string> have = dut.capabilities();
  std::vector<std::string> missing;
  for (harness::Capability cap : c.requires_caps) {
    const std::string name(harness::to_string(cap));
    if (std::find(have.begin(), have.end(), name) == have.end()) missing.push_back(name);
  }
  return missing;
}

SessionResult run_session(const harness::Case& c, harness::DutBinding& dut, harness::DutBinding& peer,
                          const SessionOptions& o) {
  // Either side unreachable (an agent that does not answer, refuses the token, ...) is an ERROR
  // naming that side before anything is set up.
  for (const auto& [side, binding] : {std::pair<const char*, harness::DutBinding*>{"DUT", &dut}, {"peer", &peer}}) {
    if (const harness::DutStatus st = binding->status(); !st.ok()) {
      SessionResult r;
      r.status = Verdict::kError;
      r.message = std::string(side) + ": " + st.message;
      return r;
    }
  }
  if (const auto missing = missing_capabilities(c, dut); !missing.empty()) {
    SessionResult r;
    r.status = Verdict::kUnsupported;
    r.message = "the DUT does not declare:";
    for (const auto& m : missing) r.message += " " + m;
    return r;
  }
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = thread_cpu_s();
  SessionState s(c, dut, peer, o);
  Session session(s);
  if (session.setup() && session.play()) collect(s);
  if (s.rescaled) {
    s.result.wire_timeout = s.case_run.config.qp.timeout;
    if (s.case_run.frame_timed) s.result.spray_bps = s.case_run.spray_bps;
    s.result.rescaled = std::move(s.case_run);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = thread_cpu_s() - cpu0;
  s.result.testbed_cpu_s = wall > 0 ? cpu * std::min(1.0, s.result.testbed_wall_s / wall) : 0;
  return std::move(s.result);
}

}  // namespace mrc::run
