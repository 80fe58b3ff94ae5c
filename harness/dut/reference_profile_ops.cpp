// The reference binding's profile operations on the operation slot (EV profile 1 on EV format
// profile 0, CC profile 1) and its config.device restrictions (reference_adapter.cpp applies them
// when the endpoint is built). Attributes go to the endpoint's
// controller exactly as the case wrote them: refusing bad ones is the controller's job.
#include <cerrno>

#include "harness/dut/profile_setup.hpp"
#include "harness/dut/reference_binding.hpp"
#include "reference/endpoint.hpp"

namespace mrc::harness {
namespace {

constexpr ev::ProfileId kOpEvProfile = 1;
constexpr ev::ProfileId kOpCcProfile = 1;
constexpr ev::ProfileId kCaseFormat = 0;

ev::ProfileState api_state(ProfileStateSetting s) {
  switch (s) {
    case ProfileStateSetting::kInit: return ev::ProfileState::kInit;
    case ProfileStateSetting::kOffline: return ev::ProfileState::kOffline;
    case ProfileStateSetting::kOnline: return ev::ProfileState::kOnline;
  }
  return ev::ProfileState::kInit;
}

ev::EvRef ev_ref(const ap::EvValue& e) {
  ev::EvRef r;
  for (std::size_t i = 0; i < e.value.size() && i < r.val.size(); ++i) r.val[i] = e.value[i];
  r.port = e.port;
  return r;
}

}  // namespace

DutStatus ReferenceBinding::restrict_device(const DeviceRestriction& d) {
  if (std::string why = restriction_refused(d); !why.empty()) return DutStatus::failed(why);
  restrict_ = d;
  return DutStatus::success();
}

DutStatus ReferenceBinding::ev_profile_op(const EvProfileChange& op) {
  if (!ep_) return DutStatus::failed("ev_profile_op() before apply()");
  namespace ea = ev::ev_attr;
  ev::EvProfileAttr a;
  std::uint32_t mask = 0;
  if (op.state) {
    a.state = api_state(*op.state);
    mask |= ea::kState;
  }
  if (op.mode) {
    a.mode = api_mode(*op.mode);
    mask |= ea::kMode;
    if (a.mode != ev::EvMode::kAuto) {  // explicit and generated EVs expand by the case's format
      a.fmt_id = kCaseFormat;
      mask |= ea::kFmtId;
    }
  }
  if (op.fields) {
    for (const ap::EvField& f : *op.fields) a.fields.push_back({f.width, f.init, f.min, f.max, f.mask});
    mask |= ea::kFields;
  }
  if (op.count) {
    a.ev_count = *op.count;
    mask |= ea::kCount;
  }
  if (op.min_active) {
    a.ev_min_active = *op.min_active;
    mask |= ea::kMinActive;
  }
  if (op.event_mask) {
    a.ev_event_mask = *op.event_mask;
    mask |= ea::kEventMask;
  }
  if (op.seed) {
    a.gen_seed = *op.seed;
    mask |= ea::kGenSeed;
  }
  std::string why;
  if (int rc = ep_->controller().modify_ev_profile(kOpEvProfile, a, mask, &why)) return api_error("ev_profile_set", rc, why);
  return DutStatus::success();
}

DutStatus ReferenceBinding::cc_profile_op(const CcProfileChange& op) {
  if (!ep_) return DutStatus::failed("cc_profile_op() before apply()");
  namespace ca = ev::cc_attr;
  ev::CcProfileAttr a;
  std::uint32_t mask = 0;
  if (op.state) {
    a.state = api_state(*op.state);
    mask |= ca::kState;
  }
  if (op.algorithm) {
    a.algorithm = *op.algorithm;
    mask |= ca::kAlgorithm;
  }
  if (!op.config.empty()) {  // the reference's CC config text: name=value,name=value
    std::string text;
    for (const auto& [k, v] : op.config) text += (text.empty() ? "" : ",") + k + "=" + v;
    a.config.assign(text.begin(), text.end());
    mask |= ca::kConfig;
  }
  std::string why;
  if (int rc = ep_->controller().modify_cc_profile(kOpCcProfile, a, mask, &why)) return api_error("cc_profile_set", rc, why);
  return DutStatus::success();
}

DutStatus ReferenceBinding::replace_ev(const EvReplacement& op) {
  if (!ep_) return DutStatus::failed("replace_ev() before apply()");
  std::vector<ev::EvOpEntry> entries;
  for (const ap::EvValue& e : op.evs) {
    ev::EvOpEntry x;
    if (op.from) x.ev = ev_ref(*op.from);  // else UNPOPULATED: the lowest empty slot
    x.ev_new = ev_ref(e);
    x.flags = op.all_copies ? ev::kOpAllCopies : 0u;
    entries.push_back(x);
  }
  std::string why;
  std::size_t done = 0;
  if (int rc = ep_->controller().replace_ev(kOpEvProfile, entries, &done, &why)) {
    return api_error("replace_ev (entry " + std::to_string(done) + ")", rc, why);
  }
  return DutStatus::success();
}

}  // namespace mrc::harness
