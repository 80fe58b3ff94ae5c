// Did-you-mean for words the lower layers refuse without knowing the suite's spelling help
// (harness/case/diagnostics.hpp): a defect or variant in a reference binding (`--dut
// reference:keep-faild-ev`, named by the binding factory in harness/dut/) and a testbed preset
// (`--testbed minni`, named by the simulator; its presets from testbed_preset_names). The runner
// and doctor add the closest name.
#pragma once

#include <string>

namespace mrc::run {

// `why` with " (did you mean 'NAME'?)" after the unknown name when a defect or variant of the
// reference's catalogs is close to it; `why` unchanged otherwise.
std::string with_binding_hint(std::string why);

// `why` with the closest preset after an unknown testbed preset's name; unchanged otherwise.
std::string with_preset_hint(std::string why);

}  // namespace mrc::run
