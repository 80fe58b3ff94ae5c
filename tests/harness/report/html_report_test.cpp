// index.html structure: summary, areas, coverage matrix (uncovered MUST highlighted), case
// anchors, checks with metrics/evidence/charts; self-contained (one inline script, no external URL);
// hostile text escaped; deterministic.
#include <gtest/gtest.h>

#include "harness/report/report.hpp"
#include "harness/report/text_escape.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

std::size_t count_of(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + needle.size())) ++n;
  return n;
}

// True when `s` is well-formed UTF-8 (no invalid sequence survived into the page).
bool valid_utf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + static_cast<std::size_t>(len) > s.size()) return false;
    for (int k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) & 0xC0) != 0x80) return false;
    }
    i += static_cast<std::size_t>(len);
  }
  return true;
}

TEST(HtmlReport, HasSummaryAreasCoverageAndCaseSections) {
  const std::string html = render_html(test::sample_run());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_NE(html.find("<header class=\"top\" id=\"summary\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"areas\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"coverage\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"cases\">"), std::string::npos);
  // Summary badges with counts, in verdict order.
  EXPECT_NE(html.find("<div class=\"count v-pass\"><span class=\"n\">2</span><span class=\"label\">PASS</span></div>"
                      "<div class=\"count v-fail\"><span class=\"n\">3</span><span class=\"label\">FAIL</span></div>"),
            std::string::npos);
  EXPECT_NE(html.find("<span class=\"n\">8</span><span class=\"label\">CASES</span>"), std::string::npos);
  EXPECT_NE(html.find("exit 3: harness error"), std::string::npos);
  EXPECT_NE(html.find("MUST coverage 88.9% (8 of 9)"), std::string::npos);
  // Run metadata.
  EXPECT_NE(html.find("reference:spray-single-ev"), std::string::npos);
  EXPECT_NE(html.find("stev, udp-ev, srv6, trim"), std::string::npos);
  EXPECT_NE(html.find("<code>mrc-conform run --dut reference:spray-single-ev --seed 42 --out reports/latest</code>"),
            std::string::npos);
  EXPECT_NE(html.find("8f4f26c0ab12"), std::string::npos);
  // Areas table: 7 areas + the "all" row.
  EXPECT_EQ(count_of(html, "<td class=\"area\">"), 7u);
  EXPECT_NE(html.find("<tr><th>all</th><td class=\"num\">8</td>"), std::string::npos);
  // One article per case, each with an anchor; the index links to it.
  EXPECT_EQ(count_of(html, "<article class=\"case "), 8u);
  for (const auto& c : test::sample_run().cases) {
    EXPECT_NE(html.find("id=\"case-" + c.id + "\""), std::string::npos) << c.id;
    EXPECT_GE(count_of(html, "href=\"#case-" + c.id + "\""), 2u) << c.id;  // index + heading
  }
  EXPECT_EQ(html.find("Partial run"), std::string::npos);
  EXPECT_EQ(html.substr(html.size() - 8), "</html>\n");
}

TEST(HtmlReport, CoverageMatrixShowsCasesVerdictsAndUncoveredMust) {
  const std::string html = render_html(test::sample_run());
  EXPECT_NE(html.find("<strong>10 of 12</strong> requirements have at least one case (83.3%)"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"warn\" id=\"uncovered-must\">MUST requirements without any case: "
                      "<code>EVCTL-DENIED-NOT-USED</code></p>"),
            std::string::npos);
  EXPECT_EQ(count_of(html, "<tr class=\"req req-must uncovered uncovered-must\" id=\"req-EVCTL-DENIED-NOT-USED\">"), 1u);
  EXPECT_EQ(count_of(html, "<tr class=\"req uncovered\" id=\"req-"), 1u);  // the uncovered MAY is not highlighted
  const auto row = html.find("<code>SPRAY-PER-PACKET-EV</code></td><td>MUST</td>");
  ASSERT_NE(row, std::string::npos);
  const std::string tr = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_NE(tr.find("<a href=\"#case-spray-v-001\"><code>spray-v-001</code></a> <span class=\"badge v-pass\">PASS"),
            std::string::npos)
      << tr;
  EXPECT_NE(tr.find("<a href=\"#case-spray-v-002\"><code>spray-v-002</code></a> <span class=\"badge v-fail\">FAIL"),
            std::string::npos);
  EXPECT_NE(tr.find("mrc_ctl.h EV spraying"), std::string::npos);  // source under the text
  EXPECT_NE(html.find("<code>reliab-v-009</code> <span class=\"badge v-not-run\">NOT RUN</span>"), std::string::npos);
  EXPECT_EQ(count_of(html, "<span class=\"badge v-uncovered\">UNCOVERED</span>"), 2u);
}

