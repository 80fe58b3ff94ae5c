// Vocabulary of the simulator's API: errors, faults and their records, the impairment hook, taps
// and counters. Semantics of where each thing happens on a packet's way are in the README
// ("A packet's life") and simulator.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "harness/testbed/sim/forwarding.hpp"
#include "harness/testbed/sim/topology.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::sim {

enum class SimError : std::uint8_t {
  kOk = 0,
  kBadHost,        // no such host
  kBadPort,        // host port outside 1..planes
  kBadLink,        // no such link / direction
  kBadSwitch,      // no such switch
  kBadArgument,    // probability outside [0, 1], unknown fault kind for the target, ...
  kBadFrame,       // shorter than an Ethernet header or longer than a packet buffer
  kInPast,         // scheduled before now()
  kPoolExhausted,  // no packet buffer left (TopologyConfig::max_packets)
  kNotEndpoint,    // the host is not an Endpoint (port admin state needs one)
  kHostTaken,      // the host already has an Endpoint or an external driver
};
const char* to_string(SimError e);

// ---- faults -----------------------------------------------------------------------------------
enum class FaultKind : std::uint8_t {
  // Scheduled state changes.
  kLinkDown,      // the link (or one direction) loses everything put on it, and what is in flight
  kLinkUp,
  kSwitchDown,    // its queues are lost; it neither forwards nor receives
  kSwitchUp,
  kBlackhole,     // link stays "up" but silently drops everything
  kBlackholeOff,
  kLoss,          // per-packet loss probability (seeded draws); 0 turns it off
  kCorruption,    // per-packet probability of one flipped byte (the ICRC then fails)
  kExtraDelay,    // extra one-way delay in ns added to every packet
  kPortDown,      // Endpoint::modify_port(port, false) on a host
  kPortUp,
  // Per-packet impairments (records only; the hook or a loss / corruption draw applied them).
  kDrop,
  kTrim,
  kDuplicate,
  kDelay,
  kCorrupt,
};
const char* to_string(FaultKind k);  // "link_down", "blackhole", "drop", ...

enum class LinkSide : std::uint8_t { kBoth, kUp, kDown };  // kUp = host->leaf / leaf->spine

struct FaultSpec {
  std::uint64_t at_ns = 0;
  FaultKind kind = FaultKind::kLinkDown;
  LinkId link = kNone;          // link faults
  LinkSide side = LinkSide::kBoth;
  NodeId node = kNone;          // switch faults (a leaf or spine node id)
  std::uint32_t host = kNone;   // port faults
  std::uint8_t port = 0;        // port faults, 1-based
  double probability = 0;       // kLoss / kCorruption
  std::uint64_t delay_ns = 0;   // kExtraDelay
};

// One applied fault or impairment, for the report.
struct FaultRecord {
  std::uint64_t at_ns = 0;
  FaultKind kind = FaultKind::kLinkDown;
  std::uint32_t plane = 0;  // 1-based; 0 when not on one plane (a host port fault: its port)
  LinkId link = kNone;
  DirId dir = kNone;        // per-packet records: the direction; link faults: kNone for both
  NodeId node = kNone;      // switch or host node for node / port faults
  bool per_packet = false;
};

// ---- the impairment hook ----------------------------------------------------------------------
struct Impairment {
  enum class Action : std::uint8_t { kPass, kDrop, kTrim, kDuplicate, kDelay, kCorrupt };
  Action action = Action::kPass;
  std::uint64_t delay_ns = 0;    // kDelay: extra delay of this packet
  std::uint32_t trim_bytes = 0;  // kTrim: frame length after trimming (0 = the switch trim size)
  std::uint32_t copies = 1;      // kDuplicate: extra copies delivered (1..16)
};

// Called for every packet as it goes onto a link direction (start of serialization, after the
// wire tap), with the frame's bytes: it may edit them in place and shorten `len` (never grow it).
using ImpairmentHook =
    std::function<Impairment(std::uint64_t now, DirId dir, wire::MutBytes frame, std::uint16_t& len)>;

// ---- taps and counters -----------------------------------------------------------------------
enum class TapPoint : std::uint8_t {
  kWire,     // the frame as it goes onto the wire (start of serialization), before wire faults
  kArrival,  // the frame as the far node receives it (last bit in), after wire faults
};

struct TapSpec {
  TapSpec() = default;
  TapSpec(DirId d, TapPoint p = TapPoint::kWire, std::string tap_name = {}, std::uint32_t snap = 0)
      : dir(d), point(p), name(std::move(tap_name)), snaplen(snap) {}

  DirId dir = kNone;
  TapPoint point = TapPoint::kWire;
  std::string name;                  // the capture's tap name ("" = the direction name)
  std::uint32_t snaplen = 0;         // 0 = whole frames
  std::uint64_t max_packets = 4'000'000;  // beyond either bound: counted as tap_dropped,
  std::uint64_t max_bytes = 1ull << 30;   // not stored
  std::size_t reserve_packets = 0;   // pre-size the capture (no growth during the run)
  std::size_t reserve_bytes = 0;
};

// Per link direction, from the start of the run.
struct DirCounters {
  std::uint64_t enqueued = 0;       // frames handed to this direction by its transmitter
  std::uint64_t tx_frames = 0;      // put on the wire
  std::uint64_t tx_bytes = 0;
  std::uint64_t delivered = 0;      // reached the far node
  std::uint64_t dropped_queue = 0;  // queue overflow (not trimmable) or over the link MTU
  std::uint64_t dropped_fault = 0;  // link down / black-hole / loss / switch down / hook drop
  std::uint64_t trimmed = 0;        // W13 trimmed by the queue or the hook
  std::uint64_t ecn_marked = 0;
  std::uint64_t corrupted = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t max_queue_bytes = 0;
};

// What a tap saw, from the moment it was added. `offered` / `captured` are also in the capture's
// integrity block; the drop counts say what the transmitter handed to this direction that never
// arrived (queue drops never reach the wire; fault drops do, and vanish on it).
struct TapCounters {
  std::uint64_t offered = 0;
  std::uint64_t captured = 0;
  std::uint64_t dropped_queue = 0;
  std::uint64_t dropped_fault = 0;
  std::uint64_t trimmed = 0;
  std::uint64_t ecn_marked = 0;
  std::uint64_t delivered = 0;
};

struct SimStats {
  std::uint64_t events = 0;
  std::uint64_t hops = 0;               // packet arrivals at a switch or host
  std::uint64_t delivered = 0;          // frames handed to hosts
  std::uint64_t injected = 0;
  std::uint64_t pool_exhausted = 0;     // frames lost for want of a buffer
  std::uint64_t unattached_rx = 0;      // frames for a host with no endpoint / driver
  std::uint64_t bad_egress_port = 0;    // endpoint frames for a port outside 1..planes
  std::uint64_t deadline_stalls = 0;    // an endpoint deadline did not move past now
  std::array<std::uint64_t, 8> forward_drops{};  // by DropReason
  std::size_t pool_buffers = 0;
  std::size_t pool_high_water = 0;
};

// ---- hosts --------------------------------------------------------------------------------------
enum class HostKind : std::uint8_t { kNone, kEndpoint, kExternal };

// A frame reaching an external host.
struct RxFrame {
  std::uint64_t now = 0;
  std::uint32_t host = 0;
  std::uint8_t port = 0;  // 1-based
  wire::Bytes bytes;      // valid during the callback only
};
using ExternalRx = std::function<void(const RxFrame&)>;

}  // namespace mrc::sim
