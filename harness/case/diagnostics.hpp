// Loader diagnostics: every mistake in a case, clause or expectation file becomes one line
// `file:line:column: key: message` (1-based line and column), the shape compilers use, so editors
// jump straight to it. Loaders collect all diagnostics of a file instead of stopping at the first.
#pragma once

#include <exception>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mrc::harness {

// A place in a source file. 1-based; line 0 means "the file as a whole" (unreadable, empty).
struct SourceLoc {
  int line = 0;
  int column = 0;
  bool operator==(const SourceLoc&) const = default;
};

struct Diagnostic {
  std::string file;     // as given to the loader
  SourceLoc loc;
  std::string key;      // dotted path of the entry at fault ("config.qp.mtu", "stimulus[2]");
                        // empty at the document root
  std::string message;  // what is wrong, in words

  // `file:line:column: key: message`; the key part is left out when empty, the line/column part
  // when the location is unknown (`file: message`).
  std::string to_string() const;
};

class Diagnostics {
 public:
  void add(std::string file, SourceLoc loc, std::string key, std::string message);
  void append(const Diagnostics& other);

  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  std::span<const Diagnostic> items() const { return items_; }

  // Orders by file, then line, then column; stable, so equal places keep discovery order.
  void sort();
  // Every diagnostic's to_string(), one per line.
  std::string to_string() const;
  // True when some diagnostic's to_string() contains `needle`.
  bool contains(std::string_view needle) const;

 private:
  std::vector<Diagnostic> items_;
};

// Runs the body of one file's loader. An exception escaping it (a bug, or one yaml-cpp throws on
// input the lint did not foresee) becomes a diagnostic naming the file instead of ending the
// process, and the diagnostics end sorted by place. True when the body threw: what it built is
// then incomplete.
template <class Body>
bool load_guarded(const std::string& display, Diagnostics& diagnostics, Body&& body) {
  bool threw = true;
  try {
    body();
    threw = false;
  } catch (const std::exception& e) {
    diagnostics.add(display, {}, "", std::string("internal error while loading: ") + e.what());
  } catch (...) {
    diagnostics.add(display, {}, "", "internal error while loading");
  }
  diagnostics.sort();
  return threw;
}

// "Did you mean" support: the candidate closest to `word` by optimal-string-alignment distance
// (insert, delete, substitute, swap adjacent), if it is close enough to be a plausible typo
// (distance <= max(1, |word| / 3)). Comparison ignores ASCII case. Empty when nothing is close.
std::string_view closest_match(std::string_view word, std::span<const std::string_view> candidates);
std::string closest_match(std::string_view word, std::span<const std::string> candidates);

// " (did you mean 'x'?)" or "" — ready to append to a message.
std::string did_you_mean(std::string_view suggestion);

}  // namespace mrc::harness
