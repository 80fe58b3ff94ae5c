#include "harness/testbed/wire/pcap_port.hpp"

#include <pcap/pcap.h>

#include <algorithm>
#include <string>

namespace mrc::harness::wire {
namespace {

pcap_t* P(void* p) { return static_cast<pcap_t*>(p); }

struct Trampoline {
  FrameCallback cb;
  void* ctx;
  bool ns;
};

void on_packet(u_char* user, const pcap_pkthdr* h, const u_char* bytes) {
  const auto* t = reinterpret_cast<const Trampoline*>(user);
  // With nanosecond precision libpcap stores nanoseconds in tv_usec.
  const std::uint64_t frac = static_cast<std::uint64_t>(h->ts.tv_usec) * (t->ns ? 1u : 1000u);
  const std::uint64_t ts = static_cast<std::uint64_t>(h->ts.tv_sec) * 1'000'000'000ull + frac;
  t->cb(t->ctx, ts, std::span<const std::uint8_t>(bytes, h->caplen), h->len);
}

// Hardware receive timestamps when the interface offers them on the system clock (the bridge
// maps capture times to the testbed's clock through CLOCK_REALTIME), else the kernel's own.
void choose_timestamps(pcap_t* p, std::string& source, std::string& offered) {
  int* types = nullptr;
  const int n = pcap_list_tstamp_types(p, &types);
  if (n <= 0) return;  // the platform offers only the default, the host's
  offered.clear();
  bool adapter = false;
  for (int i = 0; i < n; ++i) {
    const char* name = pcap_tstamp_type_val_to_name(types[i]);
    offered += (offered.empty() ? "" : ", ") + std::string(name != nullptr ? name : "?");
    adapter = adapter || types[i] == PCAP_TSTAMP_ADAPTER;
  }
  pcap_free_tstamp_types(types);
  if (adapter && pcap_set_tstamp_type(p, PCAP_TSTAMP_ADAPTER) == 0) source = "hardware (adapter)";
}

}  // namespace

PcapPortOptions burst_options(std::size_t max_frame, int burst) {
  PcapPortOptions o;
  o.snaplen = static_cast<int>(max_frame);
  // A slot holds the frame and libpcap's header, in blocks of a power of two (measured: 2048 slots
  // of 4.5 KiB frames in 16 MiB).
  std::size_t slot = 4096;
  while (slot < max_frame + 128) slot *= 2;
  o.buffer_bytes = static_cast<int>(slot * static_cast<std::size_t>(std::max(burst, 1)));
  return o;
}

std::unique_ptr<PcapPort> PcapPort::open(const std::string& ifname, const PcapPortOptions& opt,
                                         std::string* error) {
  auto fail = [&](std::string e) -> std::unique_ptr<PcapPort> {
    if (error != nullptr) *error = ifname + ": " + e;
    return nullptr;
  };
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* p = pcap_create(ifname.c_str(), errbuf);
  if (p == nullptr) return fail(errbuf);
  std::unique_ptr<PcapPort> port(new PcapPort());
  port->name_ = ifname;
  port->pcap_ = p;  // owned from here on: the destructor closes it on every failure path
  pcap_set_snaplen(p, opt.snaplen);
  pcap_set_promisc(p, opt.promiscuous ? 1 : 0);
  pcap_set_immediate_mode(p, 1);
  pcap_set_buffer_size(p, opt.buffer_bytes);
  port->ns_ = pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) == 0;
  choose_timestamps(p, port->ts_source_, port->ts_types_);
  const int rc = pcap_activate(p);
  if (rc < 0) return fail(std::string("pcap_activate: ") + pcap_statustostr(rc) + " " + pcap_geterr(p));
  if (pcap_datalink(p) != DLT_EN10MB) return fail("not an Ethernet interface");
  port->ns_ = port->ns_ && pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
  if (opt.inbound_only && pcap_setdirection(p, PCAP_D_IN) != 0) {
    return fail(std::string("pcap_setdirection: ") + pcap_geterr(p));
  }
  if (pcap_setnonblock(p, 1, errbuf) != 0) return fail(std::string("pcap_setnonblock: ") + errbuf);
  port->fd_ = pcap_get_selectable_fd(p);
  if (port->fd_ < 0) return fail("no selectable fd");
  return port;
}

PcapPort::~PcapPort() {
  if (pcap_ != nullptr) pcap_close(P(pcap_));
}

std::string PcapPort::inject(std::span<const std::uint8_t> frame) {
  const int n = pcap_inject(P(pcap_), frame.data(), frame.size());
  if (n < 0) return name_ + ": pcap_inject: " + pcap_geterr(P(pcap_));
  if (static_cast<std::size_t>(n) != frame.size()) {
    return name_ + ": pcap_inject sent " + std::to_string(n) + " of " + std::to_string(frame.size()) + " bytes";
  }
  return {};
}

int PcapPort::receive(FrameCallback cb, void* ctx, int max) {
  Trampoline t{cb, ctx, ns_};
  const int n = pcap_dispatch(P(pcap_), max, on_packet, reinterpret_cast<u_char*>(&t));
  if (n == PCAP_ERROR) {
    error_ = name_ + ": pcap_dispatch: " + pcap_geterr(P(pcap_));
    return -1;
  }
  return n < 0 ? 0 : n;
}

int PcapPort::receive_into(Capture& cap, int max) {
  auto add = [&cap, this](std::uint64_t ts, std::span<const std::uint8_t> b, std::uint32_t orig) {
    cap.add(ts, b, orig);  // counts captured / truncated
    CaptureIntegrity& in = cap.integrity();
    ++in.offered;
    if (!ns_) in.ns_timestamps = false;
  };
  return receive(add, max);
}

std::uint64_t PcapPort::kernel_drops() const {
  pcap_stat st{};
  if (pcap_stats(P(pcap_), &st) != 0) return 0;
  return std::uint64_t{st.ps_drop} + st.ps_ifdrop;
}

void PcapPort::update_drops(Capture& cap) const {
  const std::uint64_t d = kernel_drops();
  CaptureIntegrity& in = cap.integrity();
  in.tap_dropped = d;
  in.offered = in.captured + d;
}

}  // namespace mrc::harness::wire
