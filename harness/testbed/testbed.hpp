// The testbed as the runner sees it (design.md §2): hosts with one port per plane, a virtual (or
// real) clock that only moves when asked, taps on host links that become TapCaptures, frames
// injected straight into a host's ingress, a per-packet impairment hook, scheduled faults and the
// EV path query that says which EVs a fault hits.
//
// Implementation: SimTestbed (harness/testbed/sim/sim_testbed.cpp, over the built-in
// discrete-event fabric), optionally with hosts bound to real interfaces (bind_wire, wire_host.hpp),
// then paced to real time. The interface is deliberately thin: the runner, the
// DUT bindings and the stimulus layer only use what is here, and a host is driven only through a
// FramePort (frame_port.hpp), never a concrete endpoint type.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <filesystem>
#include <optional>
#include <utility>

#include "harness/observe/observations.hpp"
#include "harness/testbed/frame_port.hpp"
#include "harness/testbed/wire_host.hpp"
#include "reference/ev/expansion.hpp"
#include "reference/wire/headers.hpp"
#include "reference/wire/mrc_headers.hpp"

namespace mrc::harness {

// The hosts of a conformance run: the DUT on testbed host 0, the harness's own side (the peer, the
// other end of every QP) on host 1. The runner and the wire testbed that starts agents share it.
inline constexpr int kDutHost = 0;
inline constexpr int kPeerHost = 1;

struct HostAddress {
  wire::Ipv6Addr gid{};
  wire::MacAddr mac{};
  std::uint32_t ipv4 = 0;  // host order
};

// One link direction, as impairment programs and fault events name it.
struct LinkRef {
  std::uint32_t id = 0;   // testbed link id
  std::string name;       // "plane2/host0-leaf0", "plane2/leaf0-spine1"
  int plane = 0;          // 1-based
  int host = -1;          // host end of a host link; -1 for fabric links
};

// A packet entering a link direction, handed to the impairment hook. The bytes may be edited in
// place (e.g. to corrupt); length changes go through the returned action.
struct LinkPacket {
  std::uint64_t now_ns = 0;
  std::uint32_t link = 0;   // LinkRef::id
  int plane = 0;            // 1-based
  int host = -1;            // host end when it is a host link, else -1
  bool toward_host = false; // host links: true = towards the host (its ingress)
  bool from_host_port = false;  // the packet leaves a host here (first hop)
  std::uint8_t* bytes = nullptr;
  std::uint16_t len = 0;
};

struct ImpairAction {
  // kMarkCe: set CE in every ECN-capable IP header of the frame (a Not-ECT packet stays unmarked).
  enum class Kind : std::uint8_t { kPass, kDrop, kTrim, kDuplicate, kDelay, kCorrupt, kMarkCe };
  Kind kind = Kind::kPass;
  std::uint32_t trim_bytes = 0;   // kTrim
  std::uint32_t copies = 0;       // kDuplicate: extra copies
  std::uint64_t delay_ns = 0;     // kDelay
  std::uint32_t offset = 0;       // kCorrupt: byte offset
  std::uint8_t xor_mask = 0xFF;   // kCorrupt
};

// Called for each packet entering each link direction; must be deterministic.
using ImpairmentHook = std::function<ImpairAction(const LinkPacket&)>;

struct FaultRequest {
  enum class Kind : std::uint8_t { kLinkDown, kLinkUp, kSwitchDown, kSwitchUp, kBlackhole, kPortDown, kPortUp };
  Kind kind = Kind::kLinkDown;
  std::uint64_t at_ns = 0;
  std::string target;  // link or switch name (kLink*/kBlackhole/kSwitch*); empty for port faults
  int host = -1;       // kPort*: the host whose port goes down (endpoint admin state)
  int port = 0;        // kPort*: 1-based
};

// Why run_until() stopped.
enum class RunStop : std::uint8_t { kReached, kIdle, kError };

class Testbed {
 public:
  virtual ~Testbed() = default;

  virtual std::string name() const = 0;  // "sim:mini (2 hosts, 8 planes, 2 spines/plane)"
  virtual std::uint32_t planes() const = 0;
  virtual std::uint32_t hosts() const = 0;
  virtual HostAddress host_address(int host) const = 0;

  // Drives `host` through `port` (a reference endpoint's adapter, a bridge), which must outlive
  // the testbed's run. Returns "" or why not.
  virtual std::string attach_port(int host, FramePort& port) = 0;
  // Tells the testbed that an attached endpoint may have frames or timers to serve now (after a
  // post or a control call made from outside the event loop).
  virtual void wake(int host) = 0;

