// The `mrc-conform` subcommands other than `run` (suite_runner.hpp) as functions from options to
// an exit code, so tests can call them without a process.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace mrc::run {

struct ListOptions {
  std::vector<std::string> cases;  // files or folders; empty = <suite>/cases
  std::vector<std::string> tags;   // any-of
  std::vector<std::string> exclude_tags;
};
// One line per case: id, level, behaviour, tags, clauses. Loader errors go to `err` (exit 2).
int run_list(const ListOptions& o, std::ostream& out, std::ostream& err);

struct DiffCliOptions {
  std::string a;
  std::string b;
  std::vector<std::string> masks;
  std::uint32_t window = 1;
  std::uint64_t tolerance_ns = 0;
  double tolerance_pct = 0;
  std::size_t max_lines = 20;
};
// The golden differ on any two captures: exit 0 same, 1 different, 2 bad input.
int run_diff(const DiffCliOptions& o, std::ostream& out, std::ostream& err);

struct GoldenOptions {
  std::vector<std::string> cases;  // default <suite>/cases
  std::vector<std::string> tags;
  std::vector<std::string> exclude_tags;
  std::string testbed = "mini";
  bool check_only = false;         // compare with the files on disk instead of writing
  std::string generator = "mrc-conform/0.0.0";  // the manifest's generator-version column
};
// Regenerates the golden pcaps of every case with a golden check from the reference endpoint
// (no defects) and rewrites their pcaps/MANIFEST lines (`sha256  path  seed  generator-version`).
int run_golden(const GoldenOptions& o, std::ostream& out, std::ostream& err);

}  // namespace mrc::run
