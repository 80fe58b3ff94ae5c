// verify_bundle (bundle.hpp): archive, manifest, signature and suite tree, one problem per line.
// The archive is read once, front to back (tar_archive.hpp): each member hashed as it streams,
// only the manifest, the signature and results.json kept; then the manifest is held against what
// was read.
#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "harness/certify/bundle.hpp"
#include "harness/certify/bundle_suite.hpp"
#include "harness/certify/tar_archive.hpp"
#include "harness/report/file_digest.hpp"
#include "harness/report/report.hpp"

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The manifest's value at `ptr`, of the JSON type `is` accepts; else bad input naming the pointer.
template <class Is>
const Json& need(const Json& m, const std::string& ptr, Is is, std::string_view type) {
  const Json::json_pointer p(ptr);
  if (!m.contains(p) || !is(m.at(p))) {
    throw BundleInputError(std::string(kBundleManifestName) + ": " + ptr + ": expected " + std::string(type));
  }
  return m.at(p);
}
const std::string& need_string(const Json& m, const std::string& ptr) {
  return need(m, ptr, [](const Json& v) { return v.is_string(); }, "a string").get_ref<const std::string&>();
}
const Json& need_array(const Json& m, const std::string& ptr) {
  return need(m, ptr, [](const Json& v) { return v.is_array(); }, "an array");
}

// A member as the pass over the archive saw it.
struct ReadMember {
  std::string name;
  std::uint64_t size = 0;
  std::string sha256;
};

struct ReadBundle {
  std::vector<ReadMember> members;  // archive order
  std::string manifest;             // the first member's data, when it is manifest.json
  std::string signature;            // manifest.sig's first bytes (a signature is 129)
  std::optional<std::string> results;
};

// More than any signature file: what is past it is not read into memory.
constexpr std::size_t kMaxSignatureBytes = 4096;

ReadBundle read_members(const fs::path& file) {
  ReadBundle out;
  try {
    TarReader reader(file, TarLimits{.max_archive_bytes = kMaxBundleBytes});
    while (const std::optional<TarMemberInfo> m = reader.next()) {
      const bool manifest = out.members.empty() && m->name == kBundleManifestName;
      const bool signature = m->name == kBundleSignatureName;
      const bool results = m->name == kResultsJsonName;
      std::string kept;
      Sha256 sha;
      reader.read_data([&](std::string_view chunk) {
        sha.update(chunk);
        if (manifest || results) kept.append(chunk);
        if (signature && kept.size() < kMaxSignatureBytes) kept.append(chunk.substr(0, kMaxSignatureBytes - kept.size()));
      });
      if (manifest) out.manifest = std::move(kept);
      else if (signature) out.signature = std::move(kept);
      else if (results) out.results = std::move(kept);
      out.members.push_back({m->name, m->size, sha.hex()});
    }
  } catch (const TarError& e) {
    throw BundleInputError(std::string("not a readable bundle: ") + e.what());
  }
  return out;
}

struct Origin {
  std::string text;  // "suite 0.1.0 (git abc123)"
};

// A suite file the manifest names against the tree in hand.
void check_tree_file(const BundleSuiteTree& tree, const std::string& path, const std::string& sha, const std::string& what,
                     const Origin& origin, BundleCheck& out) {
  std::vector<std::string>& problems = out.problems;
  if (const std::string why = tar_name_problem(path); !why.empty()) {
    problems.push_back(path + " (" + what + "): not a suite path: " + why);
    return;
  }
  const fs::path file = tree.locate(path);
  std::error_code ec;
  const std::optional<std::string> here = fs::is_regular_file(file, ec) ? sha256_file_hex(file) : std::nullopt;
  if (!here || *here != sha) out.suite_mismatches.push_back(path);
  if (!here) {
    problems.push_back(path + " (" + what + "): not in this suite's tree (" + file.string() + "); the bundle is from " +
                       origin.text);
  } else if (*here != sha) {
    problems.push_back(path + " (" + what + "): differs from this suite's tree (" + file.string() +
                       "); the bundle is from " + origin.text);
  }
}

std::string string_at(const Json& m, const char* ptr) {
  const Json::json_pointer p(ptr);
  return m.contains(p) && m.at(p).is_string() ? m.at(p).get<std::string>() : std::string();
}

