#include "reference/cc_config.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <string_view>

namespace mrc::ref {
namespace {

bool is_sep(char c) { return c == ',' || c == ';' || c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

template <typename T>
bool parse_uint(std::string_view v, T& out) {
  std::uint64_t x = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (r.ec != std::errc{} || r.ptr != v.data() + v.size()) return false;
  if (x > static_cast<std::uint64_t>(static_cast<T>(~T{0}))) return false;
  out = static_cast<T>(x);
  return true;
}

bool parse_float(std::string_view v, float& out) {
  // std::from_chars for float is available in GCC 12.
  float x = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (r.ec != std::errc{} || r.ptr != v.data() + v.size() || !std::isfinite(x)) return false;
  out = x;
  return true;
}

bool apply(std::string_view k, std::string_view v, cc::NsccConfig& c) {
  if (k == "disable_qa") return parse_uint(v, c.disable_qa);
  if (k == "adjust_bytes_threshold") return parse_uint(v, c.adjust_bytes_threshold);
  if (k == "adjust_period_threshold") return parse_uint(v, c.adjust_period_threshold);
  if (k == "base_rtt") return parse_uint(v, c.base_rtt);
  if (k == "eta") return parse_float(v, c.eta);
  if (k == "fi") return parse_float(v, c.fi);
  if (k == "fi_scale") return parse_float(v, c.fi_scale);
  if (k == "gamma") return parse_float(v, c.gamma);
  if (k == "max_md_jump") return parse_float(v, c.max_md_jump);
  if (k == "max_cwnd") return parse_uint(v, c.max_cwnd);
  if (k == "qa_gate") return parse_uint(v, c.qa_gate);
  if (k == "qa_threshold") return parse_uint(v, c.qa_threshold);
  if (k == "target_delay") return parse_uint(v, c.target_delay);
  if (k == "line_rate_bps") return parse_uint(v, c.line_rate_bps);
  if (k == "fabric_trims") {
    std::uint8_t b = 0;
    if (!parse_uint(v, b) || b > 1) return false;
    c.fabric_trims = b != 0;
    return true;
  }
  return false;
}

}  // namespace

int parse_nscc_config(std::span<const std::uint8_t> config, cc::NsccConfig& out, std::string* why) {
  const std::string_view text(reinterpret_cast<const char*>(config.data()), config.size());
  cc::NsccConfig c = out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_sep(text[i])) ++i;
    std::size_t j = i;
    while (j < text.size() && !is_sep(text[j])) ++j;
    if (j == i) break;
    const std::string_view pair = text.substr(i, j - i);
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos || !apply(pair.substr(0, eq), pair.substr(eq + 1), c)) {
      if (why) *why = "bad NSCC config pair '" + std::string(pair) + "'";
      return EINVAL;
    }
    i = j;
  }
  out = c;
  return 0;
}

}  // namespace mrc::ref
