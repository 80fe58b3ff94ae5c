// missing_inputs (suite_runner.hpp): what the selected cases name, checked before anything runs.
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/run/case_setup.hpp"
#include "harness/run/suite_runner.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::run {
namespace {

std::string where(const harness::Case& c, harness::SourceLoc at) {
  return c.file.string() + ':' + std::to_string(at.line) + ':' + std::to_string(at.column) + ": ";
}

// A case that writes a `testbed` key (one that does not runs on the run's own, checked already).
bool names_a_testbed(const harness::TestbedSpec& t) { return t.loc.line > 0; }

}  // namespace

// A missing file is bad input before the run, not a case ERROR in the middle of it. (`golden`
// itself writes missing goldens, so the loader cannot refuse them.)
std::string missing_inputs(const std::vector<const harness::Case*>& cases, const std::filesystem::path& root) {
  std::string out;
  std::map<std::string, std::string> built;  // a testbed file already built -> its problem ("" = fine)
  for (const harness::Case* c : cases) {
    for (std::size_t i = 0; i < c->checks.size(); ++i) {
      const auto* g = std::get_if<harness::GoldenCheck>(&c->checks[i].params);
      if (g == nullptr || std::filesystem::exists(root / g->pcap)) continue;
      out += where(*c, c->checks[i].loc) + "checks[" + std::to_string(i) + "].pcap: golden " + g->pcap.string() +
             " does not exist under " + root.string() + " (`mrc-conform golden` writes it)\n";
    }
    const harness::TestbedSpec& t = c->testbed;
    if (!names_a_testbed(t)) continue;
    const harness::SourceLoc at = t.loc.line > 0 ? t.loc : c->id_loc;
    if (!t.file.empty() && !std::filesystem::exists(t.file)) {
      out += where(*c, at) + "testbed.file: " + t.file.string() + " does not exist\n";
      continue;
    }
    // Built as the case's run builds it, on the simulated fabric (a wire testbed keeps that fabric
    // as its network), seed 1: the same YAML and overrides the run would refuse, refused now.
    const harness::TestbedRequest request = testbed_request(t, "mini", c->config.dscp);
    std::string why;
    // A file named with nothing else (every other field as a default TestbedSpec has it) builds
    // the same testbed in every case that names it: built once.
    harness::TestbedSpec file_only;
    file_only.file = t.file;
    file_only.loc = t.loc;
    const bool plain_file = !t.file.empty() && t == file_only && !c->config.dscp.any();
    if (!plain_file) {
      (void)harness::make_sim_testbed(request, 1, &why);
    } else if (auto [it, fresh] = built.try_emplace(t.file.string()); fresh) {  // one build per shared file
      (void)harness::make_sim_testbed(request, 1, &it->second);
      why = it->second;
    } else {
      why = it->second;
    }
    if (!why.empty()) out += where(*c, at) + "testbed: " + why + "\n";
  }
  return out;
}

}  // namespace mrc::run
