// The reference adapter's control-plane calls (reference_adapter.hpp): profile operations on the
// operation slot (EV profile 1 on EV format profile 0, CC profile 1), profile online/offline and
// endpoint requests (EV probe, port status). Attributes go to the endpoint's controller exactly
// as given: refusing bad ones is the controller's job. The in-process binding and the DUT agent's
// reference backend both call these.
#include <cerrno>

#include "harness/dut/reference_adapter.hpp"

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

DutStatus reference_ev_profile_change(ref::Endpoint& ep, const EvProfileChange& op) {
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
  if (int rc = ep.controller().modify_ev_profile(kOpEvProfile, a, mask, &why)) return api_error("ev_profile_set", rc, why);
  return DutStatus::success();
}

DutStatus reference_cc_profile_change(ref::Endpoint& ep, const CcProfileChange& op) {
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
  if (int rc = ep.controller().modify_cc_profile(kOpCcProfile, a, mask, &why)) return api_error("cc_profile_set", rc, why);
  return DutStatus::success();
}

DutStatus reference_replace_ev(ref::Endpoint& ep, const EvReplacement& op) {
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
  if (int rc = ep.controller().replace_ev(kOpEvProfile, entries, &done, &why)) {
    return api_error("replace_ev (entry " + std::to_string(done) + ")", rc, why);
  }
  return DutStatus::success();
}

DutStatus set_reference_profile_online(ref::Endpoint& ep, bool online) {
  ev::EvProfileAttr e;
  e.state = online ? ev::ProfileState::kOnline : ev::ProfileState::kOffline;
  std::string why;
  if (int rc = ep.controller().modify_ev_profile(0, e, ev::ev_attr::kState, &why)) {
    return api_error(online ? "profile_online" : "profile_offline", rc, why);
  }
  return DutStatus::success();
}

DutStatus send_reference_ep_request(ref::Endpoint& ep, const ReferenceEpRequest& req, const DutLocal& remote) {
  const bool probe = req.op == wire::EpOp::kEvProbe;
  const char* what = probe ? "probe_ev" : "port_status_update";
  const auto arr = ep.controller().ev_array(0);
  if (req.ev_index >= arr.size()) {
    if (!probe) return api_error(what, EINVAL, "no EV to send it on");
    return api_error(std::string(what) + " " + std::to_string(req.ev_index), ENOENT, "no such EV index");
  }
  // The endpoint picks the req_id, as a NIC's library would: one no request that may still draw a
  // response uses (§1.7).
  const auto id = ep.next_ep_req_id();
  if (!id) return api_error(what, ENOSPC, "no free request id");
  ref::EpRequest r;
  r.req_id = *id;
  r.dgid = peer_gid(remote);
  r.dmac = remote.mac;
  r.ev_fmt_mode = req.mode;
  r.req_ev = arr[req.ev_index].wire;
  r.req_port = arr[req.ev_index].port;
  r.srv6_ev_index = arr[req.ev_index].index;
  if (int rc = ep.ep_send(req.tc, req.op, std::span<const ref::EpRequest>(&r, 1), ep.config().probe_timeout_ns)) {
    return api_error(what, rc);
  }
  return DutStatus::success();
}

}  // namespace mrc::harness