// The summary from the signed manifest, conformance from the bundle's results.json (whose bytes
// the manifest pins).
void fill_summary(const Json& m, const std::optional<std::string>& results, BundleSummary& s) {
  s.dut = string_at(m, "/run/dut");
  s.dut_version = string_at(m, "/run/dut_version");
  s.suite_version = string_at(m, "/run/suite_version");
  s.git_hash = string_at(m, "/run/git_hash");
  s.wire = string_at(m, "/run/wire");
  s.profile = string_at(m, "/run/profile");
  s.started_at = string_at(m, "/run/wall_clock/started_at");
  s.ended_at = string_at(m, "/run/wall_clock/ended_at");
  const Json::json_pointer interrupted("/run/interrupted");
  s.interrupted = m.contains(interrupted) && m.at(interrupted).is_boolean() && m.at(interrupted).get<bool>();
  if (const Json::json_pointer cases("/cases"); m.contains(cases) && m.at(cases).is_array()) {
    for (const Json& c : m.at(cases)) {
      if (c.is_object() && c.contains("verdict") && c["verdict"].is_string()) ++s.verdicts[c["verdict"].get<std::string>()];
    }
  }
  if (results) {
    const Json r = Json::parse(*results, nullptr, false);
    if (r.is_object() && r.contains("conformant") && r["conformant"].is_boolean()) s.conformant = r["conformant"].get<bool>();
  }
}

}  // namespace

std::vector<std::string> summary_lines(const BundleSummary& s) {
  std::vector<std::string> out;
  out.push_back("DUT: " + s.dut + (s.dut_version.empty() ? " (its own identity not recorded: a run before results 1.5)"
                                                         : " (" + s.dut_version + ")"));
  out.push_back("suite: " + s.suite_version + " (git " + s.git_hash + "), wire " + s.wire);
  out.push_back(std::string("conformant: ") + (!s.conformant ? "not recorded" : *s.conformant ? "yes" : "no") +
                " (profile " + s.profile + ")" + (s.interrupted ? ", the run was interrupted: partial" : ""));
  std::string counts;
  std::size_t total = 0;
  for (const char* v : {"PASS", "FAIL", "UNSUPPORTED", "INCONCLUSIVE", "ERROR"}) {
    const auto it = s.verdicts.find(v);
    const std::size_t n = it == s.verdicts.end() ? 0 : it->second;
    total += n;
    counts += std::string(counts.empty() ? "" : ", ") + std::to_string(n) + " " + v;
  }
  out.push_back("cases: " + std::to_string(total) + ": " + counts);
  out.push_back(s.started_at.empty() ? "run: times not recorded (the run was not started with --wall-clock)"
                                     : "run: " + s.started_at + " to " + (s.ended_at.empty() ? "?" : s.ended_at));
  return out;
}

