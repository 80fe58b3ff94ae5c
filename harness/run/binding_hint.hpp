// A did-you-mean for a misspelt defect or variant in a reference binding (`--dut
// reference:keep-faild-ev`): the binding factory (harness/dut/) names the word it does not know;
// the runner, which may use the case layer's spelling help, adds the closest catalog name.
#pragma once

#include <string>

namespace mrc::run {

// `why` with " (did you mean 'NAME'?)" after the unknown name when a defect or variant of the
// reference's catalogs is close to it; `why` unchanged otherwise.
std::string with_binding_hint(std::string why);

}  // namespace mrc::run
