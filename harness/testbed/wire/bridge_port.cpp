// The real-time bridge's host side (wire_host.hpp): one libpcap port per plane (or, when asked,
// a TPACKET_V3 receive ring of our own: wire/rx_ring.hpp), a fixed ring of
// received frames between the kernel and the fabric (no allocation per frame), frames from the
// fabric injected the moment they reach the host, or, with a transmit ring each (an option, off by
// default: wire_host.hpp says why), queued on it and handed to the kernel in one batch per fabric
// turn (flush()).
//
// Timestamps: each frame keeps its kernel capture time, mapped onto the paced testbed's clock at
// receive(); the fabric takes it at that time (next_deadline() is the oldest frame's), or at once
// when the fabric's clock already passed it, which rx_entry counts from the capture time.
// receive() reads the ports one after another, so a port read later may hold older frames: each
// port keeps its frames in a queue of its own (in capture order, as the kernel gives them) and the
// fabric always takes the oldest head among the ports (a late reader must not make one port's
// frames look later than another's;
// a merge of the ports' queues, not an insertion into one sorted queue, whose cost grew with the
// square of a burst). Only a frame older than the last one the fabric took is moved up to it.
#include <poll.h>

#include <algorithm>
#include <cstring>

#include "harness/testbed/wire/pcap_port.hpp"
#include "harness/testbed/wire/rx_ring.hpp"
#include "harness/testbed/wire/tx_ring.hpp"
#include "harness/testbed/wire_host.hpp"
#include "reference/transport/qp_types.hpp"

namespace mrc::harness {
namespace {

// One interface's reception: libpcap's port (a TPACKET_V2 ring in immediate mode) or a
// TPACKET_V3 ring of our own (wire/rx_ring.hpp), whichever WireHostOptions chose; without a
// transmit ring, frames to the interface leave one by one through the same socket (send()).
struct RxPort {
  std::unique_ptr<wire::PcapPort> pcap;
  std::unique_ptr<wire::RxRing> ring;
  const std::string& name() const { return pcap ? pcap->name() : ring->name(); }
  int fd() const { return pcap ? pcap->fd() : ring->fd(); }
  int receive(wire::FrameCallback cb, void* ctx, int max) {
    return pcap ? pcap->receive(cb, ctx, max) : ring->receive(cb, ctx, max);
  }
  std::uint64_t kernel_drops() const { return pcap ? pcap->kernel_drops() : ring->kernel_drops(); }
  const std::string& last_error() const { return pcap ? pcap->last_error() : ring->last_error(); }
  bool send(std::span<const std::uint8_t> frame) { return pcap ? pcap->inject(frame).empty() : ring->send(frame); }
};

class BridgePort final : public WireHost {
 public:
  BridgePort(std::vector<RxPort> rx, std::vector<std::unique_ptr<wire::TxRing>> tx, std::vector<std::uint8_t> ports,
             int ring)
      : rx_(std::move(rx)), tx_(std::move(tx)), ports_(std::move(ports)), queues_(ports_.size()),
        data_(static_cast<std::size_t>(ring) * ::mrc::wire::kMaxFrameLen), free_(static_cast<std::size_t>(ring)),
        pfds_(rx_.size()) {
    for (std::size_t i = 0; i < ports_.size(); ++i) up_[ports_[i]] = true;
    for (PortQueue& q : queues_) q.ring.resize(static_cast<std::size_t>(ring));
    for (std::size_t i = 0; i < free_.size(); ++i) free_[i] = static_cast<std::uint32_t>(free_.size() - 1 - i);
    free_count_ = free_.size();
    std::size_t tx_slots = 0;
    for (const auto& t : tx_) tx_slots += t ? static_cast<std::size_t>(kTxLagSamples) : 0;
    queued_ts_.reserve(tx_slots);
  }

  // ---- WireHost ----
  std::string describe() const override {
    std::string s;
    for (std::size_t i = 0; i < ports_.size(); ++i) {
      s += (s.empty() ? "p" : ", p") + std::to_string(ports_[i]) + "=" + rx_[i].name();
    }
    return s;
  }
  std::vector<std::uint8_t> ports() const override { return ports_; }
  std::vector<int> fds() const override {
    std::vector<int> out;
    for (const auto& p : rx_) out.push_back(p.fd());
    return out;
  }
  void start(const PacedClock& clock) override { clock_ = &clock; }

