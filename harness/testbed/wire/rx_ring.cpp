#include "harness/testbed/wire/rx_ring.hpp"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mrc::harness::wire {
namespace {

std::string errno_text(const char* call) { return std::string(call) + ": " + std::strerror(errno); }

// The block's status is shared with the kernel: read it before the block's frames, and give the
// block back only after they were read.
tpacket_block_desc* desc(std::uint8_t* block) { return reinterpret_cast<tpacket_block_desc*>(block); }
std::uint32_t status_of(std::uint8_t* block) {
  return __atomic_load_n(&desc(block)->hdr.bh1.block_status, __ATOMIC_ACQUIRE);
}

}  // namespace

std::unique_ptr<RxRing> RxRing::open(const std::string& ifname, const RxRingOptions& opt, std::string* error) {
  auto fail = [&](std::string e) -> std::unique_ptr<RxRing> {
    if (error != nullptr) *error = ifname + ": receive ring: " + e;
    return nullptr;
  };
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (opt.blocks < 1 || opt.retire_ms < 1 || opt.block_bytes < page || (opt.block_bytes & (opt.block_bytes - 1)) != 0) {
    return fail("needs at least one block of a power of two bytes, at least a page, and a retire time of 1 ms or more");
  }
  std::unique_ptr<RxRing> r(new RxRing());
  r->name_ = ifname;
  const int ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
  if (ifindex == 0) return fail("no such interface");
  r->fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
  if (r->fd_ < 0) return fail(errno_text("socket(AF_PACKET)"));
  int version = TPACKET_V3;
  if (setsockopt(r->fd_, SOL_PACKET, PACKET_VERSION, &version, sizeof version) != 0) {
    return fail(errno_text("PACKET_VERSION TPACKET_V3"));
  }
  // Not where the kernel supports it (4.20 on); outgoing frames are skipped below as well.
  int ignore = 1;
  (void)setsockopt(r->fd_, SOL_PACKET, PACKET_IGNORE_OUTGOING, &ignore, sizeof ignore);
  tpacket_req3 req{};
  req.tp_block_size = static_cast<unsigned>(opt.block_bytes);
  req.tp_block_nr = static_cast<unsigned>(opt.blocks);
  // V3 packs frames of any size into a block; the frame size only has to divide it.
  req.tp_frame_size = 2048;
  req.tp_frame_nr = static_cast<unsigned>(opt.block_bytes / 2048 * static_cast<std::size_t>(opt.blocks));
  req.tp_retire_blk_tov = static_cast<unsigned>(opt.retire_ms);
  if (setsockopt(r->fd_, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) != 0) return fail(errno_text("PACKET_RX_RING"));
  r->block_bytes_ = opt.block_bytes;
  r->blocks_ = static_cast<std::size_t>(opt.blocks);
  void* m = mmap(nullptr, r->block_bytes_ * r->blocks_, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd_, 0);
  if (m == MAP_FAILED) return fail(errno_text("mmap"));
  r->ring_ = static_cast<std::uint8_t*>(m);
  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = htons(ETH_P_ALL);
  addr.sll_ifindex = ifindex;
  if (bind(r->fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return fail(errno_text("bind"));
  packet_mreq mr{};
  mr.mr_ifindex = ifindex;
  mr.mr_type = PACKET_MR_PROMISC;
  if (setsockopt(r->fd_, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) != 0) {
    return fail(errno_text("PACKET_ADD_MEMBERSHIP promiscuous"));
  }
  return r;
}

RxRing::~RxRing() {
  if (ring_ != nullptr) munmap(ring_, block_bytes_ * blocks_);
  if (fd_ >= 0) close(fd_);
}

int RxRing::receive(FrameCallback cb, void* ctx, int max) {
  int n = 0;
  while (n < max) {
    std::uint8_t* block = ring_ + block_ * block_bytes_;
    if ((status_of(block) & TP_STATUS_USER) == 0) break;
    const tpacket_hdr_v1& bh = desc(block)->hdr.bh1;
    if (in_block_ == 0) offset_ = bh.offset_to_first_pkt;
    for (; in_block_ < bh.num_pkts && n < max; ++in_block_) {
      const auto* h = reinterpret_cast<const tpacket3_hdr*>(block + offset_);
      const auto* ll = reinterpret_cast<const sockaddr_ll*>(reinterpret_cast<const std::uint8_t*>(h) +
                                                            TPACKET_ALIGN(sizeof(tpacket3_hdr)));
      if (ll->sll_pkttype != PACKET_OUTGOING) {
        const std::uint64_t ts = std::uint64_t{h->tp_sec} * 1'000'000'000ull + h->tp_nsec;
        cb(ctx, ts, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(h) + h->tp_mac, h->tp_snaplen),
           h->tp_len);
        ++n;
      }
      offset_ += h->tp_next_offset;
    }
    if (in_block_ < bh.num_pkts) break;  // `max` reached inside the block: the rest next time
    __atomic_store_n(&desc(block)->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    block_ = (block_ + 1) % blocks_;
    in_block_ = 0;
  }
  return n;
}

bool RxRing::send(std::span<const std::uint8_t> frame) {
  const ssize_t n = ::send(fd_, frame.data(), frame.size(), 0);
  if (n == static_cast<ssize_t>(frame.size())) return true;
  error_ = n < 0 ? errno_text("send") : "send: short write";
  return false;
}

std::uint64_t RxRing::kernel_drops() const {
  tpacket_stats_v3 st{};
  socklen_t len = sizeof st;
  if (getsockopt(fd_, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) drops_ += st.tp_drops;
  return drops_;
}

}  // namespace mrc::harness::wire
