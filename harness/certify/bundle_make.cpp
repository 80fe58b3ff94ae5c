// make_bundle (bundle.hpp): the report folder, the run's inputs and the suite tree into a signed
// archive. Two passes over the files: hashing (the manifest needs every size and SHA-256 before
// its first byte is written), then writing (bundle_write.hpp), neither holding a file whole.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "harness/case/case_loader.hpp"
#include "harness/certify/bundle.hpp"
#include "harness/certify/bundle_suite.hpp"
#include "harness/certify/bundle_write.hpp"
#include "harness/certify/tar_archive.hpp"
#include "harness/report/file_digest.hpp"
#include "harness/report/report.hpp"
#include "harness/report/run_summary.hpp"
#include "harness/run/replay_context.hpp"
#include "reference/wire/wire_revision.hpp"

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::uint64_t member_size(const fs::path& p, std::uint64_t limit) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(p, ec);
  if (ec) throw BundleInputError(p.string() + ": cannot read: " + ec.message());
  if (size > limit) {
    throw BundleInputError(p.string() + ": " + std::to_string(size) + " bytes, over the bundle's limit of " +
                           std::to_string(limit) + " per file");
  }
  return size;
}

// A small file read whole (results.json, which the manifest quotes from).
std::string read_member_file(const fs::path& p, std::uint64_t limit) {
  const std::uint64_t size = member_size(p, limit);
  std::ifstream in(p, std::ios::binary);
  std::string data(size, '\0');
  if (!in.read(data.data(), static_cast<std::streamsize>(size))) throw BundleInputError(p.string() + ": cannot read");
  return data;
}

bool hidden(const fs::path& rel) {
  return std::any_of(rel.begin(), rel.end(), [](const fs::path& part) { return part.string().starts_with('.'); });
}

// Every file of the report folder but dotfiles (and what is inside dot-folders) and the bundle
// being written, by relative path, with its size; not yet read.
std::vector<BundleFile> report_members(const BundleRequest& r) {
  std::vector<BundleFile> out;
  std::error_code ec;
  fs::path tmp = r.out;
  tmp += ".tmp";
  const fs::path exclude = r.out.empty() ? fs::path{} : fs::weakly_canonical(r.out, ec);
  const fs::path exclude_tmp = r.out.empty() ? fs::path{} : fs::weakly_canonical(tmp, ec);
  const TarLimits limits;
  for (auto it = fs::recursive_directory_iterator(r.report_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path rel = it->path().lexically_relative(r.report_dir);
    if (hidden(rel)) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    const auto st = it->symlink_status();
    if (fs::is_directory(st)) continue;
    if (!fs::is_regular_file(st)) {
      throw BundleInputError(it->path().string() + ": not a regular file (a link or a device): a report folder holds files only");
    }
    if (!exclude.empty()) {
      const fs::path here = fs::weakly_canonical(it->path(), ec);
      if (here == exclude || here == exclude_tmp) continue;
    }
    const std::string name = rel.generic_string();
    if (const std::string why = tar_name_problem(name); !why.empty()) {
      throw BundleInputError(it->path().string() + ": cannot be a bundle member: " + why);
    }
    out.push_back({name, it->path(), member_size(it->path(), limits.max_member_bytes), ""});
    if (out.size() > limits.max_members - 2) {
      throw BundleInputError(r.report_dir.string() + ": more than " + std::to_string(limits.max_members - 2) + " files");
    }
  }
  if (ec) throw BundleInputError(r.report_dir.string() + ": cannot list: " + ec.message());
  return out;
}

// The first pass over one file: its SHA-256 and size as read, in chunks, `done` advanced with
// each for the progress line.
void hash_member(BundleFile& f, std::vector<char>& buf, std::uint64_t& done, const BundleRequest& r, std::uint64_t total) {
  std::ifstream in(f.path, std::ios::binary);
  if (!in) throw BundleInputError(f.path.string() + ": cannot read");
  Sha256 sha;
  std::uint64_t size = 0;
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    sha.update({buf.data(), got});
    size += got;
    done += got;
    if (r.progress && got > 0) r.progress(std::min(done, total), total);
  }
  if (in.bad()) throw BundleInputError(f.path.string() + ": cannot read");
  if (size > TarLimits{}.max_member_bytes) {
    throw BundleInputError(f.path.string() + ": grew past the bundle's limit of " + std::to_string(TarLimits{}.max_member_bytes) +
                           " per file while it was hashed");
  }
  f.size = size;
  f.sha256 = sha.hex();
}

std::string file_sha256_or_throw(const fs::path& p, const std::string& what) {
  std::error_code ec;
  std::optional<std::string> h;
  if (fs::is_regular_file(p, ec)) h = sha256_file_hex(p);
  if (!h) throw BundleInputError(what + ": " + p.string() + " not found in the suite tree (give --cases the run's cases/ folder)");
  return *h;
}

