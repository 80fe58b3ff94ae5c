// The stylesheet inlined into index.html. Plain CSS, system fonts only, nothing fetched; prints
// legibly (verdict colours are also spelled out as text, so grey-scale printouts stay readable).
#include "harness/report/html_parts.hpp"

namespace mrc::harness::html {

std::string_view stylesheet() {
  return R"css(
:root {
  --pass: #1a7f37; --fail: #cf222e; --unsupported: #6e7781; --inconclusive: #9a6700; --error: #8250df;
  --advisory: #bc4c00;
  --ink: #1f2328; --dim: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --accent: #0969da;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", Arial, sans-serif;
       color: var(--ink); background: #fff; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
code { background: var(--soft); border-radius: 4px; padding: 0 4px; word-break: break-word; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
h1 { font-size: 24px; margin: 0; }
h2 { font-size: 19px; margin: 32px 0 10px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 0 0 6px; }
h4 { font-size: 14px; margin: 0 0 4px; }
.dim { color: var(--dim); }
.note { color: var(--dim); font-style: italic; }
header.top { background: #24292f; color: #fff; padding: 20px 32px 18px; }
header.top a { color: #9ecbff; }
header.top code { background: rgba(255,255,255,.12); color: #fff; }
.title-row { display: flex; align-items: baseline; gap: 16px; flex-wrap: wrap; }
.title-row .dut { color: #c9d1d9; font-size: 15px; }
.banner.partial { margin: 14px 0 0; padding: 10px 14px; border-radius: 6px; background: #fff8c5;
                  color: #3b2300; border: 1px solid #d4a72c; font-size: 15px; }
.counts { display: flex; gap: 10px; flex-wrap: wrap; margin: 16px 0 10px; }
.count { min-width: 104px; padding: 8px 14px; border-radius: 8px; background: rgba(255,255,255,.08);
         border-top: 4px solid #8c959f; }
.count .n { display: block; font-size: 26px; font-weight: 700; line-height: 1.1; }
.count .label { font-size: 12px; letter-spacing: .04em; color: #c9d1d9; }
.count.v-pass { border-top-color: #4ac26b; } .count.v-fail { border-top-color: #ff6a69; }
.count.v-unsupported { border-top-color: #afb8c1; } .count.v-inconclusive { border-top-color: #e3b341; }
.count.v-error { border-top-color: #c297ff; }
.count.zero { opacity: .55; }
.conformance { display: flex; gap: 10px; flex-wrap: wrap; align-items: stretch; margin: 16px 0 6px;
               padding: 10px 14px; border-radius: 8px; border: 2px solid #8c959f; }
.conformance.conformant-yes { border-color: #4ac26b; } .conformance.conformant-no { border-color: #ff6a69; }
.conformance .verdict { font-size: 22px; align-self: center; margin-right: 12px; }
.conformance .verdict strong { text-transform: uppercase; }
.conformance.conformant-yes .verdict strong { color: #4ac26b; }
.conformance.conformant-no .verdict strong { color: #ff8182; }
.conformance .how { font-size: 13px; color: #c9d1d9; }
.conformance .part { min-width: 150px; padding: 4px 12px; border-left: 4px solid #8c959f; }
.conformance .part.must-failures { border-left-color: #ff6a69; }
.conformance .part.must-not-judged { border-left-color: #e3b341; }
.conformance .part.advisories { border-left-color: #fb8f44; }
.conformance .part.zero { opacity: .6; }
.conformance .part .n { display: block; font-size: 22px; font-weight: 700; line-height: 1.1; }
.conformance .part .label { display: block; font-size: 12px; letter-spacing: .04em; color: #c9d1d9; }
.conformance .part .split { display: block; font-size: 12px; color: #9198a1; }
.run-status { margin: 4px 0 12px; font-size: 15px; }
.run-status strong.ok { color: #4ac26b; } .run-status strong.bad { color: #ff8182; }
.bridge-health { margin: 4px 0; } .bridge-health.bad { color: #ff8182; } .bridge-health.ok { color: #4ac26b; }
dl.run-meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; font-size: 13px; }
dl.run-meta dt { color: #9198a1; } dl.run-meta dd { margin: 0; word-break: break-word; }
nav.toc { position: sticky; top: 0; z-index: 2; background: #fff; border-bottom: 1px solid var(--line);
          padding: 8px 32px; font-size: 13px; }
nav.toc a { margin-right: 18px; }
main { padding: 0 32px 40px; max-width: 1400px; }
table { border-collapse: collapse; margin: 8px 0 12px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
.nobr, td.req-id code { white-space: nowrap; overflow-wrap: normal; }
th { background: var(--soft); font-weight: 600; font-size: 13px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.zero { color: #b0b8c0; }
table.areas td.area { font-weight: 600; }
table.coverage { width: 100%; }
table.coverage td.req-text { max-width: 560px; }
table.coverage td.req-id { white-space: nowrap; }
table.coverage tr.uncovered-must td { background: #ffebe9; }
table.coverage tr.uncovered-must td:first-child { box-shadow: inset 4px 0 0 var(--fail); }
.covering { display: inline-block; margin: 0 8px 2px 0; white-space: nowrap; }
.coverage-summary { margin: 4px 0; }
.warn { color: #82071e; background: #ffebe9; border: 1px solid #ffcecb; border-radius: 6px; padding: 6px 10px; }
table.case-index { width: 100%; }
form.case-filter { margin: 0.5em 0; } form.case-filter label { margin-right: 1em; }
#findings ol { margin: 0.3em 0 0.8em; padding-left: 1.6em; } #findings li { margin: 0.2em 0; overflow-wrap: anywhere; }
#findings h3 { margin: 0.6em 0 0.2em; font-size: 1em; }
table.case-index td.message { color: var(--dim); }
table.case-index tr.non-conformance td:first-child { box-shadow: inset 4px 0 0 var(--fail); }
table.case-index tr.advisory td:first-child { box-shadow: inset 4px 0 0 var(--advisory); }
table.case-index tr.advisory td { background: #fff1e5; }
table.outcome td:nth-child(2) { color: var(--dim); }
td.basis-model { color: var(--advisory); }
.tag { display: inline-block; margin-left: 4px; padding: 0 6px; border-radius: 10px; font-size: 11px;
       border: 1px solid currentColor; vertical-align: 1px; }
.tag.non-conformance { color: var(--fail); } .tag.advisory { color: var(--advisory); }
.badge { display: inline-block; min-width: 48px; padding: 1px 7px; border-radius: 10px; font-size: 11px;
         font-weight: 700; letter-spacing: .03em; text-align: center; color: #fff; vertical-align: 1px; }
.badge.v-pass { background: var(--pass); } .badge.v-fail { background: var(--fail); }
.badge.v-unsupported { background: var(--unsupported); } .badge.v-inconclusive { background: var(--inconclusive); }
.badge.v-error { background: var(--error); }
.badge.v-advisory { background: #fff; color: var(--advisory); border: 1px solid var(--advisory); }
.badge.v-not-run { background: #fff; color: var(--dim); border: 1px dashed #8c959f; }
.badge.v-uncovered { background: #fff; color: var(--fail); border: 1px solid var(--fail); }
article.case { border: 1px solid var(--line); border-left: 5px solid #8c959f; border-radius: 6px;
               padding: 12px 16px; margin: 14px 0; scroll-margin-top: 44px; }
article.case:target { box-shadow: 0 0 0 3px #54aeff66; }
article.case-pass { border-left-color: var(--pass); } article.case-fail { border-left-color: var(--fail); }
article.case-unsupported { border-left-color: var(--unsupported); }
article.case-inconclusive { border-left-color: var(--inconclusive); } article.case-error { border-left-color: var(--error); }
article.case.advisory { border-left-color: var(--advisory); border-left-style: dashed; }
.case-id { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.case-title { font-weight: 400; color: var(--dim); }
p.message { margin: 4px 0 8px; white-space: pre-wrap; word-break: break-word; }
.expectation { padding: 6px 10px; border-radius: 6px; background: #ddf4ff; border: 1px solid #b6e3ff; }
.expectation.exp-unexpected-pass, .expectation.exp-unexpected-other, .expectation.exp-expired {
  background: #fff8c5; border-color: #d4a72c; }
dl.case-meta { display: grid; grid-template-columns: max-content 1fr; gap: 0 14px; margin: 6px 0 10px; font-size: 13px; }
dl.case-meta dt { color: var(--dim); } dl.case-meta dd { margin: 0; }
section.check { border-top: 1px solid var(--line); padding: 10px 0 4px; }
.check-name { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.check-type { color: var(--dim); font-weight: 400; font-size: 12px; border: 1px solid var(--line);
              border-radius: 10px; padding: 0 6px; }
table.metrics td, table.metrics th { padding: 2px 8px; font-size: 13px; }
table.evidence { font-size: 13px; width: 100%; }
table.evidence td.expected code { background: #dafbe1; }
table.evidence td.observed code { background: #ffebe9; }
code.filter { white-space: nowrap; }
figure.chart { margin: 8px 0 12px; }
svg.chart { max-width: 100%; height: auto; display: block; font-family: system-ui, "DejaVu Sans", Arial, sans-serif; }
svg.chart .frame { fill: #fff; stroke: var(--line); }
svg.chart .chart-title { font-size: 13px; font-weight: 600; fill: var(--ink); }
svg.chart .grid { stroke: #eaeef2; stroke-width: 1; }
svg.chart .axis { stroke: #8c959f; stroke-width: 1; }
svg.chart .tick { font-size: 10px; fill: var(--dim); }
svg.chart .axis-label { font-size: 11px; fill: var(--ink); }
svg.chart .legend { font-size: 11px; fill: var(--ink); }
svg.chart .value { font-size: 10px; fill: var(--ink); }
svg.chart .note { font-size: 11px; fill: var(--dim); font-style: italic; }
svg.chart .bar { fill: #54aeff; stroke: #0969da; stroke-width: .5; }
svg.chart .expected { stroke: #1f2328; stroke-width: 2.5; }
svg.chart .series { fill: none; stroke-width: 1.6; }
svg.chart .point { stroke: #fff; stroke-width: 1; }
svg.chart .marker { stroke: var(--fail); stroke-width: 1.4; stroke-dasharray: 5 3; }
svg.chart .marker-label { font-size: 10px; fill: var(--fail); }
svg.chart .point.hollow { fill: #fff; stroke-width: 1.6; }
svg.chart .limit { stroke: var(--fail); stroke-width: 1.6; stroke-dasharray: 6 3; }
svg.chart .limit-label { font-size: 10px; fill: var(--fail); }
svg.chart .row { stroke: #d0d7de; stroke-width: 1; }
svg.chart .group-sep { stroke: #afb8c1; stroke-width: 1; stroke-dasharray: 2 2; }
svg.chart .cell { fill: #0969da; }
footer { padding: 16px 32px 28px; color: var(--dim); font-size: 12px; border-top: 1px solid var(--line); }
@media print {
  nav.toc { display: none; }
  header.top { background: #fff; color: var(--ink); border-bottom: 2px solid var(--ink); }
  article.case { break-inside: avoid; }
}
)css";
}

}  // namespace mrc::harness::html
