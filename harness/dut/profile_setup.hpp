// Configuring the reference controller model (reference/ev/controller.hpp) from a DutSetup: the
// host-API sequence for the EV format profile (INIT -> OFFLINE -> ONLINE), the EV profile (an
// explicit array filled by REPLACE_EV, or generated / AUTO) and the CC profile, all in slot 0.
// The reference binding uses it on its endpoint; the runner uses it on a stand-alone controller
// to know the on-wire EV bytes any DUT puts on the wire for the EVs the harness configured.
#pragma once

#include <string>
#include <vector>

#include "harness/dut/dut_binding.hpp"
#include "harness/testbed/testbed.hpp"
#include "reference/ev/controller.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::harness {

// An explicit EV profile of the testbed's default EVs between two hosts (identity fields: each EV
// value is its wire bytes).
void use_default_evs(DutSetup& s, const Testbed::DefaultEvs& d);

// Profiles 0 of every kind; DENIED indices are left to the caller. Errors are kRejected with
// the errno and the controller's reason.
DutStatus configure_profiles(ev::Controller& c, const DutSetup& s);

// The EV array a device configured with `s` holds (on-wire bytes, ports, indices), computed on a
// fresh controller with `planes` ports. Generated and AUTO arrays follow the reference model's
// drawing rule. Empty with *error set when the setup is refused.
std::vector<ev::EvEntry> expected_ev_array(const DutSetup& s, std::uint32_t planes, std::string* error);

wire::EvFmtMode wire_mode(ap::FormatMode m);
ap::FormatMode format_mode_of(wire::EvFmtMode m);
ev::EvMode api_mode(ap::EvMode m);
// The physical port mask of ports 1..planes.
std::uint32_t port_mask_of(std::uint32_t planes);
std::string errno_name(int rc);  // "EINVAL", ..., "errno N"
DutStatus api_error(const std::string& what, int rc, const std::string& why = {});

}  // namespace mrc::harness
