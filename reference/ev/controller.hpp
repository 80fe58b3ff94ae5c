// The controller-side model of a device's EV format, EV and CC profiles, mirroring the public
// controller API (libmrc-ctl; mrc-wire-model.md §1.4): attribute structs plus attribute masks,
// the INIT -> OFFLINE -> ONLINE -> OFFLINE -> INIT state machine with the attributes each
// transition requires, the explicit-array operations, generated EVs and the EV event queue.
//
// Errors are errno values: EINVAL (bad attributes, missing required attributes, UNPOPULATED EVs
// at ONLINE), E2BIG (over a device limit, or an output buffer too small: the needed size is
// reported), EBUSY (changing an ONLINE profile without the MODIFY_ONLINE capability, or taking a
// profile that QPs use out of ONLINE), ENOENT (unknown profile id, EV not in the array).
// Every call that fails leaves *why (when given) naming the rule.
//
// Profile ids are slots 0..max-1 of each kind (like the driver's profile tables); every slot
// starts in INIT. Moving a profile back to INIT is how it is "destroyed".
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "reference/ev/expansion.hpp"
#include "reference/ev/types.hpp"
#include "reference/quirk/quirk_flag.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::ev {

using ProfileId = std::uint64_t;

// Optional capabilities (controller API opt_attr bit values).
namespace cap {
inline constexpr std::uint32_t kEvProfileModifyOnline = 1u << 0;
inline constexpr std::uint32_t kCcProfileModifyOnline = 1u << 1;
inline constexpr std::uint32_t kEvEvent = 1u << 2;
inline constexpr std::uint32_t kExplicitRange = 1u << 3;
inline constexpr std::uint32_t kPreciseDropCnt = 1u << 4;
inline constexpr std::uint32_t kEpOpEvProbe = 1u << 5;
}  // namespace cap

inline constexpr const char* kCcAlgoNscc = "uet-1.0-nscc";

// Device limits and capabilities (what the device query reports). Defaults: an 8-port NIC
// (one port per plane) with every optional capability except EXPLICIT_RANGE.
struct DeviceLimits {
  std::uint32_t ev_max_width = 256;         // valid EV bits (sum of popcount(mask)) per profile
  std::uint32_t ev_max_fmt_profiles = 16;
  std::uint32_t ev_max_profiles = 64;
  std::uint32_t ev_max_count = 65536;       // EVs across all profiles
  std::uint32_t ev_max_count_profile = 4096;
  std::uint32_t ev_count_align = 8;         // 0 or 1 = any count
  std::uint32_t ev_op_max_entries = 1024;   // entries per EV op batch; 0 = no cap
  std::uint32_t ev_fmt_mode_mask = 0x7;     // STEV | SRV6 | UDP
  std::uint32_t ev_mode_mask = 0x7;         // AUTO | EXP | GEN
  std::uint32_t cc_max_profiles = 16;
  std::vector<std::string> cc_algorithms{kCcAlgoNscc};
  std::uint32_t phy_port_mask = 0xFF;       // bit N-1 set = 1-based port N exists
  std::uint32_t caps = cap::kEvProfileModifyOnline | cap::kCcProfileModifyOnline |
                       cap::kEvEvent | cap::kPreciseDropCnt | cap::kEpOpEvProbe;
  std::uint32_t event_queue_depth = 1024;   // EV event queue entries before events are dropped
};

// ---- EV format profiles -------------------------------------------------------------------
namespace fmt_attr {
inline constexpr std::uint32_t kState = 1u << 0;
inline constexpr std::uint32_t kCurState = 1u << 1;  // query only
inline constexpr std::uint32_t kMode = 1u << 2;
inline constexpr std::uint32_t kFields = 1u << 3;    // MODIFY_FIELDS / QUERY_FIELDS
}  // namespace fmt_attr

struct FmtProfileAttr {
  ProfileState state = ProfileState::kInit;  // modify: target state; query: current state
  wire::EvFmtMode mode = wire::EvFmtMode::kStev;
  std::vector<std::uint32_t> widths;         // format field widths in bits
};