// started_at ("YYYY-MM-DDTHH:MM:SSZ") + wall_seconds, in the same form; empty when it does not parse.
std::string ended_at(const std::string& started, double seconds) {
  std::tm tm{};
  std::istringstream in(started);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  if (in.fail() || !std::isfinite(seconds) || seconds < 0) return "";
  const std::time_t end = timegm(&tm) + static_cast<std::time_t>(std::llround(seconds));
  std::tm out{};
  gmtime_r(&end, &out);
  std::ostringstream s;
  s << std::put_time(&out, "%Y-%m-%dT%H:%M:%SZ");
  return s.str();
}

Json run_json(const RunResult& run, const Json& raw) {
  const RunMetadata& m = run.meta;
  Json j;
  j["results_schema"] = raw.value("schema", "");
  j["suite_version"] = m.suite_version;
  j["git_hash"] = m.git_hash;
  j["wire"] = m.wire;
  j["dut"] = m.dut;
  j["dut_version"] = m.dut_version;
  j["dut_capabilities"] = m.dut_capabilities;
  if (m.peer) j["peer"] = *m.peer;
  j["testbed"] = m.testbed;
  j["profile"] = std::string(to_string(run.profile));
  j["strict"] = run.strict;
  j["seed"] = m.seed;
  j["command_line"] = m.command_line;
  Json wall;
  wall["recorded"] = m.started_at.has_value();
  if (m.started_at) {
    wall["started_at"] = *m.started_at;
    if (m.wall_seconds) {
      wall["wall_seconds"] = *m.wall_seconds;
      if (const std::string end = ended_at(*m.started_at, *m.wall_seconds); !end.empty()) wall["ended_at"] = end;
    }
  } else {
    wall["why"] = "the run was not started with --wall-clock: it recorded no times";
  }
  j["wall_clock"] = std::move(wall);
  j["interrupted"] = run.interrupted;
  if (raw.contains("interrupt_reason")) j["interrupt_reason"] = raw["interrupt_reason"];
  if (raw.contains("not_run")) j["not_run"] = raw["not_run"];
  return j;
}

}  // namespace

std::string wire_revision_problem(std::string_view recorded) {
  if (recorded == wire::kWireRevision) return {};
  const std::string here = "this suite judges on wire revision \"" + std::string(wire::kWireRevision) + "\"";
  if (recorded.empty()) {
    return "the run names no wire revision: it was judged before MRC 1.0's spec-derived layouts (the project's own "
           "wire, model rev 1), and " + here + "; its verdicts do not carry over: run the suite again";
  }
  return "the run was judged on wire revision \"" + std::string(recorded) + "\", and " + here +
         "; use the suite release that made it, or run the suite again";
}

