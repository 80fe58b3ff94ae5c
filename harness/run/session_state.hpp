// The state of one running case, shared by case_session.cpp (setup and the run loop) and
// case_collect.cpp (turning what happened into a CheckContext). Internal to the CLI.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "harness/dut/dut_binding.hpp"
#include "harness/run/case_session.hpp"
#include "harness/run/case_setup.hpp"
#include "harness/stimulus/frame_builder.hpp"
#include "harness/stimulus/impairment.hpp"
#include "harness/stimulus/timeline.hpp"
#include "harness/stimulus/traffic.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::run {

using harness::kDutHost;
using harness::kPeerHost;

// A traffic program and the two sides it runs between.
struct ProgramRun {
  harness::stim::TrafficProgram prog;
  harness::DutBinding* requester = nullptr;
  harness::DutBinding* responder = nullptr;
  const harness::DutLocal* responder_local = nullptr;
  bool started = false;  // its first write was posted (late_steps has when it took effect)
  std::uint64_t prefilled = 0;  // writes [0, prefilled) have their data in place already
};

// A testbed fault the stimulus scheduled, with what it hit (for affected_evs).
struct ScheduledFault {
  harness::FaultRequest req;
  harness::LinkRef link;          // link faults
  std::string kind;               // FaultEvent::kind spelling
  std::size_t step = 0;
};

// Receive buffers a responder side needs for WRITE-with-IMM (no RNR in MRC: posted up front and
// replenished as they complete).
struct RecvNeed {
  harness::DutBinding* side = nullptr;
  std::uint32_t qp = 0;
  std::uint64_t needed = 0;
  std::uint64_t posted = 0;
};

// The testbed's clock after a binding's reply: `replied` the time the runner reads (never before
// its loop time; it stands still while the runner holds a paced fabric), `wall` the clock itself,
// which went on meanwhile (Testbed::wall_now).
struct ReplyClock {
  std::uint64_t replied = 0;
  std::uint64_t wall = 0;
  bool real_time = false;  // an external DUT's ages count only across a real-time bridge
};

// When something an external DUT reported `age_ns` before its reply happened: the clock after the
// reply less that age (the agent's stamps are on its own clock; only their difference from its
// reply crosses over), never later than what the runner reads, nor before `floor` (the previous
// record, so records stay in order). Always at or after the truth: the wall clock ran at least
// as long as the age since it (a paced fabric's pause aside, which the timing budget covers). Age
// 0 gives `replied`, as on virtual time.
std::uint64_t date_report(std::uint64_t age_ns, const ReplyClock& c, std::uint64_t floor);

struct SessionState {
  // The case as it runs: a copy of the caller's, replaced when the runner raises its ACK timeout
  // for a slow wire or evaluates its F at its testbed's rate (rescale_for_testbed); `c` always names it.
  harness::Case case_run;
  const harness::Case& c = case_run;
  bool rescaled = false;
  harness::DutBinding& dut;
  harness::DutBinding& peer;  // the harness's side of every exchange (default: the reference)
  const SessionOptions& o;
  SessionResult result;

  // Both bindings outlive the testbed, which drives their frame ports until it is destroyed.
  std::unique_ptr<harness::Testbed> tb;
  CaseSetups setups;
  harness::DutLocal dut_local;
  harness::DutLocal peer_local;
  harness::stim::Timeline timeline;
  std::vector<ProgramRun> programs;
  std::vector<RecvNeed> recvs;
  std::unique_ptr<harness::stim::ImpairmentProgram> impair;
  std::vector<ScheduledFault> faults;
  std::vector<std::pair<std::uint64_t, std::size_t>> controls;  // (at_ns, step), sorted
  // On a real-time testbed, injections scheduled after a control step or after the start of a
  // traffic step: sent by the runner once every control before them has returned (an agent's
  // call takes real time), and later by as much as the traffic's first write returned late, not
  // handed to the fabric up front. Sorted by at_ns; the first held_sent of them are sent.
  struct HeldInject {
    std::uint64_t at_ns = 0;         // when it goes out
    std::size_t step = 0;
    std::vector<std::uint8_t> frame;
    int port = 1;
    std::uint64_t scheduled_ns = 0;  // the case's at_ns: expects anchored on it count from there
    bool followed = false;           // moved with late traffic already (once, as impairment rules)
  };
  std::vector<HeldInject> held_injects;
  std::size_t held_sent = 0;
  // Injections timed by the DUT's own packet (InjectStep::after_packet), in the order of the
  // impairment program's triggers: the hook sends each when its trigger fires.
  struct TriggeredInject {
    std::size_t step = 0;
    std::vector<std::uint8_t> frame;
    int port = 1;
    std::uint64_t delay_ns = 0;
    std::uint64_t sent_at = UINT64_MAX;  // UINT64_MAX: its packet never came
    std::string error;                   // the testbed refused it
  };
  std::vector<TriggeredInject> triggered_injects;
  std::vector<harness::ExpectRecord> control_records;           // control steps' expected results
  std::vector<harness::EvRecord> dut_evs;                       // after apply
  std::vector<harness::stim::WireEv> dut_wire_evs;              // on-wire bytes of dut_evs
  std::vector<harness::stim::WireEv> peer_wire_evs;             // on-wire bytes of the peer's EVs
  std::vector<harness::WriteRecord> writes;
  std::vector<harness::InjectedWriteRecord> injected_writes;  // read back after the run
  std::vector<std::uint64_t> write_dst;                         // destination offset per write
  std::unordered_map<std::uint64_t, std::size_t> write_by_id;
  std::vector<std::uint8_t> scratch;                            // write data / verification
  std::uint64_t traffic_start_ns = UINT64_MAX;
  bool hit_virtual_limit = false;

