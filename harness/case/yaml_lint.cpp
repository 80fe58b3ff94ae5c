#include "harness/case/yaml_lint.hpp"

#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "harness/case/limits.hpp"

namespace mrc::harness {
namespace {

// Per rule, the first few offences are enough to fix a file; a binary file would give thousands.
constexpr int kMaxReportsPerRule = 5;

SourceLoc mark_loc(const YAML::Mark& m) { return m.line >= 0 ? SourceLoc{m.line + 1, m.column + 1} : SourceLoc{}; }

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned>(c));
  return buf;
}

// True when a line's content (indentation removed) opens a block scalar: it ends in `|` or `>`,
// maybe with chomping/indentation indicators, after a key, a dash or nothing, before any comment.
bool opens_block_scalar(std::string_view content) {
  if (const auto hash = content.find(" #"); hash != std::string_view::npos) content = content.substr(0, hash);
  while (!content.empty() && (content.back() == ' ' || content.back() == '\r')) content.remove_suffix(1);
  std::size_t n = 0;  // trailing indicator characters after the | or >
  while (n < 2 && n < content.size()) {
    const char c = content[content.size() - 1 - n];
    if (c != '-' && c != '+' && (c < '1' || c > '9')) break;
    ++n;
  }
  if (content.size() <= n) return false;
  const char head = content[content.size() - 1 - n];
  if (head != '|' && head != '>') return false;
  const std::size_t before = content.size() - 1 - n;
  return before == 0 || content[before - 1] == ' ';
}

// yaml-cpp 0.7 never returns (it allocates nodes without end) from a ',' standing where a node
// starts outside any flow collection: a document ",", "- [a]\n,", "key: &x ,", '"a"\n,'. This
// finds the first such comma: at the start of a line's content, after "- " / "? " / ": " and after
// an anchor or tag, while no [ or { is open, outside quotes, comments and block scalars. A comma
// anywhere else (inside a plain scalar such as "a, b", or in a flow collection) is left alone.
// An opening bracket counts only where a token starts, so a plain scalar "a[b" opens nothing; an
// unbalanced "[" in prose only makes the scan miss a hang, never refuse a valid file.
std::optional<SourceLoc> comma_where_a_node_starts(std::string_view text) {
  int depth = 0;       // open [ and {
  char quote = 0;      // ' or " while inside a quoted scalar
  bool expect = true;  // the next non-space character starts a node
  bool token_start = true;
  int line_no = 1;
  int col = 0;
  int block_parent = -1;  // as in lint_yaml_text: inside a block scalar, nothing counts
  int indent = 0;
  bool at_line_start = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++col;
    if (c == '\n') {
      ++line_no;
      col = 0;
      at_line_start = true;
      indent = 0;
      if (quote == 0) expect = depth == 0 || expect;
      token_start = true;
      continue;
    }
    if (at_line_start && quote == 0) {
      if (c == ' ') {
        ++indent;
        continue;
      }
      at_line_start = false;
      if (block_parent >= 0) {
        if (indent > block_parent || c == '\r') {  // block scalar content: skip the line
          while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
          continue;
        }
        block_parent = -1;
      }
      if (depth == 0) expect = true;
    }
    if (quote != 0) {
      if (c == quote) {
        if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;  // '' inside single quotes
          continue;
        }
        quote = 0;
      } else if (c == '\\' && quote == '"') {
        ++i;
      }
      token_start = false;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      token_start = true;
      continue;
    }
    if (c == '#' && token_start) {  // a comment runs to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == ',' && depth == 0 && expect) return SourceLoc{line_no, col};
    if ((c == ']' || c == '}') && depth > 0) {  // closes its collection wherever it stands
      --depth;
      expect = false;
      token_start = false;
      continue;
    }
    if (c == ',' && depth > 0) {  // the next entry of the open collection
      token_start = true;
      continue;
    }
    const bool starts = token_start;
    token_start = false;
    if (!starts && c != ':') {
      expect = false;
      continue;
    }
    switch (c) {
      case '\'':
      case '"':
        quote = c;
        expect = false;
        break;
      case '[':
      case '{':
        ++depth;
        expect = false;
        token_start = true;
        break;
      case '-':
      case '?':
        // "- " and "? " (a sequence entry, an explicit key) put a node next; "-x" is a scalar.
        expect = i + 1 >= text.size() || text[i + 1] == ' ' || text[i + 1] == '\n';
        if (expect) token_start = true;
        break;
      case ':':
        if (i + 1 >= text.size() || text[i + 1] == ' ' || text[i + 1] == '\n') {
          expect = depth == 0;
          token_start = true;
          // A value that is a block scalar: its lines are content, not tokens.
          std::size_t j = i + 1;
          while (j < text.size() && text[j] == ' ') ++j;
          if (j < text.size() && (text[j] == '|' || text[j] == '>')) block_parent = indent;
        } else {
          expect = false;
        }
        break;
      case '&':
      case '!':
        // An anchor or a tag: the node itself comes after it.
        while (i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '\n') {
          ++i;
          ++col;
        }
        break;
      case '|':
      case '>':
        if (expect) block_parent = indent;
        expect = false;
        break;
      default:
        expect = false;
        break;
    }
  }
  return std::nullopt;
}

}  // namespace

