// mrc::sim::Simulator — a deterministic discrete-event simulator of a multi-plane MRC fabric.
//
// The clock is virtual nanoseconds. Hosts are frame ports (harness/testbed/frame_port.hpp: the
// simulator feeds them frames and time and pulls their frames, the sans-I/O contract of
// reference/endpoint.hpp, whoever implements it) or external drivers (a callback receives their
// frames; inject() sends for them). Switches forward
// on static tables (forwarding.hpp); every switch egress port has a strict-priority queue for
// control and trimmed traffic (DSCP 46 / 11) and a byte-limited data queue with ECN marking and
// trimming (W13). Links serialize at their rate and add their propagation delay.
//
// A packet's life on one link direction:
//   1. enqueue: the MTU check and the queue (admission, ECN mark, trim or drop);
//   2. start of serialization: the kWire taps capture it, then the wire impairs it: link down,
//      black-hole, the impairment hook, loss and corruption draws, extra delay;
//   3. arrival (last bit in + propagation): dropped if the link went down meanwhile or the
//      receiving switch is down; the kArrival taps capture it; the node forwards or consumes it.
//
// Same config, same host behaviour, same calls => same events in the same order => the same
// captures byte for byte. Nothing reads a wall clock; loss and corruption draws come from one
// splitmix64 stream seeded by TopologyConfig::seed, in event order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/observe/capture.hpp"
#include "harness/testbed/sim/event_queue.hpp"
#include "harness/testbed/sim/forwarding.hpp"
#include "harness/testbed/sim/packet_pool.hpp"
#include "harness/testbed/sim/sim_types.hpp"
#include "harness/testbed/sim/topology.hpp"
#include "harness/testbed/endpoint_port.hpp"
#include "harness/testbed/frame_port.hpp"
#include "reference/endpoint.hpp"
#include "reference/ev/controller.hpp"

namespace mrc::sim {

using TapId = std::uint32_t;

class Simulator {
 public:
  // `cfg` must validate (TopologyConfig::validate); create() reports why not instead.
  explicit Simulator(const TopologyConfig& cfg);
  static std::unique_ptr<Simulator> create(const TopologyConfig& cfg, std::string* error);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  const Topology& topology() const { return topo_; }
  const std::vector<SwitchTable>& tables() const { return tables_; }

  // ---- hosts -----------------------------------------------------------------------------------
  // Creates an Endpoint owned by the simulator on `host`, with the address plan's GID, MAC and
  // IPv4 address and one port per plane filled into `cfg`. Throws std::invalid_argument for a
  // bad or taken host.
  ref::Endpoint& make_endpoint(std::uint32_t host, ref::EndpointConfig cfg = {});
  // The EndpointConfig make_endpoint would use (for an endpoint the caller owns).
  ref::EndpointConfig endpoint_config(std::uint32_t host, ref::EndpointConfig cfg = {}) const;
  // Drives `host` through a frame port the caller owns (the DUT binding's endpoint, a bridge).
  SimError attach_port(std::uint32_t host, harness::FramePort& port);
  SimError set_external(std::uint32_t host, ExternalRx rx);
  HostKind host_kind(std::uint32_t host) const;
  ref::Endpoint* endpoint(std::uint32_t host);  // nullptr unless make_endpoint() made it
  // The caller changed an endpoint between runs (post_send, modify_qp, ...): pull its frames and
  // reschedule its timer now. Every run call also does this for every endpoint.
  void notify(std::uint32_t host);

  // An external host sends `bytes` from its port at `at_ns` (into its NIC queue, then the fabric).
  SimError inject(std::uint32_t host, std::uint8_t port, wire::Bytes bytes, std::uint64_t at_ns);
  // `bytes` arrive at the host's port at `at_ns` as if its leaf had sent them (a scripted peer on
  // the host's link); taps on that leaf->host direction capture them.
  SimError inject_to(std::uint32_t host, std::uint8_t port, wire::Bytes bytes, std::uint64_t at_ns);

