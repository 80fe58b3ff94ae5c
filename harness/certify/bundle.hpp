// The certification bundle (README.md, "Certify"): one ustar file (tar_archive.hpp) holding
// manifest.json first, then every file of a run's report folder and the run's expectation file,
// sorted by path, then manifest.sig last: the Ed25519 signature (bundle_crypto.hpp) of the exact
// bytes of manifest.json, as hex. The manifest (schema kBundleSchemaId) pins each member's size and
// SHA-256, the run's metadata, and per case the id, the SHA-256 of its case file, its seed,
// verdict and evidence files, plus the SHA-256 of clauses.yaml and of every golden the run's cases
// name: enough to re-judge a case from its evidence later (replay) and to tell whether the suite
// tree in hand is the one the run used. Same report folder and key, same bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/certify/bundle_crypto.hpp"

namespace mrc::harness {

inline constexpr std::string_view kBundleSchemaId = "mrc-conform/bundle/1";
inline constexpr std::string_view kBundleManifestName = "manifest.json";
inline constexpr std::string_view kBundleSignatureName = "manifest.sig";
// Where the run's expectation file goes in the bundle (not a name a report folder holds).
inline constexpr std::string_view kBundleExpectationsName = "inputs/expectations.yaml";
// Why a run judged on wire revision `recorded` (results.json meta.wire, the manifest's /run/wire;
// empty: not recorded, a run from before the revision was) cannot be bundled, verified or
// replayed by this suite, which judges on reference/wire/wire_revision.hpp's; empty when it can.
// A verdict means something only on the wire it was judged on.
std::string wire_revision_problem(std::string_view recorded);
// A bundle is streamed from its file, never held whole; one over this is refused before reading.
inline constexpr std::uint64_t kMaxBundleBytes = 4ULL << 30;

// Bad input for bundle or verify (exit 2): what() names the file, member or option at fault.
class BundleInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The bundle file could not be written (exit 3): what() names it and the system's reason.
class BundleWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BundleRequest {
  std::filesystem::path report_dir;
  std::filesystem::path key;                        // PEM private key (keygen)
  std::filesystem::path cases_dir;                  // the suite's cases/ (goldens: its parent's pcaps/)
  std::optional<std::filesystem::path> expectations;  // the run's expectation file, if it used one
  bool allow_partial = false;                       // bundle an interrupted report anyway
  // The bundle file: written as OUT.tmp, synced and renamed over OUT. Neither is packed when it is
  // inside the report folder.
  std::filesystem::path out;
  std::string suite_version;                        // of the bundling binary
  std::string git_hash;
  // Called as each member is hashed, with the bytes done and the total: the CLI's progress line.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

struct BundleMade {
  std::uint64_t bytes = 0;   // the size of the bundle file
  std::size_t files = 0;     // members besides manifest.json and manifest.sig
  std::size_t cases = 0;
  std::string fingerprint;   // the signer's key
};

// Reads the report folder and the suite tree, hashes every file (streaming), then writes the bundle
// to r.out, each member streamed from its file. Nothing is written before every input is found
// good. Throws BundleInputError (no results.json, an interrupted report without allow_partial, a
// case file, clauses.yaml or golden not found under cases_dir, a file that cannot be read or that
// changed between hashing and writing), KeyError, ReportError (a results.json that does not
// parse), BundleWriteError (r.out cannot be written; nothing is left of it).
BundleMade make_bundle(const BundleRequest& r);

// What a bundle certifies, from its signed manifest and its results.json (meaningful when the
// check found no problem): for the certifier, more than "bundle OK".
struct BundleSummary {
  std::string dut;           // as the run named it ("agent:10.0.0.2:7471", "reference")
  std::string dut_version;   // the DUT's own identity (an agent's HELLO string); "" before schema 1.5
  std::string suite_version, git_hash, wire, profile;
  std::optional<bool> conformant;  // results.json's verdict; unset when it says none
  bool interrupted = false;
  std::map<std::string, std::size_t> verdicts;  // "PASS" -> cases
  std::string started_at, ended_at;             // "" when the run recorded no times
};
// The summary as lines: "DUT ...", "suite ...", "conformant: yes (profile full)", "cases: ...",
// "run: START to END".
std::vector<std::string> summary_lines(const BundleSummary& s);

struct BundleCheck {
  BundleSummary summary;
  std::vector<std::string> problems;  // one line each; empty: the bundle is OK
  std::vector<std::string> notes;     // what was not checked, said once
  std::size_t files = 0;
  std::size_t cases = 0;
  std::string fingerprint;            // of the key the signature was checked with
  // The suite files (manifest paths: "cases/...", "pcaps/...") that are missing from the tree in
  // hand or differ from the run's; each is also one of `problems`. `replay` re-judges the cases
  // that name none of them when nothing else is wrong (replay.hpp).
  std::vector<std::string> suite_mismatches;
};

// What verify's pass over the archive keeps for replay: the members it read into memory, and
// each member's SHA-256 as it streamed.
struct BundleHeld {
  std::string manifest;                        // manifest.json's bytes
  std::optional<std::string> results;          // results.json's, when the bundle holds one
  std::map<std::string, std::string> sha256;   // member name -> hex SHA-256 of its data
};

// Checks the bundle file against its manifest, the signature (with `pubkey`: must be that key;
// without: the key the manifest names), and every case file, clauses.yaml and golden the manifest
// names against the suite tree at `cases_dir`. The archive is streamed once: each member hashed as
// it is read; only manifest.json, manifest.sig and results.json are held in memory. Throws
// BundleInputError when `file` is not a readable bundle (TarError's reason, no manifest first or
// signature last, a manifest that is not the schema's JSON). `held`, when given, is filled.
BundleCheck verify_bundle(const std::filesystem::path& file, const std::optional<Ed25519PublicKey>& pubkey,
                          const std::filesystem::path& cases_dir, BundleHeld* held = nullptr);

}  // namespace mrc::harness