// ---- EV profiles --------------------------------------------------------------------------
namespace ev_attr {
inline constexpr std::uint32_t kState = 1u << 0;
inline constexpr std::uint32_t kCurState = 1u << 1;  // query only
inline constexpr std::uint32_t kMode = 1u << 2;
inline constexpr std::uint32_t kFmtId = 1u << 3;
inline constexpr std::uint32_t kCount = 1u << 4;
inline constexpr std::uint32_t kMinActive = 1u << 5;
inline constexpr std::uint32_t kEventMask = 1u << 6;
inline constexpr std::uint32_t kFields = 1u << 8;    // EV_FIELDS_OP MODIFY_FIELDS / QUERY_FIELDS
inline constexpr std::uint32_t kGenSeed = 1u << 16;  // model addition: seed for generated EVs
}  // namespace ev_attr

struct EvProfileAttr {
  ProfileState state = ProfileState::kInit;  // modify: target state; query: current state
  EvMode mode = EvMode::kAuto;
  ProfileId fmt_id = 0;
  std::uint32_t ev_count = 0;       // query: the adjusted (aligned, clipped) count
  std::uint32_t ev_min_active = 0;  // <= ev_count
  std::uint32_t ev_event_mask = 0;  // only bits(kGood) | bits(kAssumedBad)
  std::vector<EvField> fields;
  std::uint64_t gen_seed = 0;       // generated EVs are a pure function of (fields, count, seed)
};

// One slot of a profile's EV array.
struct EvEntry {
  wire::EvBytes val{};                 // the EV as the controller names it (compact bits)
  std::uint8_t port = 0;               // 1-based egress port (= plane); 0 only when UNPOPULATED
  wire::EvBytes wire{};                // expanded bytes (format profile applied)
  std::uint8_t index = 0;              // position in the array & 0xFF (SRv6 sport low byte, W2)
  EvState state = EvState::kUnknown;   // what QUERY_EV_STATE reports (DENIED overrides)
  EvState hw_state = EvState::kUnknown;  // GOOD / ASSUMED_BAD / UNKNOWN as the endpoint reported
  bool denied = false;                 // controller's DENIED flag
  EvRef ref() const { return EvRef{val, port}; }
};

// EV op entries (one struct for all four ops, like the API's unified entry).
inline constexpr std::uint32_t kOpAllCopies = 1u << 0;
struct EvOpEntry {
  EvRef ev;                          // subject (REPLACE/MODIFY/QUERY_STATE); output of QUERY_ARRAY
  EvRef ev_new;                      // REPLACE_EV only
  EvState state = EvState::kUnknown; // MODIFY_EV_STATE input; QUERY_* output
  std::uint32_t flags = 0;           // kOpAllCopies
};

// ---- CC profiles --------------------------------------------------------------------------
namespace cc_attr {
inline constexpr std::uint32_t kState = 1u << 0;
inline constexpr std::uint32_t kCurState = 1u << 1;
inline constexpr std::uint32_t kAlgorithm = 1u << 2;
inline constexpr std::uint32_t kConfig = 1u << 3;
}  // namespace cc_attr

struct CcProfileAttr {
  ProfileState state = ProfileState::kInit;
  std::string algorithm;              // must match a DeviceLimits::cc_algorithms entry; "" = CC off
  std::vector<std::uint8_t> config;   // opaque algorithm config (e.g. a serialized NSCC cfg)
};

// ---- EV events ----------------------------------------------------------------------------
struct EvEvent {
  ProfileId profile_id = 0;
  EvRef ev;
  std::uint32_t drop_count = 0;  // events lost before this one (exact with PRECISE_DROP_CNT, else 0/1)
  EvState state = EvState::kUnknown;
};

