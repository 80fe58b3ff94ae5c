// doctor checks 1-4: each harness-side interface exists and is up, carries the largest frame, can
// be captured on, and offers nanosecond timestamps.
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harness/lab/doctor_checks.hpp"
#include "harness/testbed/wire/pcap_port.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::run::doctor {
namespace {

namespace hw = harness::wire;

constexpr std::uint32_t kEthernetHeader = 14;  // what an MTU does not count

class PcapCapture final : public CapturePort {
 public:
  explicit PcapCapture(std::unique_ptr<hw::PcapPort> p) : p_(std::move(p)) {}
  std::string inject(std::span<const std::uint8_t> frame) override { return p_->inject(frame); }

 private:
  std::unique_ptr<hw::PcapPort> p_;
};

struct LinkState {
  bool exists = false;
  bool up = false;       // administratively (IFF_UP)
  bool running = false;  // operationally, i.e. carrier (IFF_RUNNING)
  int mtu = 0;
  std::string error;     // the query itself failed (not "no such interface")
};

// Flags and MTU by ioctl in the caller's namespace, where the harness's captures open.
LinkState read_link(const std::string& ifname) {
  LinkState s;
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    s.error = std::string("socket: ") + std::strerror(errno);
    return s;
  }
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) {
    if (errno != ENODEV) s.error = std::string("SIOCGIFFLAGS: ") + std::strerror(errno);
    close(fd);
    return s;
  }
  s.exists = true;
  s.up = (ifr.ifr_flags & IFF_UP) != 0;
  s.running = (ifr.ifr_flags & IFF_RUNNING) != 0;
  if (ioctl(fd, SIOCGIFMTU, &ifr) == 0) {
    s.mtu = ifr.ifr_mtu;
  } else {
    s.error = std::string("SIOCGIFMTU: ") + std::strerror(errno);
  }
  close(fd);
  return s;
}

std::string named(const harness::WirePortBinding& b) {
  return "interface " + b.ifname + " (plane " + std::to_string(b.port) + ")";
}

// Checks 1 and 2; false when the interface is not there at all.
bool check_link(const harness::WirePortBinding& b, const std::string& where, Findings& f) {
  const LinkState s = read_link(b.ifname);
  if (!s.error.empty()) {
    f.fail("cannot read the state of " + named(b) + ": " + s.error, "run doctor as root");
    return s.exists;
  }
  if (!s.exists) {
    f.fail(named(b) + " does not exist",
           where.empty() ? "the testbed's veth is gone; run doctor again"
                         : "create it, or correct lab.ports.p" + std::to_string(b.port) + " in " + where +
                               " (ip link show lists the interfaces)");
    return false;
  }
  if (!s.up) {
    f.fail(named(b) + " is down", "ip link set " + b.ifname + " up");
  } else if (!s.running) {
    f.fail(named(b) + " is up but has no carrier",
           "check the cable to the DUT's port " + std::to_string(b.port) +
               " and that the DUT's end is up (for a veth: its peer)");
  } else {
    f.ok(named(b) + " exists and is up");
  }
  const std::uint32_t need = needed_mtu();
  if (s.mtu < static_cast<int>(need)) {
    f.fail("MTU of " + b.ifname + " is " + std::to_string(s.mtu) + ", below the " + std::to_string(need) +
               " the suite's largest frame needs",
           "ip link set " + b.ifname + " mtu " + std::to_string(need) + " (and the same on the DUT's port)");
  } else {
    f.ok("MTU of " + b.ifname + " is " + std::to_string(s.mtu) + " (needs " + std::to_string(need) + ")");
  }
  return true;
}

}  // namespace

std::uint32_t needed_mtu() { return static_cast<std::uint32_t>(wire::kMaxFrameLen) - kEthernetHeader; }

std::vector<OpenPort> check_interfaces(const std::vector<harness::WirePortBinding>& ports, const std::string& where,
                                       Findings& f) {
  std::vector<OpenPort> open;
  for (const harness::WirePortBinding& b : ports) {
    if (!check_link(b, where, f)) {
      f.skip("capture on " + b.ifname, "the interface does not exist");
      continue;
    }
    // The same options as the bridge's own ports (promiscuous, inbound only).
    std::string why;
    auto pcap = hw::PcapPort::open(b.ifname, hw::PcapPortOptions{}, &why);
    if (!pcap) {
      f.fail("cannot capture on " + b.ifname + ": " + why,
             "capturing needs CAP_NET_RAW and CAP_NET_ADMIN: run as root, or "
             "setcap cap_net_raw,cap_net_admin+ep on mrc-conform");
      continue;
    }
    f.ok("capture opens on " + b.ifname);
    const std::string stamps = "; receive timestamps: " + pcap->timestamp_source() + ", of those offered: " +
                               pcap->timestamp_types();
    if (pcap->ns_timestamps()) {
      f.ok("nanosecond timestamps on " + b.ifname + stamps);
    } else {
      f.warn(b.ifname + " offers microsecond timestamps only" + stamps,
             "times measured on plane " + std::to_string(b.port) +
                 " are 1 us coarse; a libpcap and kernel with nanosecond precision remove that");
    }
    open.push_back(OpenPort{b.port, b.ifname, std::make_unique<PcapCapture>(std::move(pcap))});
  }
  return open;
}

}  // namespace mrc::run::doctor