  virtual std::uint64_t now() const = 0;
  // The testbed time of the clock itself: on a fabric paced to real time, where the wall clock
  // stands (the fabric's now() trails it by up to its pacing wait); now() on virtual time. What an
  // external DUT reports in a reply came before this.
  virtual std::uint64_t clock_now() const { return now(); }
  // The paced clock's own reading, which goes on while the runner holds the fabric (clock_now()
  // stands still then); clock_now() on virtual time. What an external DUT stamped some time before
  // its reply is dated back from here (run/session_state.hpp, date_report).
  virtual std::uint64_t wall_now() const { return clock_now(); }
  // Runs the clock up to `t_ns` (or until nothing is pending). Bounded by construction.
  virtual RunStop run_until(std::uint64_t t_ns) = 0;
  // When the last run_until() changed nothing (no frame moved, no timer fired) and nothing was
  // handed to the testbed's hosts since, the earliest time anything can happen on it (a frame, a
  // host's timer, a fault): until then a run_until() does nothing a binding could report, so the
  // runner may skip its polling slices up to it. now() (skip nothing) otherwise, and always on a
  // testbed that runs in real time.
  virtual std::uint64_t quiet_until() const { return now(); }
  // Why run_until() returned kError (a bridged interface failed, ...).
  virtual std::string run_error() const { return {}; }
  // A fabric paced to real time keeps running while its user makes a call that does not touch
  // it (an external DUT's request): release_fabric() before, hold_fabric() after. No-ops for a
  // fabric on virtual time.
  virtual void release_fabric() {}
  virtual void hold_fabric() {}
  // A fabric paced to real time starts its clock here (the runner calls it as the stimulus
  // begins, so set-up calls take no testbed time but the DUT's first frames find a running
  // fabric); run_until() starts it too. A no-op on virtual time.
  virtual void start_clock() {}

  // Captures one direction of a host link (host port `port` = plane): `from_host` true = frames
  // the host sends. Returns "" or why not. Captures start at once.
  virtual std::string add_tap(std::string name, int host, int port, bool from_host) = 0;
  // Hands over every tap's capture (with integrity counts). Call once, after the run.
  virtual std::vector<TapCapture> take_taps() = 0;

  // Delivers a frame straight to a host's ingress port at `at_ns` (a scripted peer on its link).
  virtual std::string inject_to(int host, int port, std::span<const std::uint8_t> frame, std::uint64_t at_ns) = 0;

  virtual void set_impairment_hook(ImpairmentHook hook) = 0;
  virtual std::string schedule_fault(const FaultRequest& f) = 0;
  // Every fault the testbed applied, in time order (affected_evs left empty: the runner fills
  // them from ev_path()).
  virtual std::vector<FaultEvent> faults() const = 0;

  // Links, by name (nullopt-like: id == UINT32_MAX when unknown).
  virtual LinkRef find_link(std::string_view name) const = 0;
  virtual LinkRef host_link(int host, int port) const = 0;
  virtual bool switch_exists(std::string_view name) const = 0;

  // The link directions a frame with these EV-carrying fields takes from host `src` to host
  // `dst`, and the switches it crosses (by name). `frame` is a complete frame as `src` would send
  // it on `port`.
  struct Path {
    std::vector<LinkRef> links;
    std::vector<std::string> switches;
    bool delivered = false;  // the path ends at dst
  };
  virtual Path path_of(int src, int port, std::span<const std::uint8_t> frame) const = 0;

  // What congestion control needs to know about the network between two hosts (NSCC's base RTT
  // and line rate, W14): an unloaded round trip of an MTU-sized frame and its ACK, the
  // NIC's aggregate rate over every plane, and whether switches trim.
  struct NetworkFacts {
    std::uint64_t base_rtt_ns = 0;
    std::uint64_t line_rate_bps = 0;
    bool fabric_trims = true;
  };
  virtual NetworkFacts network_facts(int src, int dst, std::uint32_t mtu_bytes) const = 0;

  // The testbed's default EV setup between two hosts for a format mode: EVs that actually route
  // (SRv6 uSID containers, with `srv6_srh` the path split between the DA container and a
  // single-segment SRH; STEV/UDP values spread over every plane and spine).
  struct DefaultEvs {
    std::vector<std::uint32_t> format_widths;
    std::vector<ev::EvField> fields;  // identity fields: EV value = wire bytes
    std::vector<std::pair<std::vector<std::uint8_t>, std::uint8_t>> evs;  // value, port
  };
  virtual DefaultEvs default_evs(wire::EvFmtMode mode, int src, int dst, bool srv6_srh = false) const = 0;

