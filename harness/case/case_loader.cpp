#include "harness/case/case_loader.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <system_error>
#include <thread>

#include "harness/case/case_parts.hpp"
#include "harness/case/check_types.hpp"
#include "harness/case/catalog_map.hpp"
#include "harness/case/edge_audit.hpp"
#include "harness/case/schema.hpp"
#include "harness/case/stimulus_kinds.hpp"
#include "harness/case/yaml_file.hpp"

namespace mrc::harness {
namespace {

using VK = ValueKind;

constexpr std::array kCaseKeys{
    KeySpec{.name = "id", .kind = VK::kString, .required = true, .help = "<area>-<v|i|o>-<nnn>, = file name"},
    KeySpec{.name = "title", .kind = VK::kString, .required = true},
    KeySpec{.name = "clauses", .kind = VK::kList, .required = true, .item = VK::kString, .min_items = 1,
            .scalar_as_list = true, .help = "requirement ids from cases/clauses.yaml"},
    KeySpec{.name = "level", .kind = VK::kEnum, .required = true, .names = kLevelNames},
    KeySpec{.name = "behaviour", .kind = VK::kEnum, .required = true, .names = kBehaviourNames},
    KeySpec{.name = "rationale", .kind = VK::kString, .required = true},
    KeySpec{.name = "tags", .kind = VK::kList, .item = VK::kString, .scalar_as_list = true},
    KeySpec{.name = "requires", .kind = VK::kList, .names = kCapabilityNames, .item = VK::kEnum,
            .scalar_as_list = true, .help = "DUT capabilities"},
    KeySpec{.name = "testbed", .kind = VK::kCustom, .help = "preset, path or map"},
    KeySpec{.name = "role", .kind = VK::kEnum, .required = true, .names = kRoleNames},
    KeySpec{.name = "config", .kind = VK::kCustom},
    KeySpec{.name = "stimulus", .kind = VK::kCustom, .required = true},
    KeySpec{.name = "checks", .kind = VK::kCustom, .required = true},
    KeySpec{.name = "timeout_s", .kind = VK::kUInt, .umin = 1, .umax = 3600},
    KeySpec{.name = "seed", .kind = VK::kUInt},
    KeySpec{.name = "timing", .kind = VK::kEnum, .names = kTimingNames,
            .help = "scales: every time that follows the ACK timeout is written in T, so a slow wire may raise it"},
};
constexpr Schema kCaseSchema{"case", kCaseKeys};

// What T and F stand for while the file is validated: config.qp.timeout and config.qp.mtu as
// written (the defaults when absent or invalid; validation reports the latter), or the runner's
// rescaled exponent and its testbed's rate.
TimeUnits time_units_of(const YAML::Node& root, const LoadOptions& opt) {
  TimeUnits u;
  u.timeout = QpConfig{}.timeout;
  u.mtu = QpConfig{}.mtu;
  if (const auto cfg = find_key(root, "config"); cfg && cfg->IsMap()) {
    if (const auto qp = find_key(*cfg, "qp"); qp && qp->IsMap()) {
      if (const auto t = read_uint_as<std::uint8_t>(*qp, "timeout"); t && *t <= kMaxQpTimeout) u.timeout = *t;
      if (const auto m = read_uint_as<std::uint32_t>(*qp, "mtu"); m && *m >= 256 && *m <= 4096) u.mtu = *m;
    }
  }
  // F follows an open-loop traffic's rate where it is lower than the testbed's (the lowest of them).
  if (const auto steps = find_key(root, "stimulus"); steps && steps->IsSequence()) {
    for (const auto& step : *steps) {
      if (!step.IsMap()) continue;
      const auto traffic = find_key(step, "traffic");
      if (!traffic || !traffic->IsMap()) continue;
      if (const auto g = read_number(*traffic, "rate_gbps"); g && *g > 0 && *g <= 1600) {
        const auto bps = static_cast<std::uint64_t>(*g * 1e9);
        u.traffic_bps = u.traffic_bps == 0 ? bps : std::min(u.traffic_bps, bps);
      }
    }
  }
  if (opt.timeout) u.timeout = *opt.timeout;
  if (opt.spray_bps && *opt.spray_bps != 0) u.spray_bps = *opt.spray_bps;
  return u;
}

std::vector<std::string_view> stimulus_kind_names() {
  std::vector<std::string_view> out;
  for (const auto& k : stimulus_kinds()) out.push_back(k.name);
  return out;
}

std::vector<std::string_view> check_type_names() {
  std::vector<std::string_view> out;
  for (const auto& t : check_types()) out.push_back(t.name);
  return out;
}

std::string words(const std::vector<std::string_view>& w) {
  std::string out;
  for (const auto& s : w) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

// A top-level list value (stimulus, checks) that must hold at least one item.
std::optional<YAML::Node> top_list(const YAML::Node& root, std::string_view key, Validator& v) {
  const auto n = find_key(root, key);
  if (!n) return std::nullopt;  // the schema reported it missing
  if (!n->IsSequence() || n->size() == 0) {
    v.error(n->IsNull() ? key_loc(root, key) : loc_of(*n), std::string(key),
            "expected a non-empty list, got " + (n->IsSequence() ? std::string("an empty list") : describe(*n)));
    return std::nullopt;
  }
  return n;
}

std::vector<StimulusStep> build_stimulus(const YAML::Node& root, Validator& v) {
  std::vector<StimulusStep> out;
  const auto list = top_list(root, "stimulus", v);
  if (!list) return out;
  std::size_t i = 0;
  for (auto it = list->begin(); it != list->end(); ++it, ++i) {
    const YAML::Node item = *it;
    const std::string path = index_path("stimulus", i);
    const SourceLoc at = loc_of(item);
    if (!item.IsMap() || item.size() != 1 || !item.begin()->first.IsScalar()) {
      v.error(at, path, "a step is a one-key map `- <kind>: {...}` with kind one of " + words(stimulus_kind_names()) +
                            ", got " + describe(item));
      continue;
    }
    const std::string kind = item.begin()->first.Scalar();
    const StimulusKind* k = find_stimulus_kind(kind);
    if (!k) {
      const auto names = stimulus_kind_names();
      const auto hint = closest_match(kind, std::span<const std::string_view>(names));
      v.error(at, path, "unknown step kind '" + kind + "'" +
                            (hint.empty() ? " (expected one of " + words(names) + ")" : did_you_mean(hint)));
      continue;
    }
    const YAML::Node body = item.begin()->second;
    const std::string bpath = path + "." + kind;
    if (!v.map(body, *k->schema, bpath, at) && !body.IsMap()) continue;
    out.push_back(StimulusStep{at, k->build(body, bpath, v)});
  }
  return out;
}

std::vector<Check> build_checks(const YAML::Node& root, Validator& v) {
  std::vector<Check> out;
  const auto list = top_list(root, "checks", v);
  if (!list) return out;
  std::size_t i = 0;
  for (auto it = list->begin(); it != list->end(); ++it, ++i) {
    const YAML::Node item = *it;
    const std::string path = index_path("checks", i);
    const SourceLoc at = loc_of(item);
    if (!item.IsMap()) {
      v.error(at, path, "a check is a map with `type:` one of " + words(check_type_names()) + ", got " + describe(item));
      continue;
    }
    const auto type = find_key(item, "type");
    if (!type) {
      v.error(at, path, "missing required key 'type' (one of " + words(check_type_names()) + ")");
      continue;
    }
    const std::string tname = type->IsScalar() ? type->Scalar() : std::string{};
    const CheckType* t = find_check_type(tname);
    if (!t) {
      const auto names = check_type_names();
      const auto hint = closest_match(tname, std::span<const std::string_view>(names));
      v.error(loc_of(*type).line ? loc_of(*type) : at, join_path(path, "type"),
              "unknown check type '" + tname + "'" +
                  (hint.empty() ? " (expected one of " + words(names) + ")" : did_you_mean(hint)));
      continue;
    }
    v.map(item, *t->schema, path, at);
    Check c;
    c.loc = at;
    c.name = read_string(item, "name").value_or("");
    c.clauses = read_string_list(item, "clauses");
    c.params = t->build(item, path, v);
    out.push_back(std::move(c));
  }
  return out;
}

// The clauses.yaml in the case's folder or the three above it, else `fallback` (may be empty).
std::filesystem::path clauses_file_for(const std::filesystem::path& file, const std::filesystem::path& fallback) {
  const auto cf = find_clauses_file(file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path());
  return cf.empty() ? fallback : cf;
}

LoadResult load_case_impl(const std::filesystem::path& file, const ClauseIndex* clauses,
                          const std::filesystem::path& fallback_clauses, const LoadOptions& opt = {}) {
  LoadResult r;
  const std::string display = file.string();
  if (load_guarded(display, r.diagnostics, [&] {
    // The file itself first: a syntax error is the thing to fix, whatever the clauses.
    const auto doc = read_yaml_file(file, display, r.diagnostics);
    if (!doc) return;
    ClauseIndex found;
    if (!clauses) {
      const auto cf = clauses_file_for(file, fallback_clauses);
      if (cf.empty()) {
        r.diagnostics.add(display, {}, "",
                          "cannot check clause ids: no clauses.yaml in the case's folder or the three above it, "
                          "and no suite clauses.yaml to fall back on (give --clauses FILE)");
        return;
      }
      auto cl = load_clauses(cf);
      if (!cl.ok()) {
        if (cf == fallback_clauses) {
          r.diagnostics.add(display, {}, "",
                            "cannot check clause ids: no clauses.yaml in the case's folder or above it; tried the "
                            "suite's " + cf.string() + ", which does not load:");
        }
        r.diagnostics.append(cl.diagnostics);
        return;
      }
      found = std::move(cl.index);
      clauses = &found;
    }
    if (opt.timeout && *opt.timeout > kMaxQpTimeout) {
      r.diagnostics.add(display, {}, "config.qp.timeout",
                        "cannot load with timeout " + std::to_string(*opt.timeout) + " (at most " +
                            std::to_string(kMaxQpTimeout) + ")");
      return;
    }
    Validator v(display, r.diagnostics);
    v.set_time_units(time_units_of(*doc, opt));
    if (!v.map(*doc, kCaseSchema, "", loc_of(*doc)) && !doc->IsMap()) return;
    const YAML::Node& root = *doc;
    Case c;
    c.file = file;
    c.id = read_string(root, "id").value_or("");
    if (const auto idn = find_key(root, "id")) c.id_loc = loc_of(*idn);
    if (const auto id = parse_case_id(c.id)) {
      c.area = id->area;
      c.number = id->number;
    }
    c.title = read_string(root, "title").value_or("");
    c.clauses = read_string_list(root, "clauses");
    c.level = read_enum<Level>(root, "level", kLevelNames).value_or(Level::kMust);
    c.behaviour = read_enum<Behaviour>(root, "behaviour", kBehaviourNames).value_or(Behaviour::kValid);
    c.rationale = read_string(root, "rationale").value_or("");
    c.tags = read_string_list(root, "tags");
    for (const auto& name : read_string_list(root, "requires")) {
      if (const auto cap = parse_enum<Capability>(kCapabilityNames, name)) c.requires_caps.push_back(*cap);
    }
    c.role = read_enum<Role>(root, "role", kRoleNames).value_or(Role::kBoth);
    c.timeout_s = read_uint_as<std::uint32_t>(root, "timeout_s").value_or(30);
    c.seed = read_uint(root, "seed").value_or(1);
    c.testbed = detail::build_testbed(root, file.parent_path(), v);
    c.config = detail::build_config(root, v);
    c.config.qp.timeout = v.time_units().timeout;
    c.stimulus = build_stimulus(root, v);
    c.checks = build_checks(root, v);
    // A case that writes no time at all has nothing a raised timeout could invalidate (counted
    // once the steps and checks, validated as they are built, have been read).
    const std::optional<std::string> timing = read_string(root, "timing");
    c.timing_scales = timing ? *timing == "scales" : v.times_seen() == 0;
    c.frame_timed = v.frame_times_seen() != 0;
    c.t_timed = v.t_times_seen() != 0;
    c.spray_bps = v.time_units().spray_bps;
    c.traffic_bps = v.time_units().traffic_bps;
    detail::check_case_rules(root, c, file, *clauses, v);
    c.basis = case_basis(c.clauses, *clauses);
    for (Check& chk : c.checks) chk.level = proven_level(chk.clauses.empty() ? c.clauses : chk.clauses, *clauses, c.level);
    if (r.diagnostics.empty()) r.value = std::move(c);
      })) {
    r.value.reset();
  }
  return r;
}

// The top-level keys of a testbed file: a simulated fabric's (harness/testbed/sim/yaml_loader.cpp)
// or a lab's (`lab:`, harness/testbed/wire/lab_testbed.cpp). cases/README.md "Case discovery".
constexpr std::array<std::string_view, 25> kTestbedTopKeys{
    "preset", "name", "planes", "hosts", "hosts_per_leaf", "leaves", "spines", "link_gbps", "prop_ns",
    "mtu", "host_link", "fabric_link", "queue_bytes", "priority_queue_bytes", "ecn_threshold_bytes", "ecn",
    "trim", "trim_bytes", "host_tx_window_bytes", "max_packets", "wire_overhead_bytes", "links", "seed", "lab",
    "overrides"};

// A file found in a case folder is a testbed, not a case, when its name is not a case id and
// every top-level key is a testbed's. Anything else is loaded as a case, so a misnamed or broken
// case is an error, never skipped.
bool is_testbed_file(const std::filesystem::path& file) {
  if (parse_case_id(file.stem().string())) return false;
  Diagnostics ignored;  // a file that does not parse is loaded as a case, which reports why
  const auto doc = read_yaml_file(file, file.string(), ignored);
  if (!doc || !doc->IsMap() || doc->size() == 0) return false;
  for (const auto& kv : *doc) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string{};
    if (std::find(kTestbedTopKeys.begin(), kTestbedTopKeys.end(), key) == kTestbedTopKeys.end()) return false;
  }
  return true;
}

struct FoundFile {
  std::filesystem::path path;
  bool from_folder = false;  // found by listing a folder (a file named directly is always a case)
};

void collect_files(const std::filesystem::path& input, std::vector<FoundFile>& out, Diagnostics& diags) {
  std::error_code ec;
  if (std::filesystem::is_directory(input, ec)) {
    std::vector<std::filesystem::path> found;
    std::filesystem::recursive_directory_iterator it(input, std::filesystem::directory_options::skip_permission_denied, ec);
    for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      const auto& p = it->path();
      std::error_code dir_ec;  // not `ec`: an unreadable entry must not end the listing
      if (it->is_directory(dir_ec) && p.filename().string().starts_with(".")) {
        it.disable_recursion_pending();
        continue;
      }
      // Not cases: the suite's requirement index, the catalog maps and the edge audit beside them.
      const bool suite_data = p.filename() == "clauses.yaml" || p.filename() == kDefectMapName ||
                              p.filename() == kVariantMapName || p.filename() == kEdgeAuditName;
      // An entry whose type cannot be read (a symlink loop) is kept: load_case says why, and the
      // listing goes on.
      std::error_code type_ec;
      const bool regular = it->is_regular_file(type_ec);
      if ((regular || type_ec) && p.extension() == ".yaml" && !suite_data) found.push_back(p);
    }
    if (ec) diags.add(input.string(), {}, "", "cannot list folder: " + ec.message());
    std::sort(found.begin(), found.end());
    for (auto& f : found) out.push_back(FoundFile{std::move(f), true});
  } else {
    out.push_back(FoundFile{input, false});  // load_case reports a missing file
  }
}

}  // namespace

