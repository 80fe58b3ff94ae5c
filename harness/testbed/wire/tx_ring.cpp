#include "harness/testbed/wire/tx_ring.hpp"

#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace mrc::harness::wire {
namespace {

std::string errno_text(const char* call) { return std::string(call) + ": " + std::strerror(errno); }

tpacket2_hdr* header(std::uint8_t* slot) { return reinterpret_cast<tpacket2_hdr*>(slot); }

// The slot's status is shared with the kernel: read it after, and publish a frame's bytes before.
std::uint32_t status_of(std::uint8_t* slot) {
  return __atomic_load_n(&header(slot)->tp_status, __ATOMIC_ACQUIRE);
}
void set_status(std::uint8_t* slot, std::uint32_t s) { __atomic_store_n(&header(slot)->tp_status, s, __ATOMIC_RELEASE); }

}  // namespace

std::unique_ptr<TxRing> TxRing::open(const std::string& ifname, int frames, std::size_t frame_bytes,
                                     std::string* error) {
  auto fail = [&](std::string e) -> std::unique_ptr<TxRing> {
    if (error != nullptr) *error = ifname + ": transmit ring: " + e;
    return nullptr;
  };
  if (frames < 1) return fail("needs at least one slot");
  std::unique_ptr<TxRing> r(new TxRing());
  r->name_ = ifname;
  r->ifindex_ = static_cast<int>(if_nametoindex(ifname.c_str()));
  if (r->ifindex_ == 0) return fail("no such interface");
  // Protocol 0: this socket receives nothing, it only transmits.
  r->fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
  if (r->fd_ < 0) return fail(errno_text("socket(AF_PACKET)"));
  int version = TPACKET_V2;
  if (setsockopt(r->fd_, SOL_PACKET, PACKET_VERSION, &version, sizeof version) != 0) {
    return fail(errno_text("PACKET_VERSION TPACKET_V2"));
  }
  r->data_offset_ = TPACKET_ALIGN(sizeof(tpacket2_hdr));
  // A slot holds its header and the frame; slots are powers of two so a page holds whole ones.
  std::size_t slot = 256;
  while (slot < r->data_offset_ + frame_bytes) slot *= 2;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t block = std::max(slot, page);
  const std::size_t per_block = block / slot;
  const std::size_t blocks = (static_cast<std::size_t>(frames) + per_block - 1) / per_block;
  tpacket_req req{};
  req.tp_block_size = static_cast<unsigned>(block);
  req.tp_block_nr = static_cast<unsigned>(blocks);
  req.tp_frame_size = static_cast<unsigned>(slot);
  req.tp_frame_nr = static_cast<unsigned>(blocks * per_block);
  if (setsockopt(r->fd_, SOL_PACKET, PACKET_TX_RING, &req, sizeof req) != 0) return fail(errno_text("PACKET_TX_RING"));
  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = 0;
  addr.sll_ifindex = r->ifindex_;
  if (bind(r->fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return fail(errno_text("bind"));
  r->ring_bytes_ = block * blocks;
  void* m = mmap(nullptr, r->ring_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd_, 0);
  if (m == MAP_FAILED) return fail(errno_text("mmap"));
  r->ring_ = static_cast<std::uint8_t*>(m);
  r->slot_bytes_ = slot;
  r->slots_ = req.tp_frame_nr;
  return r;
}

TxRing::~TxRing() {
  if (ring_ != nullptr) munmap(ring_, ring_bytes_);
  if (fd_ >= 0) close(fd_);
}

std::string TxRing::queue(std::span<const std::uint8_t> frame) {
  if (frame.size() > slot_bytes_ - data_offset_) {
    ++fig_.rejected;
    return name_ + ": a frame of " + std::to_string(frame.size()) + " bytes does not fit the transmit ring's " +
           std::to_string(slot_bytes_ - data_offset_) + "-byte slots";
  }
  std::uint8_t* s = slot(head_);
  if (status_of(s) != TP_STATUS_AVAILABLE) {
    // The kernel still holds this slot's previous frame: send what is queued, and if the slot is
    // still in flight, send this frame on its own after them.
    if (std::string e = flush(); !e.empty()) return e;
    if (status_of(s) != TP_STATUS_AVAILABLE) {
      ++fig_.slot_busy;
      return send_now(frame);
    }
  }
  std::memcpy(s + data_offset_, frame.data(), frame.size());
  header(s)->tp_len = static_cast<std::uint32_t>(frame.size());
  set_status(s, TP_STATUS_SEND_REQUEST);
  head_ = (head_ + 1) % slots_;
  ++pending_;
  return {};
}

std::string TxRing::flush() {
  if (pending_ == 0) return {};
  const std::size_t n = pending_;
  pending_ = 0;
  ++fig_.flushes;
  // The kernel walks the ring from where it stopped and sends every slot marked for sending.
  while (send(fd_, nullptr, 0, MSG_DONTWAIT) < 0) {
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == ENOBUFS) {
      // The device queue is full: the frames stay marked and go with the next flush.
      pending_ = n;
      return {};
    }
    return name_ + ": " + errno_text("send(transmit ring)");
  }
  fig_.frames += n;
  return {};
}

std::string TxRing::send_now(std::span<const std::uint8_t> frame) {
  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_ifindex = ifindex_;
  addr.sll_halen = 6;
  std::memcpy(addr.sll_addr, frame.data(), 6);
  while (sendto(fd_, frame.data(), frame.size(), 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    if (errno == EINTR) continue;
    return name_ + ": " + errno_text("sendto");
  }
  ++fig_.frames;
  return {};
}

}  // namespace mrc::harness::wire
