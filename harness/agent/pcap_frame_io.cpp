// FrameIo over libpcap ports, and the --ifaces parser.
#include <algorithm>
#include <charconv>

#include "harness/agent/frame_io.hpp"
#include "harness/testbed/wire/netns.hpp"
#include "harness/testbed/wire/pcap_port.hpp"

namespace mrc::agent {
namespace {

namespace hw = mrc::harness::wire;

class PcapFrameIo final : public FrameIo {
 public:
  struct Port {
    std::uint8_t port;
    std::unique_ptr<hw::PcapPort> pcap;
    agentproto::Mac mac;
  };
  explicit PcapFrameIo(std::vector<Port> ports) : ports_(std::move(ports)) {}

  std::vector<agentproto::PortInfo> ports() const override {
    std::vector<agentproto::PortInfo> out;
    for (const Port& p : ports_) out.push_back({p.port, p.pcap->name(), p.mac, true});
    return out;
  }

  std::string send(std::uint8_t port, std::span<const std::uint8_t> frame) override {
    for (Port& p : ports_) {
      if (p.port == port) return p.pcap->inject(frame);
    }
    return "port " + std::to_string(port) + " has no interface";
  }

  // Frames of all ports in the order of their kernel timestamps, not port by port: frames that
  // arrive microseconds apart on different planes (a reordering case, a cumulative ACK across
  // planes) must reach the endpoint in the order they reached the host. Collected into buffers
  // that grow to the largest batch seen and are then reused (nothing allocated per frame).
  int receive(Sink sink, void* ctx, int max_per_port) override {
    held_.clear();
    bytes_.clear();
    for (Port& p : ports_) {
      const int n = p.pcap->receive(
          [this, &p](std::uint64_t ts, std::span<const std::uint8_t> b, std::uint32_t) {
            held_.push_back(Held{ts, p.port, bytes_.size(), b.size()});
            bytes_.insert(bytes_.end(), b.begin(), b.end());
          },
          max_per_port);
      if (n < 0) {
        error_ = p.pcap->last_error();
        return -1;
      }
    }
    std::stable_sort(held_.begin(), held_.end(), [](const Held& a, const Held& b) { return a.ts < b.ts; });
    for (const Held& h : held_) sink(ctx, h.port, std::span<const std::uint8_t>(bytes_.data() + h.at, h.len));
    return static_cast<int>(held_.size());
  }

  std::vector<int> fds() const override {
    std::vector<int> out;
    for (const Port& p : ports_) out.push_back(p.pcap->fd());
    return out;
  }

  std::string error() const override { return error_; }

 private:
  struct Held {
    std::uint64_t ts;
    std::uint8_t port;
    std::size_t at;
    std::size_t len;
  };
  std::vector<Port> ports_;
  std::vector<Held> held_;
  std::vector<std::uint8_t> bytes_;
  std::string error_;
};

}  // namespace

std::unique_ptr<FrameIo> open_pcap_io(const std::vector<IfaceBinding>& ifaces, std::string* error) {
  std::vector<PcapFrameIo::Port> ports;
  for (const IfaceBinding& b : ifaces) {
    auto pcap = hw::PcapPort::open(b.ifname, hw::PcapPortOptions{}, error);
    if (!pcap) return nullptr;
    const auto mac = hw::read_mac(b.ifname);
    ports.push_back({b.port, std::move(pcap), mac.value_or(agentproto::Mac{})});
  }
  return std::make_unique<PcapFrameIo>(std::move(ports));
}

std::vector<IfaceBinding> parse_ifaces(const std::string& text, std::string* error) {
  std::vector<IfaceBinding> out;
  auto fail = [&](std::string e) {
    if (error != nullptr) *error = "--ifaces: " + e;
    out.clear();
    return out;
  };
  std::size_t i = 0;
  while (i <= text.size()) {
    std::size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    const std::string item = text.substr(i, j - i);
    const std::size_t eq = item.find('=');
    if (item.size() < 4 || item[0] != 'p' || eq == std::string::npos || eq < 2 || eq + 1 >= item.size()) {
      return fail("'" + item + "' is not p<N>=<interface>");
    }
    unsigned port = 0;
    const auto r = std::from_chars(item.data() + 1, item.data() + eq, port);
    if (r.ec != std::errc{} || r.ptr != item.data() + eq || port < 1 || port > agentproto::limit::kPorts) {
      return fail("'" + item + "': the port must be 1.." + std::to_string(agentproto::limit::kPorts));
    }
    const std::string ifname = item.substr(eq + 1);
    if (ifname.size() > 15) return fail("'" + ifname + "' is longer than an interface name can be");
    for (const IfaceBinding& b : out) {
      if (b.port == port) return fail("port " + std::to_string(port) + " given twice");
    }
    out.push_back({static_cast<std::uint8_t>(port), ifname});
    i = j + 1;
  }
  if (out.empty()) return fail("no interfaces");
  return out;
}

}  // namespace mrc::agent
