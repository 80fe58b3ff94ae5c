// Everything a check may look at after a case ran. Checks are pure analysis of this: they never
// drive the DUT, so the same context replayed from a bundle gives the same verdicts.
//
// The context uses harness types only (no reference/transport types): a check judges what a DUT
// did on the wire and through its binding, whatever the DUT is.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/capture/capture.hpp"

namespace mrc::harness {

// A tap on one direction of one link, and what it captured.
struct TapCapture {
  std::string name;      // unique in the case, e.g. "dut.p3.tx" (DUT port 3, leaving the DUT)
  std::string pcap;      // evidence file, relative to the run's output folder ("" if not written)
  int host = -1;         // host index in the testbed, -1 for fabric-internal links
  int port = 0;          // 1-based host port = plane, 0 for fabric-internal links
  bool from_dut = false; // true: frames the DUT sent; false: frames sent to the DUT
  Capture capture;
};

// A fault the stimulus applied (or the testbed suffered) at a known virtual time.
struct FaultEvent {
  std::uint64_t at_ns = 0;
  std::string kind;     // link_down, link_up, switch_down, blackhole, port_down, drop, trim, ...
  std::string target;   // a human-readable name of what it hit ("plane3/leaf0-spine1")
  int plane = 0;        // 1-based plane it is on, 0 if several/none
  // EVs (by the echo identity a receiver sees: STEV value V, UDP sport, SRv6 EV index) whose
  // packets between the two hosts cross the fault; computed by the testbed's path query.
  std::vector<std::uint32_t> affected_evs;
};

struct CompletionRecord {
  std::uint64_t at_ns = 0;
  std::uint64_t wr_id = 0;
  int status = 0;          // ibv_wc_status value (0 = success)
  bool is_send = true;     // requester completion (true) or receive-side WRITE-with-IMM (false)
  bool has_imm = false;
  std::uint32_t imm = 0;
  std::uint32_t byte_len = 0;
};

struct EvEventRecord {
  std::uint64_t at_ns = 0;
  std::uint32_t ev_index = 0;
  std::uint8_t port = 0;
  std::uint32_t state = 0;       // host-API state bits: GOOD 1<<0, ASSUMED_BAD 1<<1, DENIED 1<<2
  std::uint32_t drop_count = 0;
  // Written by the harness, not reported by the DUT: when a control step set or cleared DENIED
  // (the controller's flag raises no EV event of its own).
  bool controller_change = false;
};

// One EV of the DUT's active profile as configured, so checks can map wire identities to EVs.
struct EvRecord {
  std::uint32_t index = 0;
  std::uint8_t port = 0;       // 1-based = plane
  std::uint32_t echo = 0;      // identity on the wire (same encoding as FaultEvent::affected_evs)
  std::uint32_t state = 1;     // at the end of the run
  bool denied = false;         // set DENIED by the controller before or during the run
};

struct WriteRecord {   // a write the traffic program posted, and whether its bytes arrived
  std::uint64_t wr_id = 0;
  std::uint64_t posted_ns = 0;
  std::uint32_t length = 0;
  bool with_imm = false;
  bool data_verified = false;  // destination memory equals the source after the run
  bool posted_by_dut = true;   // false: the harness's peer wrote to the DUT (the DUT is responder)
  std::uint32_t imm = 0;       // immediate data of a WRITE-with-IMM
};

// What the DUT binding reported, in harness terms.
struct DutObservations {
  std::vector<CompletionRecord> completions;
  std::vector<EvEventRecord> ev_events;
  std::vector<EvRecord> evs;
  std::vector<WriteRecord> writes;
  std::vector<std::pair<std::string, double>> counters;  // binding-specific counters, ordered
  int ev_fmt_mode = 1;    // host-API EvFmtMode value of the DUT's format profile
  std::uint32_t first_psn = 0;
  std::uint32_t dut_qpn = 0;
  std::uint32_t peer_qpn = 0;
};

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
  bool mrc_framing = true;            // MODEL: M3 (decode data packets with per-packet RETH)

  const TapCapture* tap(const std::string& name) const {
    for (const auto& t : taps) {
      if (t.name == name) return &t;
    }
    return nullptr;
  }

  // ---- appended by the verdict engine: the DUT's configured limits from the case config, for
  // the checks that judge them (0 / empty = unknown; those checks are then ERROR, not guessed).
  std::vector<std::uint32_t> peer_qpns;  // index = case QP index: the QPN the DUT's data frames target
  std::uint32_t requester_window_psns = 0;  // MODEL: M9 min(mpr, peer mpr_dest) x 128
  std::uint32_t responder_window_psns = 0;  // MODEL: M9 the DUT's mpr_dest x 128
  std::uint32_t wimm_limit = 0;             // MODEL: M10 min(max_wimm, peer max_wimm_dest)
  std::uint32_t ev_min_active = 0;          // the EV profile's ev_min_active
  std::uint16_t dut_pkey = 0xFFFF;          // P_Key of the DUT's QPs (the harness's QPs all use the default)
  std::uint32_t ev_event_mask = 0x3;        // the EV profile's ev_event_mask (host-API state bits)
  bool ev_precise_drop_count = false;       // the DUT declares PRECISE_DROP_CNT for this run
};

}  // namespace mrc::harness
