#include "harness/cli/app/option_checks.hpp"

#include <algorithm>
#include <cstdlib>

#include "harness/case/diagnostics.hpp"
#include "harness/case/limits.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/run_inputs.hpp"
#include "harness/run/case_evidence.hpp"

namespace mrc::cli {

namespace {

// CLI11 puts the option's name in front of a validator's message: the run layer's own messages
// (which name the option for an in-process caller) lose theirs here.
std::string without_option(std::string why, const std::string& option) {
  if (why.starts_with(option + " ")) why.erase(0, option.size() + 1);
  return why;
}

}  // namespace

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t seed = 0;
        const std::string why = seed_error(text, seed);
        return why.empty() ? "" : "'" + text + "' " + why;
      },
      "0..2^64-1", "seed");
}

CLI::Validator agent_timeout_check() {
  return CLI::Validator([](std::string& text) { return agent_timeout_problem(text, nullptr); },
                        "1.." + std::to_string(kMaxAgentTimeoutMs) + " ms", "agent timeout");
}

CLI::Validator evidence_check() {
  return CLI::Validator(
      [](std::string& text) {
        run::EvidenceKeep keep{};
        return without_option(run::parse_evidence_keep(text, keep), "--evidence");
      },
      "{all,failures,none}", "evidence");
}

CLI::Validator snaplen_check() {
  return CLI::Validator(
      [](std::string& text) {
        run::EvidenceOptions o;
        return without_option(run::parse_snaplen(text, o), "--snaplen");
      },
      "{auto,full," + std::to_string(run::kMinSnaplen) + ".." + std::to_string(run::kMaxSnaplen) + "}", "snaplen");
}

CLI::Validator profile_check() {
  return CLI::Validator([](std::string& text) { return profile_problem(text, nullptr); }, "{full,spec,published}",
                        "profile");
}

CLI::Validator tolerance_pct_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !(v >= 0 && v <= harness::limits::kMaxTolerancePct)) {
          return "must be a number from 0 to 100 (kMaxTolerancePct, harness/case/limits.hpp)";
        }
        return "";
      },
      "0..100", "tolerance");
}

void refuse_negative_unsigned(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (!opt->get_type_name().starts_with("UINT")) continue;
    opt->check(CLI::Validator(
        [](std::string& text) -> std::string {
          const auto first = text.find_first_not_of(" \t");
          return first != std::string::npos && text[first] == '-' ? "'" + text + "' is negative; it takes 0 or more" : "";
        },
        ""));
  }
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) refuse_negative_unsigned(*sub);
}

std::string option_hint(CLI::App& app, int argc, char** argv) {
  CLI::App* sub = nullptr;
  for (CLI::App* s : app.get_subcommands()) sub = s;
  if (sub == nullptr) return "";
  std::vector<std::string> names;
  for (const CLI::Option* o : sub->get_options()) {
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  }
  for (int i = 2; i < argc; ++i) {
    std::string word = argv[i];
    if (!word.starts_with("--")) continue;
    word = word.substr(0, word.find('='));
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    const std::string best = harness::closest_match(word, names);
    return "unknown option " + word + " for `" + sub->get_name() + "`" + harness::did_you_mean(best);
  }
  return "";
}

std::string unknown_subcommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  std::string names;
  std::vector<std::string> words;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->check_name(argv[1])) return "";
    words.push_back(sub->get_name());
    if (!sub->get_group().empty()) names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return "unknown subcommand '" + std::string(argv[1]) + "'" + harness::did_you_mean(harness::closest_match(argv[1], words)) +
         " (subcommands: " + names + ")";
}

}  // namespace mrc::cli
