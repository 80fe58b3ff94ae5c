// Controller model: EV format, EV and CC profile state machines (see controller.hpp). The explicit
// array operations, events and EV generation live in controller_ops.cpp.
#include "reference/ev/controller.hpp"

#include <algorithm>
#include <cerrno>

namespace mrc::ev {
namespace {

int fail(int err, std::string* why, std::string msg) {
  if (why != nullptr) *why = std::move(msg);
  return err;
}

bool valid_transition(ProfileState from, ProfileState to) {
  using S = ProfileState;
  if (from == to) return true;
  return (from == S::kInit && to == S::kOffline) || (from == S::kOffline && to == S::kOnline) ||
         (from == S::kOnline && to == S::kOffline) || (from == S::kOffline && to == S::kInit);
}

std::string transition_text(ProfileState from, ProfileState to) {
  return std::string(to_string(from)) + " -> " + to_string(to);
}

bool supported_fmt_mode(wire::EvFmtMode m, std::uint32_t mask) {
  const auto v = static_cast<std::uint32_t>(m);
  return (v == 1u || v == 2u || v == 4u) && (mask & v) != 0;
}

bool supported_ev_mode(EvMode m, std::uint32_t mask) {
  const auto v = static_cast<std::uint32_t>(m);
  return (v == 1u || v == 2u || v == 4u) && (mask & v) != 0;
}

constexpr std::uint32_t kFmtModifiable = fmt_attr::kState | fmt_attr::kMode | fmt_attr::kFields;
constexpr std::uint32_t kEvConfig = ev_attr::kMode | ev_attr::kFmtId | ev_attr::kCount |
                                    ev_attr::kMinActive | ev_attr::kEventMask | ev_attr::kFields |
                                    ev_attr::kGenSeed;
constexpr std::uint32_t kCcConfig = cc_attr::kAlgorithm | cc_attr::kConfig;
constexpr std::uint32_t kMonitorable = bits(EvState::kGood) | bits(EvState::kAssumedBad);

}  // namespace

const char* to_string(EvState s) {
  switch (s) {
    case EvState::kGood: return "GOOD";
    case EvState::kAssumedBad: return "ASSUMED_BAD";
    case EvState::kDenied: return "DENIED";
    case EvState::kUnknown: return "UNKNOWN";
  }
  return "?";
}

const char* to_string(ProfileState s) {
  switch (s) {
    case ProfileState::kInit: return "INIT";
    case ProfileState::kOffline: return "OFFLINE";
    case ProfileState::kOnline: return "ONLINE";
  }
  return "?";
}

const char* to_string(EvMode m) {
  switch (m) {
    case EvMode::kAuto: return "AUTO";
    case EvMode::kExp: return "EXP";
    case EvMode::kGen: return "GEN";
  }
  return "?";
}

Controller::Controller(DeviceLimits limits)
    : limits_(std::move(limits)),
      fmts_(limits_.ev_max_fmt_profiles),
      evps_(limits_.ev_max_profiles),
      ccs_(limits_.cc_max_profiles) {}

std::uint32_t Controller::ev_free_count() const {
  std::uint64_t used = 0;
  for (const EvSlot& s : evps_) {
    if (s.state != ProfileState::kInit) used += s.evs.size();
  }
  return used >= limits_.ev_max_count ? 0 : static_cast<std::uint32_t>(limits_.ev_max_count - used);
}

// ---- EV format profiles ---------------------------------------------------------------------

int Controller::modify_fmt_profile(ProfileId id, const FmtProfileAttr& attr, std::uint32_t mask,
                                   std::string* why) {
  if (id >= fmts_.size()) return fail(ENOENT, why, "unknown EV format profile id " + std::to_string(id));
  if (mask == 0) return fail(EINVAL, why, "empty attribute mask");
  if ((mask & ~kFmtModifiable) != 0) {
    return fail(EINVAL, why, "attribute mask has bits that cannot be modified (CUR_STATE or unknown)");
  }
  FmtSlot& s = fmts_[id];
  const ProfileState from = s.state;
  const ProfileState to = (mask & fmt_attr::kState) ? attr.state : from;
  if (!valid_transition(from, to) && !quirks_.any_transition) {
    return fail(EINVAL, why, "invalid EV format profile transition " + transition_text(from, to));
  }
  const bool config = (mask & (fmt_attr::kMode | fmt_attr::kFields)) != 0;

  if (from == ProfileState::kInit) {
    if (to != ProfileState::kOffline) return fail(EINVAL, why, "INIT accepts only STATE(OFFLINE)");
    if (!(mask & fmt_attr::kMode)) return fail(EINVAL, why, "INIT -> OFFLINE requires MODE");
  }
  if (from == ProfileState::kOnline) {
    if (config) return fail(EBUSY, why, "EV format profile is ONLINE: only STATE(OFFLINE) may change");
    if (to == ProfileState::kOffline) {
      for (const EvSlot& e : evps_) {
        if (e.state == ProfileState::kOnline && e.attr.mode != EvMode::kAuto && e.attr.fmt_id == id) {
          return fail(EBUSY, why, "an ONLINE EV profile uses this EV format profile");
        }
      }
    }
    s.state = to;
    return 0;
  }

  FmtSlot next = s;
  if (mask & fmt_attr::kMode) {
    if (!supported_fmt_mode(attr.mode, limits_.ev_fmt_mode_mask)) {
      return fail(EINVAL, why, "EV format mode not supported by the device");
    }
    next.fmt.mode = attr.mode;
    next.has_mode = true;
  }
  if (mask & fmt_attr::kFields) {
    FormatProfile candidate{next.fmt.mode, attr.widths};
    if (int rc = validate_format(candidate, why); rc != 0) return rc;
    next.fmt.widths = attr.widths;
    next.has_fields = true;
  }
  if (to == ProfileState::kOnline) {
    if (!next.has_fields) return fail(EINVAL, why, "OFFLINE -> ONLINE requires MODIFY_FIELDS");
    if (int rc = validate_format(next.fmt, why); rc != 0) return rc;
  }
  if (to == ProfileState::kInit) {
    for (const EvSlot& e : evps_) {
      if (e.state != ProfileState::kInit && e.attr.mode != EvMode::kAuto && e.attr.fmt_id == id) {
        return fail(EBUSY, why, "an EV profile still refers to this EV format profile");
      }
    }
    s = FmtSlot{};
    return 0;
  }
  next.state = to;
  s = std::move(next);
  return 0;
}

int Controller::query_fmt_profile(ProfileId id, FmtProfileAttr* out, std::uint32_t mask,
                                  std::size_t widths_cap, std::size_t* needed,
                                  std::string* why) const {
  if (id >= fmts_.size()) return fail(ENOENT, why, "unknown EV format profile id " + std::to_string(id));
  if (out == nullptr) return fail(EINVAL, why, "no output attribute struct");
  const FmtSlot& s = fmts_[id];
  out->state = s.state;
  out->mode = s.fmt.mode;
  if (mask & fmt_attr::kFields) {
    if (needed != nullptr) *needed = s.fmt.widths.size();
    if (widths_cap < s.fmt.widths.size()) {
      return fail(E2BIG, why,
                  "format field array holds " + std::to_string(widths_cap) + ", need " +
                      std::to_string(s.fmt.widths.size()));
    }
    out->widths = s.fmt.widths;
  }
  return 0;
}

// ---- EV profiles -----------------------------------------------------------------------------

std::uint32_t Controller::adjusted_count(const EvProfileAttr& a, ProfileId self) const {
  const std::uint32_t align = limits_.ev_count_align > 1 ? limits_.ev_count_align : 1;
  std::uint64_t want = (static_cast<std::uint64_t>(a.ev_count) + align - 1) / align * align;
  if (a.mode == EvMode::kExp) return static_cast<std::uint32_t>(std::min<std::uint64_t>(want, UINT32_MAX));
  // Generated and AUTO arrays are clipped to the device limits (per profile and free count).
  std::uint64_t used_by_others = 0;
  for (std::size_t i = 0; i < evps_.size(); ++i) {
    if (i != self && evps_[i].state != ProfileState::kInit) used_by_others += evps_[i].evs.size();
  }
  const std::uint64_t free =
      used_by_others >= limits_.ev_max_count ? 0 : limits_.ev_max_count - used_by_others;
  std::uint64_t cap = std::min<std::uint64_t>(limits_.ev_max_count_profile, free);
  cap = cap / align * align;
  return static_cast<std::uint32_t>(std::min(want, cap));
}

int Controller::check_ev_config(ProfileId id, const EvProfileAttr& a, std::uint32_t set_mask,
                                ProfileState target, std::string* why) const {
  if ((set_mask & ev_attr::kMode) && !supported_ev_mode(a.mode, limits_.ev_mode_mask)) {
    return fail(EINVAL, why, "EV mode not supported by the device");
  }
  if ((set_mask & ev_attr::kEventMask) && (a.ev_event_mask & ~kMonitorable) != 0) {
    return fail(EINVAL, why, "ev_event_mask may only hold GOOD and ASSUMED_BAD");
  }
  std::uint32_t count = 0;
  if (set_mask & ev_attr::kCount) {
    if (a.ev_count == 0) return fail(EINVAL, why, "ev_count is 0");
    count = adjusted_count(a, id);
    if (a.mode == EvMode::kExp) {
      if (count > limits_.ev_max_count_profile && !quirks_.ignore_count_limits) {
        return fail(E2BIG, why,
                    "ev_count " + std::to_string(count) + " exceeds ev_max_count_profile " +
                        std::to_string(limits_.ev_max_count_profile));
      }
      std::uint64_t others = 0;
      for (std::size_t i = 0; i < evps_.size(); ++i) {
        if (i != id && evps_[i].state != ProfileState::kInit) others += evps_[i].evs.size();
      }
      if (others + count > limits_.ev_max_count) {
        return fail(E2BIG, why,
                    "ev_count " + std::to_string(count) + " exceeds the free EV count " +
                        std::to_string(limits_.ev_max_count > others ? limits_.ev_max_count - others : 0));
      }
    } else if (count == 0) {
      return fail(E2BIG, why, "no EV resources left for this profile (device limits)");
    }
    if ((set_mask & ev_attr::kMinActive) && a.ev_min_active > count && !quirks_.ignore_count_limits) {
      return fail(EINVAL, why,
                  "ev_min_active " + std::to_string(a.ev_min_active) + " exceeds ev_count " +
                      std::to_string(count));
    }
  }
  if (a.mode != EvMode::kAuto) {
    if (!(set_mask & ev_attr::kFmtId)) return fail(EINVAL, why, "a non-AUTO EV profile requires FMT_ID");
    if (!(set_mask & ev_attr::kFields)) {
      return fail(EINVAL, why, "a non-AUTO EV profile requires MODIFY_FIELDS");
    }
    if (set_mask & ev_attr::kFmtId) {
      if (a.fmt_id >= fmts_.size()) {
        return fail(ENOENT, why, "unknown EV format profile id " + std::to_string(a.fmt_id));
      }
      const FmtSlot& f = fmts_[a.fmt_id];
      if (f.state == ProfileState::kInit) return fail(EINVAL, why, "EV format profile is in INIT");
      if (target == ProfileState::kOnline && f.state != ProfileState::kOnline) {
        return fail(EINVAL, why, "EV format profile must be ONLINE before the EV profile");
      }
      // The accept-invalid-profile switch is read only for fields that break a rule.
      if ((set_mask & ev_attr::kFields) && f.has_fields && validate_fields(f.fmt, a.fields, nullptr) != 0 &&
          !quirks_.skip_field_rules) {
        return validate_fields(f.fmt, a.fields, why);
      }
    }
    if (set_mask & ev_attr::kFields) {
      if (a.fields.empty()) return fail(EINVAL, why, "EV profile has no fields");
      const std::uint32_t used = ev_bits_used(a.fields);
      if (used > limits_.ev_max_width) {
        return fail(E2BIG, why,
                    "EV uses " + std::to_string(used) + " bits, more than ev_max_width " +
                        std::to_string(limits_.ev_max_width));
      }
      if (a.mode == EvMode::kGen) {
        for (std::size_t i = 0; i < a.fields.size(); ++i) {
          if (a.fields[i].mask != 0 && a.fields[i].min_val > a.fields[i].max_val) {
            return fail(EINVAL, why, "field " + std::to_string(i) + " min_val > max_val");
          }
        }
      }
    }
  }
  return 0;
}

int Controller::modify_ev_profile(ProfileId id, const EvProfileAttr& attr, std::uint32_t mask,
                                  std::string* why) {
  if (id >= evps_.size()) return fail(ENOENT, why, "unknown EV profile id " + std::to_string(id));
  if (mask == 0) return fail(EINVAL, why, "empty attribute mask");
  if ((mask & ~(kEvConfig | ev_attr::kState)) != 0) {
    return fail(EINVAL, why, "attribute mask has bits that cannot be modified (CUR_STATE or unknown)");
  }
  EvSlot& s = evps_[id];
  const ProfileState from = s.state;
  const ProfileState to = (mask & ev_attr::kState) ? attr.state : from;
  if (!valid_transition(from, to) && !quirks_.any_transition) {
    return fail(EINVAL, why, "invalid EV profile transition " + transition_text(from, to));
  }
  const std::uint32_t config = mask & kEvConfig;

  if (from == ProfileState::kInit) {
    if (to != ProfileState::kOffline) return fail(EINVAL, why, "INIT accepts only STATE(OFFLINE)");
    if (!(mask & ev_attr::kMode)) return fail(EINVAL, why, "INIT -> OFFLINE requires MODE");
    if (!(mask & ev_attr::kCount)) return fail(EINVAL, why, "INIT -> OFFLINE requires COUNT");
    if (attr.mode != EvMode::kAuto) {
      if (!(mask & ev_attr::kFmtId)) return fail(EINVAL, why, "INIT -> OFFLINE requires FMT_ID");
      if (!(mask & ev_attr::kFields)) return fail(EINVAL, why, "INIT -> OFFLINE requires MODIFY_FIELDS");
    }
  }
  if (from == ProfileState::kOnline) {
    const bool can = (limits_.caps & cap::kEvProfileModifyOnline) != 0 || quirks_.modify_online_without_cap;
    const std::uint32_t online_ok = can ? (ev_attr::kEventMask | ev_attr::kFields) : 0u;
    if ((config & ~online_ok) != 0) {
      return fail(EBUSY, why,
                  can ? "EV profile is ONLINE: only EVENT_MASK and MODIFY_FIELDS may change"
                      : "EV profile is ONLINE and the device lacks EV_PROFILE_MODIFY_ONLINE");
    }
    if (to == ProfileState::kOffline && s.qp_refs != 0) {
      return fail(EBUSY, why, std::to_string(s.qp_refs) + " QP(s) use this EV profile");
    }
  }
  if (to == ProfileState::kInit) {
    if (s.qp_refs != 0) return fail(EBUSY, why, "QPs use this EV profile");
    const std::uint64_t gen = s.generation + 1;  // stays monotonic across reuse of the slot
    s = EvSlot{};
    s.generation = gen;
    return 0;
  }

  EvSlot next = s;
  EvProfileAttr& a = next.attr;
  if (mask & ev_attr::kMode) a.mode = attr.mode;
  if (mask & ev_attr::kFmtId) a.fmt_id = attr.fmt_id;
  if (mask & ev_attr::kCount) a.ev_count = attr.ev_count;
  if (mask & ev_attr::kMinActive) a.ev_min_active = attr.ev_min_active;
  if (mask & ev_attr::kEventMask) a.ev_event_mask = attr.ev_event_mask;
  if (mask & ev_attr::kFields) a.fields = attr.fields;
  if (mask & ev_attr::kGenSeed) a.gen_seed = attr.gen_seed;
  next.set_mask |= config;

  if (to == ProfileState::kOnline && from != ProfileState::kOnline) {
    if (!(next.set_mask & ev_attr::kMinActive)) {
      return fail(EINVAL, why, "OFFLINE -> ONLINE requires MIN_ACTIVE");
    }
    if (!(next.set_mask & ev_attr::kEventMask)) {
      return fail(EINVAL, why, "OFFLINE -> ONLINE requires EVENT_MASK");
    }
  }
  if (int rc = check_ev_config(id, a, next.set_mask, to, why); rc != 0) return rc;
  next.attr.ev_count = adjusted_count(a, id);
  next.state = to;
  if (int rc = materialize(next, why); rc != 0) return rc;
  if (to == ProfileState::kOnline && a.mode == EvMode::kExp) {
    for (std::size_t i = 0; i < next.evs.size(); ++i) {
      if (is_unpopulated(next.evs[i].ref()) && !quirks_.online_unpopulated) {
        return fail(EINVAL, why, "EV " + std::to_string(i) + " is UNPOPULATED: replace every EV before ONLINE");
      }
      std::string bad;
      if (validate_ev_bits(a.fields, next.evs[i].val, &bad) != 0) {
        return fail(EINVAL, why, "EV " + std::to_string(i) + ": " + bad);
      }
    }
    if (limits_.caps & cap::kExplicitRange) {
      const std::uint32_t used = ev_bits_used(a.fields);
      for (std::size_t i = 1; i < next.evs.size(); ++i) {
        wire::EvBytes expect = next.evs[i - 1].val;
        bool carry = true;  // expect = previous + 1 over the `used` EV bits
        for (std::uint32_t b = used; b-- > 0 && carry;) {
          const auto m = static_cast<std::uint8_t>(1u << (7 - b % 8));
          carry = (expect[b / 8] & m) != 0;
          expect[b / 8] = static_cast<std::uint8_t>(expect[b / 8] ^ m);
        }
        if (carry || expect != next.evs[i].val) {
          return fail(EINVAL, why,
                      "EXPLICIT_RANGE: EV " + std::to_string(i) + " is not base + " + std::to_string(i));
        }
      }
    }
  }
  refresh_wire(next);
  ++next.generation;
  s = std::move(next);
  return 0;
}

int Controller::query_ev_profile(ProfileId id, EvProfileAttr* out, std::uint32_t mask,
                                 std::size_t fields_cap, std::size_t* needed,
                                 std::string* why) const {
  if (id >= evps_.size()) return fail(ENOENT, why, "unknown EV profile id " + std::to_string(id));
  if (out == nullptr) return fail(EINVAL, why, "no output attribute struct");
  const EvSlot& s = evps_[id];
  out->state = s.state;
  out->mode = s.attr.mode;
  out->fmt_id = s.attr.fmt_id;
  out->ev_count = s.attr.ev_count;
  out->ev_min_active = s.attr.ev_min_active;
  out->ev_event_mask = s.attr.ev_event_mask;
  out->gen_seed = s.attr.gen_seed;
  if (mask & ev_attr::kFields) {
    if (needed != nullptr) *needed = s.attr.fields.size();
    if (fields_cap < s.attr.fields.size()) {
      return fail(E2BIG, why,
                  "field array holds " + std::to_string(fields_cap) + ", need " +
                      std::to_string(s.attr.fields.size()));
    }
    out->fields = s.attr.fields;
  }
  return 0;
}

// ---- CC profiles ------------------------------------------------------------------------------

int Controller::modify_cc_profile(ProfileId id, const CcProfileAttr& attr, std::uint32_t mask,
                                  std::string* why) {
  if (id >= ccs_.size()) return fail(ENOENT, why, "unknown CC profile id " + std::to_string(id));
  if (mask == 0) return fail(EINVAL, why, "empty attribute mask");
  if ((mask & ~(kCcConfig | cc_attr::kState)) != 0) {
    return fail(EINVAL, why, "attribute mask has bits that cannot be modified (CUR_STATE or unknown)");
  }
  CcSlot& s = ccs_[id];
  const ProfileState from = s.state;
  const ProfileState to = (mask & cc_attr::kState) ? attr.state : from;
  if (!valid_transition(from, to) && !quirks_.any_transition) {
    return fail(EINVAL, why, "invalid CC profile transition " + transition_text(from, to));
  }
  const std::uint32_t config = mask & kCcConfig;
  if (from == ProfileState::kInit) {
    if (to != ProfileState::kOffline) return fail(EINVAL, why, "INIT accepts only STATE(OFFLINE)");
    if (!(mask & cc_attr::kAlgorithm)) return fail(EINVAL, why, "INIT -> OFFLINE requires ALGORITHM");
  }
  if (from == ProfileState::kOnline) {
    const bool can = (limits_.caps & cap::kCcProfileModifyOnline) != 0 || quirks_.modify_online_without_cap;
    const std::uint32_t online_ok = can ? cc_attr::kConfig : 0u;
    if ((config & ~online_ok) != 0) {
      return fail(EBUSY, why,
                  can ? "CC profile is ONLINE: only CONFIG may change"
                      : "CC profile is ONLINE and the device lacks CC_PROFILE_MODIFY_ONLINE");
    }
    if (to == ProfileState::kOffline && s.qp_refs != 0) {
      return fail(EBUSY, why, std::to_string(s.qp_refs) + " QP(s) use this CC profile");
    }
  }
  if (to == ProfileState::kInit) {
    s = CcSlot{};
    return 0;
  }
  CcSlot next = s;
  if (mask & cc_attr::kAlgorithm) {
    const auto& algos = limits_.cc_algorithms;
    if (!attr.algorithm.empty() &&
        std::find(algos.begin(), algos.end(), attr.algorithm) == algos.end()) {
      return fail(EINVAL, why, "CC algorithm \"" + attr.algorithm + "\" not offered by the device");
    }
    next.attr.algorithm = attr.algorithm;
  }
  if (mask & cc_attr::kConfig) {
    if (attr.config.empty()) return fail(EINVAL, why, "CC config is empty");
    next.attr.config = attr.config;
  }
  next.set_mask |= config;
  if (to == ProfileState::kOnline && from != ProfileState::kOnline && !next.attr.algorithm.empty() &&
      !(next.set_mask & cc_attr::kConfig)) {
    return fail(EINVAL, why, "OFFLINE -> ONLINE requires CONFIG");
  }
  next.state = to;
  next.attr.state = to;
  s = std::move(next);
  return 0;
}

int Controller::query_cc_profile(ProfileId id, CcProfileAttr* out, std::string* why) const {
  if (id >= ccs_.size()) return fail(ENOENT, why, "unknown CC profile id " + std::to_string(id));
  if (out == nullptr) return fail(EINVAL, why, "no output attribute struct");
  *out = ccs_[id].attr;
  out->state = ccs_[id].state;
  return 0;
}

const CcProfileAttr* Controller::cc_profile(ProfileId id) const {
  if (id >= ccs_.size() || ccs_[id].state == ProfileState::kInit) return nullptr;
  return &ccs_[id].attr;
}

// ---- QP association ---------------------------------------------------------------------------

int Controller::attach_ev_profile(ProfileId id, std::string* why) {
  if (id >= evps_.size()) return fail(ENOENT, why, "unknown EV profile id " + std::to_string(id));
  if (evps_[id].state != ProfileState::kOnline) return fail(EINVAL, why, "EV profile is not ONLINE");
  ++evps_[id].qp_refs;
  return 0;
}

int Controller::detach_ev_profile(ProfileId id, std::string* why) {
  if (id >= evps_.size()) return fail(ENOENT, why, "unknown EV profile id " + std::to_string(id));
  if (evps_[id].qp_refs == 0) return fail(EINVAL, why, "no QP uses this EV profile");
  --evps_[id].qp_refs;
  return 0;
}

int Controller::attach_cc_profile(ProfileId id, std::string* why) {
  if (id >= ccs_.size()) return fail(ENOENT, why, "unknown CC profile id " + std::to_string(id));
  if (ccs_[id].state != ProfileState::kOnline) return fail(EINVAL, why, "CC profile is not ONLINE");
  ++ccs_[id].qp_refs;
  return 0;
}

int Controller::detach_cc_profile(ProfileId id, std::string* why) {
  if (id >= ccs_.size()) return fail(ENOENT, why, "unknown CC profile id " + std::to_string(id));
  if (ccs_[id].qp_refs == 0) return fail(EINVAL, why, "no QP uses this CC profile");
  --ccs_[id].qp_refs;
  return 0;
}

}  // namespace mrc::ev
