// Escaping and number formatting used by every text report.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/report/text_escape.hpp"

namespace mrc::harness {
namespace {

TEST(TextEscape, MarkupCharactersPerContext) {
  const std::string s = "<a href=\"x\">&'</a>";
  EXPECT_EQ(html_escape(s), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(xml_text(s), "&lt;a href=\"x\"&gt;&amp;'&lt;/a&gt;");
  EXPECT_EQ(xml_attr(s), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

TEST(TextEscape, WhitespaceSurvivesAttributeNormalisation) {
  EXPECT_EQ(xml_attr("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
  EXPECT_EQ(xml_text("a\tb\nc\rd"), "a\tb\nc&#13;d");
  EXPECT_EQ(html_escape("a\tb\nc\rd"), "a\tb\nc\rd");
}

TEST(TextEscape, ControlCharactersBecomeVisible) {
  const std::string s = std::string("x") + '\0' + "\x01\x1f\x7f\xc2\x80\xc2\x9f\xef\xbf\xbe\xef\xbf\xbfy";
  const std::string want = "x\\u0000\\u0001\\u001F\\u007F\\u0080\\u009F\\uFFFE\\uFFFFy";
  EXPECT_EQ(html_escape(s), want);
  EXPECT_EQ(xml_text(s), want);
  EXPECT_EQ(xml_attr(s), want);
}

TEST(TextEscape, InvalidUtf8BecomesReplacementCharacters) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(html_escape("\xff"), r);
  EXPECT_EQ(html_escape("\xc0\xaf"), r + r);          // overlong '/'
  EXPECT_EQ(html_escape("\xed\xa0\x80"), r + r + r);  // surrogate
  EXPECT_EQ(html_escape("\xf4\x90\x80\x80"), r + r + r + r);  // > U+10FFFF
  EXPECT_EQ(html_escape("a\xe2\x82"), "a" + r + r);   // truncated
  // Valid multi-byte text passes through unchanged.
  EXPECT_EQ(html_escape("\xc2\xb5s \xe2\x86\x92 \xf0\x9f\x98\x80"), "\xc2\xb5s \xe2\x86\x92 \xf0\x9f\x98\x80");
}

TEST(TextEscape, RelativeHrefNeverCarriesASchemeOrLeavesTheFolder) {
  EXPECT_EQ(relative_href("evidence/a-b_c.d~e/x.pcapng"), "evidence/a-b_c.d~e/x.pcapng");
  EXPECT_EQ(relative_href("tap 1.pcapng"), "tap%201.pcapng");
  EXPECT_EQ(relative_href("javascript:alert(1)"), "javascript%3Aalert%281%29");
  EXPECT_EQ(relative_href("a\"b<c>#?"), "a%22b%3Cc%3E%23%3F");
  EXPECT_EQ(relative_href("\xc2\xb5"), "%C2%B5");
  EXPECT_EQ(relative_href("/etc/passwd"), "");
  EXPECT_EQ(relative_href("//host/x"), "");
  EXPECT_EQ(relative_href("\\\\host\\x"), "");
  EXPECT_EQ(relative_href(""), "");
  EXPECT_EQ(relative_href("../up.pcapng"), "");
  EXPECT_EQ(relative_href("evidence/../../up.pcapng"), "");
  EXPECT_EQ(relative_href("evidence\\..\\x"), "");
  EXPECT_EQ(relative_href("evidence/..x/a..b"), "evidence/..x/a..b");
}

TEST(TextEscape, NumbersPrintTheSameEverywhere) {
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(0.1 + 0.2), "0.30000000000000004");  // shortest round trip, not rounded
  EXPECT_EQ(format_number(10000), "10000");
  EXPECT_EQ(format_number(1000000), "1000000");  // not "1e+06"
  EXPECT_EQ(format_number(0.0001), "0.0001");
  EXPECT_EQ(format_number(0.00001), "1e-05");
  EXPECT_EQ(format_number(1e15), "1e+15");
  EXPECT_EQ(format_number(-2.5), "-2.5");
  EXPECT_EQ(format_number(1e-300), "1e-300");
  EXPECT_EQ(format_number(std::nan("")), "NaN");
  EXPECT_EQ(format_number(INFINITY), "inf");
  EXPECT_EQ(format_number(-INFINITY), "-inf");
  EXPECT_EQ(format_fixed(12.345, 1), "12.3");
  EXPECT_EQ(format_fixed(-0.04, 1), "0.0");  // no "-0.0"
  EXPECT_EQ(format_fixed(std::nan(""), 2), "0");
}

TEST(TextEscape, DurationsPickAReadableUnit) {
  EXPECT_EQ(format_duration_ns(0), "0 ns");
  EXPECT_EQ(format_duration_ns(850), "850 ns");
  EXPECT_EQ(format_duration_ns(12500), "12.5 \xc2\xb5s");
  EXPECT_EQ(format_duration_ns(1500000), "1.5 ms");
  EXPECT_EQ(format_duration_ns(1234567), "1.235 ms");
  EXPECT_EQ(format_duration_ns(2.5e9), "2.5 s");
  EXPECT_EQ(format_duration_ns(3.6e12), "3600 s");
  EXPECT_EQ(format_duration_ns(-2000), "-2 \xc2\xb5s");
  EXPECT_EQ(format_duration_ns(INFINITY), "inf");
}

}  // namespace
}  // namespace mrc::harness
