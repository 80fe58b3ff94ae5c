// Everything a check may look at after a case ran. Checks are pure analysis of this: they never
// drive the DUT, so the same context replayed from a bundle gives the same verdicts.
//
// The context uses harness types only (no reference/transport types): a check judges what a DUT
// did on the wire and through its binding, whatever the DUT is. The observation records
// themselves live in harness/observe/ (the testbed and the bindings produce them).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "harness/observe/observations.hpp"
#include "reference/wire/headers.hpp"
#include "reference/wire/mrc_headers.hpp"

namespace mrc::harness {

// The scripted timeline's expectations and what matched them.
struct ExpectRecord {
  std::string description;   // "ACK psn=5 within 10us of inject #2"
  std::uint64_t window_start_ns = 0;
  std::uint64_t window_end_ns = 0;
  bool matched = false;
  std::string tap;
  std::int64_t packet_index = -1;
  std::uint64_t matched_at_ns = 0;
  std::string mismatch;      // closest candidate and its first differing field, when not matched
  bool control = false;      // a control step's call and the result it expects (not a frame)
  // False for an absent frame's window that a real-time testbed's crossings left empty (it opens
  // after the inject reached the DUT and closes a budget early): nothing was judged, and
  // run_expectations() says so instead of counting it matched.
  bool judged = true;
};

// One EV of a side's EV array as it goes on the wire: the expanded bytes (MSB first), the port
// it leaves on and its index in the array.
struct WireEvRecord {
  wire::EvBytes wire{};
  std::uint8_t port = 1;
  std::uint8_t index = 0;
};

struct CheckContext {
  std::string case_id;
  std::vector<TapCapture> taps;
  std::vector<FaultEvent> faults;
  std::vector<ExpectRecord> expects;
  DutObservations dut;
  std::uint64_t traffic_start_ns = 0;
  std::uint64_t end_ns = 0;
  std::filesystem::path out_dir;      // the run's output folder
  std::filesystem::path golden_dir;   // pcaps/ of the suite

  const TapCapture* tap(const std::string& name) const {
    for (const auto& t : taps) {
      if (t.name == name) return &t;
    }
    return nullptr;
  }

  // ---- appended by the verdict engine: the DUT's configured limits from the case config, for
  // the checks that judge them (0 / empty = unknown; those checks are then ERROR, not guessed).
  std::vector<std::uint32_t> peer_qpns;  // index = case QP index: the QPN the DUT's data frames target
  std::uint32_t requester_window_psns = 0;  // W12 min(mpr, peer mpr_dest) x 128
  std::uint32_t responder_window_psns = 0;  // W12 the DUT's mpr_dest x 128
  std::uint32_t wimm_limit = 0;             // W16 min(max_wimm, peer max_wimm_dest)
  std::uint32_t ev_min_active = 0;          // the EV profile's ev_min_active
  std::uint16_t dut_pkey = 0xFFFF;          // P_Key of the DUT's QPs (the harness's QPs all use the default)
  std::uint32_t ev_event_mask = 0x3;        // the EV profile's ev_event_mask (host-API state bits)
  bool ev_precise_drop_count = false;       // the DUT declares PRECISE_DROP_CNT for this run
  wire::DscpConfig dut_dscp;                // W13 the DSCP values the DUT was configured with
  // The DUT's EVs as its setup expands them (the reference model's expansion, which is the host
  // API's, so any conformant DUT puts these bytes on the wire) and its format mode: the legal set
  // a golden check judges the DUT's EV-carrying fields against (ev_choice.hpp). Empty: unknown,
  // and golden checks compare those fields exactly.
  std::vector<WireEvRecord> dut_wire_evs;
  wire::EvFmtMode dut_ev_mode = wire::EvFmtMode::kStev;

  // ---- appended by the runner from the case run's testbed (Testbed::timing_budget()): what the
  // timing checks add to an upper bound and take off a lower one (timing_budget.hpp). Zero on
  // the simulated fabric; a test sets it directly to judge a context as a bridge would.
  TimingBudget timing_budget;
  // What a real-time bridge measured in this run (known false on the simulated fabric): the longest
  // a frame to the DUT waited between reaching the DUT's host on the fabric's clock and the kernel
  // taking it (tx lag), and the longest a frame from the DUT entered the fabric after its kernel
  // capture time (entry delay). The budget is what the bridge promises; these are what it did.
  struct BridgeLag {
    bool known = false;
    std::uint64_t to_dut_max_ns = 0;
    std::uint64_t from_dut_max_ns = 0;
  };
  BridgeLag bridge_lag;
  // Steps that happened later than scheduled: (scheduled time, when it took effect), ns. A
  // control step's call on a real-time testbed takes real time (an agent's request) and what it
  // causes may come at any point of it; an injection held back until such a call returned goes
  // out late. An expect anchored on that time gets the difference added to its window. Empty on
  // the simulated fabric (a call takes no testbed time, injections are exact).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> late_steps;

  // ---- appended by the runner: per-packet impairment rules that never acted on a packet, each
  // "stimulus[N] KIND selecting WHAT" (a rule acts when a packet it selects passes; a DUT that
  // never sends what it selects, an EV it never uses, is never impaired). A check that finds no
  // fault to judge says so instead of calling the harness broken.
  std::vector<std::string> idle_impairments;
  // Injections timed by a packet of the DUT's (`after_packet`) that never went out, each
  // "stimulus[N]: ...": the DUT never sent that packet, so the case's stimulus never happened and
  // a PASS judged nothing (case_result.cpp).
  std::vector<std::string> unsent_injects;
};


}  // namespace mrc::harness
