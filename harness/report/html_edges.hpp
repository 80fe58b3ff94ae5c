// The edge audit section of index.html (cases/edges.yaml, RunResult::edges): requirement ->
// edges -> the cases reaching each edge, with each case's verdict in this run. Internal to
// harness/report.
#pragma once

#include <string>

#include "harness/report/html_parts.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness::html {

// Appends <section id="edges"> when the run carries an edge audit; appends nothing otherwise, so
// a run without one renders exactly as before.
void render_edges(std::string& out, const RunResult& run, const Anchors& anchors);

}  // namespace mrc::harness::html