BundleMade make_bundle(const BundleRequest& r) {
  if (r.out.empty()) throw BundleInputError("no bundle file to write (-o)");
  std::error_code ec;
  if (!fs::is_directory(r.report_dir, ec)) throw BundleInputError(r.report_dir.string() + ": not a folder");
  const fs::path results = r.report_dir / kResultsJsonName;
  if (!fs::is_regular_file(results, ec)) {
    throw BundleInputError(results.string() + ": no such file: REPORT_DIR must be the --out folder of `mrc-conform run`");
  }
  const RunResult run = read_results_json(results);
  if (const std::string why = wire_revision_problem(run.meta.wire); !why.empty()) {
    throw BundleInputError(results.string() + ": " + why);
  }
  // The raw file too: keys of later minors (interrupt_reason, not_run) go into the manifest as read.
  const Json raw = Json::parse(read_member_file(results, TarLimits{}.max_member_bytes), nullptr, false);
  const std::size_t not_run = raw.is_object() && raw.contains("not_run") && raw["not_run"].is_array() ? raw["not_run"].size() : 0;
  if ((run.interrupted || not_run > 0) && !r.allow_partial) {
    std::string why = run.interrupted ? "marked interrupted" : "incomplete";
    if (raw.is_object() && raw.contains("interrupt_reason") && raw["interrupt_reason"].is_string() &&
        !raw["interrupt_reason"].get<std::string>().empty()) {
      why += " (" + raw["interrupt_reason"].get<std::string>() + ")";
    }
    if (not_run > 0) why += ", " + std::to_string(not_run) + " selected case(s) not run";
    throw BundleInputError(results.string() + ": the report is " + why +
                           ": a partial run certifies nothing; run again, or give --allow-partial to bundle it as it is");
  }

  std::vector<BundleFile> files = report_members(r);
  if (r.expectations) {
    const std::string name(kBundleExpectationsName);
    if (std::any_of(files.begin(), files.end(), [&](const BundleFile& m) { return m.name == name; })) {
      throw BundleInputError(r.report_dir.string() + ": holds " + name + ", the name the expectation file takes in a bundle");
    }
    if (!fs::is_regular_file(*r.expectations, ec)) {
      throw BundleInputError(r.expectations->string() + ": --expectations: no such file");
    }
    files.push_back({name, *r.expectations, member_size(*r.expectations, TarLimits{}.max_member_bytes), ""});
  }
  std::sort(files.begin(), files.end(), [](const BundleFile& a, const BundleFile& b) { return a.name < b.name; });

  const BundleSuiteTree tree(r.cases_dir);
  const std::string clauses_sha = file_sha256_or_throw(tree.clauses(), "clauses.yaml");
  const ClauseLoadResult clauses = load_clauses(tree.clauses());
  if (!clauses.ok()) throw BundleInputError(clauses.diagnostics.to_string());
  Json cases = Json::array();
  std::map<std::string, std::set<std::string>> goldens;  // path -> case ids naming it
  for (const CaseResult& c : run.cases) {
    const std::string path = BundleSuiteTree::manifest_case_path(c.file, c.id);
    const fs::path file = tree.locate(path);
    Json j;
    j["id"] = c.id;
    j["file"] = path;
    j["file_sha256"] = file_sha256_or_throw(file, "case " + c.id);
    j["seed"] = c.seed;
    j["verdict"] = std::string(to_string(c.verdict));
    j["evidence"] = c.evidence_files;
    // A report that names evidence it does not hold certifies a verdict nobody can look at.
    for (const std::string& e : c.evidence_files) {
      if (!std::any_of(files.begin(), files.end(), [&](const BundleFile& m) { return m.name == e; })) {
        throw BundleInputError(results.string() + ": case " + c.id + " names evidence " + e + ", which is not in " +
                               r.report_dir.string() + ": the report is incomplete (a file was removed or never "
                               "written); run the suite again");
      }
    }
    const std::string context = run::case_context_path(c.id);
    if (std::any_of(files.begin(), files.end(), [&](const BundleFile& m) { return m.name == context; })) j["context"] = context;
    if (c.expectation != ExpectationOutcome::kNone) {
      j["expectation"] = {{"outcome", std::string(expectation_outcome_name(c.expectation))},
                          {"reason", c.expectation_reason},
                          {"link", c.expectation_link}};
    }
    const LoadResult loaded = load_case(file, clauses.index);
    if (!loaded.ok()) {
      throw BundleInputError("case " + c.id + ": " + file.string() + " does not load:\n" + loaded.diagnostics.to_string());
    }
    if (loaded.value->id != c.id) {
      throw BundleInputError("case " + c.id + ": " + file.string() + " holds case " + loaded.value->id);
    }
    for (const Check& check : loaded.value->checks) {
      if (const auto* g = std::get_if<GoldenCheck>(&check.params)) goldens[g->pcap.generic_string()].insert(c.id);
    }
    cases.push_back(std::move(j));
  }
  Json golden_list = Json::array();
  for (const auto& [path, ids] : goldens) {
    if (const std::string why = tar_name_problem(path); !why.empty()) {
      throw BundleInputError("golden " + path + " (case " + *ids.begin() + "): " + why);
    }
    golden_list.push_back({{"path", path},
                           {"sha256", file_sha256_or_throw(tree.locate(path), "golden of case " + *ids.begin())},
                           {"cases", std::vector<std::string>(ids.begin(), ids.end())}});
  }

  const Ed25519PublicKey pub = public_key_of_private_file(r.key);
  const std::string fingerprint = key_fingerprint(pub);
  Json manifest;
  manifest["schema"] = std::string(kBundleSchemaId);
  manifest["bundler"] = {{"suite_version", r.suite_version}, {"git_hash", r.git_hash}};
  manifest["signer"] = {{"algorithm", "ed25519"},
                        {"public_key", to_hex(std::string_view(reinterpret_cast<const char*>(pub.data()), pub.size()))},
                        {"fingerprint", fingerprint}};
  manifest["run"] = run_json(run, raw.is_object() ? raw : Json::object());
  Json file_list = Json::array();
  std::uint64_t total = 0, done = 0;
  for (const BundleFile& m : files) total += m.size;
  std::vector<char> buf(1 << 20);
  for (BundleFile& m : files) {
    hash_member(m, buf, done, r, total);
    file_list.push_back({{"path", m.name}, {"size", m.size}, {"sha256", m.sha256}});
  }
  manifest["files"] = std::move(file_list);
  manifest["expectations"] = r.expectations ? Json(std::string(kBundleExpectationsName)) : Json(nullptr);
  manifest["cases"] = std::move(cases);
  manifest["suite"] = {{"clauses", {{"path", "cases/clauses.yaml"}, {"sha256", clauses_sha}}}, {"goldens", std::move(golden_list)}};
  const std::string manifest_text = manifest.dump(2) + "\n";

  const std::string signature = to_hex(sign_with_key_file(r.key, manifest_text)) + "\n";
  BundleMade made;
  made.files = files.size();
  made.cases = run.cases.size();
  made.fingerprint = fingerprint;
  made.bytes = write_bundle_file(r.out, manifest_text, files, signature);
  return made;
}

}  // namespace mrc::harness
