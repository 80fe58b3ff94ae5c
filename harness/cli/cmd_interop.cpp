// `mrc-conform interop`: the selected cases for every ordered pair of implementations (rows the
// DUT, judged; columns the peer), each pair a normal run with its report under <out>/pairs/, then
// <out>/interop.json and <out>/index.html (the matrix). Every input is checked before the first
// pair runs: implementation specs (known, distinct, at least one), the selection, the goldens it
// needs, the output folder.
#include <chrono>
#include <optional>
#include <ostream>
#include <set>

#include "harness/cli/commands.hpp"
#include "harness/cli/run_inputs.hpp"
#include "harness/cli/staged_out.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/lab/spelling_hints.hpp"
#include "harness/lab/wire_testbed.hpp"
#include "harness/report/interop_report.hpp"
#include "harness/report/report.hpp"
#include "harness/run/case_select.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/suite_loader.hpp"
#include "harness/studies/interop_engine.hpp"

namespace mrc::cli {
namespace {

using run::kExitBadInput;
using run::kExitHarness;

// --impls as typed, each value split at commas. A piece that is no binding on its own but
// continues the spec before it is joined back to it, so `reference:a,b` stays one spec with two
// defects; make_binding decides what is a spec, so specs stay opaque here (agent:HOST:PORT and
// whatever comes later need no change). Nullopt, with the reason on `err`, on an unknown or
// repeated spec or an empty list.
// A spec as make_binding or --testbed netns takes it: agent:reference[:defects] is an agent the
// netns testbed starts, valid when reference[:defects] is.
bool valid_impl(const std::string& spec, std::string* why, const harness::BindingOptions& options) {
  const bool ok = harness::valid_binding_spec(run::started_agent_backend(spec).value_or(spec), why, options);
  if (!ok && why) *why = run::with_binding_hint(*why);
  return ok;
}

std::optional<std::vector<std::string>> parse_impls(const std::vector<std::string>& typed,
                                                    const harness::BindingOptions& options, std::ostream& err) {
  std::vector<std::string> specs;
  for (const std::string& value : typed) {
    const std::size_t first_of_value = specs.size();
    for (const std::string& piece : run::split_list(value)) {
      std::string why;
      if (valid_impl(piece, &why, options)) {
        specs.push_back(piece);
        continue;
      }
      const bool continues_previous = specs.size() > first_of_value &&
                                      valid_impl(specs.back() + "," + piece, nullptr, options);
      if (!continues_previous) {
        err << "error: " << why << '\n';
        return std::nullopt;
      }
      specs.back() += "," + piece;
    }
  }
  if (specs.empty()) {
    err << "error: --impls is empty: give one or more binding specs, e.g. --impls reference,reference:spray-single-ev\n";
    return std::nullopt;
  }
  std::set<std::string> seen;
  for (const std::string& spec : specs) {
    if (!seen.insert(spec).second) {
      err << "error: --impls: '" << spec
          << "' is given twice; name each implementation once (the diagonal already pairs it with itself)\n";
      return std::nullopt;
    }
  }
  return specs;
}

}  // namespace

int run_interop(const InteropOptions& o, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  run::InteropPlan plan;
  plan.base = o.run;
  if (!resolve_seed_and_token(plan.base, o.seed_text, o.agent_token_file, err)) return kExitBadInput;
  auto impls = parse_impls(o.impls, harness::BindingOptions{plan.base.agent_token, plan.base.agent_timeouts, {}, "--impls", plan.base.agent_clock}, err);
  if (!impls) return kExitBadInput;
  plan.impls = std::move(*impls);
  const run::CaseSelection sel =
      run::select_cases(o.run.cases, o.run.tags, o.run.exclude_tags, run::fabric_of_testbed(o.run.testbed), err);
  if (!sel.ok) return kExitBadInput;
  if (std::string missing = run::missing_inputs(sel.cases, sel.suite.root); !missing.empty()) {
    err << missing;
    return kExitBadInput;
  }
  auto folder = open_out(o.run.out, err);
  if (!folder) return kExitBadInput;
  plan.base.out = folder->staging;  // each pair's run goes to <staging>/pairs/ (and stages its own)
  std::vector<std::string> case_ids;
  for (const harness::Case* c : sel.cases) case_ids.push_back(c->id);

  plan.progress = o.run.progress ? &err : nullptr;
  plan.on_pair_done = o.on_pair_done;
  run::InteropRun matrix = run::run_interop_matrix(plan, case_ids, err);
  if (matrix.bad_input) {
    harness::discard_staged(*folder);
    return kExitBadInput;
  }
  harness::InteropResult& result = matrix.result;
  if (o.run.wall_clock) {
    result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  out << harness::render_interop_text(result);
  try {
    harness::write_file_atomically(folder->staging / harness::kInteropJsonName, harness::render_interop_json(result));
    harness::write_file_atomically(folder->staging / harness::kInteropHtmlName, harness::render_interop_html(result));
  } catch (const std::exception& e) {
    err << "error: writing the interop report: " << e.what() << '\n';
    place_out(*folder, false, err);
    return kExitHarness;
  }
  const std::filesystem::path dir = place_out(*folder, !result.interrupted, err);
  out << "reports: " << (dir / harness::kInteropJsonName).string() << ", " << (dir / harness::kInteropHtmlName).string()
      << " (pairs under " << (dir / "pairs").string() << ")\n";
  return result.exit_code();
}

}  // namespace mrc::cli
