// Turning a case's `config` into what each side's binding applies (design.md §2 step 2).
//
// The DUT gets the case's EV format and EV profile; absent parts take the testbed's defaults
// (EVs that route over every plane and spine). `explicit` + `generate` draws the array here from
// the field ranges (ev::generate_evs, the case seed's `generate.seed`). The harness's peer gets the
// same configuration except: SRv6 EVs are paths, so the peer uses the testbed's default SRv6 EVs
// for its own direction, and nothing is DENIED on the peer (denial is the DUT's test).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/dut/dut_binding.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::run {

struct CaseSetups {
  harness::DutSetup dut;
  harness::DutSetup peer;
  std::string error;  // why the case cannot be configured on this testbed
};

// `buffer_bytes`: each side's registered buffer (traffic layout plus room for scripted frames).
CaseSetups make_setups(const harness::Case& c, const harness::Testbed& tb, int dut_host, int peer_host,
                       std::uint64_t buffer_bytes, std::uint64_t seed);

// case_translate.cpp: the case model's words -> the resolved structs of the testbed and the DUT
// bindings (which know nothing of case files).
agentproto::EvMode ev_mode_of(harness::EvMode m);
std::vector<agentproto::EvField> ev_fields(const std::vector<harness::EvFieldConfig>& fields);
agentproto::NsccParams nscc_params(const harness::NsccConfig& c);
agentproto::QpParams qp_params(const harness::QpConfig& q);
harness::EvProfileChange ev_profile_change(const harness::EvProfileOp& op);
harness::CcProfileChange cc_profile_change(const harness::CcProfileOp& op);
harness::EvReplacement ev_replacement(const harness::ReplaceEvOp& op);
harness::DeviceRestriction device_restriction(const harness::DeviceConfig& d);
// config.dscp with W13's defaults (wire::DscpConfig) for what the case leaves unset.
wire::DscpConfig dscp_config(const harness::DscpCaseConfig& d);
// The case's testbed, else `fallback` (the CLI's --testbed preset or YAML path). W13: a fabric
// the harness builds queues, trims and re-marks by the case's `dscp`, as the endpoints send.
harness::TestbedRequest testbed_request(const harness::TestbedSpec& spec, const std::string& fallback,
                                        const harness::DscpCaseConfig& dscp = {});

}  // namespace mrc::run
