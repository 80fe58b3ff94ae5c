// Checks every YAML file the harness reads goes through, before and after yaml-cpp parses it:
// yaml-cpp itself accepts duplicate keys (the first wins, silently), reports a tab in indentation
// as "illegal map value", a nesting bomb as "bad file", and keeps NUL bytes inside strings. These
// turn each of them into a located diagnostic naming the rule or the limit (limits.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "harness/case/diagnostics.hpp"

namespace mrc::harness {

// Text rules, before parsing: no tab in a line's indentation (block scalar content may hold
// tabs after its indentation), no C0 control character other than tab, newline and carriage
// return. Returns false after adding diagnostics (at most a few per rule).
bool lint_yaml_text(std::string_view text, const std::string& display, Diagnostics& out);

// Tree rules, after parsing: no map with the same key twice, no nesting deeper than
// limits::kMaxYamlDepth, no more than limits::kMaxYamlNodes nodes visited (aliases can make a
// small file a huge tree). Iterative: a deep tree cannot overflow the stack.
bool lint_yaml_tree(const YAML::Node& root, const std::string& display, Diagnostics& out);

// The single document in `text` after both rule sets, or nullopt after adding diagnostics:
// syntax errors (yaml-cpp's mark), nesting past yaml-cpp's own guard, an empty text, several
// documents.
std::optional<YAML::Node> parse_yaml_document(std::string_view text, const std::string& display,
                                              Diagnostics& out);

}  // namespace mrc::harness