  // ---- faults ------------------------------------------------------------------------------------
  SimError schedule(const FaultSpec& f);
  SimError link_down(LinkId l, std::uint64_t at_ns, LinkSide side = LinkSide::kBoth);
  SimError link_up(LinkId l, std::uint64_t at_ns, LinkSide side = LinkSide::kBoth);
  SimError switch_down(NodeId sw, std::uint64_t at_ns);
  SimError switch_up(NodeId sw, std::uint64_t at_ns);
  SimError blackhole(LinkId l, std::uint64_t at_ns, bool on = true, LinkSide side = LinkSide::kBoth);
  SimError set_loss(LinkId l, double probability, std::uint64_t at_ns, LinkSide side = LinkSide::kBoth);
  SimError set_corruption(LinkId l, double probability, std::uint64_t at_ns, LinkSide side = LinkSide::kBoth);
  SimError set_extra_delay(LinkId l, std::uint64_t delay_ns, std::uint64_t at_ns,
                           LinkSide side = LinkSide::kBoth);
  SimError port_admin(std::uint32_t host, std::uint8_t port, bool up, std::uint64_t at_ns);
  // The hook runs for every packet going onto any direction in `dirs` (all when empty).
  void set_impairment_hook(ImpairmentHook hook, std::vector<DirId> dirs = {});
  const std::vector<FaultRecord>& fault_log() const { return faults_log_; }
  std::uint64_t fault_records_dropped() const { return faults_log_dropped_; }
  std::string fault_target(const FaultRecord& r) const;  // "plane3/leaf0-spine1", "host1.p2", ...
  void set_fault_log_limit(std::size_t n) { faults_log_limit_ = n; }

  // ---- taps --------------------------------------------------------------------------------------
  TapId add_tap(const TapSpec& spec);  // kNone for a bad direction
  void set_tap_enabled(TapId t, bool on);
  const harness::Capture& capture(TapId t) const;
  harness::Capture take_capture(TapId t);  // moves the capture out; the tap keeps capturing
  TapCounters tap_counters(TapId t) const;
  const DirCounters& dir_counters(DirId d) const { return dirs_[d].c; }
  std::uint64_t queue_bytes(DirId d) const { return dirs_[d].prio.bytes + dirs_[d].data.bytes; }

  // ---- run control ---------------------------------------------------------------------------
  std::uint64_t now() const { return now_; }
  // Runs every event due at or before t_ns; now() is t_ns afterwards (t_ns < now() runs nothing).
  void run_until(std::uint64_t t_ns);
  // Runs until no event is pending (true) or the next one is after limit_ns (false; now() is then
  // limit_ns). A bounded wait: endpoints with timers armed keep the fabric busy.
  bool run_until_idle(std::uint64_t limit_ns);
  // Runs the next event; false when none is pending.
  bool step();
  bool idle() const { return events_.empty(); }
  bool switch_is_down(NodeId sw) const;
  std::uint64_t next_event_time() const { return events_.next_time(); }
  // Whether the last run_until() dispatched an event (its hosts may have new work for the next
  // service, which only the next run_until() does).
  bool last_run_dispatched() const { return last_run_dispatched_; }

  SimStats stats() const;
  std::size_t memory_bytes() const;  // own accounting of the fabric's data structures

