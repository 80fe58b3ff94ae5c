#include "harness/case/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace mrc::harness {

std::string Diagnostic::to_string() const {
  std::string out = file;
  out += ':';
  if (loc.line > 0) {
    out += std::to_string(loc.line) + ':' + std::to_string(loc.column) + ':';
  }
  out += ' ';
  if (!key.empty()) out += key + ": ";
  out += message;
  return out;
}

void Diagnostics::add(std::string file, SourceLoc loc, std::string key, std::string message) {
  items_.push_back(Diagnostic{std::move(file), loc, std::move(key), std::move(message)});
}

void Diagnostics::append(const Diagnostics& other) {
  items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

void Diagnostics::sort() {
  std::stable_sort(items_.begin(), items_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.file != b.file) return a.file < b.file;
    if (a.loc.line != b.loc.line) return a.loc.line < b.loc.line;
    return a.loc.column < b.loc.column;
  });
}

std::string Diagnostics::to_string() const {
  std::string out;
  for (const auto& d : items_) out += d.to_string() + '\n';
  return out;
}

bool Diagnostics::contains(std::string_view needle) const {
  return std::any_of(items_.begin(), items_.end(), [&](const Diagnostic& d) {
    return d.to_string().find(needle) != std::string::npos;
  });
}

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Optimal string alignment distance (Levenshtein plus adjacent transposition), case-insensitive.
// Inputs are short key names, so the O(n*m) table is fine.
std::size_t osa_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::size_t> d((n + 1) * (m + 1));
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(n, m);
}

template <typename Range>
std::string_view closest_in(std::string_view word, const Range& candidates) {
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::string_view best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    const std::string_view cand{c};
    const std::size_t dist = osa_distance(word, cand);
    if (dist < best_d) {
      best_d = dist;
      best = cand;
    }
  }
  return best_d <= limit ? best : std::string_view{};
}

}  // namespace

std::string_view closest_match(std::string_view word, std::span<const std::string_view> candidates) {
  return closest_in(word, candidates);
}

std::string closest_match(std::string_view word, std::span<const std::string> candidates) {
  return std::string(closest_in(word, candidates));
}

std::string did_you_mean(std::string_view suggestion) {
  if (suggestion.empty()) return {};
  return " (did you mean '" + std::string(suggestion) + "'?)";
}

}  // namespace mrc::harness