  int receive() override {
    if (clock_ == nullptr) return fail("receive() before start()");
    // One poll over every port instead of a read attempt on each: most turns find nothing.
    for (std::size_t i = 0; i < rx_.size(); ++i) pfds_[i] = pollfd{rx_[i].fd(), POLLIN, 0};
    if (poll(pfds_.data(), pfds_.size(), 0) <= 0) return 0;
    const std::int64_t offset = clock_->realtime_minus_testbed();
    // After a pause, frames waiting since before it would map up to that much too early: their
    // departure (PortTime::entry_ns) is taken no earlier than this read.
    const std::uint64_t pauses = clock_->pauses.load();
    rx_mapped_ = pauses == pauses_seen_;
    pauses_seen_ = pauses;
    if (!rx_mapped_) rx_now_ = clock_->now();
    int total = 0;
    for (std::size_t i = 0; i < rx_.size(); ++i) {
      if ((pfds_[i].revents & (POLLIN | POLLERR | POLLHUP)) == 0) continue;
      rx_index_ = i;
      rx_offset_ = offset;
      const int n = rx_[i].receive(
          [](void* ctx, std::uint64_t ts, std::span<const std::uint8_t> b, std::uint32_t origlen) {
            static_cast<BridgePort*>(ctx)->enqueue(ts, b, origlen);
          },
          this, kBatch);
      if (n < 0) return fail(rx_[i].last_error());
      total += n;
    }
    return total;
  }
  const std::string& error() const override { return error_; }
  const BridgeFigures& figures() override {
    fig_.kernel_drops = 0;
    for (const auto& p : rx_) fig_.kernel_drops += p.kernel_drops();
    return fig_;
  }
  const BridgeFigures& running_figures() override { return fig_; }

  // ---- FramePort ----
  void on_frame(std::uint8_t port, std::span<const std::uint8_t> frame, std::uint64_t now_ns) override {
    port_ = {};  // known once the kernel has it (not for a frame queued on a transmit ring)
    const int i = index_of(port);
    if (i < 0) return;
    if (!up_[port]) {
      ++fig_.tx_port_down;
      return;
    }
    const auto at = static_cast<std::size_t>(i);
    if (tx_[at]) {
      if (!tx_[at]->queue(frame).empty()) {
        ++fig_.tx_errors;
        return;
      }
      ++fig_.tx_frames;
      // Its lag is taken when the batch goes (flush()); past the samples kept, at once.
      if (queued_ts_.size() < queued_ts_.capacity()) {
        queued_ts_.push_back(now_ns);
      } else {
        add_lag(now_ns);
      }
      // The batch waits for the end of the fabric's turn only while the fabric keeps time: a
      // fabric running late (a long turn catching up) sends at once, and a batch has a cap.
      if (tx_[at]->pending() >= kMaxTxBatch || (clock_ != nullptr && clock_->now() > now_ns + kLateNs)) flush();
      return;
    }
    const std::uint64_t sending = realtime_ns();
    if (!rx_[at].send(frame)) {
      ++fig_.tx_errors;
      return;
    }
    ++fig_.tx_frames;
    const std::uint64_t sent = realtime_ns();
    // A clock stepped back during the call leaves the frame untimed rather than a wrapped span.
    if (sent >= sending) port_ = {sending, static_cast<std::uint32_t>(std::min<std::uint64_t>(sent - sending, UINT32_MAX))};
    add_lag(now_ns);
  }
  int flush() override {
    for (const auto& t : tx_) {
      if (!t || t->pending() == 0) continue;
      const std::size_t n = t->pending();
      if (!t->flush().empty()) fig_.tx_errors += n;  // counted like a refused injection
    }
    for (const std::uint64_t ts : queued_ts_) add_lag(ts);
    queued_ts_.clear();
    return 0;
  }
  void advance(std::uint64_t now_ns) override { now_ = std::max(now_, now_ns); }
  bool poll_frame(transport::TxFrame& out) override {
    while (true) {
      const int i = oldest();
      if (i < 0 || queues_[static_cast<std::size_t>(i)].front().ts > now_) return false;
      PortQueue& q = queues_[static_cast<std::size_t>(i)];
      const Slot s = q.front();
      const std::uint8_t* bytes = data_.data() + std::size_t{s.buf} * ::mrc::wire::kMaxFrameLen;
      q.head = (q.head + 1) % q.ring.size();
      --q.count;
      free_[free_count_++] = s.buf;  // its bytes are copied out below, before anything is received
      taken_ts_ = s.ts;
      if (!up_[s.port]) continue;  // a port taken down by a fault receives nothing
      out.port = s.port;
      out.len = s.len;
      // Its entry delay from its capture, not from s.ts: a frame read late enters at the time the
      // fabric had reached (enqueue()), and that delay is the bridge's too.
      const std::uint64_t entry = now_ > s.captured ? now_ - s.captured : 0;
      port_ = {s.kernel_ts, 0, static_cast<std::uint32_t>(std::min<std::uint64_t>(entry, UINT32_MAX))};
      std::memcpy(out.bytes.data(), bytes, s.len);
      fig_.rx_entry.add(entry);
      ++fig_.rx_frames;
      return true;
    }
  }
  // A frame already due is not a deadline: it waits for room in the host's NIC queue, and the
  // fabric serves the host again when a transmission ends (a deadline in the past would make the
  // fabric re-arm the host's timer every nanosecond).
  std::uint64_t next_deadline() const override {
    const int i = oldest();
    if (i < 0) return UINT64_MAX;
    const std::uint64_t ts = queues_[static_cast<std::size_t>(i)].front().ts;
    return ts > now_ ? ts : UINT64_MAX;
  }
  int set_port_up(std::uint8_t port, bool up) override {
    if (index_of(port) < 0) return 22;  // EINVAL: not a bridged port
    up_[port] = up;
    return 0;
  }
  PortTime port_time() const override { return port_; }

