// Body layouts of the version-2 control requests: profile operations, EV replacement, profile
// online/offline and the device restriction. Field order here IS the wire layout
// (harness/dut/agent-protocol.md §4). An optional attribute is a presence bool followed, when 1,
// by its value, so "absent" and "present with the default value" stay distinct on the wire.
#include <string>

#include "harness/agentproto/body_codec.hpp"

namespace mrc::agentproto::detail {
namespace {

constexpr std::uint8_t kMaxProfileState = 2;  // ProfileStateSetting::kOnline
constexpr std::uint8_t kMaxEvMode = 2;        // EvMode::kGenerated

template <typename T, typename PutValue>
void put_optional(Writer& w, const std::optional<T>& v, PutValue put_value) {
  w.boolean(v.has_value());
  if (v) put_value(*v);
}

template <typename T, typename GetValue>
void get_optional(Reader& r, std::optional<T>& v, std::string_view has_field, GetValue get_value) {
  v.reset();
  if (r.boolean(has_field)) v.emplace(get_value());
}

}  // namespace

void put(Writer& w, const EvProfileOp& m) {
  put_optional(w, m.state, [&](ProfileStateSetting s) { w.u8(static_cast<std::uint8_t>(s)); });
  put_optional(w, m.mode, [&](EvMode e) { w.u8(static_cast<std::uint8_t>(e)); });
  put_optional(w, m.fields, [&](const std::vector<EvField>& fs) {
    if (w.count(fs.size(), limit::kEvFields, "EvProfileOp.fields")) {
      for (const EvField& f : fs) put(w, f);
    }
  });
  put_optional(w, m.count, [&](std::uint32_t v) { w.u32(v); });
  put_optional(w, m.min_active, [&](std::uint32_t v) { w.u32(v); });
  put_optional(w, m.event_mask, [&](std::uint32_t v) { w.u32(v); });
  put_optional(w, m.seed, [&](std::uint64_t v) { w.u64(v); });
}

void get(Reader& r, EvProfileOp& m) {
  get_optional(r, m.state, "EvProfileOp.has_state",
               [&] { return get_enum<ProfileStateSetting>(r, kMaxProfileState, "EvProfileOp.state"); });
  get_optional(r, m.mode, "EvProfileOp.has_mode", [&] { return get_enum<EvMode>(r, kMaxEvMode, "EvProfileOp.mode"); });
  get_optional(r, m.fields, "EvProfileOp.has_fields", [&] {
    std::vector<EvField> fs(r.count(limit::kEvFields, kEvFieldBytes, "EvProfileOp.fields"));
    for (EvField& f : fs) get(r, f);
    return fs;
  });
  get_optional(r, m.count, "EvProfileOp.has_count", [&] { return r.u32("EvProfileOp.count"); });
  get_optional(r, m.min_active, "EvProfileOp.has_min_active", [&] { return r.u32("EvProfileOp.min_active"); });
  get_optional(r, m.event_mask, "EvProfileOp.has_event_mask", [&] { return r.u32("EvProfileOp.event_mask"); });
  get_optional(r, m.seed, "EvProfileOp.has_seed", [&] { return r.u64("EvProfileOp.seed"); });
}

void put(Writer& w, const CcProfileOp& m) {
  put_optional(w, m.state, [&](ProfileStateSetting s) { w.u8(static_cast<std::uint8_t>(s)); });
  put_optional(w, m.algorithm, [&](const std::string& a) { w.str(a, limit::kAlgorithm, "CcProfileOp.algorithm"); });
  if (w.count(m.config.size(), limit::kCcConfig, "CcProfileOp.config")) {
    for (const auto& [name, value] : m.config) {
      w.str(name, limit::kName, "CcProfileOp.config[].name");
      w.str(value, limit::kName, "CcProfileOp.config[].value");
    }
  }
}

void get(Reader& r, CcProfileOp& m) {
  get_optional(r, m.state, "CcProfileOp.has_state",
               [&] { return get_enum<ProfileStateSetting>(r, kMaxProfileState, "CcProfileOp.state"); });
  get_optional(r, m.algorithm, "CcProfileOp.has_algorithm", [&] {
    std::string a;
    r.str(a, limit::kAlgorithm, "CcProfileOp.algorithm");
    return a;
  });
  m.config.resize(r.count(limit::kCcConfig, 4, "CcProfileOp.config"));  // two empty strings
  for (auto& [name, value] : m.config) {
    r.str(name, limit::kName, "CcProfileOp.config[].name");
    r.str(value, limit::kName, "CcProfileOp.config[].value");
  }
}

void put(Writer& w, const ReplaceEv& m) {
  put_optional(w, m.from, [&](const EvValue& e) { put(w, e); });
  if (w.count(m.evs.size(), limit::kEvs, "ReplaceEv.evs")) {
    for (const EvValue& e : m.evs) put(w, e);
  }
  w.boolean(m.all_copies);
}

void get(Reader& r, ReplaceEv& m) {
  get_optional(r, m.from, "ReplaceEv.has_from", [&] {
    EvValue e;
    get(r, e);
    return e;
  });
  m.evs.resize(r.count(limit::kEvs, kMinEvValueBytes, "ReplaceEv.evs"));
  for (EvValue& e : m.evs) get(r, e);
  m.all_copies = r.boolean("ReplaceEv.all_copies");
}

void put(Writer& w, const SetProfileOnline& m) { w.boolean(m.online); }
void get(Reader& r, SetProfileOnline& m) { m.online = r.boolean("SetProfileOnline.online"); }

void put(Writer& w, const RestrictDevice& m) {
  if (w.count(m.caps_off.size(), limit::kCapabilities, "RestrictDevice.caps_off")) {
    for (const std::string& c : m.caps_off) w.str(c, limit::kName, "RestrictDevice.caps_off[]");
  }
  w.u32(m.event_queue_depth);
}

void get(Reader& r, RestrictDevice& m) {
  m.caps_off.resize(r.count(limit::kCapabilities, 2, "RestrictDevice.caps_off"));
  for (std::string& c : m.caps_off) r.str(c, limit::kName, "RestrictDevice.caps_off[]");
  m.event_queue_depth = r.u32("RestrictDevice.event_queue_depth");
}

}  // namespace mrc::agentproto::detail