// The sample cut to a PASS, a published-basis MUST FAIL and a SHOULD FAIL (an advisory).
RunResult advisory_run() {
  RunResult run = test::sample_run();
  run.cases = {run.cases[0], run.cases[1]};
  CaseResult should = test::make_case("reorder-v-016", "reorder", Verdict::kFail, "SHOULD");
  should.basis = Basis::kModel;
  should.message = "no loss NACK for the hole at PSN 7";
  run.cases.push_back(should);
  return run;
}

TEST(HtmlReport, HeaderSaysConformantAndCountsFailuresApartFromAdvisories) {
  RunResult run = advisory_run();
  std::string html = render_html(run);
  EXPECT_NE(html.find("<div class=\"conformance conformant-no\" id=\"conformance\"><div class=\"verdict\">Conformant: "
                      "<strong>no</strong> <span class=\"how\">(profile full)</span></div>"
                      "<div class=\"part must-failures\"><span class=\"n\">1</span><span class=\"label\">MUST failures</span>"
                      "<span class=\"split\">published 1 &middot; spec 0 &middot; spec-single 0 &middot; model 0</span></div>"),
            std::string::npos)
      << html.substr(html.find("<header"), 1500);
  EXPECT_NE(html.find("<div class=\"part advisories\"><span class=\"n\">1</span><span class=\"label\">advisories</span>"
                      "<span class=\"split\">SHOULD/MAY 1 &middot; MUST outside the profile 0</span></div>"),
            std::string::npos);
  EXPECT_LT(html.find("id=\"conformance\""), html.find("<div class=\"counts\">"));  // above the verdict counts
  // The case index: the advisory in its own colour and words, apart from the non-conformance.
  EXPECT_NE(html.find("<tr class=\"non-conformance\" data-verdict=\"FAIL\" data-area=\"spray\" data-tags=\"\" "
                      "data-clauses=\"SPRAY-PER-PACKET-EV\"><td><a class=\"case-id\" href=\"#case-spray-v-002\">spray-v-002</a>"
                      "</td><td>spray</td><td>MUST</td><td>published</td><td><span class=\"badge v-fail\">FAIL</span> "
                      "<span class=\"tag non-conformance\">non-conformance</span>"),
            std::string::npos);
  EXPECT_NE(html.find("\"><td><a class=\"case-id\" href=\"#case-reorder-v-016\">reorder-v-016</a>"
                      "</td><td>reorder</td><td>SHOULD</td><td>model</td><td><span class=\"badge v-advisory\">FAIL</span> "
                      "<span class=\"tag advisory\">advisory</span>"),
            std::string::npos);
  EXPECT_NE(html.find("<article class=\"case case-fail advisory\" id=\"case-reorder-v-016\">"), std::string::npos);
  EXPECT_NE(html.find("<article class=\"case case-fail\" id=\"case-spray-v-002\">"), std::string::npos);
  // The table by level and basis.
  EXPECT_NE(html.find("<section id=\"outcome\"><h2>Conformance by level and basis</h2>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>SHOULD</td><td>model</td><td class=\"num\">1</td>"), std::string::npos);
  EXPECT_NE(html.find("exit 1: not conformant"), std::string::npos);

  run.cases.erase(run.cases.begin() + 1);
  html = render_html(run);
  EXPECT_NE(html.find("<div class=\"conformance conformant-yes\" id=\"conformance\"><div class=\"verdict\">Conformant: "
                      "<strong>yes</strong>"),
            std::string::npos);
  EXPECT_NE(html.find("exit 0: conformant"), std::string::npos);
  run.strict = true;
  run.profile = ConformanceProfile::kPublished;
  html = render_html(run);
  EXPECT_NE(html.find("<span class=\"how\">(profile published, --strict)</span>"), std::string::npos);
  EXPECT_NE(html.find("exit 1: "), std::string::npos);
}

