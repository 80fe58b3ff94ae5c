// `mrc-conform golden`: rebuilds every golden pcap a case's `golden` check names, from the
// reference endpoint (no defects) with the case's own seed: the frames the DUT side sends, from
// all its taps merged in time order (exactly what the golden check compares, merge_taps()).
// pcaps/MANIFEST keeps one line per golden: `sha256  path  seed  generator-version`.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

#include "harness/capture/pcapng.hpp"
#include "harness/cli/commands.hpp"
#include "harness/dut/reference_binding.hpp"
#include "harness/report/file_digest.hpp"
#include "harness/report/report.hpp"
#include "harness/run/case_session.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/case_select.hpp"
#include "harness/verdict/checks.hpp"

namespace mrc::cli {
namespace fs = std::filesystem;

using run::kExitBadInput;
using run::kExitFail;
using run::kExitHarness;
using run::kExitPass;

namespace {

using Manifest = std::map<std::string, std::string>;  // path -> whole line

Manifest read_manifest(const fs::path& file) {
  Manifest m;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string sha, path;
    ls >> sha >> path;
    if (!path.empty()) m[path] = line;
  }
  return m;
}

// Every file golden writes goes through here: staged in FILE.tmp, synced, renamed over FILE. On a
// full disk or an I/O error the previous FILE stays as it was and the error names the file.
std::string replace_file(const fs::path& file, std::string_view bytes) {
  try {
    harness::write_file_atomically(file, bytes);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string write_manifest(const fs::path& file, const Manifest& m) {
  std::ostringstream s;
  s << "# Golden pcaps: sha256  path  seed  generator-version. Written by `mrc-conform golden`; never edit.\n";
  for (const auto& [path, line] : m) s << line << '\n';
  return replace_file(file, s.str());
}

}  // namespace

int run_golden(const GoldenOptions& o, std::ostream& out, std::ostream& err) {
  const run::CaseSelection sel = run::select_cases(o.cases, o.tags, o.exclude_tags, o.testbed, err);
  if (!sel.ok) return kExitBadInput;
  const run::LoadedSuite& s = sel.suite;
  if (s.root.empty()) {
    err << "error: no suite root (cases/clauses.yaml) found: goldens live in <suite>/pcaps/\n";
    return kExitBadInput;
  }
  const fs::path manifest_file = s.root / "pcaps" / "MANIFEST";
  Manifest manifest = read_manifest(manifest_file);
  std::size_t written = 0, same = 0, differ = 0, missing = 0;
  int rc = kExitPass;
  for (const harness::Case* selected : sel.cases) {
    const harness::Case& c = *selected;
    std::vector<const harness::GoldenCheck*> goldens;
    for (const auto& chk : c.checks) {
      if (const auto* g = std::get_if<harness::GoldenCheck>(&chk.params)) goldens.push_back(g);
    }
    if (goldens.empty()) continue;
    harness::ReferenceBinding dut;
    harness::ReferenceBinding peer;
    run::SessionOptions so;
    so.testbed = o.testbed;
    so.seed = c.seed;
    so.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(c.timeout_s);
    const run::SessionResult r = run::run_session(c, dut, peer, so);
    dut.reset();
    if (r.status != harness::Verdict::kPass) {
      err << "error: " << c.id << ": " << r.message << '\n';
      rc = kExitHarness;
      continue;
    }
    const harness::Capture merged = harness::merge_taps(r.ctx, harness::TapSide::kFromDut);
    const std::string bytes = harness::pcapng_bytes(merged);
    for (const harness::GoldenCheck* g : goldens) {
      const fs::path rel = g->pcap;
      const fs::path file = s.root / rel;
      if (o.check_only) {
        std::ifstream in(file, std::ios::binary);
        if (!in.is_open()) {  // not a difference: there is nothing on disk to compare with
          out << "MISSING  " << rel.generic_string() << '\n';
          ++missing;
          continue;
        }
        const std::string disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const bool equal = disk == bytes;
        out << (equal ? "same     " : "DIFFERS  ") << rel.generic_string() << '\n';
        equal ? ++same : ++differ;
        continue;
      }
      std::error_code ec;
      fs::create_directories(file.parent_path(), ec);
      if (std::string e = replace_file(file, bytes); !e.empty()) {
        err << "error: " << e << " (the golden on disk and its manifest line are unchanged)\n";
        rc = kExitHarness;
        continue;
      }
      // The manifest names what is on disk: the digest of the file just written.
      const std::optional<std::string> digest = harness::sha256_file_hex(file);
      if (!digest) {
        err << "error: " << file.string() << ": cannot read it back for its sha256\n";
        rc = kExitHarness;
        continue;
      }
      const std::string& sha = *digest;
      manifest[rel.generic_string()] =
          sha + "  " + rel.generic_string() + "  " + std::to_string(c.seed) + "  " + o.generator;
      out << "wrote " << rel.generic_string() << " (" << merged.size() << " frames, sha256 " << sha.substr(0, 16)
          << "...)\n";
      ++written;
    }
  }
  if (o.check_only) {
    out << same << " golden(s) up to date, " << differ << " differ";
    if (missing > 0) out << ", " << missing << " missing";
    out << '\n';
    return rc != kExitPass ? rc : (differ + missing > 0 ? kExitFail : kExitPass);
  }
  if (written > 0) {
    if (std::string e = write_manifest(manifest_file, manifest); !e.empty()) {
      err << "error: " << e << " (the previous manifest is unchanged; " << written
          << " golden(s) written do not match it: run golden again once there is room)\n";
      return kExitHarness;
    }
  }
  out << written << " golden(s) written, manifest " << manifest_file.string() << '\n';
  if (rc != kExitPass) out << "NOT all goldens were written: see the errors above\n";
  return rc;
}

}  // namespace mrc::cli