// Behaviour switches the endpoint fills from its defect set (reference/defects.hpp), so this
// layer does not depend on the facade. All off = the host API's rules.
struct ControllerQuirks {
  quirk::Flag no_events = false;              // never queues an EV event
  quirk::Flag ignore_event_mask = false;      // queues events for states masked out of ev_event_mask
  quirk::Flag imprecise_drop_count = false;   // drop_count is a 0/1 flag even with PRECISE_DROP_CNT
  quirk::Flag any_transition = false;         // accepts every profile state transition
  quirk::Flag skip_field_rules = false;       // accepts EV profile fields that break the validity rules
  quirk::Flag ignore_count_limits = false;    // accepts ev_count over the maximum, ev_min_active > ev_count
  quirk::Flag online_unpopulated = false;     // an explicit profile goes ONLINE with UNPOPULATED EVs
  quirk::Flag modify_online_without_cap = false;  // changes ONLINE profiles without MODIFY_ONLINE
  quirk::Flag scatter16 = false;              // EV bits a field's mask places above bit 15 are lost
};

class Controller {
 public:
  explicit Controller(DeviceLimits limits = {});
  void set_quirks(const ControllerQuirks& q) { quirks_ = q; }
  const ControllerQuirks& quirks() const { return quirks_; }

  const DeviceLimits& limits() const { return limits_; }
  std::uint32_t ev_free_count() const;

  // EV format profiles.
  int modify_fmt_profile(ProfileId id, const FmtProfileAttr& attr, std::uint32_t mask,
                         std::string* why = nullptr);
  // With fmt_attr::kFields, `widths_cap` is the caller's array length: E2BIG and *needed set when
  // it is smaller than the field count.
  int query_fmt_profile(ProfileId id, FmtProfileAttr* out, std::uint32_t mask,
                        std::size_t widths_cap = SIZE_MAX, std::size_t* needed = nullptr,
                        std::string* why = nullptr) const;

  // EV profiles.
  int modify_ev_profile(ProfileId id, const EvProfileAttr& attr, std::uint32_t mask,
                        std::string* why = nullptr);
  int query_ev_profile(ProfileId id, EvProfileAttr* out, std::uint32_t mask,
                       std::size_t fields_cap = SIZE_MAX, std::size_t* needed = nullptr,
                       std::string* why = nullptr) const;

  // Explicit-array ops. Success is per entry: the first failing entry stops the batch and
  // *done (when given) says how many entries were applied.
  // REPLACE_EV: every entry's `ev` must be in the array (ENOENT otherwise). With kOpAllCopies
  // every copy is replaced; without it the copy with the LOWEST array index is replaced.
  int replace_ev(ProfileId id, std::span<const EvOpEntry> entries, std::size_t* done = nullptr,
                 std::string* why = nullptr);
  // MODIFY_EV_STATE: state kDenied sets DENIED, kGood clears it; anything else is EINVAL.
  // Copies as for REPLACE_EV (lowest index, or all with kOpAllCopies).
  int modify_ev_state(ProfileId id, std::span<const EvOpEntry> entries,
                      std::size_t* done = nullptr, std::string* why = nullptr);
  // QUERY_EV_STATE: fills entries[i].state from the lowest-index copy of entries[i].ev.
  int query_ev_state(ProfileId id, std::span<EvOpEntry> entries, std::string* why = nullptr) const;
  // QUERY_EV_ARRAY: fills out[0..ev_count) (ev and state). E2BIG when out.size() < ev_count;
  // *count is always set to ev_count.
  int query_ev_array(ProfileId id, std::span<EvOpEntry> out, std::size_t* count,
                     std::string* why = nullptr) const;

  // CC profiles.
  int modify_cc_profile(ProfileId id, const CcProfileAttr& attr, std::uint32_t mask,
                        std::string* why = nullptr);
  int query_cc_profile(ProfileId id, CcProfileAttr* out, std::string* why = nullptr) const;

  // QP association (what mrc_modify_qp at INIT does). The profile must be ONLINE (EINVAL);
  // while any QP uses it, leaving ONLINE is EBUSY.
  int attach_ev_profile(ProfileId id, std::string* why = nullptr);
  int detach_ev_profile(ProfileId id, std::string* why = nullptr);
  int attach_cc_profile(ProfileId id, std::string* why = nullptr);
  int detach_cc_profile(ProfileId id, std::string* why = nullptr);

