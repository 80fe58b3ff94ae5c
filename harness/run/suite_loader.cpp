#include "harness/run/suite_loader.hpp"

#include <algorithm>
#include <ostream>
#include <string_view>

namespace mrc::run {
namespace fs = std::filesystem;

namespace {
fs::path& clauses_option() {
  static fs::path option;
  return option;
}

fs::path search_up(fs::path dir) {
  std::error_code ec;
  for (int i = 0; i < 8 && !dir.empty(); ++i) {
    if (fs::is_regular_file(dir / "cases" / "clauses.yaml", ec)) return dir;
    if (fs::is_regular_file(dir / "clauses.yaml", ec) && dir.filename() == "cases") return dir.parent_path();
    const fs::path parent = dir.parent_path();
    if (parent == dir) break;
    dir = parent;
  }
  return {};
}
}  // namespace

fs::path find_suite_root(const fs::path& start) {
  std::error_code ec;
  if (!start.empty()) {
    fs::path p = fs::absolute(start, ec);
    if (!fs::is_directory(p, ec)) p = p.parent_path();
    if (fs::path r = search_up(p); !r.empty()) return r;
  }
  return search_up(fs::current_path(ec));
}

void set_clauses_option(fs::path file) { clauses_option() = std::move(file); }

fs::path fallback_clauses(const fs::path& root) {
  if (!clauses_option().empty()) return clauses_option();
  return root.empty() ? fs::path{} : root / "cases" / "clauses.yaml";
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    const auto b = cur.find_first_not_of(" \t");
    const auto e = cur.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(cur.substr(b, e - b + 1));
    cur.clear();
  };
  for (char c : text) {
    if (c == ',') {
      flush();
    } else {
      cur += c;
    }
  }
  flush();
  return out;
}

std::vector<std::string> split_lists(const std::vector<std::string>& texts) {
  std::vector<std::string> out;
  for (const auto& t : texts) {
    for (auto& s : split_list(t)) out.push_back(std::move(s));
  }
  return out;
}

namespace {

// Edits (insert, delete, replace) between two short words: how far a typo is from a case id.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

fs::path case_file_of_id(const fs::path& root, const std::string& id, std::string& near) {
  near.clear();
  if (root.empty() || id.empty() || id.find('/') != std::string::npos || id.ends_with(".yaml")) return {};
  std::error_code ec;
  std::size_t best = 3;  // suggest ids at most two edits away
  for (auto it = fs::recursive_directory_iterator(root / "cases", ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".yaml") continue;
    const std::string stem = it->path().stem().string();
    if (stem == id) return it->path();
    if (const std::size_t d = edit_distance(stem, id); d < best) {
      best = d;
      near = stem;
    }
  }
  return {};
}

LoadedSuite load_suite(const std::vector<std::string>& inputs, const std::vector<std::string>& tags,
                       const std::vector<std::string>& exclude_tags, std::ostream& err) {
  LoadedSuite s;
  s.root = find_suite_root(inputs.empty() ? fs::path{} : fs::path(inputs.front()));
  std::vector<fs::path> paths;
  for (const auto& i : inputs) paths.emplace_back(i);
  if (paths.empty()) {
    if (s.root.empty()) {
      err << "error: no --cases given and no cases/clauses.yaml found from the working directory\n";
      s.ok = false;
      return s;
    }
    paths.push_back(s.root / "cases");
  }
  for (auto& p : paths) {
    std::error_code ec;
    if (fs::exists(p, ec)) continue;
    // Not a path: a case id (`--cases spray-v-001`) names its file under the suite's cases/.
    std::string near;
    if (fs::path f = case_file_of_id(s.root, p.string(), near); !f.empty()) {
      p = f;
      continue;
    }
    err << "error: " << p.string() << ": no such file or folder, nor a case id of the suite"
        << (near.empty() ? "" : " (did you mean " + near + "?)") << '\n';
    s.ok = false;
  }
  if (std::error_code ec; !clauses_option().empty() && !fs::is_regular_file(clauses_option(), ec)) {
    err << "error: --clauses " << clauses_option().string() << ": no such file\n";
    s.ok = false;
  }
  if (!s.ok) return s;
  if (!s.root.empty()) {
    auto loaded = harness::load_clauses(s.root / "cases" / "clauses.yaml");
    if (!loaded.ok()) {
      err << loaded.diagnostics.to_string();
      s.ok = false;
    }
    s.clauses = std::move(loaded.index);
  }
  harness::CaseFilter filter{tags, exclude_tags};
  // Each file is checked against the clauses.yaml above it (a case folder outside the suite may
  // carry its own), else --clauses, else the suite's.
  s.set = harness::load_cases(std::span<const fs::path>(paths), filter, nullptr, fallback_clauses(s.root));
  if (!s.set.ok()) {
    s.set.diagnostics.sort();
    err << s.set.diagnostics.to_string();
    s.ok = false;
  }
  return s;
}

std::string relative_to(const fs::path& path, const fs::path& root) {
  if (root.empty()) return path.generic_string();
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(path, ec);
  const fs::path r = fs::weakly_canonical(root, ec);
  const fs::path rel = a.lexically_relative(r);
  if (rel.empty() || *rel.begin() == "..") return path.generic_string();
  return rel.generic_string();
}

}  // namespace mrc::run
