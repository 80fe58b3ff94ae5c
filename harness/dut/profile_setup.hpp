// Configuring the reference controller model (reference/ev/controller.hpp) from a DutSetup: the
// host-API sequence for the EV format profile (INIT -> OFFLINE -> ONLINE), the EV profile (an
// explicit array filled by REPLACE_EV, or generated / AUTO) and the CC profile, all in slot 0.
// The reference binding uses it on its endpoint; the runner uses it on a stand-alone controller
// to know the on-wire EV bytes any DUT puts on the wire for the EVs the harness configured.
#pragma once

#include <string>
#include <vector>

#include "harness/dut/dut_binding.hpp"
#include "reference/ev/controller.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::harness {

// Profiles 0 of every kind; DENIED indices are left to the caller. Errors are kRejected with
// the errno and the controller's reason.
DutStatus configure_profiles(ev::Controller& c, const DutSetup& s);

// The EV array a device configured with `s` holds (on-wire bytes, ports, indices), computed on a
// fresh controller with `planes` ports. Generated and AUTO arrays follow the reference model's
// drawing rule. Empty with *error set when the setup is refused.
std::vector<ev::EvEntry> expected_ev_array(const DutSetup& s, std::uint32_t planes, std::string* error);

wire::EvFmtMode wire_mode(EvFormatMode m);
std::string errno_name(int rc);  // "EINVAL", ..., "errno N"
DutStatus api_error(const std::string& what, int rc, const std::string& why = {});

}  // namespace mrc::harness
