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

}  // namespace mrc::run
