// The renderers of a false-fail measurement: falsefail.json and the stdout table. Pure functions
// of a FalsefailResult, so the same measurement gives byte-identical output.
#pragma once

#include <string>

#include "harness/report/falsefail_result.hpp"

namespace mrc::harness {

std::string render_falsefail_json(const FalsefailResult& r);
std::string render_falsefail_text(const FalsefailResult& r);

}  // namespace mrc::harness
