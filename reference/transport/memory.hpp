// Registered memory regions of one endpoint: the bytes a peer's RDMA WRITE lands in, and the bytes
// a local RDMA WRITE reads from.
//
// The endpoint owns the bytes (allocated at registration, zero as far as anyone can tell), so a
// region is a plain value: a virtual address range the peer names in RETH.VA plus an R_Key/L_Key. Placement
// is by RETH alone (W4): check_remote_write() is the whole access check a responder does
// before it writes one packet's payload (key known and current, range inside the region, remote
// write permitted), and remote_write() copies without allocating.
//
// Keys are deterministic: key = (slot + 1) << 8 | generation, where a slot is reused after
// deregistration with its 8-bit generation bumped, so a stale key stops matching. lkey == rkey
// (as on most RoCE NICs). Virtual addresses are assigned from `va_base` upward, each region
// aligned to 4 KiB with one unmapped 4 KiB guard page between regions, unless the caller asks for
// a specific address (regions may then overlap in VA; they stay separate memory, told apart by key).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "reference/quirk/quirk_flag.hpp"
#include "reference/transport/qp_types.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::transport {

enum class MemStatus : std::uint8_t {
  kOk = 0,
  kBadKey,        // no region has this key (never registered, deregistered, or stale generation)
  kOutOfBounds,   // [va, va + len) is not inside the region (or wraps past 2^64)
  kNoAccess,      // the region does not permit this operation (IBV_ACCESS_* bits)
  kBadArgument,   // registration: length 0, REMOTE_WRITE without LOCAL_WRITE, unknown bits, VA wrap
  kTableFull,     // registration: max_regions reached
};
std::string_view to_string(MemStatus s);

struct MemoryTableConfig {
  std::uint64_t va_base = 0x10000000;  // first auto-assigned VA
  std::size_t max_regions = 1024;      // registration slots (and the range of key slot numbers)
};

class MemoryTable {
 public:
  static constexpr std::uint64_t kPage = 4096;
  static constexpr int kKnownAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

  explicit MemoryTable(const MemoryTableConfig& cfg = {});
  // Defect rkey-index-only: an R_Key names its region by the index alone, any key byte.
  void set_ignore_key_byte(quirk::Flag f) { ignore_key_byte_ = f; }

  struct RegisterResult {
    MemStatus status = MemStatus::kOk;
    MemoryRegion mr;  // valid when status == kOk
  };
  // Registers `length` zero-filled bytes with IBV_ACCESS_* bits `access` (verbs rule: remote write
  // needs local write). `va` picks the address; without it the next free aligned address is used.
  RegisterResult register_region(std::size_t length, int access,
                                 std::optional<std::uint64_t> va = std::nullopt);
  // kOk or kBadKey.
  MemStatus deregister(std::uint32_t lkey);

  // The access check of one remote write (responder, per packet). A zero-length write checks
  // nothing (IBA: a zero-length RDMA WRITE needs no valid R_Key) and returns kOk.
  MemStatus check_remote_write(std::uint32_t rkey, std::uint64_t va, std::size_t len) const;
  // check_remote_write() then the copy. Writes nothing unless the check passes.
  MemStatus remote_write(std::uint32_t rkey, std::uint64_t va, wire::Bytes data);

  // Local access by L_Key (the application filling a source buffer, the requester reading
  // payload, a test inspecting what landed). On success `out` views the region's bytes, valid
  // until the region is deregistered.
  MemStatus local_view(std::uint32_t lkey, std::uint64_t va, std::size_t len, wire::Bytes& out) const;
  MemStatus local_mut(std::uint32_t lkey, std::uint64_t va, std::size_t len, wire::MutBytes& out);
  // local_mut for a caller that writes every byte of `out` before anything reads it: a page it
  // covers whole is not zeroed first.
  MemStatus local_overwrite(std::uint32_t lkey, std::uint64_t va, std::size_t len, wire::MutBytes& out);

  // The registered region for a key, or nullptr.
  const MemoryRegion* find(std::uint32_t key) const;
  std::size_t region_count() const { return live_; }

 private:
  quirk::Flag ignore_key_byte_ = false;
  struct Slot {
    bool live = false;
    std::uint8_t generation = 0;
    MemoryRegion mr;
    // malloc'd and zeroed a page at a time on first access: a page is zeroed before its first read
    // or partial write, and never when a write covers it whole (a case's buffer is sized for its
    // whole traffic, which then lands on every page once: zeroing it first was a twentieth of a
    // campaign's CPU time). `zeroed` has a bit per kPage page: set once the page holds defined
    // bytes. So no byte is ever seen before it is zero or written, and a run stays deterministic.
    std::unique_ptr<std::uint8_t, void (*)(void*)> bytes{nullptr, &std::free};
    mutable std::vector<std::uint64_t> zeroed;  // reading defines pages too (local_view is const)
  };
  const Slot* slot_for(std::uint32_t key) const;
  Slot* slot_for(std::uint32_t key);
  static MemStatus range_ok(const Slot& s, std::uint64_t va, std::size_t len);
  // Makes the pages of [off, off + len) defined: zeroes those not yet (the whole range is read).
  static void define(const Slot& s, std::size_t off, std::size_t len);
  // The same before a write of every byte of the range: only its partly covered end pages are
  // zeroed, when not yet defined.
  static void define_for_overwrite(const Slot& s, std::size_t off, std::size_t len);
  // The checks every local access makes, the pages defined, the bytes (a const table hands out
  // writable bytes only through the non-const calls above).
  MemStatus local_access(std::uint32_t lkey, std::uint64_t va, std::size_t len, bool overwrite,
                         wire::MutBytes& out) const;

  MemoryTableConfig cfg_;
  std::vector<Slot> slots_;  // sized max_regions at construction; never reallocated
  std::uint64_t next_va_;
  std::size_t live_ = 0;
};

}  // namespace mrc::transport
