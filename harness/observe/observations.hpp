// What a run observes, in harness terms, shared by every layer that produces or reads it: the
// testbed (tap captures, faults), the DUT bindings (completions, EV events, the EV table), the
// runner (writes) and the checks. Plain data with no behaviour, so nothing here depends on how a
// DUT is driven or how a verdict is reached (design.md §3, harness/observe/).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "harness/observe/capture.hpp"
#include "harness/observe/timing_budget.hpp"

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
  // From the binding to the runner only (never judged, never written): how long before the
  // binding's reply the DUT reported it, on the DUT's own clock (an agent's stamp), 0 when not
  // known. The runner dates the record that much before its clock's reading after the reply.
  std::uint64_t age_ns = 0;
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
  std::uint64_t age_ns = 0;  // as CompletionRecord::age_ns
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

// A scripted WRITE the harness injected into the DUT's registered buffer, and what the buffer held
// there after the run (read back through the binding): how a check sees whether a frame the DUT
// must not place (a trimmed stub) left its bytes in memory.
struct InjectedWriteRecord {
  std::uint32_t psn = 0;
  bool trimmed = false;               // a trimmed stub (DSCP 11, or less payload than its RETH says)
  std::uint64_t offset = 0;           // of its RETH address in the DUT's buffer
  std::vector<std::uint8_t> payload;  // the payload bytes the frame carried
  std::vector<std::uint8_t> after;    // the buffer's bytes there after the run; empty when unreadable
};

// What the DUT binding reported, in harness terms.
struct DutObservations {
  std::vector<CompletionRecord> completions;
  std::vector<EvEventRecord> ev_events;
  std::vector<EvRecord> evs;
  std::vector<WriteRecord> writes;
  std::vector<InjectedWriteRecord> injected_writes;
  std::vector<std::pair<std::string, double>> counters;  // binding-specific counters, ordered
  int ev_fmt_mode = 1;    // host-API EvFmtMode value of the DUT's format profile
  std::uint32_t first_psn = 0;
  std::uint32_t dut_qpn = 0;
  std::uint32_t peer_qpn = 0;
};

}  // namespace mrc::harness
