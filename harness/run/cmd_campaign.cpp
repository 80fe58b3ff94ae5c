// `mrc-conform campaign`: proves the selected cases bite (design.md §4). A baseline run on the
// reference endpoint first (a case that does not PASS there cannot prove anything and is left out
// of the attribution), then every chosen defect of the catalog against the clean cases, all case
// runs of all defects through one pool so --jobs stays busy. No evidence pcaps and no run reports
// are written per defect run: only campaign.json / campaign.html.
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <ostream>

#include "harness/dut/reference_binding.hpp"
#include "harness/report/report.hpp"
#include "harness/run/campaign.hpp"
#include "harness/run/case_pool.hpp"
#include "harness/run/case_select.hpp"
#include "harness/run/commands.hpp"
#include "harness/run/suite_runner.hpp"
#include "reference/defects.hpp"

namespace mrc::run {
namespace {

using harness::CaseResult;
using harness::Verdict;

// The chosen defects in catalog order, or nullopt (message on `err`) on an unknown name.
std::optional<std::vector<CampaignDefect>> choose_defects(const std::string& spec, std::ostream& err) {
  const auto catalog = ref::defect_catalog();
  std::vector<std::string> names = split_list(spec);
  const bool all = names.size() == 1 && names.front() == "all";
  for (const auto& n : names) {
    if (!all && !ref::defect_by_name(n)) {
      err << "error: --defects: unknown defect '" << n << "'; known defects:";
      for (const auto& d : catalog) err << ' ' << d.name;
      err << '\n';
      return std::nullopt;
    }
  }
  if (names.empty()) {
    err << "error: --defects is empty: give 'all' or a comma list of defect names\n";
    return std::nullopt;
  }
  std::vector<CampaignDefect> out;
  for (const auto& d : catalog) {
    if (!all && std::find(names.begin(), names.end(), d.name) == names.end()) continue;
    CampaignDefect cd{std::string(d.name), std::string(d.symptom), {}};
    for (auto v : d.violates) cd.violates.emplace_back(v);
    out.push_back(std::move(cd));
  }
  return out;
}

BindingFactory factory_for(const std::string& spec) {
  return [spec] { return harness::make_binding(spec, nullptr); };
}

}  // namespace

int run_campaign(const CampaignOptions& o, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  if (!(o.min_kill_rate >= 0.0 && o.min_kill_rate <= 1.0)) {
    err << "error: --min-kill-rate must lie in [0, 1]\n";
    return kExitBadInput;
  }
  const auto defects = choose_defects(o.defects, err);
  if (!defects) return kExitBadInput;
  for (const auto& d : *defects) {
    std::string why;
    if (!harness::valid_binding_spec("reference:" + d.name, &why)) {
      err << "error: " << why << '\n';
      return kExitBadInput;
    }
  }
  const CaseSelection sel = select_cases(o.cases, o.tags, o.exclude_tags, o.testbed, err);
  if (!sel.ok) return kExitBadInput;

  CampaignResult result;
  result.testbed = o.testbed;
  result.relevant_only = o.relevant_only;
  result.min_kill_rate = o.min_kill_rate;
  for (const harness::Case* c : sel.cases) result.cases.push_back(c->id);

  PoolOptions po;
  po.testbed = o.testbed;
  po.write_evidence = false;
  po.jobs = o.jobs;
  po.watchdog_grace_s = o.watchdog_grace_s;
  std::size_t finished = 0;
  auto progress = [&](std::size_t total, const std::string& label, const CaseResult& r, double wall_s) {
    if (!o.progress) return;
    ++finished;
    err << '[' << finished << '/' << total << "] " << label << ' ' << r.id << ' ' << harness::to_string(r.verdict) << ' '
        << format_seconds(wall_s) << '\n'
        << std::flush;
  };

  // ---- baseline: the reference endpoint without defects ----
  const BindingFactory clean = factory_for("reference");
  std::vector<CaseTask> tasks;
  for (const harness::Case* c : sel.cases) tasks.push_back(CaseTask{c, c->seed, nullptr});
  const auto baseline = run_case_tasks(tasks, sel.suite.root, po, clean, [&](std::size_t, const CaseResult& r, double w) {
    progress(tasks.size(), "baseline", r, w);
  });
  std::vector<const harness::Case*> usable;
  std::vector<const harness::Case*> unusable;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    if (!baseline[i]) {
      result.interrupted = true;
      continue;
    }
    if (baseline[i]->verdict == Verdict::kPass) {
      usable.push_back(sel.cases[i]);
    } else {
      unusable.push_back(sel.cases[i]);
      result.baseline_problems.push_back(CaseOutcome{baseline[i]->id, baseline[i]->verdict, baseline[i]->message, {}});
    }
  }

  // ---- every defect against the clean cases, one pool for all ----
  std::vector<BindingFactory> factories;
  factories.reserve(defects->size());
  for (const auto& d : *defects) factories.push_back(factory_for("reference:" + d.name));
  std::vector<std::vector<const harness::Case*>> per_defect(defects->size());
  std::vector<std::size_t> first_task(defects->size());
  tasks.clear();
  for (std::size_t k = 0; k < defects->size(); ++k) {
    first_task[k] = tasks.size();
    for (const harness::Case* c : usable) {
      if (o.relevant_only && !case_is_relevant(*c, (*defects)[k])) continue;
      per_defect[k].push_back(c);
      tasks.push_back(CaseTask{c, c->seed, &factories[k]});
    }
  }
  std::vector<std::string> labels(tasks.size());
  for (std::size_t k = 0; k < defects->size(); ++k) {
    for (std::size_t i = 0; i < per_defect[k].size(); ++i) labels[first_task[k] + i] = (*defects)[k].name;
  }
  finished = 0;
  const auto runs = result.interrupted ? std::vector<std::optional<CaseResult>>(tasks.size())
                                       : run_case_tasks(tasks, sel.suite.root, po, clean,
                                                        [&](std::size_t i, const CaseResult& r, double w) {
                                                          progress(tasks.size(), labels[i], r, w);
                                                        });
  for (std::size_t k = 0; k < defects->size(); ++k) {
    std::vector<CaseResult> results;
    for (std::size_t i = 0; i < per_defect[k].size(); ++i) {
      const auto& r = runs[first_task[k] + i];
      if (!r) {
        result.interrupted = true;
        break;
      }
      results.push_back(*r);
    }
    if (results.size() < per_defect[k].size()) break;  // an interrupted defect is not reported
    DefectOutcome d = attribute((*defects)[k], per_defect[k], results);
    for (const harness::Case* c : unusable) {
      if (case_is_relevant(*c, d.defect)) d.baseline_excluded.push_back(c->id);
    }
    result.defects.push_back(std::move(d));
  }
  if (interrupt_flag().load()) result.interrupted = true;
  if (o.wall_clock) result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // ---- reports ----
  try {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) throw harness::ReportError(o.out.string() + ": " + ec.message());
    harness::write_file_atomically(o.out / "campaign.json", render_campaign_json(result));
    harness::write_file_atomically(o.out / "campaign.html", render_campaign_html(result));
  } catch (const std::exception& e) {
    err << "error: writing the campaign report: " << e.what() << '\n';
    out << render_campaign_text(result);
    return kExitHarness;
  }
  out << render_campaign_text(result);
  out << "reports: " << (o.out / "campaign.json").string() << ", " << (o.out / "campaign.html").string() << '\n';
  return result.exit_code();
}

}  // namespace mrc::run