bool lint_yaml_text(std::string_view text, const std::string& display, Diagnostics& out) {
  int tabs = 0;
  int controls = 0;
  int line_no = 0;
  int block_parent = -1;  // indentation of the line that opened a block scalar; -1: not in one
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const auto c = static_cast<unsigned char>(line[i]);
      if (c < 0x20 && c != '\t' && c != '\r' && controls++ < kMaxReportsPerRule) {
        out.add(display, SourceLoc{line_no, static_cast<int>(i) + 1}, "",
                "control character " + hex_byte(c) +
                    " in the text; a YAML file holds no control characters but tab, newline and carriage return");
      }
    }
    std::size_t spaces = 0;
    while (spaces < line.size() && line[spaces] == ' ') ++spaces;
    std::size_t ws = spaces;
    while (ws < line.size() && (line[ws] == ' ' || line[ws] == '\t')) ++ws;
    const bool blank = ws == line.size() || line[ws] == '\r';
    if (block_parent >= 0) {
      if (blank || static_cast<int>(spaces) > block_parent) continue;  // block scalar content
      block_parent = -1;
    }
    if (blank || line[ws] == '#') continue;
    if (ws != spaces && tabs++ < kMaxReportsPerRule) {
      out.add(display, SourceLoc{line_no, static_cast<int>(spaces) + 1}, "",
              "YAML indentation must be spaces; a tab at " + std::to_string(line_no) + ":" +
                  std::to_string(spaces + 1));
    }
    if (opens_block_scalar(line.substr(ws))) block_parent = static_cast<int>(spaces);
  }
  if (tabs != 0 || controls != 0) return false;
  if (const auto at = comma_where_a_node_starts(text)) {
    out.add(display, *at, "",
            "',' where a value starts, outside [...] or {...}: quote the value or remove the comma "
            "(the YAML parser never returns from this text)");
    return false;
  }
  return true;
}

bool lint_yaml_tree(const YAML::Node& root, const std::string& display, Diagnostics& out) {
  struct Pending {
    YAML::Node node;
    int depth;  // collections from the root to this node, itself included
    std::string path;
  };
  bool ok = true;
  std::size_t visited = 0;
  int duplicates = 0;
  std::vector<Pending> todo;
  todo.push_back({root, 1, ""});
  while (!todo.empty()) {
    Pending p = std::move(todo.back());
    todo.pop_back();
    if (++visited > limits::kMaxYamlNodes) {
      out.add(display, {}, "",
              "more than " + std::to_string(limits::kMaxYamlNodes) +
                  " YAML nodes (kMaxYamlNodes, harness/case/limits.hpp; anchors and aliases can multiply a small file)");
      return false;
    }
    if (p.depth > limits::kMaxYamlDepth) {
      out.add(display, mark_loc(p.node.Mark()), p.path,
              "nested deeper than " + std::to_string(limits::kMaxYamlDepth) +
                  " levels of maps and lists (kMaxYamlDepth, harness/case/limits.hpp)");
      return false;  // one report: every deeper node says the same
    }
    if (p.node.IsSequence()) {
      std::size_t i = 0;
      for (const auto& item : p.node) {
        if (item.IsMap() || item.IsSequence()) {
          todo.push_back({item, p.depth + 1, p.path + "[" + std::to_string(i) + "]"});
        } else {
          ++visited;  // a scalar: nothing below it
        }
        ++i;
      }
      continue;
    }
    std::map<std::string, YAML::Mark> seen;
    for (const auto& kv : p.node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("?");
      const std::string child = p.path.empty() ? key : p.path + "." + key;
      if (kv.first.IsScalar()) {
        const auto [at, fresh] = seen.emplace(key, kv.first.Mark());
        if (!fresh) {
          ok = false;
          if (duplicates++ < kMaxReportsPerRule) {
            const SourceLoc first = mark_loc(at->second);
            out.add(display, mark_loc(kv.first.Mark()), child,
                    "duplicate key '" + key + "' (first at line " + std::to_string(first.line) + ", column " +
                        std::to_string(first.column) + "); a key appears once in a map");
          }
        }
      } else {
        todo.push_back({kv.first, p.depth + 1, child});
      }
      if (kv.second.IsMap() || kv.second.IsSequence()) {
        todo.push_back({kv.second, p.depth + 1, child});
      } else {
        ++visited;
      }
    }
  }
  return ok;
}

std::optional<YAML::Node> parse_yaml_document(std::string_view text, const std::string& display,
                                              Diagnostics& out) {
  if (!lint_yaml_text(text, display, out)) return std::nullopt;
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard, a few hundred levels down: far past ours, so say ours.
    out.add(display, mark_loc(e.mark), "",
            "nested deeper than " + std::to_string(limits::kMaxYamlDepth) +
                " levels of maps and lists (kMaxYamlDepth, harness/case/limits.hpp)");
    return std::nullopt;
  } catch (const YAML::ParserException& e) {
    out.add(display, mark_loc(e.mark), "", "YAML syntax error: " + e.msg);
    return std::nullopt;
  } catch (const std::exception& e) {
    out.add(display, {}, "", std::string("YAML error: ") + e.what());
    return std::nullopt;
  }
  if (docs.empty() || docs.front().IsNull()) {
    out.add(display, {}, "", "file is empty");
    return std::nullopt;
  }
  if (docs.size() > 1) {
    out.add(display, mark_loc(docs[1].Mark()), "", "more than one YAML document; one file holds one document");
    return std::nullopt;
  }
  if (!lint_yaml_tree(docs.front(), display, out)) return std::nullopt;
  return docs.front();
}

}  // namespace mrc::harness
