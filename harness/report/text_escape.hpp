// Escaping of untrusted text for the XML and HTML reports, and number formatting that prints the
// same characters on every platform.
//
// Everything a report shows comes from a DUT, a case file or a capture, so every string is
// treated as hostile: markup characters become entities, invalid UTF-8 becomes U+FFFD, and
// control characters (which XML 1.0 cannot carry at all, not even as character references)
// become a visible `\u00XX` so the reader still sees that they were there.
#pragma once

#include <string>
#include <string_view>

namespace mrc::harness {

// Text content of an XML element: & < > escaped, CR kept as &#13; (parsers would drop it).
std::string xml_text(std::string_view s);
// An XML attribute value (in double quotes): also " ' and TAB/LF/CR as character references,
// which survive attribute-value normalisation.
std::string xml_attr(std::string_view s);
// HTML text or double-quoted attribute value: & < > " ' escaped.
std::string html_escape(std::string_view s);

// A relative link target for an evidence file: percent-encodes everything except unreserved
// characters and '/', so the result can never carry a scheme (':' is encoded) and never leaves
// the attribute. Empty when `path` is not a relative path inside the report folder (empty,
// absolute, starting with "//" or "\\", or with a ".." segment): such a path is shown as text,
// never linked.
std::string relative_href(std::string_view path);

// `s` with every character outside [A-Za-z0-9._-] replaced by `with`: usable as an HTML id, a
// file name or a URL path segment as it is (the caller keeps it unique).
std::string safe_name(std::string_view s, char with);

// Shortest decimal that reads back as the same double (std::to_chars), in plain notation for
// magnitudes in [1e-4, 1e15) and scientific outside: deterministic on every platform.
// Non-finite values print as "NaN", "inf", "-inf".
std::string format_number(double v);
// Fixed-point with `decimals` digits, for SVG coordinates ("12.50"); non-finite prints "0".
std::string format_fixed(double v, int decimals);
// A nanosecond duration in the largest unit that keeps it readable: "850 ns", "12.5 us",
// "3.25 ms", "1.5 s" (at most 4 significant digits).
std::string format_duration_ns(double ns);

}  // namespace mrc::harness
