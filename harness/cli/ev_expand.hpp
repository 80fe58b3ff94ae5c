// `mrc-ev` / `mrc-conform ev-expand`: load an EV format profile, an EV profile and its EVs from a
// YAML file, validate them with the reference controller model, and print each EV expanded.
//
// Output, one line per EV:  `<index> <port> ev=<hex bytes> wire=<hex bytes>` (trailing zero
// bytes past the format width are not printed) plus ` da=<IPv6>` (and ` srh=<IPv6>` when bytes
// 16..31 are non-zero) for SRv6.
// Exit codes: 0 ok; 2 invalid profile or YAML, with `error: <file>:<line>:<col>: ...` on `err`.
#pragma once

#include <iosfwd>
#include <string>

namespace mrc::cli {

int run_ev_expand(const std::string& yaml_path, std::ostream& out, std::ostream& err);

}  // namespace mrc::cli
