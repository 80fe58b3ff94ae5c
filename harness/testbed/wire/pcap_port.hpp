// A raw-frame port on one interface through libpcap: inject whole Ethernet frames, receive the
// frames other stations send (inbound only, so our own injections never come back), without
// blocking, with nanosecond timestamps where the platform offers them.
//
// Opened with pcap_create/pcap_activate rather than pcap_open_live because immediate mode (every
// frame is delivered at once instead of when a kernel ring block fills up) and the timestamp
// precision can only be chosen before activation. The selectable fd goes into the caller's
// poll() loop; receive() then drains what is waiting.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

#include "harness/observe/capture.hpp"

namespace mrc::harness::wire {

struct PcapPortOptions {
  int snaplen = 65535;
  int buffer_bytes = 8 << 20;  // kernel ring: large enough that a burst is not dropped
  bool promiscuous = true;     // frames for any MAC (the peer may address another station)
  bool inbound_only = true;    // PCAP_D_IN: do not see what we inject
};

// Options for a port that must hold a burst of `burst` frames of up to `max_frame` bytes between two
// reads. libpcap sizes each slot of its capture ring from the snapshot length, so with the default
// 65535 an 8 MB ring holds 128 frames and a burst past that is dropped in the kernel: here the
// snapshot is the largest frame expected (a longer one arrives truncated, caplen < origlen, and
// is the reader's to refuse) and the ring is sized for the burst.
PcapPortOptions burst_options(std::size_t max_frame, int burst);

// Called once per received frame. `bytes` is valid only during the call.
using FrameCallback = void (*)(void* ctx, std::uint64_t ts_ns, std::span<const std::uint8_t> bytes,
                               std::uint32_t origlen);

class PcapPort {
 public:
  static std::unique_ptr<PcapPort> open(const std::string& ifname, const PcapPortOptions& opt,
                                        std::string* error);
  ~PcapPort();
  PcapPort(const PcapPort&) = delete;
  PcapPort& operator=(const PcapPort&) = delete;

  const std::string& name() const { return name_; }
  int fd() const { return fd_; }  // readable when frames wait
  bool ns_timestamps() const { return ns_; }
  // Where the receive timestamps come from: "hardware (adapter)" when the interface offers
  // timestamps its NIC takes and the kernel converts to the system clock (libpcap's
  // PCAP_TSTAMP_ADAPTER, chosen then), else "kernel (host)". A NIC clock that is not converted
  // (adapter_unsynced) is not on the harness's clock and is never chosen.
  const std::string& timestamp_source() const { return ts_source_; }
  // Every timestamp type the interface offers, by libpcap's names ("host, adapter_unsynced").
  const std::string& timestamp_types() const { return ts_types_; }

  // Sends one frame. "" or why not.
  std::string inject(std::span<const std::uint8_t> frame);

  // Hands up to `max` waiting frames to `cb`; returns how many, or -1 (see last_error()).
  int receive(FrameCallback cb, void* ctx, int max);
  // Any callable taking (ts_ns, bytes, origlen).
  template <typename F>
  int receive(F&& f, int max) {
    return receive(
        [](void* ctx, std::uint64_t ts, std::span<const std::uint8_t> b, std::uint32_t orig) {
          (*static_cast<std::remove_reference_t<F>*>(ctx))(ts, b, orig);
        },
        &f, max);
  }
  // Appends waiting frames to `cap` and keeps its integrity counters (offered, captured,
  // truncated, ns_timestamps); call update_drops() at the end for the kernel's drop count.
  int receive_into(Capture& cap, int max);
  void update_drops(Capture& cap) const;

  std::uint64_t kernel_drops() const;  // ps_drop + ps_ifdrop
  const std::string& last_error() const { return error_; }

 private:
  PcapPort() = default;
  std::string name_;
  void* pcap_ = nullptr;  // pcap_t*, kept opaque so users do not include pcap.h
  int fd_ = -1;
  bool ns_ = false;
  std::string ts_source_ = "kernel (host)";
  std::string ts_types_ = "host";
  std::string error_;
};

}  // namespace mrc::harness::wire