TEST(HtmlReport, CoverageMatrixAndCasePagesShowTheBasis) {
  const std::string html = render_html(test::sample_run());
  EXPECT_NE(html.find("<code>SPRAY-UNIFORM-PLANES</code></td><td>SHOULD</td><td class=\"basis basis-model\">model</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<code>SPRAY-PER-PACKET-EV</code></td><td>MUST</td><td class=\"basis basis-published\">published</td>"),
            std::string::npos);
  const auto start = html.find("id=\"case-spray-v-001\"");
  ASSERT_NE(start, std::string::npos);
  const std::string art = html.substr(start, html.find("</article>", start) - start);
  EXPECT_NE(art.find("<dt>Basis</dt><dd>model <span class=\"dim\">(in part the project's own choice where no source "
                     "fixes it)</span></dd>"),
            std::string::npos);
}

TEST(HtmlReport, CaseSectionShowsChecksMetricsEvidenceAndCharts) {
  const std::string html = render_html(test::sample_run());
  const auto start = html.find("<article class=\"case case-fail\" id=\"case-spray-v-002\">");
  ASSERT_NE(start, std::string::npos);
  const std::string art = html.substr(start, html.find("</article>", start) - start);
  EXPECT_NE(art.find("<dt>Clauses</dt><dd><a href=\"#req-SPRAY-PER-PACKET-EV\"><code>SPRAY-PER-PACKET-EV</code></a></dd>"),
            std::string::npos);
  EXPECT_NE(art.find("<dt>Level</dt><dd>MUST</dd><dt>Basis</dt><dd>published <span class=\"dim\">(published sources "
                     "only: host API, standards, the MRC paper)</span></dd><dt>Behaviour</dt><dd>valid</dd>"),
            std::string::npos);
  EXPECT_NE(art.find("distribution/ev: 1 of 16 EVs carried 100% of packets (p &lt; 1e-300)"), std::string::npos);
  EXPECT_EQ(count_of(art, "<section class=\"check "), 3u);
  // Metrics, including the non-finite ones and a duration shown readably.
  EXPECT_NE(art.find("<code>p_undefined</code></td><td class=\"num\">NaN</td>"), std::string::npos);
  EXPECT_NE(art.find("<code>bound</code></td><td class=\"num\">inf</td>"), std::string::npos);
  EXPECT_NE(art.find("<code>gap_ns</code></td><td class=\"num\">1234567 <span class=\"dim\">(1.235 ms)</span>"),
            std::string::npos);
  // Evidence: relative pcap link, the Wireshark frame number (one numbering), field,
  // expected/observed, filter and the command that opens the file at that frame.
  EXPECT_NE(art.find("<td><a class=\"file\" href=\"evidence/spray-v-002/dut0.pcapng\">evidence/spray-v-002/dut0.pcapng"
                     "</a></td><td class=\"num\">42</td>"),
            std::string::npos);
  EXPECT_NE(art.find("<td><code>udp.sport</code></td><td class=\"expected\"><code>49152..65535 (hashed EV)</code></td>"
                     "<td class=\"observed\"><code>4791</code></td><td><code class=\"filter\">frame.number == 42</code>"
                     "<br><code class=\"cmd\">wireshark -r &#39;evidence/spray-v-002/dut0.pcapng&#39; -Y &#39;frame.number == "
                     "42&#39;</code>"),
            std::string::npos);
  EXPECT_NE(art.find("href=\"evidence/spray-v-002/tap%201.pcapng\""), std::string::npos);  // encoded space
  EXPECT_NE(art.find("<figure class=\"chart\"><svg class=\"chart chart-bars\""), std::string::npos);
  EXPECT_NE(art.find("<title>Packets per EV</title>"), std::string::npos);
  // An evidence row about no single packet: dashes, not empty boxes.
  EXPECT_NE(art.find("<td>\xE2\x80\x94</td><td>\xE2\x80\x94</td><td>\xE2\x80\x94</td><td>\xE2\x80\x94</td><td class=\"expected\">"
                     "\xE2\x80\x94</td><td class=\"observed\">\xE2\x80\x94</td><td>\xE2\x80\x94</td><td>16 EVs configured, 1 used</td>"),
            std::string::npos);

  const auto fo = html.find("id=\"case-failover-v-001\"");
  ASSERT_NE(fo, std::string::npos);
  const std::string fo_art = html.substr(fo, html.find("</article>", fo) - fo);
  EXPECT_NE(fo_art.find("<svg class=\"chart chart-timeline\""), std::string::npos);
  EXPECT_EQ(count_of(fo_art, "<title>marker "), 3u);
  EXPECT_NE(fo_art.find("Expected by the DUT&#39;s expectation file</strong>: late retransmit"), std::string::npos);
  EXPECT_NE(fo_art.find("<code>https://bugs.example.invalid/mrc/123</code>"), std::string::npos);  // text, not a link

  EXPECT_NE(html.find("No check ran for this case."), std::string::npos);  // the UNSUPPORTED case
}