std::optional<CaseId> parse_case_id(std::string_view id) {
  const auto d1 = id.find('-');
  if (d1 == std::string_view::npos) return std::nullopt;
  const auto area = parse_enum<Area>(kAreaNames, id.substr(0, d1));
  const std::string_view rest = id.substr(d1 + 1);
  if (!area || rest.size() != 5 || rest[1] != '-') return std::nullopt;
  std::optional<Behaviour> b;
  for (int i = 0; i < 3; ++i) {
    if (rest[0] == behaviour_letter(static_cast<Behaviour>(i))) b = static_cast<Behaviour>(i);
  }
  if (!b) return std::nullopt;
  std::uint32_t n = 0;
  for (char c : rest.substr(2)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (n == 0) return std::nullopt;
  return CaseId{*area, *b, n};
}

LoadResult load_case(const std::filesystem::path& file, const std::filesystem::path& fallback_clauses) {
  return load_case_impl(file, nullptr, fallback_clauses);
}

LoadResult load_case(const std::filesystem::path& file, const std::filesystem::path& fallback_clauses,
                     const LoadOptions& opt) {
  return load_case_impl(file, nullptr, fallback_clauses, opt);
}

LoadResult load_case(const std::filesystem::path& file, const ClauseIndex& clauses, const LoadOptions& opt) {
  return load_case_impl(file, &clauses, {}, opt);
}

bool CaseFilter::matches(const Case& c) const {
  const bool in = include_tags.empty() ||
                  std::any_of(include_tags.begin(), include_tags.end(), [&](const std::string& t) { return c.has_tag(t); });
  const bool out = std::any_of(exclude_tags.begin(), exclude_tags.end(), [&](const std::string& t) { return c.has_tag(t); });
  return in && !out;
}

const Case* CaseSet::find(std::string_view id) const {
  for (const auto& c : cases) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

CaseSet load_cases(std::span<const std::filesystem::path> inputs, const CaseFilter& filter, const ClauseIndex* clauses,
                   const std::filesystem::path& fallback_clauses) {
  CaseSet set;
  std::vector<FoundFile> found;
  for (const auto& in : inputs) collect_files(in, found, set.diagnostics);
  std::vector<std::filesystem::path> files;
  for (auto& f : found) {
    if (f.from_folder && is_testbed_file(f.path)) {
      set.testbed_files.push_back(std::move(f.path));
    } else {
      files.push_back(std::move(f.path));
    }
  }
  // Each file's clause index first, in file order (one load per clauses.yaml, its diagnostics
  // before those of the first case that uses it).
  std::map<std::filesystem::path, ClauseIndex> indexes;
  std::vector<const ClauseIndex*> index_of(files.size(), clauses);
  std::vector<Diagnostics> clause_diagnostics(files.size());
  if (!clauses) {
    for (std::size_t i = 0; i < files.size(); ++i) {
      const auto cf = clauses_file_for(files[i], fallback_clauses);
      if (cf.empty()) continue;
      if (!indexes.contains(cf)) {
        auto cl = load_clauses(cf);
        clause_diagnostics[i] = std::move(cl.diagnostics);  // once per clauses file, not per case
        indexes.emplace(cf, std::move(cl.index));
      }
      index_of[i] = &indexes.at(cf);
    }
  }
  // Then the files themselves, which share nothing but those read-only indexes: on up to four
  // threads (YAML parsing is most of a command's start-up), collected in file order below.
  std::vector<LoadResult> results(files.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < files.size(); i = next.fetch_add(1)) {
      results[i] = index_of[i] ? load_case(files[i], *index_of[i]) : load_case(files[i]);
    }
  };
  std::vector<std::thread> helpers;
  const std::size_t threads =
      files.size() < 16 ? 1 : std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4);
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // fewer threads; this one does the rest
    }
  }
  work();
  for (auto& h : helpers) h.join();

  struct Seen {
    std::string file;
    SourceLoc loc;
  };
  std::map<std::string, Seen> ids;
  std::vector<Case> loaded;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& f = files[i];
    ++set.files;
    LoadResult& r = results[i];
    set.diagnostics.append(clause_diagnostics[i]);
    set.diagnostics.append(r.diagnostics);
    if (!r.value) continue;
    const Case& c = *r.value;
    auto [pos, fresh] = ids.emplace(c.id, Seen{f.string(), c.id_loc});
    if (!fresh) {
      set.diagnostics.add(f.string(), c.id_loc, "id",
                          "duplicate case id '" + c.id + "' (also defined at " + pos->second.file + ":" +
                              std::to_string(pos->second.loc.line) + ":" + std::to_string(pos->second.loc.column) + ")");
      continue;
    }
    loaded.push_back(std::move(*r.value));
  }
  for (auto& c : loaded) {
    if (filter.matches(c)) {
      set.cases.push_back(std::move(c));
    } else {
      ++set.filtered_out;
    }
  }
  std::sort(set.cases.begin(), set.cases.end(), [](const Case& a, const Case& b) { return a.id < b.id; });
  return set;
}

CaseSet load_cases(const std::filesystem::path& input, const CaseFilter& filter, const ClauseIndex* clauses,
                   const std::filesystem::path& fallback_clauses) {
  return load_cases(std::span<const std::filesystem::path>(&input, 1), filter, clauses, fallback_clauses);
}

// ------------------------------------------------------------------ model helpers

std::size_t EvProfileConfig::ev_count() const {
  if (!evs.empty()) return evs.size();
  if (generate) return generate->count;
  return 0;
}

bool Case::has_tag(std::string_view tag) const { return std::find(tags.begin(), tags.end(), tag) != tags.end(); }

bool Case::requires_cap(Capability cap) const {
  return std::find(requires_caps.begin(), requires_caps.end(), cap) != requires_caps.end();
}

}  // namespace mrc::harness
