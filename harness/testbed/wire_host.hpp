// A testbed host bound to real network interfaces: the real-time bridge (design.md §2). The
// simulated fabric stays the network (planes, spines, impairments, faults, taps); one host's ports
// are real interfaces instead of an in-process endpoint, so a DUT behind them (an agent beside a
// NIC, a veth into a network namespace) exchanges frames with the fabric as it runs.
//
// A WireHost is a FramePort (the fabric drives it like any host) plus what a paced testbed needs to
// serve it: descriptors to wait on, a receive step that stamps every frame with its kernel capture
// time on the testbed's clock, and the bridge's own latency figures. The testbed runs paced to
// CLOCK_MONOTONIC once a host is bound to the wire (Testbed::bind_wire).
//
// Declared here, defined in testbed/wire/ (open_wire_host), so nothing outside testbed/ needs
// libpcap's headers.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "harness/testbed/frame_port.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::harness {

// Host port `port` (1-based, = plane) is the interface `ifname` in the harness's namespace.
struct WirePortBinding {
  std::uint8_t port = 1;
  std::string ifname;
};

// The paced testbed's clock, shared with its wire hosts: testbed time = CLOCK_MONOTONIC -
// mono_minus_testbed_ns. Kernel capture timestamps are CLOCK_REALTIME; realtime_minus_testbed()
// maps them (read at each receive, so a clock step between cases does not skew frames).
struct PacedClock {
  // Atomic: the fabric's thread moves it when the fabric pauses (sim/paced_run.hpp) while the
  // runner's thread reads the clock.
  std::atomic<std::int64_t> mono_minus_testbed_ns{0};
  // How many times the fabric paused (moved mono_minus_testbed_ns): a frame captured before a pause
  // and read after it maps onto the clock up to that pause too early, so the bridge does not take
  // its capture time as its departure (PortTime::entry_ns).
  std::atomic<std::uint64_t> pauses{0};
  std::uint64_t now() const;                     // testbed time of CLOCK_MONOTONIC now
  std::int64_t realtime_minus_testbed() const;   // CLOCK_REALTIME - testbed time, now
};
std::uint64_t monotonic_ns();
std::uint64_t realtime_ns();  // CLOCK_REALTIME, the clock of kernel capture timestamps

// How a host's addresses are written on a command line (mrc-dut-agent --gid / --mac).
std::string format_gid(const ::mrc::wire::Ipv6Addr& gid);  // "fd6d:7263::1"
std::string format_mac(const ::mrc::wire::MacAddr& mac);   // "02:6d:72:00:00:01"

// A latency distribution in fixed buckets (no allocation per sample): 100 ns buckets up to 1 ms,
// then everything above in one overflow bucket; the exact maximum is kept.
class LatencyHistogram {
 public:
  static constexpr std::uint64_t kBucketNs = 100;
  static constexpr std::size_t kBuckets = 10'000;
  void add(std::uint64_t ns);
  std::uint64_t count() const { return count_; }
  std::uint64_t max() const { return max_; }
  // The smallest bucket bound below which `q` (0..1) of the samples lie; max() above the range.
  std::uint64_t quantile(double q) const;
  void merge(const LatencyHistogram& o);

 private:
  std::array<std::uint32_t, kBuckets> buckets_{};
  std::uint64_t overflow_ = 0;
  std::uint64_t count_ = 0;
  std::uint64_t max_ = 0;
};

// What the bridge measured while bound. Latencies are what the bridge adds per frame:
//   rx_entry: a frame's entry into the fabric minus its kernel capture time (0 when the paced
//             loop read it before the fabric's clock passed that time),
//   tx_lag:   the wall time a frame was handed to the kernel minus the fabric time it reached the
//             bridged host (the paced loop's lateness plus the injection call).
struct BridgeFigures {
  std::uint64_t rx_frames = 0;
  std::uint64_t tx_frames = 0;
  std::uint64_t rx_overflow = 0;   // frames dropped because the bridge's queue was full
  std::uint64_t rx_oversize = 0;   // frames longer than the fabric carries
  std::uint64_t tx_errors = 0;     // injections the kernel refused
  std::uint64_t tx_port_down = 0;  // frames for a port the testbed took down (port fault)
  std::uint64_t kernel_drops = 0;  // what the capture rings lost
  LatencyHistogram rx_entry;
  LatencyHistogram tx_lag;
};

class WireHost : public FramePort {
 public:
  // "p1=eth1, p2=eth2"
  virtual std::string describe() const = 0;
  virtual std::vector<std::uint8_t> ports() const = 0;
  // Readable when frames wait.
  virtual std::vector<int> fds() const = 0;
  // Called once by the testbed that paces it, before any other call.
  virtual void start(const PacedClock& clock) = 0;
  // Moves every waiting frame into the host's queue, stamped on the testbed's clock. Returns how
  // many, or -1 when a port failed (error() says which and why).
  virtual int receive() = 0;
  // Hands the kernel every frame on_frame() queued since the last call (a transmit ring sends in
  // batches); the paced fabric calls it once per turn, after running the fabric's events. -1 when
  // a port failed (error() says why).
  virtual int flush() { return 0; }
  virtual const std::string& error() const = 0;
  virtual const BridgeFigures& figures() = 0;  // kernel drops refreshed at the call
  // The same with the kernel drops as last refreshed: no system call. The runner reads it every
  // turn of its loop while it holds the fabric (libpcap reads two sysfs files per port for its
  // drop counts: about 200 us for eight ports on a small VM, all of it lag added to the bridge).
  virtual const BridgeFigures& running_figures() { return figures(); }
};

struct WireHostOptions {
  int ring_frames = 4096;                   // frames queued between the kernel and the fabric
  // Frames of the largest size each interface's capture ring holds between two reads
  // (wire/pcap_port.hpp burst_options). 0: libpcap's defaults (65535-byte snapshot, 8 MiB: 128
  // frames). 0 by default, by measurement: on a 2-core machine a larger ring lets through bursts
  // the simulated fabric cannot run in real time, and more cases end "fell behind real time"
  // than end "lost frames" with the small one (bench/README.md); a faster testbed may set it.
  int capture_burst_frames = 0;
  // Slots of each interface's transmit ring (wire/tx_ring.hpp): frames to the interface are sent
  // in batches, one system call per fabric turn (at once while the fabric runs late). 0: one send
  // per frame (libpcap's inject). 0 by default, by measurement: on the 2-core netns run of the
  // whole library the ring ended fewer cases PASS (85 against 97 to 103; bench/README.md), the
  // per-frame send's pacing being what keeps the DUT from outrunning the fabric there.
  int tx_ring_frames = 0;
  // Reception through a TPACKET_V3 ring of the bridge's own (wire/rx_ring.hpp) instead of
  // libpcap's immediate mode (a TPACKET_V2 ring). Off by default, by measurement: bench/README.md.
  bool rx_ring_v3 = false;
};

// Opens one raw port per binding (libpcap, immediate mode, inbound only, nanosecond timestamps
// where offered; a TPACKET_V3 ring instead with rx_ring_v3; a transmit ring each when
// tx_ring_frames is set). Null and *error on failure,
// naming the interface.
std::unique_ptr<WireHost> open_wire_host(std::span<const WirePortBinding> ports, const WireHostOptions& opt,
                                         std::string* error);

}  // namespace mrc::harness