 private:
  static constexpr int kBatch = 256;  // per port per receive(): one port cannot starve the others
  static constexpr int kTxLagSamples = 512;     // per ring: frames whose lag waits for the flush
  static constexpr std::size_t kMaxTxBatch = 64;  // frames per interface per send()
  static constexpr std::uint64_t kLateNs = 10'000;  // a frame this late is sent at once
  struct Slot {
    std::uint64_t ts = 0;
    std::uint64_t kernel_ts = 0;  // its kernel capture time as the kernel gave it (CLOCK_REALTIME)
    std::uint64_t captured = 0;   // the same on the testbed's clock (ts may be later: enqueue()),
                                  // or when it was read, after a pause made the mapping uncertain
    std::uint32_t buf = 0;  // which frame buffer of data_ holds the bytes
    std::uint16_t len = 0;
    std::uint8_t port = 0;
  };
  // One port's frames not yet taken, oldest first.
  struct PortQueue {
    std::vector<Slot> ring;
    std::size_t head = 0;
    std::size_t count = 0;
    std::uint64_t last_ts = 0;  // the newest frame queued: the queue stays in time order
    const Slot& front() const { return ring[head]; }
  };
  // The queue whose oldest frame is the oldest of all (the first port on equal times), or -1.
  int oldest() const {
    int best = -1;
    for (std::size_t i = 0; i < queues_.size(); ++i) {
      const PortQueue& q = queues_[i];
      if (q.count > 0 && (best < 0 || q.front().ts < queues_[static_cast<std::size_t>(best)].front().ts)) {
        best = static_cast<int>(i);
      }
    }
    return best;
  }

  void add_lag(std::uint64_t fabric_ns) {
    if (clock_ == nullptr) return;
    const std::uint64_t wall = clock_->now();
    fig_.tx_lag.add(wall > fabric_ns ? wall - fabric_ns : 0);
  }
  int fail(std::string e) {
    error_ = std::move(e);
    return -1;
  }
  int index_of(std::uint8_t port) const {
    const auto it = std::find(ports_.begin(), ports_.end(), port);
    return it == ports_.end() ? -1 : static_cast<int>(it - ports_.begin());
  }

  void enqueue(std::uint64_t kernel_ts, std::span<const std::uint8_t> b, std::uint32_t origlen) {
    // A frame longer than the capture's snapshot length arrives truncated (caplen < origlen).
    if (origlen > b.size() || b.size() > ::mrc::wire::kMaxFrameLen || b.size() < ::mrc::wire::kEthLen) {
      ++fig_.rx_oversize;
      return;
    }
    PortQueue& q = queues_[rx_index_];
    if (q.count == q.ring.size() || free_count_ == 0) {
      ++fig_.rx_overflow;
      return;
    }
    const std::int64_t t = static_cast<std::int64_t>(kernel_ts) - rx_offset_;
    // The fabric never sees time run backwards: a frame older than the last one it took enters
    // at that frame's time (and one older than its port's last, at that one's).
    const std::uint64_t mapped = t < 0 ? std::uint64_t{0} : static_cast<std::uint64_t>(t);
    const std::uint64_t ts = std::max({mapped, taken_ts_, q.last_ts});
    const std::uint64_t captured = rx_mapped_ ? mapped : std::max(ts, rx_now_);
    const std::uint32_t buf = free_[--free_count_];
    std::memcpy(data_.data() + std::size_t{buf} * ::mrc::wire::kMaxFrameLen, b.data(), b.size());
    q.ring[(q.head + q.count) % q.ring.size()] =
        Slot{ts, kernel_ts, captured, buf, static_cast<std::uint16_t>(b.size()), ports_[rx_index_]};
    ++q.count;
    q.last_ts = ts;
  }

