// Batched reception on one interface through an AF_PACKET socket of our own with a memory-mapped
// receive ring in TPACKET_V3 blocks: the kernel fills a block with as many frames as fit and hands
// the whole block over when it is full or when its retire timer (at least a millisecond, in
// jiffies) fires; the reader walks the block's frames without a system call and gives the block
// back. That is one wake-up per block instead of one per frame.
//
// The bridge's default reception is libpcap's immediate mode, which on Linux is a TPACKET_V2 ring
// (one slot per frame, the reader woken per frame). This ring is the alternative the issue "a
// bridge that keeps up" asked to measure: bench/bridge_bench.cpp runs both in one run
// (WireHostOptions::rx_ring_v3), and bench/README.md has the figures and the choice.
//
// Inbound only (PACKET_IGNORE_OUTGOING, and outgoing frames are skipped where the kernel still
// shows them), promiscuous, kernel receive timestamps in nanoseconds on CLOCK_REALTIME, like the
// libpcap port it stands in for.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "harness/testbed/wire/pcap_port.hpp"

namespace mrc::harness::wire {

struct RxRingOptions {
  std::size_t block_bytes = 1 << 16;  // a power of two, at least a page and the largest frame
  int blocks = 64;                    // 4 MiB in all by default
  int retire_ms = 1;                  // a block not yet full is handed over after this (>= 1)
};

class RxRing {
 public:
  static std::unique_ptr<RxRing> open(const std::string& ifname, const RxRingOptions& opt, std::string* error);
  ~RxRing();
  RxRing(const RxRing&) = delete;
  RxRing& operator=(const RxRing&) = delete;

  const std::string& name() const { return name_; }
  int fd() const { return fd_; }  // readable when a block was handed over

  // Hands up to `max` waiting frames to `cb` (frames longer than the ring's frames are passed with
  // their original length, as libpcap does); returns how many, or -1 (see last_error()).
  int receive(FrameCallback cb, void* ctx, int max);
  std::uint64_t kernel_drops() const;  // frames the ring had no room for
  // Sends one frame on the interface (one system call; the socket never receives its own).
  bool send(std::span<const std::uint8_t> frame);
  const std::string& last_error() const { return error_; }

 private:
  RxRing() = default;
  std::string name_;
  int fd_ = -1;
  std::uint8_t* ring_ = nullptr;
  std::size_t block_bytes_ = 0;
  std::size_t blocks_ = 0;
  std::size_t block_ = 0;      // the block being read
  std::uint32_t in_block_ = 0;  // frames of it already read
  std::uint32_t offset_ = 0;    // where its next frame starts
  mutable std::uint64_t drops_ = 0;  // PACKET_STATISTICS resets at each read: the sum is kept here
  std::string error_;
};

}  // namespace mrc::harness::wire
