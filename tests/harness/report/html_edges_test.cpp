// The edge audit table of index.html (html_edges.cpp): one row per edge, the requirement cell
// spanning its edges, each reaching case linked with its verdict of the run (NOT RUN when it did
// not run), the edge's worst verdict; nothing at all when the run carries no audit.
#include <gtest/gtest.h>

#include "harness/report/report.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

std::string section(const std::string& html) {
  const auto b = html.find("<section id=\"edges\">");
  if (b == std::string::npos) return {};
  return html.substr(b, html.find("</section>", b) - b);
}

RunResult with_edges() {
  RunResult r = test::sample_run();  // spray-v-001 PASS, spray-v-002 FAIL, ...
  r.edges = {
      {"SPRAY-PER-PACKET-EV", "one-large-message", "the packets of one message", {"spray-v-001"}},
      {"SPRAY-PER-PACKET-EV", "denied-midway", "EVs denied <mid> transfer", {"spray-v-001", "spray-v-002"}},
      {"SPRAY-PORT-FROM-EV", "every-port", "each EV on its own port", {"spray-v-004"}},
  };
  return r;
}

TEST(HtmlEdges, TableRowsCasesAndVerdicts) {
  const std::string html = render_html(with_edges());
  const std::string s = section(html);
  ASSERT_FALSE(s.empty());
  EXPECT_NE(s.find("<h2>Requirement edges</h2>"), std::string::npos);
  EXPECT_NE(s.find("<strong>3</strong> edges of <strong>2</strong> requirements"), std::string::npos) << s;
  EXPECT_NE(s.find("1 with every case that ran passing, 1 with a case that did not pass, 1 whose cases did not run"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("<td class=\"req-id\" rowspan=\"2\"><code>SPRAY-PER-PACKET-EV</code></td>"), std::string::npos) << s;
  EXPECT_NE(s.find("<td class=\"req-id\" rowspan=\"1\"><code>SPRAY-PORT-FROM-EV</code></td>"), std::string::npos) << s;
  EXPECT_NE(s.find("<code>one-large-message</code>"), std::string::npos);
  EXPECT_NE(s.find("EVs denied &lt;mid&gt; transfer"), std::string::npos);  // escaped
  EXPECT_NE(s.find("href=\"#case-spray-v-001\""), std::string::npos) << s;
  EXPECT_NE(s.find("<code>spray-v-004</code> <span class=\"badge v-not-run\">NOT RUN</span>"), std::string::npos) << s;
  // The denied-midway edge: spray-v-002 FAILed, so the edge's verdict is FAIL.
  const auto row = s.find("denied-midway");
  ASSERT_NE(row, std::string::npos);
  const std::string tr = s.substr(row, s.find("</tr>", row) - row);
  EXPECT_NE(tr.find("badge v-fail\">FAIL</span></td>"), std::string::npos) << tr;
  // The section follows the coverage matrix.
  EXPECT_LT(html.find("<section id=\"coverage\">"), html.find("<section id=\"edges\">"));
}

TEST(HtmlEdges, NoAuditNoSection) {
  const RunResult r = test::sample_run();
  ASSERT_TRUE(r.edges.empty());
  EXPECT_EQ(render_html(r).find("id=\"edges\""), std::string::npos);
}

TEST(HtmlEdges, Deterministic) { EXPECT_EQ(render_html(with_edges()), render_html(with_edges())); }

}  // namespace
}  // namespace mrc::harness
