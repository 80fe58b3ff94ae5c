// Controller model, part 2: EV arrays (explicit, generated, AUTO), the explicit-array operations,
// profile-wide EV state reports and the EV event queue.
#include <bit>
#include <cerrno>

#include "reference/ev/controller.hpp"

namespace mrc::ev {
namespace {

int fail(int err, std::string* why, std::string msg) {
  if (why != nullptr) *why = std::move(msg);
  return err;
}

// 1-based ports present in the mask, ascending.
std::vector<std::uint8_t> ports_of(std::uint32_t phy_port_mask) {
  std::vector<std::uint8_t> ports;
  for (std::uint32_t p = 0; p < 32; ++p) {
    if ((phy_port_mask >> p) & 1u) ports.push_back(static_cast<std::uint8_t>(p + 1));
  }
  return ports;
}

bool port_exists(std::uint8_t port, std::uint32_t phy_port_mask) {
  return port >= 1 && port <= 32 && ((phy_port_mask >> (port - 1)) & 1u) != 0;
}

void set_effective_state(EvEntry& e) { e.state = e.denied ? EvState::kDenied : e.hw_state; }

// Lowest-index match of `ref`, starting at `from`; evs.size() when none.
std::size_t find_from(const std::vector<EvEntry>& evs, const EvRef& ref, std::size_t from) {
  for (std::size_t i = from; i < evs.size(); ++i) {
    if (evs[i].port == ref.port && evs[i].val == ref.val) return i;
  }
  return evs.size();
}

std::string ev_text(const EvRef& r) {
  static const char* hex = "0123456789abcdef";
  std::size_t last = r.val.size();
  while (last > 1 && r.val[last - 1] == 0) --last;
  std::string s = "EV ";
  for (std::size_t i = 0; i < last; ++i) {
    s += hex[r.val[i] >> 4];
    s += hex[r.val[i] & 0xF];
  }
  s += " port " + std::to_string(r.port);
  return s;
}

}  // namespace

// ---- generated EVs ------------------------------------------------------------------------------

std::uint64_t SplitMix64::next() {
  state_ += 0x9E3779B97F4A7C15ull;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint32_t SplitMix64::between(std::uint32_t lo, std::uint32_t hi) {
  if (hi <= lo) return lo;
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - lo + 1;
  return static_cast<std::uint32_t>(lo + next() % span);
}

void generate_evs(std::span<const EvField> fields, std::uint32_t count, std::uint64_t seed,
                  std::uint32_t phy_port_mask, std::vector<EvEntry>& out) {
  const std::vector<std::uint8_t> ports = ports_of(phy_port_mask);
  SplitMix64 rng(seed);
  out.assign(count, EvEntry{});
  for (std::uint32_t i = 0; i < count; ++i) {
    EvEntry& e = out[i];
    std::uint32_t cursor = 0;
    for (const EvField& f : fields) {
      if (f.mask == 0) continue;  // fixed fields take no EV bits
      const auto n = static_cast<std::uint32_t>(std::popcount(f.mask));
      write_bits(e.val, cursor, n, rng.between(f.min_val, f.max_val));
      cursor += n;
    }
    e.port = ports.empty() ? 0 : ports[i % ports.size()];
    e.index = static_cast<std::uint8_t>(i & 0xFF);
    e.hw_state = EvState::kGood;
    set_effective_state(e);
  }
}

// Builds the array a profile's configuration implies. Existing entries are kept when the
// configuration did not change them, so DENIED flags and reported states survive unrelated edits.
int Controller::materialize(EvSlot& s, std::string* why) {
  const EvProfileAttr& a = s.attr;
  const std::uint32_t count = a.ev_count;
  if (a.mode == EvMode::kExp) {
    const std::size_t old = s.evs.size();
    s.evs.resize(count);
    for (std::size_t i = old; i < count; ++i) s.evs[i] = EvEntry{};  // UNPOPULATED, UNKNOWN
    for (std::size_t i = 0; i < count; ++i) s.evs[i].index = static_cast<std::uint8_t>(i & 0xFF);
    return 0;
  }
  if (ports_of(limits_.phy_port_mask).empty()) {
    return fail(EINVAL, why, "device has no physical ports (phy_port_mask 0)");
  }
  std::vector<EvEntry> fresh;
  if (a.mode == EvMode::kGen) {
    generate_evs(a.fields, count, a.gen_seed, limits_.phy_port_mask, fresh);
  } else {
    // AUTO: the device manages paths. The reference endpoint behaves like a NIC spraying on UDP
    // source-port entropy: EV i is the 16-bit value 0xC000 | i (bytes 0..1) on the next port.
    const std::vector<std::uint8_t> ports = ports_of(limits_.phy_port_mask);
    fresh.assign(count, EvEntry{});
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint32_t v = 0xC000u | (i & 0x3FFFu);
      fresh[i].val[0] = static_cast<std::uint8_t>(v >> 8);
      fresh[i].val[1] = static_cast<std::uint8_t>(v);
      fresh[i].port = ports[i % ports.size()];
      fresh[i].index = static_cast<std::uint8_t>(i & 0xFF);
      fresh[i].hw_state = EvState::kGood;
      set_effective_state(fresh[i]);
    }
  }
  bool same = fresh.size() == s.evs.size();
  for (std::size_t i = 0; same && i < fresh.size(); ++i) {
    same = fresh[i].val == s.evs[i].val && fresh[i].port == s.evs[i].port;
  }
  if (!same) s.evs = std::move(fresh);
  return 0;
}

void Controller::refresh_wire(EvSlot& s) {
  if (s.attr.mode == EvMode::kAuto) {
    for (EvEntry& e : s.evs) e.wire = e.val;
    return;
  }
  const FmtSlot* f = s.attr.fmt_id < fmts_.size() ? &fmts_[s.attr.fmt_id] : nullptr;
  const bool ok = f != nullptr && f->has_fields && validate_fields(f->fmt, s.attr.fields, nullptr) == 0;
  for (EvEntry& e : s.evs) {
    if (ok && !is_unpopulated(e.ref())) {
      expand_unchecked(f->fmt.widths, s.attr.fields, e.val, e.wire, quirks_.scatter16);
    } else {
      e.wire.fill(0);
    }
  }
}

// ---- explicit-array operations ------------------------------------------------------------------

int Controller::replace_ev(ProfileId id, std::span<const EvOpEntry> entries, std::size_t* done,
                           std::string* why) {
  if (done != nullptr) *done = 0;
  if (id >= evps_.size()) return fail(ENOENT, why, "unknown EV profile id " + std::to_string(id));
  EvSlot& s = evps_[id];
  if (s.state == ProfileState::kInit) return fail(EINVAL, why, "EV profile is in INIT");
  if (s.attr.mode != EvMode::kExp) return fail(EINVAL, why, "REPLACE_EV needs an explicit (EXP) profile");
  const bool online = s.state == ProfileState::kOnline;
  if (online && !(limits_.caps & cap::kEvProfileModifyOnline) && !quirks_.modify_online_without_cap) {
    return fail(EBUSY, why, "EV profile is ONLINE and the device lacks EV_PROFILE_MODIFY_ONLINE");
  }
  if (limits_.ev_op_max_entries != 0 && entries.size() > limits_.ev_op_max_entries) {
    return fail(E2BIG, why,
                std::to_string(entries.size()) + " entries exceed ev_op_max_entries " +
                    std::to_string(limits_.ev_op_max_entries));
  }
  const FmtSlot* f = s.attr.fmt_id < fmts_.size() ? &fmts_[s.attr.fmt_id] : nullptr;
  const bool can_expand =
      f != nullptr && f->has_fields && validate_fields(f->fmt, s.attr.fields, nullptr) == 0;
  int rc = 0;
  std::size_t applied = 0;
  for (const EvOpEntry& op : entries) {
    const bool clearing = is_unpopulated(op.ev_new);
    if (clearing && online) {
      rc = fail(EINVAL, why, "cannot replace an EV with UNPOPULATED while ONLINE");
      break;
    }
    if (!clearing && !port_exists(op.ev_new.port, limits_.phy_port_mask)) {
      rc = fail(EINVAL, why, "new EV port " + std::to_string(op.ev_new.port) + " not in phy_port_mask");
      break;
    }
    std::string bad;
    if (!clearing && validate_ev_bits(s.attr.fields, op.ev_new.val, &bad) != 0) {
      rc = fail(EINVAL, why, "new " + ev_text(op.ev_new) + ": " + bad);
      break;
    }
    std::size_t i = find_from(s.evs, op.ev, 0);
    if (i == s.evs.size()) {
      rc = fail(ENOENT, why, ev_text(op.ev) + " not in the EV array");
      break;
    }
    const bool all = (op.flags & kOpAllCopies) != 0;
    while (i < s.evs.size()) {
      EvEntry& e = s.evs[i];
      e.val = op.ev_new.val;
      e.port = op.ev_new.port;
      e.denied = false;
      e.hw_state = clearing ? EvState::kUnknown : EvState::kGood;
      set_effective_state(e);
      if (online && can_expand) {
        expand_unchecked(f->fmt.widths, s.attr.fields, e.val, e.wire, quirks_.scatter16);
      } else {
        e.wire.fill(0);
      }
      if (!all) break;
      i = find_from(s.evs, op.ev, i + 1);
    }
    ++applied;
  }
  if (applied != 0) ++s.generation;
  if (done != nullptr) *done = applied;
  return rc;
}

int Controller::modify_ev_state(ProfileId id, std::span<const EvOpEntry> entries,
                                std::size_t* done, std::string* why) {
  if (done != nullptr) *done = 0;
  if (id >= evps_.size()) return fail(ENOENT, why, "unknown EV profile id " + std::to_string(id));
  EvSlot& s = evps_[id];
  if (s.state == ProfileState::kInit) return fail(EINVAL, why, "EV profile is in INIT");
  if (s.attr.mode == EvMode::kAuto) return fail(EINVAL, why, "AUTO profiles have no controller EV array");
  if (limits_.ev_op_max_entries != 0 && entries.size() > limits_.ev_op_max_entries) {
    return fail(E2BIG, why,
                std::to_string(entries.size()) + " entries exceed ev_op_max_entries " +
                    std::to_string(limits_.ev_op_max_entries));
  }
  int rc = 0;
  std::size_t applied = 0;
  for (const EvOpEntry& op : entries) {
    if (op.state != EvState::kDenied && op.state != EvState::kGood) {
      rc = fail(EINVAL, why, "the controller may only set DENIED or clear it (GOOD)");
      break;
    }
    if (is_unpopulated(op.ev)) {
      rc = fail(EINVAL, why, "cannot change the state of an UNPOPULATED EV");
      break;
    }
    std::size_t i = find_from(s.evs, op.ev, 0);
    if (i == s.evs.size()) {
      rc = fail(ENOENT, why, ev_text(op.ev) + " not in the EV array");
      break;
    }
    const bool all = (op.flags & kOpAllCopies) != 0;
    while (i < s.evs.size()) {
      s.evs[i].denied = op.state == EvState::kDenied;
      set_effective_state(s.evs[i]);
      if (!all) break;
      i = find_from(s.evs, op.ev, i + 1);
    }
    ++applied;
  }
  if (applied != 0) ++s.generation;
  if (done != nullptr) *done = applied;
  return rc;
}

int Controller::query_ev_state(ProfileId id, std::span<EvOpEntry> entries, std::string* why) const {
  if (id >= evps_.size()) return fail(ENOENT, why, "unknown EV profile id " + std::to_string(id));
  const EvSlot& s = evps_[id];
  if (s.state == ProfileState::kInit) return fail(EINVAL, why, "EV profile is in INIT");
  if (limits_.ev_op_max_entries != 0 && entries.size() > limits_.ev_op_max_entries) {
    return fail(E2BIG, why,
                std::to_string(entries.size()) + " entries exceed ev_op_max_entries " +
                    std::to_string(limits_.ev_op_max_entries));
  }
  for (EvOpEntry& op : entries) {
    const std::size_t i = find_from(s.evs, op.ev, 0);
    if (i == s.evs.size()) return fail(ENOENT, why, ev_text(op.ev) + " not in the EV array");
    op.state = s.evs[i].state;
  }
  return 0;
}

int Controller::query_ev_array(ProfileId id, std::span<EvOpEntry> out, std::size_t* count,
                               std::string* why) const {
  if (id >= evps_.size()) return fail(ENOENT, why, "unknown EV profile id " + std::to_string(id));
  const EvSlot& s = evps_[id];
  if (count != nullptr) *count = s.evs.size();
  if (s.state == ProfileState::kInit) return fail(EINVAL, why, "EV profile is in INIT");
  if (out.size() < s.evs.size()) {
    return fail(E2BIG, why,
                "EV array holds " + std::to_string(s.evs.size()) + " entries, buffer " +
                    std::to_string(out.size()));
  }
  for (std::size_t i = 0; i < s.evs.size(); ++i) {
    out[i] = EvOpEntry{};
    out[i].ev = s.evs[i].ref();
    out[i].state = s.evs[i].state;
  }
  return 0;
}

// ---- what the endpoint reads --------------------------------------------------------------------

std::span<const EvEntry> Controller::ev_array(ProfileId id) const {
  if (id >= evps_.size() || evps_[id].state == ProfileState::kInit) return {};
  return evps_[id].evs;
}

const FormatProfile* Controller::format_of(ProfileId ev_profile_id) const {
  if (ev_profile_id >= evps_.size()) return nullptr;
  const EvSlot& s = evps_[ev_profile_id];
  if (s.state == ProfileState::kInit || s.attr.mode == EvMode::kAuto) return nullptr;
  if (s.attr.fmt_id >= fmts_.size() || !fmts_[s.attr.fmt_id].has_fields) return nullptr;
  return &fmts_[s.attr.fmt_id].fmt;
}

ProfileState Controller::ev_profile_state(ProfileId id) const {
  return id < evps_.size() ? evps_[id].state : ProfileState::kInit;
}

std::uint32_t Controller::ev_min_active(ProfileId id) const {
  return id < evps_.size() ? evps_[id].attr.ev_min_active : 0;
}

std::uint64_t Controller::ev_generation(ProfileId id) const {
  return id < evps_.size() ? evps_[id].generation : 0;
}

// ---- hardware state reports and EV events -------------------------------------------------------

int Controller::report_ev_state(ProfileId id, std::size_t index, EvState state, std::string* why) {
  if (id >= evps_.size()) return fail(ENOENT, why, "unknown EV profile id " + std::to_string(id));
  EvSlot& s = evps_[id];
  if (s.state != ProfileState::kOnline) return fail(EINVAL, why, "EV profile is not ONLINE");
  if (index >= s.evs.size()) return fail(EINVAL, why, "EV index " + std::to_string(index) + " out of range");
  if (state != EvState::kGood && state != EvState::kAssumedBad) {
    return fail(EINVAL, why, "the hardware reports only GOOD and ASSUMED_BAD");
  }
  EvEntry& e = s.evs[index];
  if (e.hw_state == state) return 0;
  e.hw_state = state;
  set_effective_state(e);
  const bool masked_in = (s.attr.ev_event_mask & bits(state)) != 0 || quirks_.ignore_event_mask;
  if ((limits_.caps & cap::kEvEvent) && masked_in && !quirks_.no_events) {
    push_event(EvEvent{id, e.ref(), 0, state});
  }
  return 0;
}

int Controller::sync_ev_state(ProfileId id, std::size_t index, EvState state) {
  if (id >= evps_.size() || evps_[id].state != ProfileState::kOnline) return EINVAL;
  if (index >= evps_[id].evs.size()) return EINVAL;
  if (state != EvState::kGood && state != EvState::kAssumedBad) return EINVAL;
  EvEntry& e = evps_[id].evs[index];
  e.hw_state = state;
  set_effective_state(e);
  return 0;
}

void Controller::push_event(const EvEvent& e) {
  if (events_.size() >= limits_.event_queue_depth) {
    ++dropped_events_;  // the queue never overruns: the event is dropped and counted
    return;
  }
  EvEvent q = e;
  const bool precise = (limits_.caps & cap::kPreciseDropCnt) != 0 && !quirks_.imprecise_drop_count;
  q.drop_count = precise ? dropped_events_
                                                       : (dropped_events_ != 0 ? 1u : 0u);
  dropped_events_ = 0;
  events_.push_back(q);
}

std::size_t Controller::poll_events(std::span<EvEvent> out) {
  std::size_t n = 0;
  while (n < out.size() && !events_.empty()) {
    out[n++] = events_.front();
    events_.pop_front();
  }
  return n;
}

}  // namespace mrc::ev
