#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "PASS";
    case Verdict::kFail: return "FAIL";
    case Verdict::kUnsupported: return "UNSUPPORTED";
    case Verdict::kInconclusive: return "INCONCLUSIVE";
    case Verdict::kError: return "ERROR";
  }
  return "ERROR";
}

std::optional<Verdict> verdict_from_string(std::string_view s) {
  for (auto v : {Verdict::kPass, Verdict::kFail, Verdict::kUnsupported, Verdict::kInconclusive, Verdict::kError}) {
    if (to_string(v) == s) return v;
  }
  return std::nullopt;
}

namespace {
// Severity order used to combine check verdicts into a case verdict: the worst one wins.
int severity(Verdict v) {
  switch (v) {
    case Verdict::kPass: return 0;
    case Verdict::kUnsupported: return 1;
    case Verdict::kInconclusive: return 2;
    case Verdict::kFail: return 3;
    case Verdict::kError: return 4;
  }
  return 4;
}
}  // namespace

Verdict combine(Verdict a, Verdict b) { return severity(a) >= severity(b) ? a : b; }

std::map<Verdict, std::size_t> RunResult::counts() const {
  std::map<Verdict, std::size_t> m;
  for (auto v : {Verdict::kPass, Verdict::kFail, Verdict::kUnsupported, Verdict::kInconclusive, Verdict::kError}) m[v] = 0;
  for (const auto& c : cases) ++m[c.verdict];
  return m;
}

std::string_view to_string(ConformanceProfile p) { return enum_name(kConformanceProfileNames, p); }

std::optional<ConformanceProfile> conformance_profile_from_string(std::string_view s) {
  return parse_enum<ConformanceProfile>(kConformanceProfileNames, s);
}

bool profile_counts(ConformanceProfile p, Basis b) {
  switch (p) {
    case ConformanceProfile::kFull: return true;
    case ConformanceProfile::kSpec: return b == Basis::kPublished || b == Basis::kSpec;
    case ConformanceProfile::kPublished: return b == Basis::kPublished;
  }
  return true;
}

}  // namespace mrc::harness