  SessionState(const harness::Case& cs, harness::DutBinding& d, harness::DutBinding& p, const SessionOptions& opt)
      : case_run(cs), dut(d), peer(p), o(opt) {}

  // The seed of the written data and injected payload patterns. A golden pins the payload bytes
  // it was generated with (`mrc-conform golden` runs a case with its own `seed`, the seed
  // pcaps/MANIFEST records), so a case with a `golden` check keeps its own seed for its data
  // whatever --seed says; every other choice of the run (testbed, drawn EVs) follows --seed.
  std::uint64_t payload_seed() const;
  // True when a host of the testbed is bound to real interfaces (the real-time bridge).
  bool real_time() const;
  ReplyClock reply_clock(std::uint64_t loop_now) const;

  void activity(const char* what) const {
    if (o.activity) o.activity->store(what);
  }
  bool fail(harness::Verdict v, std::string message) {
    result.status = v;
    result.message = std::move(message);
    return false;
  }
  // False (result: the ERROR naming the side) when a binding's status() went bad during the run: a
  // frame port that broke while the fabric drove it (a model overrunning its buffer, a lockstep
  // agent gone) shows only there, the fabric's calls returning nothing. The binding's ERROR, not
  // a silent DUT's FAIL.
  bool bindings_healthy();
  // The frame context for frames from `from_dut` ? DUT -> peer : peer -> DUT.
  harness::stim::FrameContext frame_context(bool from_dut, bool encapsulated) const;
};

// case_impair.cpp: the impair steps -> impairment hook and scheduled faults. False = s.result
// holds the ERROR.
bool setup_impairments(SessionState& s);

// case_fit.cpp: the case as it runs on this testbed (rescale_for_testbed): loaded again with the
// wire's ACK timeout and the testbed's frame time where they differ from its own (noted), and
// UNSUPPORTED where a real-time wire cannot carry it (wire_misfit). False = s.result holds the verdict.
bool fit_to_testbed(SessionState& s, int dut_host, int peer_host);

// case_traffic.cpp: makes the data of each program's first writes (one per slot) before the
// testbed's clock starts, so a real-time fabric is not held for it while the case runs.
void prefill_traffic(SessionState& s);

// case_impair.cpp: a traffic step that started at `start_ns` had its first write return at `took`
// (an external DUT's post takes real time): an expect on it counts from then (late_steps), and
// impairment rules and held injections timed from it follow it
// (ImpairmentProgram::follow_late_traffic, noted).
void traffic_left_late(SessionState& s, std::uint64_t start_ns, std::uint64_t took);
// The held injections it moves: those not yet sent (from `sent` on) that the case scheduled after
// start_ns go out late_ns later, each once, and stay in time order. Returns how many moved.
std::size_t follow_late_traffic(std::vector<SessionState::HeldInject>& held, std::size_t sent, std::uint64_t start_ns,
                                std::uint64_t late_ns);
// A held injection, once due: it goes out now (its time, or the fabric's if that is later, which
// CheckContext::late_steps then records). False = s.result holds the ERROR.
bool send_held_inject(SessionState& s, const SessionState::HeldInject& h);

// case_collect.cpp: taps, faults, observations, expects -> result.ctx.
void collect(SessionState& s);

}  // namespace mrc::run
