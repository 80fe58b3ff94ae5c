#include "harness/case/expectations.hpp"

#include "harness/case/schema.hpp"
#include "harness/case/yaml_file.hpp"

namespace mrc::harness {
namespace {

using VK = ValueKind;

constexpr std::array kEntryKeys{
    KeySpec{.name = "case", .kind = VK::kString, .required = true},
    KeySpec{.name = "expected", .kind = VK::kEnum, .required = true, .names = kExpectedStatusNames},
    KeySpec{.name = "reason", .kind = VK::kString, .required = true},
    KeySpec{.name = "link", .kind = VK::kString, .required = true, .help = "http(s) URL of the bug"},
    KeySpec{.name = "expires", .kind = VK::kDate, .required = true},
};
constexpr Schema kEntrySchema{"expectation entry", kEntryKeys};

constexpr std::array kFileKeys{
    KeySpec{.name = "dut", .kind = VK::kString, .required = true, .help = "= the file name stem"},
    KeySpec{.name = "entries", .kind = VK::kList, .required = true, .schema = &kEntrySchema, .item = VK::kMap},
};
constexpr Schema kFileSchema{"expectation file", kFileKeys};

}  // namespace

std::string_view to_string(ExpectedStatus s) { return enum_name(kExpectedStatusNames, s); }
std::string_view to_string(RunVerdict v) { return enum_name(kRunVerdictNames, v); }
std::string_view to_string(Triage t) { return enum_name(kTriageNames, t); }

const Expectation* ExpectationSet::find(std::string_view case_id) const {
  for (const auto& e : entries) {
    if (e.case_id == case_id) return &e;
  }
  return nullptr;
}

std::vector<const Expectation*> ExpectationSet::expired(const Date& today) const {
  std::vector<const Expectation*> out;
  for (const auto& e : entries) {
    if (e.expires < today) out.push_back(&e);
  }
  return out;
}

ExpectationLoadResult load_expectations(const std::filesystem::path& file, std::span<const Case> cases,
                                        const ExpectationOptions& options) {
  ExpectationLoadResult r;
  const std::string display = file.string();
  load_guarded(display, r.diagnostics, [&] {
    const auto doc = read_yaml_file(file, display, r.diagnostics);
    if (!doc) return;
    Validator v(display, r.diagnostics);
    v.map(*doc, kFileSchema, "", loc_of(*doc));
    if (!doc->IsMap()) return;
    r.set.file = file;
    r.set.dut = read_string(*doc, "dut").value_or("");
    if (!r.set.dut.empty() && r.set.dut != file.stem().string()) {
      v.error(loc_of(*find_key(*doc, "dut")), "dut",
              "dut '" + r.set.dut + "' does not match the file name '" + file.filename().string() + "'");
    }
    std::vector<std::string> ids;
    for (const auto& c : cases) ids.push_back(c.id);
    std::vector<std::pair<std::string, int>> seen;  // every entry's case id and line, valid or not
    const auto list = find_key(*doc, "entries");
    if (!list || !list->IsSequence()) return;
    std::size_t i = 0;
    for (auto it = list->begin(); it != list->end(); ++it, ++i) {
      const YAML::Node n = *it;
      if (!n.IsMap()) continue;  // the schema reported it
      const std::string path = index_path("entries", i);
      Expectation e;
      e.loc = loc_of(n);
      e.case_id = read_string(n, "case").value_or("");
      e.expected = read_enum<ExpectedStatus>(n, "expected", kExpectedStatusNames).value_or(ExpectedStatus::kFail);
      e.reason = read_string(n, "reason").value_or("");
      e.link = read_string(n, "link").value_or("");
      const auto date = read_string(n, "expires");
      const auto parsed = date ? Date::parse(*date) : std::nullopt;
      bool ok = !e.case_id.empty() && parsed.has_value() && read_enum<ExpectedStatus>(n, "expected", kExpectedStatusNames);
      if (parsed) e.expires = *parsed;
      if (!e.link.empty() && !e.link.starts_with("https://") && !e.link.starts_with("http://")) {
        v.error(loc_of(*find_key(n, "link")), join_path(path, "link"), "link must be an http(s) URL to the bug or issue");
        ok = false;
      }
      if (!e.case_id.empty()) {
        const SourceLoc at = loc_of(*find_key(n, "case"));
        const Case* target = nullptr;
        for (const auto& c : cases) target = c.id == e.case_id ? &c : target;
        if (!target) {
          v.error(at, join_path(path, "case"),
                  "unknown case '" + e.case_id + "'" + did_you_mean(closest_match(e.case_id, std::span<const std::string>(ids))));
          ok = false;
        } else if (target->level == Level::kMust) {
          v.error(at, join_path(path, "case"),
                  "case '" + e.case_id + "' is a MUST case; expectation files may not excuse MUST cases (vendor "
                  "variance never turns a MUST check off)");
          ok = false;
        }
        for (const auto& [id, line] : seen) {
          if (id != e.case_id) continue;
          v.error(at, join_path(path, "case"),
                  "second entry for case '" + e.case_id + "' (first at line " + std::to_string(line) + ")");
          ok = false;
          break;
        }
        seen.emplace_back(e.case_id, e.loc.line);
      }
      if (parsed && options.today && days_between(*options.today, *parsed) > options.max_days) {
        v.error(loc_of(*find_key(n, "expires")), join_path(path, "expires"),
                "expires " + parsed->to_string() + " is more than " + std::to_string(options.max_days) +
                    " days after " + options.today->to_string() + "; renew excuses on purpose, not for ever");
        ok = false;
      }
      if (ok && !e.reason.empty() && !e.link.empty()) r.set.entries.push_back(std::move(e));
    }
  });
  return r;
}

Classification classify(std::string_view case_id, RunVerdict verdict, const ExpectationSet& set, const Date& today) {
  Classification c;
  c.entry = set.find(case_id);
  const std::string got(to_string(verdict));
  if (c.entry && c.entry->expires < today) {
    c.triage = Triage::kExpiredEntry;
    c.fails_ci = true;
    c.message = "expectation for " + std::string(case_id) + " expired on " + c.entry->expires.to_string() +
                " (result " + got + "); renew it with a reason or remove it";
    return c;
  }
  if (!c.entry) {
    switch (verdict) {
      case RunVerdict::kPass:
        c.triage = Triage::kPass;
        c.message = "PASS";
        return c;
      case RunVerdict::kUnsupported:
        c.triage = Triage::kUnsupported;
        c.message = "UNSUPPORTED (capability not declared by the DUT)";
        return c;
      default:
        c.triage = Triage::kUnexpected;
        c.fails_ci = true;
        c.message = "unexpected " + got;
        return c;
    }
  }
  const std::string want(to_string(c.entry->expected));
  if (verdict == RunVerdict::kPass) {
    c.triage = Triage::kUnexpectedPass;
    c.fails_ci = true;
    c.message = "unexpected PASS (expected " + want + "): remove the expectation entry";
  } else if (got == want) {
    c.triage = Triage::kExpected;
    c.message = "expected " + want + ": " + c.entry->reason + " (" + c.entry->link + ")";
  } else {
    c.triage = Triage::kUnexpected;
    c.fails_ci = true;
    c.message = "unexpected " + got + " (expected " + want + ")";
  }
  return c;
}

}  // namespace mrc::harness