  // What the endpoint reads. Empty span / nullptr for unknown or INIT profiles.
  std::span<const EvEntry> ev_array(ProfileId id) const;
  const FormatProfile* format_of(ProfileId ev_profile_id) const;  // nullptr for AUTO
  ProfileState ev_profile_state(ProfileId id) const;
  std::uint32_t ev_min_active(ProfileId id) const;
  // Bumped on every change to a profile's array (replace, DENIED, regenerate): QPs resync.
  std::uint64_t ev_generation(ProfileId id) const;
  const CcProfileAttr* cc_profile(ProfileId id) const;

  // The hardware side: the endpoint reports a profile-wide GOOD / ASSUMED_BAD change of the EV at
  // `index`. Queues an event when the state is masked in and the device has the EV_EVENT cap.
  int report_ev_state(ProfileId id, std::size_t index, EvState state, std::string* why = nullptr);
  // The same state change without an event: for changes whose events were lost upstream (their
  // loss reaches the controller through note_dropped_events).
  int sync_ev_state(ProfileId id, std::size_t index, EvState state);

  // EV event queue: never overruns. When full, new events are dropped and counted; the next
  // delivered event carries the count (exact with PRECISE_DROP_CNT, otherwise 0/1).
  std::size_t poll_events(std::span<EvEvent> out);
  std::size_t pending_events() const { return events_.size(); }
  // Events lost upstream (e.g. HealthEvent::drop_count from a QP's health buffer) count as
  // dropped: the next delivered event carries them.
  void note_dropped_events(std::uint32_t n) { dropped_events_ += n; }

 private:
  struct FmtSlot {
    ProfileState state = ProfileState::kInit;
    bool has_mode = false;
    bool has_fields = false;
    FormatProfile fmt;
  };
  struct EvSlot {
    ProfileState state = ProfileState::kInit;
    EvProfileAttr attr;
    std::uint32_t set_mask = 0;  // which attributes have been supplied since INIT
    std::vector<EvEntry> evs;
    std::uint32_t qp_refs = 0;
    std::uint64_t generation = 0;
  };
  struct CcSlot {
    ProfileState state = ProfileState::kInit;
    CcProfileAttr attr;
    std::uint32_t set_mask = 0;
    std::uint32_t qp_refs = 0;
  };

  int check_ev_config(ProfileId id, const EvProfileAttr& a, std::uint32_t set_mask,
                      ProfileState target, std::string* why) const;
  int materialize(EvSlot& s, std::string* why);
  void refresh_wire(EvSlot& s);
  std::uint32_t adjusted_count(const EvProfileAttr& a, ProfileId self) const;
  void push_event(const EvEvent& e);

  DeviceLimits limits_;
  ControllerQuirks quirks_;
  std::vector<FmtSlot> fmts_;
  std::vector<EvSlot> evps_;
  std::vector<CcSlot> ccs_;
  std::deque<EvEvent> events_;
  std::uint32_t dropped_events_ = 0;
};

// The deterministic generator used for generated EVs (splitmix64: identical on every platform).
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform-enough value in [lo, hi] (modulo mapping; the bias is < 2^-32 for 32-bit ranges).
  std::uint32_t between(std::uint32_t lo, std::uint32_t hi);

 private:
  std::uint64_t state_;
};

// Generates `count` EVs for a generated-mode profile: per field with a non-zero mask, an n-bit
// value in [min_val, max_val] (n = popcount(mask)), packed MSB-first in field order. Ports cycle
// through the set bits of phy_port_mask so EVs split evenly over the planes.
void generate_evs(std::span<const EvField> fields, std::uint32_t count, std::uint64_t seed,
                  std::uint32_t phy_port_mask, std::vector<EvEntry>& out);

}  // namespace mrc::ev