  // How far a time measured on this testbed may be off from the DUT's own timing: zero for the
  // simulated fabric (every host runs on its clock); a real-time bridge declares what it adds
  // (pacing, capture and injection latency). Timing checks widen their bounds by exactly this
  // and say so; nothing else widens a bound. The struct is observe/'s, so the verdict layer,
  // which may not include the testbed, reads the same type from its CheckContext.
  using TimingBudget = harness::TimingBudget;
  virtual TimingBudget timing_budget() const { return {}; }

  // What a real-time bridge declares for the host bound to it.
  struct BridgeDeclaration {
    TimingBudget budget;         // timing checks widen their bounds by this
    std::uint64_t rate_bps = 0;  // what it forwards, as a bit rate: congestion control's line rate
                                 // towards the host (0: the fabric's own)
    std::uint64_t rtt_ns = 0;    // what its two crossings add to a round trip (NSCC's base RTT)
    // For a harness machine with a core to spare (both 0 by default; bench/README.md has what they
    // do on veth): the paced fabric thread's real-time priority (SCHED_FIFO 1..99; refused without
    // CAP_SYS_NICE, which fails the run and says so), so the kernel does not leave it waiting up
    // to a millisecond, and how much of each wait it spends awake instead of asleep (a sleeping
    // thread of a VM wakes about 10 us late).
    int fabric_priority = 0;
    std::uint64_t fabric_spin_ns = 0;
  };
  // Binds `host` to real interfaces (the real-time bridge): from then on the testbed runs paced to
  // CLOCK_MONOTONIC, frames from the interfaces enter the fabric at their capture time, timing
  // checks widen their bounds by the declared budget (timing_budget()) and network_facts() to or
  // from the host include the bridge's rate and delay. "" or why not.
  virtual std::string bind_wire(int host, std::unique_ptr<WireHost> wire, BridgeDeclaration declared) {
    (void)host;
    (void)wire;
    (void)declared;
    return "testbed " + name() + " cannot run paced to real time";
  }
  // How late the paced loop woke for the times it waited for (null when nothing is bound).
  virtual const LatencyHistogram* pacing_lateness() const { return nullptr; }
  // The most the paced fabric has trailed real time, ns (0 on virtual time): past a few budgets
  // the machine could not run this case's traffic in real time.
  virtual std::uint64_t pacing_behind_ns() const { return 0; }
  // How long the paced fabric's clock stood still at each pause, where the machine left it too far
  // behind to catch up in one turn (sim/paced_run.hpp); null on virtual time.
  virtual const LatencyHistogram* pacing_pauses() const { return nullptr; }
  // The bridge's figures for a bound host (null when the host is not bound).
  virtual const BridgeFigures* bridge_figures(int host) {
    (void)host;
    return nullptr;
  }
  // The same without refreshing the kernel's drop count (WireHost::running_figures): what the
  // runner's loop reads while it holds the fabric.
  virtual const BridgeFigures* running_bridge_figures(int host) { return bridge_figures(host); }
};

// Which simulated testbed to build: a preset or a testbed YAML, with a case's overrides. The
// runner resolves it from the case (its `testbed`, else the CLI's --testbed), so the testbed layer
// knows nothing of case files.
struct TestbedRequest {
  std::string preset;               // "mini" | "rack" | "pod", or a YAML path; empty when `file` is set
  std::filesystem::path file;       // a testbed YAML
  std::optional<std::uint32_t> planes;
  std::optional<std::uint32_t> hosts;
  std::optional<std::uint32_t> link_gbps;
  std::optional<std::uint32_t> mtu;         // link MTU, bytes
  std::optional<std::uint32_t> trim_bytes;  // switch trim size (W13)
  // W13 the traffic classes' DSCP values the switches queue, trim and re-mark by (the case's
  // config.dscp, which the endpoints get too); absent: the testbed's own (W13 defaults).
  std::optional<wire::DscpConfig> dscp;
  std::vector<std::pair<std::string, std::string>> overrides;  // validated by the testbed loader

  static TestbedRequest named(std::string preset_or_yaml) {
    TestbedRequest r;
    r.preset = std::move(preset_or_yaml);
    return r;
  }
};

// The built-in simulated testbed (defined in testbed/sim/, so nothing outside testbed/ includes
// the simulator's headers). Returns null and sets *error when it cannot be built.
std::unique_ptr<Testbed> make_sim_testbed(const TestbedRequest& request, std::uint64_t seed, std::string* error);
// The names of the simulator's presets ("mini", "rack", "pod"), for the did-you-mean of a
// misspelt one (harness/lab/spelling_hints.hpp).
std::vector<std::string> testbed_preset_names();

}  // namespace mrc::harness
