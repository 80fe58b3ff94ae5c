// `mrc-conform doctor`: what is wrong with a real-wire set-up (`--testbed netns`, or a lab testbed
// file and the user's agent), before a run finds out case by case. Each check gives one finding,
// one line, saying what to do when it fails:
//
//   1. every interface the testbed names exists and is up (has carrier);
//   2. its MTU carries the largest frame the suite sends (reference/wire/frame.hpp kMaxFrameLen);
//   3. a capture (PcapPort) opens on it;
//   4. it offers nanosecond timestamps (else a warning);
//   5. the agent answers, speaks our protocol version and accepts the token;
//   6. every plane has an agent port and a harness-side interface;
//   7. one probe frame per plane, sent on the plane's interface, reaches the agent's port of that
//      plane and no other (the agent's per-port receive counters, agent.rx.p<N>);
//   8. the pacing jitter of the real-time bridge over a short paced run without traffic.
//
// Every wait is bounded and named (the agent's connect_timeout / call_timeout, probe_wait, the
// pacing run's length). A check that cannot run because an earlier one failed says so (kSkip).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "harness/dut/agent_client.hpp"

namespace mrc::run {

struct DoctorFinding {
  enum class Level : std::uint8_t { kOk, kWarn, kFail, kSkip };
  Level level = Level::kOk;
  std::string what;    // what was checked (kOk) or what is wrong
  std::string advice;  // what to do (kWarn, kFail), or why the check did not run (kSkip)
};

// "ok   what", "WARN what: advice", "FAIL what: advice", "skip what: advice".
std::string format_finding(const DoctorFinding& f);

struct DoctorRequest {
  std::string testbed = "netns";  // "netns" or a lab testbed file
  std::string dut;                // empty: agent:reference (netns); a lab file needs agent:HOST:PORT
  std::string agent_token;        // the user's agent (lab file)
  std::filesystem::path agent_binary;  // netns: empty = mrc-dut-agent beside this executable
  harness::AgentTimeouts agent_timeouts;
  std::chrono::milliseconds probe_wait{1000};   // how long one probe frame may take to be counted
  std::chrono::milliseconds pacing_run{200};    // the paced run measuring the bridge's jitter
};

struct DoctorOutcome {
  bool bad_input = false;  // the request itself is wrong (exit 2): `error` says why, nothing ran
  std::string error;
  std::vector<DoctorFinding> findings;
  bool healthy() const;    // no kFail
};

// Runs every check; `on_finding` (when set) sees each finding as it is made, so a slow check
// shows where the time goes. Whatever it creates (a namespace, an agent) is removed before it
// returns.
DoctorOutcome run_doctor(const DoctorRequest& r, const std::function<void(const DoctorFinding&)>& on_finding = {});

}  // namespace mrc::run