TEST(HtmlReport, CasePageShowsTheTimingBudgetOnlyWhenThereIsOne) {
  RunResult run = test::sample_run();
  const std::string plain = render_html(run);
  EXPECT_EQ(plain.find("Timing budget"), std::string::npos);
  EXPECT_NE(plain.find("(schema mrc-conform/results/1.7)"), std::string::npos);
  EXPECT_NE(plain.find("<dt>Wire</dt><dd>mrc-1.0 spec-derived, model rev 2</dd>"), std::string::npos);
  run.cases[1].timing_budget = TimingBudget{200'000, "real-time bridge (testbed netns)"};
  const std::string html = render_html(run);
  const auto start = html.find("id=\"case-" + run.cases[1].id + "\"");
  ASSERT_NE(start, std::string::npos);
  const std::string art = html.substr(start, html.find("</article>", start) - start);
  EXPECT_NE(art.find("<dt>Timing budget</dt><dd>" + format_duration_ns(200'000) +
                     " <span class=\"dim\">(200000 ns, declared by real-time bridge "
                     "(testbed netns); every timing bound of this case was widened by it)</span></dd>"),
            std::string::npos)
      << art;
  EXPECT_EQ(count_of(html, "Timing budget"), 1u);

}

TEST(HtmlReport, IsSelfContainedWithOneInlineScriptAndNoExternalUrl) {
  const std::string html = render_html(test::sample_run());
  // The one script is the case filter's, inline, and reaches nothing outside the page.
  ASSERT_EQ(count_of(html, "<script"), 1u);
  const std::size_t script = html.find("<script>");
  ASSERT_NE(script, std::string::npos);
  const std::string code = html.substr(script, html.find("</script>", script) - script);
  for (const char* banned : {"http", "fetch", "XMLHttpRequest", "import", "src", "eval", "innerHTML"}) {
    EXPECT_EQ(code.find(banned), std::string::npos) << banned;
  }
  const std::string rest = html.substr(0, script) + html.substr(html.find("</script>", script));
  for (const char* banned : {"<script", "<link", "<iframe", "<img", "<object", "<embed", "src=", "url(", "@import",
                             "href=\"javascript:", "xmlns", "http://", "//fonts"}) {
    // The only "http" text is the expectation link, shown as text.
    if (std::string_view(banned) == "http://") continue;
    EXPECT_EQ(rest.find(banned), std::string::npos) << banned;
  }
  std::size_t links = 0;
  const std::string attr = "href=\"";
  for (auto pos = html.find(attr); pos != std::string::npos; pos = html.find(attr, pos + 1)) {
    const auto start = pos + attr.size();
    const std::string target = html.substr(start, html.find('"', start) - start);
    ++links;
    EXPECT_FALSE(target.empty());
    EXPECT_EQ(target.find(':'), std::string::npos) << target;  // no scheme
    EXPECT_NE(target.front(), '/') << target;                  // nothing absolute
  }
  EXPECT_GT(links, 20u);
  // A run whose strings hold no URL renders no URL at all.
  RunResult plain = test::sample_run();
  for (auto& c : plain.cases) c.expectation_link = "bug 123";
  const std::string page = render_html(plain);
  EXPECT_EQ(page.find("http"), std::string::npos);
  EXPECT_EQ(page.find("//"), std::string::npos);
}

TEST(HtmlReport, HeaderNamesThePeerOnlyWhenItIsNotTheDefault) {
  EXPECT_EQ(render_html(test::sample_run()).find("against peer"), std::string::npos);
  RunResult run = test::sample_run();
  run.meta.peer = "reference:<sack-off-by-one>";
  const std::string html = render_html(run);
  EXPECT_NE(html.find("against peer <strong id=\"peer\">reference:&lt;sack-off-by-one&gt;</strong> on testbed"),
            std::string::npos);
}

TEST(HtmlReport, PartialRunShowsABanner) {
  RunResult run = test::sample_run();
  run.interrupted = true;
  const std::string html = render_html(run);
  EXPECT_NE(html.find("<div class=\"banner partial\" id=\"partial-run\" role=\"alert\"><strong>Partial run.</strong>"),
            std::string::npos);
  EXPECT_NE(html.find("<title>[partial] MRC conformance report"), std::string::npos);
  EXPECT_NE(html.find("8 case(s) are reported below"), std::string::npos);
}

TEST(HtmlReport, HostileTextIsEscapedEverywhere) {
  const RunResult run = test::hostile_run();
  const std::string html = render_html(run);
  EXPECT_EQ(count_of(html, "<script"), 1u);  // the filter's own, no hostile text's
  EXPECT_EQ(html.find("</svg><script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);  // from the evidence field name
  EXPECT_EQ(html.find("<tag>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot; \\u0001\\u0007\\u001B[31m"),
            std::string::npos);
  EXPECT_NE(html.find("bth.psn&quot;&gt;&lt;b&gt;"), std::string::npos);
  EXPECT_NE(html.find("nul[\\u0000] bell\\u0007"), std::string::npos);
  EXPECT_TRUE(valid_utf8(html));
  for (char c : html) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_FALSE(u < 0x20 && c != '\n' && c != '\t' && c != '\r') << "raw control byte " << int(u);
  }
  // Hostile evidence paths are never links: a scheme-like name is percent-encoded into a relative
  // path, an absolute path is shown as text.
  EXPECT_NE(html.find("href=\"javascript%3Aalert%281%29\""), std::string::npos);
  EXPECT_EQ(html.find("href=\"/etc/passwd\""), std::string::npos);
  EXPECT_NE(html.find("<code>/etc/passwd</code>"), std::string::npos);
  EXPECT_NE(html.find("<code>../outside.pcapng</code>"), std::string::npos);  // would leave the folder
  EXPECT_NE(html.find("href=\"evidence/r%22e%3Co%3Er%26d%27er.pcapng\""), std::string::npos);
}

TEST(HtmlReport, DuplicateAndOddCaseIdsGetDistinctAnchors) {
  RunResult run;
  for (const char* id : {"a b", "a_b", "a b", "x\"><script>"}) run.cases.push_back(test::make_case(id, "spray", Verdict::kPass));
  const std::string html = render_html(run);
  EXPECT_NE(html.find("id=\"case-a_b\""), std::string::npos);
  EXPECT_NE(html.find("id=\"case-a_b-2\""), std::string::npos);
  EXPECT_NE(html.find("id=\"case-a_b-3\""), std::string::npos);
  EXPECT_NE(html.find("id=\"case-x___script_\""), std::string::npos);
  EXPECT_EQ(count_of(html, "<script"), 1u);  // the filter's own
}

TEST(HtmlReport, EmptyRunStillRenders) {
  const std::string html = render_html(RunResult{});
  EXPECT_NE(html.find("No case ran."), std::string::npos);
  EXPECT_NE(html.find("This run carries no requirement index."), std::string::npos);
  EXPECT_NE(html.find("MUST coverage n/a"), std::string::npos);
}

TEST(HtmlReport, SameRunGivesByteIdenticalText) {
  EXPECT_EQ(render_html(test::sample_run()), render_html(test::sample_run()));
  EXPECT_EQ(render_html(test::hostile_run()), render_html(test::hostile_run()));
  EXPECT_EQ(render_html(test::sample_run_with_wall_clock()), render_html(test::sample_run_with_wall_clock()));
}

// The reader of a failing report starts at the top: MUST failures, then advisories, then cases
// not judged, each linking to its case with its first finding; the case index lists failures
// first, each row carrying what the offline filter selects by; clause ids link to their text.
TEST(HtmlReport, FailuresComeFirstAndLinkToTheirCase) {
  const RunResult run = test::sample_run();
  const std::string html = render_html(run);
  const std::size_t findings = html.find("<section id=\"findings\">");
  ASSERT_NE(findings, std::string::npos);
  EXPECT_LT(findings, html.find("<section id=\"outcome\""));
  const std::size_t must = html.find("id=\"findings-must\"", findings);
  const std::size_t adv = html.find("id=\"findings-advisories\"", findings);
  const std::size_t unjudged = html.find("id=\"findings-unjudged\"", findings);
  ASSERT_NE(must, std::string::npos);
  ASSERT_NE(unjudged, std::string::npos);
  if (adv != std::string::npos) {
    EXPECT_LT(must, adv);
  }
  EXPECT_LT(must, unjudged);
  const std::string first = html.substr(must, html.find("</ol>", must) - must);
  EXPECT_NE(first.find("<a href=\"#case-spray-v-002\"><code>spray-v-002</code></a>"), std::string::npos) << first;
  EXPECT_NE(first.find("udp.sport expected 49152..65535 (hashed EV), observed 4791 (evidence/spray-v-002/dut0.pcapng frame 42)"),
            std::string::npos)
      << first;
  // The index: the first row is a failure, not the first case of the run (a PASS).
  const std::size_t index = html.find("<table class=\"case-index\">");
  ASSERT_NE(index, std::string::npos);
  const std::size_t row = html.find("<tr", html.find("<tbody>", index));
  EXPECT_EQ(html.substr(row, 60).find("data-verdict=\"PASS\""), std::string::npos) << html.substr(row, 200);
  EXPECT_NE(html.find("data-verdict=\"FAIL\" data-area=\"spray\""), std::string::npos);
  EXPECT_NE(html.find("<form class=\"case-filter\" id=\"case-filter\""), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#req-SPRAY-PER-PACKET-EV\"><code>SPRAY-PER-PACKET-EV</code></a>"), std::string::npos);
}

TEST(HtmlReport, ACleanRunSaysNothingFailed) {
  RunResult run;
  run.cases.push_back(test::make_case("spray-v-001", "spray", Verdict::kPass));
  EXPECT_NE(render_html(run).find("id=\"no-findings\">Nothing failed and nothing was left unjudged."), std::string::npos);
}

// A run over a real-time bridge says at the top what the bridge carried and lost and its worst
// lag against the budget, naming the cases; a run on the simulated fabric says nothing of it.
TEST(HtmlReport, ABridgedRunSaysAtTheTopWhatTheBridgeCarriedAndLost) {
  EXPECT_EQ(render_html(test::sample_run()).find("id=\"bridge-health\""), std::string::npos);
  RunResult run = test::sample_run();
  run.cases[0].timing_budget = TimingBudget{500'000, "real-time bridge (--testbed netns)"};
  run.cases[0].bridge = BridgeStats{1000, 800, 0, 120'000, 400'000, 90'000};
  run.cases[1].timing_budget = run.cases[0].timing_budget;
  run.cases[1].bridge = BridgeStats{2000, 1500, 7, 650'000, 2'000'000, 100'000};
  const std::string html = render_html(run);
  const std::size_t at = html.find("<p class=\"bridge-health bad\" id=\"bridge-health\">");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(at, html.find("<section id=\"findings\">"));
  const std::string line = html.substr(at, html.find("</p>", at) - at);
  EXPECT_NE(line.find("Real-time bridge over 2 case(s): 3000 frames to the DUT, 2300 from it, 7 lost (in 1 case(s): "
                      "spray-v-002); worst added lag p99 "),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("(spray-v-002) against a timing budget of "), std::string::npos) << line;
  EXPECT_NE(line.find("passed in 1 case(s): spray-v-002"), std::string::npos) << line;
}

}  // namespace
}  // namespace mrc::harness
