// The renderers of `mrc-conform variants`: variants.json, variants.html and the stdout summary.
// Pure functions of a VariantsResult: no wall clock unless the result carries one, rows in a
// fixed order, so the same run gives byte-identical files.
#pragma once

#include <string>

#include "harness/report/variants_result.hpp"

namespace mrc::harness {

// variants.json: 2-space indented, keys in a fixed order.
std::string render_variants_json(const VariantsResult& r);
// variants.html: one self-contained page (inline CSS, no script, no external URL).
std::string render_variants_html(const VariantsResult& r);
// The stdout summary: a line per run (PASS counts or its false fails), each false fail with its
// checks, requirements and messages; the last line is `N variants, M false fails`.
std::string render_variants_text(const VariantsResult& r);

}  // namespace mrc::harness
