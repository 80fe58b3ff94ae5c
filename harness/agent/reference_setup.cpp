// ReferenceBackend: APPLY_CONFIG and CONNECT. The protocol's configuration is read into the
// harness's DutSetup and handed to the reference adapter (harness/dut/reference_adapter.hpp), the
// same code that configures the in-process reference binding: profiles, DENIED EVs, QPs, RTR/RTS.
#include <algorithm>

#include "harness/agent/reference_backend.hpp"
#include "harness/dut/agent_setup.hpp"
#include "harness/dut/reference_adapter.hpp"

namespace mrc::agent {

Outcome outcome_of(const harness::DutStatus& st) {
  switch (st.code) {
    case harness::DutStatus::Code::kOk: return Outcome::success();
    case harness::DutStatus::Code::kRejected: return Outcome::rejected(st.err, st.message);
    case harness::DutStatus::Code::kUnimplemented:
    case harness::DutStatus::Code::kUnsupported: return Outcome::fail(ap::ErrorCode::kUnsupported, st.message);
    case harness::DutStatus::Code::kFailed: break;
  }
  return Outcome::fail(ap::ErrorCode::kBadValue, st.message);
}

Outcome ReferenceBackend::apply(const ap::ApplyConfig& c, ap::ApplyOk& out) {
  drop_endpoint();
  if (c.ipv4 && opt_.ipv4 == 0) {
    return Outcome::rejected(EINVAL, "IPv4 asked for, but the agent has no IPv4 address (--ipv4)");
  }
  const harness::DutSetup setup = harness::to_dut_setup(c);
  std::uint8_t top = 1;
  for (const auto& p : io_->ports()) top = std::max(top, p.port);
  const harness::ReferenceHost host{mac_, gid_, opt_.ipv4, top, port_mask()};
  ep_ = std::make_unique<ref::Endpoint>(
      harness::reference_endpoint_config(host, opt_.policy, setup, restriction_));
  // The endpoint's clock starts at its creation, as the in-process reference's starts with its
  // testbed: an agent that has run for minutes hands it small times, like any NIC's fresh QP.
  epoch_ = now_;
  ep_->advance(0);

  Outcome o = outcome_of(harness::configure_reference(*ep_, setup, qpns_));
  for (std::size_t i = 0; o.ok() && i < c.regions.size(); ++i) {
    transport::MemoryRegion mr;
    o = outcome_of(harness::register_reference_buffer(*ep_, c.regions[i].addr, c.regions[i].length, mr));
    if (!o.ok()) break;
    regions_.push_back({mr});
    out.regions.push_back({mr.addr, mr.length, mr.lkey, mr.rkey});
  }
  if (!o.ok()) {
    drop_endpoint();
    return o;
  }
  cfg_ = c;
  cfg_->peer.reset();
  out.gid = gid_;
  out.mac = mac_;
  out.ipv4 = c.ipv4 ? opt_.ipv4 : 0;
  out.qpns = qpns_;
  out.mpr_dest = c.qp.mpr_dest;
  out.max_wimm_dest = c.qp.max_wimm_dest;
  out.qp_caps = c.qp.caps;
  out.first_psn = c.qp.first_psn;
  if (c.peer) return connect(*c.peer);
  return Outcome::success();
}

Outcome ReferenceBackend::restrict_device(const ap::RestrictDevice& d) {
  if (ep_) {
    return Outcome::fail(ap::ErrorCode::kNotApplied,
                         "RESTRICT_DEVICE after APPLY_CONFIG: a restriction shapes the next configuration; send RESET first");
  }
  if (std::string why = harness::restriction_refused(d); !why.empty()) return Outcome::fail(ap::ErrorCode::kUnsupported, why);
  restriction_ = d;
  return Outcome::success();
}

Outcome ReferenceBackend::connect(const ap::PeerInfo& peer) {
  if (!ep_ || !cfg_) return Outcome::fail(ap::ErrorCode::kNotApplied, "CONNECT before APPLY_CONFIG");
  if (Outcome o = outcome_of(harness::connect_reference(*ep_, qpns_, cfg_->qp, harness::to_dut_local(peer))); !o.ok()) return o;
  peer_ = peer;
  return Outcome::success();
}

}  // namespace mrc::agent
