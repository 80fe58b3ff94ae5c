#include "harness/report/text_escape.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace mrc::harness {
namespace {

constexpr char32_t kInvalid = 0xFFFFFFFF;

// Decodes one UTF-8 sequence at s[i] and advances i. A malformed sequence (bad lead byte,
// truncation, overlong form, surrogate, > U+10FFFF) consumes one byte and returns kInvalid.
char32_t decode_utf8(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  int len = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    ++i;
    return kInvalid;
  }
  if (i + static_cast<std::size_t>(len) > s.size()) {
    ++i;
    return kInvalid;
  }
  for (int k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return kInvalid;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return kInvalid;
  }
  i += static_cast<std::size_t>(len);
  return cp;
}

// Code points that are shown as a visible \uXXXX instead of being emitted: C0 controls other
// than TAB/LF/CR, DEL and the C1 controls, and the XML non-characters U+FFFE/U+FFFF.
bool shown_as_escape(char32_t cp) {
  if (cp < 0x20) return cp != '\t' && cp != '\n' && cp != '\r';
  return (cp >= 0x7F && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF;
}

void append_hex4(std::string& out, char32_t cp) {
  static constexpr std::string_view kHex = "0123456789ABCDEF";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xF];
}

enum class Mode { kXmlText, kXmlAttr, kHtml };

std::string escape(std::string_view s, Mode mode) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t start = i;
    const char32_t cp = decode_utf8(s, i);
    if (cp == kInvalid) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      continue;
    }
    if (shown_as_escape(cp)) {
      append_hex4(out, cp);
      continue;
    }
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += mode == Mode::kXmlText ? "\"" : "&quot;"; break;
      case '\'': out += mode == Mode::kXmlText ? "'" : "&#39;"; break;
      case '\t': out += mode == Mode::kXmlAttr ? "&#9;" : "\t"; break;
      case '\n': out += mode == Mode::kXmlAttr ? "&#10;" : "\n"; break;
      case '\r': out += mode == Mode::kHtml ? "\r" : "&#13;"; break;
      default: out.append(s.substr(start, i - start));
    }
  }
  return out;
}

std::string chars_or_zero(double v, std::chars_format fmt, int precision) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, fmt, precision);
  if (r.ec != std::errc{}) return "0";
  return std::string(buf.data(), r.ptr);
}

// Drops trailing zeros (and a trailing '.') of a fixed-point number.
std::string trim_fraction(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

}  // namespace

std::string xml_text(std::string_view s) { return escape(s, Mode::kXmlText); }
std::string xml_attr(std::string_view s) { return escape(s, Mode::kXmlAttr); }
std::string html_escape(std::string_view s) { return escape(s, Mode::kHtml); }

std::string safe_name(std::string_view s, char with) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    out += keep ? ch : with;
  }
  return out;
}

std::string relative_href(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.front() == '\\') return {};
  // A ".." segment would climb out of the report folder.
  for (std::size_t start = 0; start <= path.size();) {
    const std::size_t end = std::min(path.find_first_of("/\\", start), path.size());
    if (path.substr(start, end - start) == "..") return {};
    start = end + 1;
  }
  static constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                            c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Plain notation where people read numbers ("1000000", "0.0123"), scientific outside it
  // ("1e-300"); both the shortest text that reads back as the same double.
  const double mag = std::fabs(v);
  const bool plain = mag == 0 || (mag >= 1e-4 && mag < 1e15);
  std::array<char, 512> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v,
                               plain ? std::chars_format::fixed : std::chars_format::scientific);
  if (r.ec != std::errc{}) return "NaN";
  return std::string(buf.data(), r.ptr);
}

std::string format_fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "0";
  std::string s = chars_or_zero(v, std::chars_format::fixed, decimals);
  if (s.find_first_not_of("-0.") == std::string::npos) s = chars_or_zero(0.0, std::chars_format::fixed, decimals);
  return s;
}

std::string format_duration_ns(double ns) {
  if (!std::isfinite(ns)) return format_number(ns);
  struct Unit {
    double scale;
    std::string_view name;
  };
  static constexpr std::array<Unit, 4> kUnits{{{1e9, "s"}, {1e6, "ms"}, {1e3, "\xC2\xB5s"}, {1.0, "ns"}}};
  const double mag = std::fabs(ns);
  Unit unit = kUnits.back();
  for (const auto& u : kUnits) {
    if (mag >= u.scale) {
      unit = u;
      break;
    }
  }
  const double scaled = ns / unit.scale;
  const double smag = std::fabs(scaled);
  const int decimals = smag >= 1000 ? 0 : smag >= 100 ? 1 : smag >= 10 ? 2 : 3;
  std::string out = trim_fraction(chars_or_zero(scaled, std::chars_format::fixed, decimals));
  out += ' ';
  out += unit.name;
  return out;
}

}  // namespace mrc::harness