  std::vector<RxPort> rx_;  // per port, in ports_ order
  std::vector<std::unique_ptr<wire::TxRing>> tx_;  // per port, null: inject frame by frame
  std::vector<std::uint64_t> queued_ts_;  // fabric times of the frames queued since the last flush
  std::vector<std::uint8_t> ports_;
  std::array<bool, 256> up_{};
  std::vector<PortQueue> queues_;  // one per port, in ports_ order
  std::vector<std::uint8_t> data_;
  std::vector<std::uint32_t> free_;  // frame buffers of data_ no waiting frame holds (a stack)
  std::size_t free_count_ = 0;
  std::uint64_t taken_ts_ = 0;       // the time of the last frame the fabric took
  std::vector<pollfd> pfds_;  // one per port, reused by receive()
  std::uint64_t now_ = 0;
  const PacedClock* clock_ = nullptr;
  std::size_t rx_index_ = 0;  // the port receive() is reading
  std::int64_t rx_offset_ = 0;
  bool rx_mapped_ = true;         // no pause since the last receive(): capture times map exactly
  std::uint64_t pauses_seen_ = 0;  // PacedClock::pauses at the last receive()
  std::uint64_t rx_now_ = 0;       // the testbed's time at a receive() after a pause
  PortTime port_;  // port_time(): the last frame's crossing of its interface
  BridgeFigures fig_;
  std::string error_;
};

}  // namespace

std::unique_ptr<WireHost> open_wire_host(std::span<const WirePortBinding> ports, const WireHostOptions& opt,
                                         std::string* error) {
  auto fail = [&](std::string e) -> std::unique_ptr<WireHost> {
    if (error != nullptr) *error = std::move(e);
    return nullptr;
  };
  if (ports.empty()) return fail("no interface to bridge");
  if (opt.ring_frames < 1) return fail("the bridge's ring needs at least one frame");
  std::vector<RxPort> rx;
  std::vector<std::unique_ptr<wire::TxRing>> rings;
  std::vector<std::uint8_t> numbers;
  for (const WirePortBinding& b : ports) {
    if (b.port < 1) return fail("port 0 for interface " + b.ifname + " (ports are 1-based planes)");
    if (std::find(numbers.begin(), numbers.end(), b.port) != numbers.end()) {
      return fail("port p" + std::to_string(b.port) + " is bound twice");
    }
    const wire::PcapPortOptions po = opt.capture_burst_frames > 0
                                         ? wire::burst_options(::mrc::wire::kMaxFrameLen, opt.capture_burst_frames)
                                         : wire::PcapPortOptions{};
    std::string why;
    RxPort p;
    if (opt.rx_ring_v3) {
      p.ring = wire::RxRing::open(b.ifname, wire::RxRingOptions{}, &why);
    } else {
      p.pcap = wire::PcapPort::open(b.ifname, po, &why);
    }
    if (!p.pcap && !p.ring) return fail("port p" + std::to_string(b.port) + ": " + why);
    // Frames that waited in the ring before the bridge existed belong to nobody's run.
    p.receive([](void*, std::uint64_t, std::span<const std::uint8_t>, std::uint32_t) {}, nullptr, 1 << 20);
    std::unique_ptr<wire::TxRing> ring;
    if (opt.tx_ring_frames > 0) {
      ring = wire::TxRing::open(b.ifname, opt.tx_ring_frames, ::mrc::wire::kMaxFrameLen, &why);
      if (!ring) return fail("port p" + std::to_string(b.port) + ": " + why);
    }
    rx.push_back(std::move(p));
    rings.push_back(std::move(ring));
    numbers.push_back(b.port);
  }
  return std::make_unique<BridgePort>(std::move(rx), std::move(rings), std::move(numbers), opt.ring_frames);
}

}  // namespace mrc::harness