 private:
  struct DirState {
    PacketFifo prio;
    PacketFifo data;
    std::uint64_t busy_until_ps = 0;
    std::uint64_t rate_mbps = 0;
    std::uint64_t prop_ns = 0;
    std::uint32_t mtu = 0;
    NodeId to = 0;             // receiving node
    std::uint32_t to_port = 0;  // its port (a host's: the plane)
    std::uint32_t epoch = 0;
    TapId taps = kNone;  // first tap on this direction (Tap::next links the rest)
    bool from_switch = false;
    bool to_host = false;
    bool txdone_pending = false;
    bool down = false;
    bool blackhole = false;
    bool hooked = false;
    double loss = 0;
    double corrupt = 0;
    std::uint64_t extra_delay_ns = 0;
    DirCounters c;
  };
  struct Host {
    HostKind kind = HostKind::kNone;
    harness::FramePort* port = nullptr;
    std::unique_ptr<ref::Endpoint> owned;          // make_endpoint(): the endpoint and its port
    std::unique_ptr<harness::EndpointPort> owned_port;
    ExternalRx rx;
    std::uint64_t timer_at = UINT64_MAX;  // earliest pending timer event
    std::uint64_t not_before = 0;         // a stalled deadline is retried no earlier than this
    std::uint64_t backlog_bytes = 0;  // frames waiting in this host's NIC queues
  };
  struct Tap {
    TapSpec spec;
    harness::Capture cap;
    DirCounters base;
    TapId next = kNone;
    bool enabled = true;
  };

  // Event handlers (simulator.cpp dispatches).
  void dispatch(const Event& e);
  void on_arrive(DirId d, PacketId p);
  void on_txdone(DirId d);
  void on_host_timer(std::uint32_t host, std::uint64_t t);
  void on_fault(std::uint32_t index);
  void on_deliver(DirId d, PacketId p);

  // Links (sim_links.cpp).
  void enqueue(DirId d, PacketId p);
  bool admit(DirId d, PacketId p, bool& priority);
  void transmit(DirId d, PacketId p, bool back_to_back = false);
  void schedule_txdone(DirId d);
  bool wire_faults(DirId d, PacketId p, std::uint64_t start_ns, std::uint64_t& extra_ns,
                   std::uint32_t& copies);
  void trim_packet(PacketId p, std::uint32_t bytes, bool last_hop);
  void corrupt_packet(PacketId p);
  void flush(DirId d);
  void switch_arrival(DirId d, PacketId p);
  std::uint64_t ser_ps(const DirState& s, std::uint32_t frame_len) const;

  // Hosts (sim_hosts.cpp).
  SimError attach(std::uint32_t host, HostKind kind);
  // Hands p to the host d leads to and captures it on d's taps (every tap of d when any_point,
  // else those at kArrival).
  void deliver_to_host(DirId d, PacketId p, bool any_point);
  void service(std::uint32_t host, bool advance);
  void service_all();
  void arm_timer(std::uint32_t host);

  // Taps (sim_taps.cpp).
  // Captures packet p on the taps of d at `point` (every tap of d when any_point).
  void tap(DirId d, TapPoint point, PacketId p, std::uint64_t ts, bool any_point = false);

  // Faults (sim_faults.cpp).
  void record(FaultKind k, std::uint32_t plane, LinkId link, DirId dir, NodeId node, bool per_packet);
  void apply_link_fault(const FaultSpec& f);
  void set_switch_state(NodeId sw, bool up);
  double draw();  // uniform [0, 1) from the seeded stream

  Topology topo_;
  std::vector<SwitchTable> tables_;
  std::vector<wire::MacAddr> switch_macs_;
  std::vector<SwitchContext> switch_ctx_;  // by switch index (node - hosts)
  std::vector<DirId> egress_;              // switch k's port p leaves on egress_[egress_base_[k] + p]
  std::vector<std::uint32_t> egress_base_; // switches + 1 entries
  PacketPool pool_;
  EventQueue events_;
  bool last_run_dispatched_ = true;
  std::vector<DirState> dirs_;
  std::vector<Host> hosts_;
  std::vector<std::uint32_t> endpoint_hosts_;  // hosts with an Endpoint, ascending
  std::vector<std::uint8_t> switch_down_;      // by switch index (node - hosts)
  std::vector<Tap> taps_;
  std::vector<FaultSpec> faults_;
  std::vector<FaultRecord> faults_log_;
  std::size_t faults_log_limit_ = 1'000'000;
  std::uint64_t faults_log_dropped_ = 0;
  ImpairmentHook hook_;
  ev::SplitMix64 rng_;
  std::uint64_t now_ = 0;
  SimStats stats_;
};

}  // namespace mrc::sim
