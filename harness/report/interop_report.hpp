// The renderers of an interop matrix: interop.json, its index.html and the stdout summary. Pure
// functions of an InteropResult: no wall clock unless the result carries one, keys, rows and
// columns in a fixed order, so the same matrix gives byte-identical files.
#pragma once

#include <string>

#include "harness/report/interop_result.hpp"

namespace mrc::harness {

// interop.json (schema harness/report/interop.schema.json): 2-space indented, keys in the
// schema's order, ending in a newline.
std::string render_interop_json(const InteropResult& r);
// index.html of the interop folder: one self-contained page (inline CSS, no script, no external
// URL). The matrix has a row per DUT and a column per peer; each cell shows the DUT's verdict
// counts, is coloured by the worst of them and links to that pair's own index.html.
std::string render_interop_html(const InteropResult& r);
// The stdout summary: one line per pair (DUT, peer, worst verdict, counts, report folder) and
// the exit code.
std::string render_interop_text(const InteropResult& r);

}  // namespace mrc::harness