BundleCheck verify_bundle(const fs::path& file, const std::optional<Ed25519PublicKey>& pubkey, const fs::path& cases_dir,
                          BundleHeld* held) {
  ReadBundle read = read_members(file);
  const std::vector<ReadMember>& members = read.members;
  if (members.size() < 2 || members.front().name != kBundleManifestName || members.back().name != kBundleSignatureName) {
    throw BundleInputError("not a bundle: the archive must hold " + std::string(kBundleManifestName) + " first and " +
                           std::string(kBundleSignatureName) + " last (it holds " + std::to_string(members.size()) +
                           " member(s)" + (members.empty() ? std::string() : ", first '" + members.front().name + "'") + ")");
  }
  const std::string& manifest_text = read.manifest;
  const Json m = Json::parse(manifest_text, nullptr, false);
  if (m.is_discarded() || !m.is_object()) throw BundleInputError(std::string(kBundleManifestName) + ": not JSON");
  if (need_string(m, "/schema") != kBundleSchemaId) {
    throw BundleInputError(std::string(kBundleManifestName) + ": /schema: '" + m["schema"].get<std::string>() +
                           "', this verify reads " + std::string(kBundleSchemaId));
  }
  const Origin origin{"suite " + need_string(m, "/run/suite_version") + " (git " + need_string(m, "/run/git_hash") + ")"};

  BundleCheck out;
  {
    const Json::json_pointer at("/run/wire");
    const std::string recorded = m.contains(at) && m[at].is_string() ? m[at].get<std::string>() : std::string();
    if (const std::string why = wire_revision_problem(recorded); !why.empty()) {
      out.problems.push_back(std::string(kBundleManifestName) + ": /run/wire: " + why);
    }
  }
  // Signature: over the exact manifest bytes, with the key the caller trusts or the one named.
  Ed25519PublicKey named{};
  std::string named_raw;
  try {
    named_raw = from_hex(need_string(m, "/signer/public_key"));
  } catch (const std::invalid_argument&) {
  }
  if (named_raw.size() != named.size()) throw BundleInputError(std::string(kBundleManifestName) + ": /signer/public_key: expected 64 hex digits");
  std::copy(named_raw.begin(), named_raw.end(), named.begin());
  const Ed25519PublicKey& key = pubkey ? *pubkey : named;
  out.fingerprint = key_fingerprint(key);
  if (pubkey && *pubkey != named) {
    out.problems.push_back(std::string(kBundleSignatureName) + ": the manifest names signer key " + key_fingerprint(named) +
                           ", not the --pubkey key " + out.fingerprint);
  }
  std::string sig_text = read.signature;
  if (!sig_text.empty() && sig_text.back() == '\n') sig_text.pop_back();
  std::string sig;
  try {
    sig = from_hex(sig_text);
  } catch (const std::invalid_argument&) {
  }
  if (sig.size() != 64) {
    out.problems.push_back(std::string(kBundleSignatureName) + ": not an Ed25519 signature (128 hex digits)");
  } else if (!signature_valid(key, manifest_text, sig)) {
    out.problems.push_back(std::string(kBundleSignatureName) + ": the signature does not verify with key " + out.fingerprint +
                           (pubkey ? " (--pubkey)" : " (the manifest's signer)") +
                           ": manifest.json was changed after signing, or another key signed it");
  }
  if (!pubkey) {
    out.notes.push_back("signature valid for key " + out.fingerprint + "; give --pubkey to check the signer");
  }

  // Members against the manifest's file list: missing, extra, changed.
  std::map<std::string, const ReadMember*> by_name;
  std::set<std::string> in_bundle;  // member names, for the cases' evidence below
  for (std::size_t i = 1; i + 1 < members.size(); ++i) {
    by_name[members[i].name] = &members[i];
    in_bundle.insert(members[i].name);
  }
  const Json& files = need_array(m, "/files");
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string at = "/files/" + std::to_string(i);
    const std::string& path = need_string(m, at + "/path");
    const std::string& sha = need_string(m, at + "/sha256");
    const Json& size = need(m, at + "/size", [](const Json& v) { return v.is_number_unsigned(); }, "a size");
    const auto it = by_name.find(path);
    if (it == by_name.end()) {
      out.problems.push_back(path + ": in the manifest, missing from the bundle");
      continue;
    }
    const ReadMember& member = *it->second;
    by_name.erase(it);
    if (member.size != size.get<std::uint64_t>()) {
      out.problems.push_back(path + ": changed: " + std::to_string(member.size) + " bytes, the manifest says " +
                             std::to_string(size.get<std::uint64_t>()));
    } else if (member.sha256 != sha) {
      out.problems.push_back(path + ": changed: its sha256 differs from the manifest's");
    }
  }
  for (const auto& [name, member] : by_name) out.problems.push_back(name + ": in the bundle, not in the manifest (added)");
  out.files = files.size();

  // The suite the run used against the tree in hand.
  const BundleSuiteTree tree(cases_dir);
  check_tree_file(tree, need_string(m, "/suite/clauses/path"), need_string(m, "/suite/clauses/sha256"), "clauses.yaml", origin, out);
  const Json& cases = need_array(m, "/cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string at = "/cases/" + std::to_string(i);
    const std::string& id = need_string(m, at + "/id");
    check_tree_file(tree, need_string(m, at + "/file"), need_string(m, at + "/file_sha256"), "case " + id, origin, out);
    // Evidence the case names must be in the bundle: a bundle of an incomplete report (made
    // before `bundle` refused one) certifies a verdict whose evidence nobody can open.
    if (const Json::json_pointer ev(at + "/evidence"); m.contains(ev) && m.at(ev).is_array()) {
      for (const Json& e : m.at(ev)) {
        if (e.is_string() && !in_bundle.contains(e.get<std::string>())) {
          out.problems.push_back(e.get<std::string>() + " (evidence of case " + id + "): named by the case, not in the bundle");
        }
      }
    }
  }
  out.cases = cases.size();
  fill_summary(m, in_bundle.contains(std::string(kResultsJsonName)) ? read.results : std::nullopt, out.summary);
  const Json& goldens = need_array(m, "/suite/goldens");
  for (std::size_t i = 0; i < goldens.size(); ++i) {
    const std::string at = "/suite/goldens/" + std::to_string(i);
    check_tree_file(tree, need_string(m, at + "/path"), need_string(m, at + "/sha256"), "golden", origin, out);
  }
  if (held) {
    held->manifest = std::move(read.manifest);
    held->results = std::move(read.results);
    held->sha256.clear();
    for (const ReadMember& r : members) held->sha256[r.name] = r.sha256;
  }
  return out;
}

}  // namespace mrc::harness
