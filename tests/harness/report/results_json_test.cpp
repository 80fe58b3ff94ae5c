// results.json: write -> read gives the same RunResult, the output validates against
// harness/report/results.schema.json, derived sections are right, and bad files get clear errors.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <typeinfo>
#include <nlohmann/json.hpp>

#include "harness/report/report.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

using test::sample_run;

nlohmann::json load_schema() { return test::load_schema("harness/report/results.schema.json"); }
using test::validate_json;
using test::violations_text;

TEST(ResultsJson, RoundTripGivesTheSameRun) {
  const RunResult run = sample_run();
  const RunResult back = parse_results_json(render_results_json(run));
  test::expect_same_run(run, back);
}

TEST(ResultsJson, RoundTripKeepsWallClockFieldsAndInterruption) {
  RunResult run = test::sample_run_with_wall_clock();
  run.interrupted = true;
  const RunResult back = parse_results_json(render_results_json(run));
  test::expect_same_run(run, back);
  ASSERT_TRUE(back.meta.started_at.has_value());
  EXPECT_EQ(*back.meta.started_at, "2026-07-01T12:00:00Z");
}

TEST(ResultsJson, NonFiniteMetricsSurviveAsNamedStrings) {
  const auto j = nlohmann::json::parse(render_results_json(sample_run()));
  const auto& m = j["cases"][1]["checks"][0]["metrics"];
  EXPECT_EQ(m["p_undefined"], "NaN");
  EXPECT_EQ(m["bound"], "Infinity");
  EXPECT_EQ(m["floor"], "-Infinity");
  EXPECT_EQ(m["gap_ns"], 1234567.0);
}

TEST(ResultsJson, WallClockFieldsAppearOnlyWhenPresent) {
  const std::string plain = render_results_json(sample_run());
  EXPECT_EQ(plain.find("wall_ms"), std::string::npos);
  EXPECT_EQ(plain.find("wall_seconds"), std::string::npos);
  EXPECT_EQ(plain.find("started_at"), std::string::npos);
  const std::string timed = render_results_json(test::sample_run_with_wall_clock());
  EXPECT_NE(timed.find("\"wall_ms\": 250.0"), std::string::npos);
  EXPECT_NE(timed.find("\"wall_seconds\": 12.75"), std::string::npos);
}

TEST(ResultsJson, SameRunGivesByteIdenticalText) {
  const RunResult a = sample_run();
  const RunResult b = sample_run();
  const std::string first = render_results_json(a);
  EXPECT_EQ(first, render_results_json(b));
  EXPECT_EQ(first, render_results_json(parse_results_json(first)));  // stable through a round trip
}

TEST(ResultsJson, KeysComeInTheDocumentedOrder) {
  const std::string text = render_results_json(sample_run());
  EXPECT_EQ(text.rfind("{\n  \"schema\": \"mrc-conform/results/1.7\",\n  \"interrupted\": false,\n  \"interrupt_reason\": \"\",\n  \"not_run\": [],\n  \"conformant\": false,\n"
                       "  \"profile\": \"full\",\n  \"strict\": false,\n  \"meta\": {",
                       0),
            0u)
      << text.substr(0, 200);
  const auto pos = [&](std::string_view key) { return text.find("\n  \"" + std::string(key) + "\": "); };
  EXPECT_LT(pos("meta"), pos("summary"));
  EXPECT_LT(pos("summary"), pos("outcome"));
  EXPECT_LT(pos("outcome"), pos("coverage"));
  EXPECT_LT(pos("coverage"), pos("cases"));
  EXPECT_EQ(text.back(), '\n');
}

TEST(ResultsJson, SummaryCountsEveryVerdictPerArea) {
  const auto j = nlohmann::json::parse(render_results_json(sample_run()));
  const auto& s = j["summary"];
  EXPECT_EQ(s["total"], 8);
  EXPECT_EQ(s["PASS"], 2);
  EXPECT_EQ(s["FAIL"], 3);
  EXPECT_EQ(s["UNSUPPORTED"], 1);
  EXPECT_EQ(s["INCONCLUSIVE"], 1);
  EXPECT_EQ(s["ERROR"], 1);
  EXPECT_EQ(s["expected"], 1);
  EXPECT_EQ(s["exit_code"], 3);  // an ERROR case
  ASSERT_EQ(s["areas"].size(), 7u);
  EXPECT_EQ(s["areas"][0]["area"], "evctl");  // sorted by name
  EXPECT_EQ(s["areas"][5]["area"], "spray");
  EXPECT_EQ(s["areas"][5]["total"], 2);
  EXPECT_EQ(s["areas"][5]["PASS"], 1);
  EXPECT_EQ(s["areas"][5]["FAIL"], 1);
  EXPECT_EQ(s["areas"][6]["area"], "srcroute");
  EXPECT_EQ(s["areas"][6]["UNSUPPORTED"], 1);
}

// The sample with one FAIL of each kind: spray-v-002 a published-basis MUST FAIL, reorder-v-001 a
// model-basis MUST FAIL (an advisory under profile published), reorder-v-016 a SHOULD FAIL.
RunResult advisory_run(ConformanceProfile profile, bool strict = false) {
  RunResult run = sample_run();
  run.profile = profile;
  run.strict = strict;
  run.cases[7].basis = Basis::kModel;
  CaseResult should = test::make_case("reorder-v-016", "reorder", Verdict::kFail, "SHOULD");
  should.basis = Basis::kModel;
  should.clauses = {"FB-NACK-LOSS"};
  should.message = "no loss NACK for the hole at PSN 7";
  run.cases.push_back(should);
  return run;
}

TEST(ResultsJson, ConformanceIsSplitByLevelAndBasis) {
  const auto j = nlohmann::json::parse(render_results_json(advisory_run(ConformanceProfile::kFull)));
  EXPECT_EQ(j["conformant"], false);
  EXPECT_EQ(j["profile"], "full");
  EXPECT_EQ(j["strict"], false);
  const auto& o = j["outcome"];
  EXPECT_EQ(o["must_failures"], nlohmann::json::parse(R"({"total": 2, "published": 1, "spec": 0, "spec-single": 0, "model": 1})"));
  // reliab-v-001 INCONCLUSIVE (model), invalid-i-001 ERROR (published)
  EXPECT_EQ(o["must_not_judged"], nlohmann::json::parse(R"({"total": 2, "published": 1, "spec": 0, "spec-single": 0, "model": 1})"));
  EXPECT_EQ(o["advisories"], nlohmann::json::parse(R"({"total": 1, "should_may": 1, "must_outside_profile": 0})"));
  const auto& must_published = o["by_level"]["MUST"]["published"];
  EXPECT_EQ(must_published["total"], 4);  // spray-v-002, failover-v-001 (expected), srcroute-v-001, invalid-i-001
  EXPECT_EQ(must_published["FAIL"], 2);
  EXPECT_EQ(must_published["expected"], 1);
  EXPECT_EQ(must_published["non_conformance"], 1);
  EXPECT_EQ(must_published["advisory"], 0);
  EXPECT_EQ(o["by_level"]["MUST"]["model"]["total"], 3);
  EXPECT_EQ(o["by_level"]["MUST"]["model"]["non_conformance"], 1);
  EXPECT_EQ(o["by_level"]["SHOULD"]["model"]["advisory"], 1);
  EXPECT_EQ(o["by_level"]["MAY"]["published"]["total"], 0);
  const auto& cases = j["cases"];
  EXPECT_EQ(cases[0]["basis"], "model");
  EXPECT_EQ(cases[1]["basis"], "published");
  EXPECT_EQ(cases[1]["advisory"], false);
  EXPECT_EQ(cases[7]["advisory"], false);
  EXPECT_EQ(cases[8]["advisory"], true);
  EXPECT_EQ(j["coverage"]["matrix"][1]["basis"], "model");      // SPRAY-UNIFORM-PLANES: the sample cites the wire model
  EXPECT_EQ(j["coverage"]["matrix"][0]["basis"], "published");  // SPRAY-PER-PACKET-EV: mrc_ctl.h
  EXPECT_EQ(j["summary"]["exit_code"], 3);                       // the ERROR case
  const auto v = validate_json(load_schema(), j);
  EXPECT_TRUE(v.empty()) << violations_text(v);
}

TEST(ResultsJson, ProfilePublishedTurnsAModelMustFailIntoAnAdvisory) {
  const auto j = nlohmann::json::parse(render_results_json(advisory_run(ConformanceProfile::kPublished)));
  EXPECT_EQ(j["profile"], "published");
  EXPECT_EQ(j["conformant"], false);  // spray-v-002 is published
  const auto& o = j["outcome"];
  EXPECT_EQ(o["must_failures"], nlohmann::json::parse(R"({"total": 1, "published": 1, "spec": 0, "spec-single": 0, "model": 0})"));
  EXPECT_EQ(o["must_not_judged"], nlohmann::json::parse(R"({"total": 1, "published": 1, "spec": 0, "spec-single": 0, "model": 0})"));
  EXPECT_EQ(o["advisories"], nlohmann::json::parse(R"({"total": 2, "should_may": 1, "must_outside_profile": 1})"));
  EXPECT_EQ(j["cases"][7]["advisory"], true);
  EXPECT_EQ(j["cases"][1]["advisory"], false);
  const auto v = validate_json(load_schema(), j);
  EXPECT_TRUE(v.empty()) << violations_text(v);

  // Without the published failure (and the unjudged cases), the run is conformant.
  RunResult clean = advisory_run(ConformanceProfile::kPublished);
  clean.cases = {clean.cases[0], clean.cases[7], clean.cases[8]};
  const auto c = nlohmann::json::parse(render_results_json(clean));
  EXPECT_EQ(c["conformant"], true);
  EXPECT_EQ(c["summary"]["exit_code"], 0);
  clean.strict = true;
  EXPECT_EQ(nlohmann::json::parse(render_results_json(clean))["summary"]["exit_code"], 1);
}

TEST(ResultsJsonReader, ConformanceInputsRoundTripAndDerivedFieldsAreRecomputed) {
  const RunResult run = advisory_run(ConformanceProfile::kPublished, true);
  const std::string text = render_results_json(run);
  test::expect_same_run(run, parse_results_json(text));
  auto j = nlohmann::json::parse(text);
  j["conformant"] = true;
  j["outcome"]["must_failures"]["total"] = 0;
  j["cases"][1]["advisory"] = true;
  EXPECT_EQ(render_results_json(parse_results_json(j.dump())), text);
}

TEST(ResultsJson, CoverageMatrixMapsRequirementsToCaseVerdicts) {
  const auto j = nlohmann::json::parse(render_results_json(sample_run()));
  const auto& c = j["coverage"];
  EXPECT_EQ(c["requirements"], 12);
  EXPECT_EQ(c["covered"], 10);
  EXPECT_EQ(c["covered_percent"], "83.3");
  EXPECT_EQ(c["must"], 9);
  EXPECT_EQ(c["must_covered"], 8);
  EXPECT_EQ(c["must_covered_percent"], "88.9");
  EXPECT_EQ(c["must_passed"], 1);  // SPRAY-EV-IN-PROFILE
  EXPECT_EQ(c["uncovered_must"], nlohmann::json::array({"EVCTL-DENIED-NOT-USED"}));
  const auto& rows = c["matrix"];
  ASSERT_EQ(rows.size(), 12u);
  EXPECT_EQ(rows[0]["id"], "SPRAY-PER-PACKET-EV");
  EXPECT_EQ(rows[0]["cases"][0]["verdict"], "PASS");
  EXPECT_EQ(rows[0]["cases"][1]["verdict"], "FAIL");
  EXPECT_EQ(rows[0]["verdict"], "FAIL");  // the worst covering verdict
  EXPECT_EQ(rows[1]["verdict"], "PASS");
  EXPECT_EQ(rows[4]["cases"][1]["verdict"], "NOT-RUN");
  EXPECT_EQ(rows[4]["verdict"], "INCONCLUSIVE");
  EXPECT_EQ(rows[8]["verdict"], "UNCOVERED");
  EXPECT_EQ(rows[9]["verdict"], "UNCOVERED");
  EXPECT_EQ(rows[10]["verdict"], "NOT-RUN");
  EXPECT_EQ(rows[11]["verdict"], "PASS");
}

// The schema is itself a valid JSON Schema 2020-12 document (python3-jsonschema checks it first).
TEST(ResultsJson, SchemaIsAValidDraft202012Schema) {
  for (const auto& v : validate_json(load_schema(), nlohmann::json::object())) EXPECT_NE(v.pointer, "(schema)") << v.message;
}

TEST(ResultsJson, OutputValidatesAgainstTheSchema) {
  const auto schema = load_schema();
  RunResult interrupted = sample_run();
  interrupted.interrupted = true;
  for (const RunResult& run : {sample_run(), test::sample_run_with_wall_clock(), RunResult{}, interrupted,
                               test::hostile_run()}) {
    const auto doc = nlohmann::json::parse(render_results_json(run));
    const auto v = validate_json(schema, doc);
    EXPECT_TRUE(v.empty()) << violations_text(v);
  }
}

// A run against the default peer writes no "peer" key, so its results.json is what it was before
// peers were selectable; any other peer is recorded right after the DUT and read back.
TEST(ResultsJson, PeerIsWrittenOnlyWhenSetAndRoundTrips) {
  RunResult run = sample_run();
  EXPECT_EQ(render_results_json(run).find("\"peer\""), std::string::npos);
  run.meta.peer = "reference:sack-off-by-one";
  const std::string text = render_results_json(run);
  EXPECT_LT(text.find("\"dut_capabilities\""), text.find("\"peer\": \"reference:sack-off-by-one\""));
  EXPECT_LT(text.find("\"peer\""), text.find("\"testbed\""));
  const RunResult back = parse_results_json(text);
  test::expect_same_run(run, back);
  const auto v = validate_json(load_schema(), nlohmann::json::parse(text));
  EXPECT_TRUE(v.empty()) << violations_text(v);
  auto wrong = nlohmann::json::parse(text);
  wrong["meta"]["peer"] = 7;
  EXPECT_FALSE(validate_json(load_schema(), wrong).empty());
  EXPECT_THROW((void)parse_results_json(wrong.dump()), ReportError);
}

TEST(ResultsJson, SchemaRejectsDriftedDocuments) {
  const auto schema = load_schema();
  const auto good = nlohmann::json::parse(render_results_json(sample_run()));
  auto expect_violation = [&](const char* what, auto mutate, const std::string& pointer) {
    auto doc = good;
    mutate(doc);
    const auto v = validate_json(schema, doc);
    ASSERT_FALSE(v.empty()) << what;
    EXPECT_EQ(v.front().pointer, pointer) << what << ": " << violations_text(v);
  };
  expect_violation("missing field", [](auto& d) { d["cases"][0]["checks"][0].erase("metrics"); },
                   "/cases/0/checks/0");
  expect_violation("bad verdict", [](auto& d) { d["cases"][2]["verdict"] = "pass"; }, "/cases/2/verdict");
  expect_violation("unknown key", [](auto& d) { d["meta"]["vendor"] = "x"; }, "/meta");  // the object that has it
  expect_violation("wrong type", [](auto& d) { d["cases"][1]["seed"] = "42"; }, "/cases/1/seed");
  expect_violation("metric as text", [](auto& d) { d["cases"][0]["checks"][0]["metrics"]["n"] = true; },
                   "/cases/0/checks/0/metrics/n");
  expect_violation("schema version", [](auto& d) { d["schema"] = "mrc-conform/results/2"; }, "/schema");
  expect_violation("no advisory flag", [](auto& d) { d["cases"][0].erase("advisory"); }, "/cases/0");
  expect_violation("unknown basis", [](auto& d) { d["cases"][3]["basis"] = "vendor"; }, "/cases/3/basis");
  expect_violation("unknown profile", [](auto& d) { d["profile"] = "strictest"; }, "/profile");
  expect_violation("outcome cell", [](auto& d) { d["outcome"]["by_level"]["MUST"]["model"].erase("advisory"); },
                   "/outcome/by_level/MUST/model");
  expect_violation("conformant as text", [](auto& d) { d["conformant"] = "yes"; }, "/conformant");
  expect_violation("chart kind", [](auto& d) { d["cases"][2]["checks"][0]["charts"][0]["kind"] = "pie"; },
                   "/cases/2/checks/0/charts/0/kind");
}

// --- the reader refuses what it does not understand, naming where -------------------------------

void expect_read_error(const std::string& text, const std::string& needle) {
  try {
    (void)parse_results_json(text, "r.json");
    ADD_FAILURE() << "accepted a bad file; wanted an error containing: " << needle;
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

std::string mutated(const std::function<void(nlohmann::json&)>& f) {
  auto j = nlohmann::json::parse(render_results_json(sample_run()));
  f(j);
  return j.dump();
}

TEST(ResultsJsonReader, RefusesBadInputWithThePlace) {
  expect_read_error("{ not json", "r.json: not valid JSON");
  expect_read_error("[]", "r.json: /: expected an object");
  expect_read_error(mutated([](auto& j) { j["schema"] = "mrc-conform/results/2"; }),
                    "r.json: /schema: this reader understands \"mrc-conform/results/1\"");
  expect_read_error(mutated([](auto& j) { j["cases"][1]["verdict"] = "pass"; }),
                    "r.json: /cases/1/verdict: expected one of PASS, FAIL");
  expect_read_error(mutated([](auto& j) { j["cases"][0].erase("title"); }),
                    "r.json: /cases/0: missing required field \"title\"");
  expect_read_error(mutated([](auto& j) { 
                      j["cases"][0]["checks"][0]["evidence"] =
                          nlohmann::json::array({nlohmann::json::object({{"pcap", 1}})});
                    }),
                    "r.json: /cases/0/checks/0/evidence/0/pcap: expected a string");
  expect_read_error(mutated([](auto& j) { j["cases"][1]["checks"][0]["evidence"][0]["packet_index"] = 1.5; }),
                    "/cases/1/checks/0/evidence/0/packet_index: expected a signed 64-bit integer");
  expect_read_error(mutated([](auto& j) { j["meta"]["seed"] = -1; }), "/meta/seed: expected a non-negative integer");
  expect_read_error(mutated([](auto& j) { j["cases"][0]["checks"][0]["metrics"]["a/b"] = "nan"; }),
                    "/cases/0/checks/0/metrics/a~1b: expected a number or one of");
  expect_read_error(mutated([](auto& j) { j["cases"][0]["expectation"]["outcome"] = "xfail"; }),
                    "/cases/0/expectation/outcome: expected one of none, expected");
  expect_read_error(mutated([](auto& j) { j["cases"][2]["checks"][0]["charts"][0]["kind"] = "pie"; }),
                    "/cases/2/checks/0/charts/0/kind: expected bars, timeline, latency, events or raster, got \"pie\"");
  expect_read_error(mutated([](auto& j) { j["meta"]["vendor"] = "x"; }), "/meta/vendor: unknown field");
  expect_read_error(mutated([](auto& j) { j.erase("summary"); }), "/: missing required field \"summary\"");
  expect_read_error(mutated([](auto& j) { j["coverage"]["matrix"][0]["cases"] = "x"; }),
                    "/coverage/matrix/0/cases: expected an array");
}

// `j` as a file of an older schema would have it: without the fields of 1.2, 1.3 and 1.4.
void as_older_schema(nlohmann::json& j, const char* schema) {
  j["schema"] = schema;
  for (const char* key : {"conformant", "profile", "strict", "outcome", "interrupt_reason", "not_run"}) j.erase(key);
  j["meta"].erase("wire");
  for (auto& c : j["cases"]) {
    c.erase("basis");
    c.erase("advisory");
  }
  for (auto& row : j["coverage"]["matrix"]) row.erase("basis");
}

// A run on a real-time testbed: its cases carry the timing budget their bounds were widened by.
RunResult budgeted_run() {
  RunResult run = sample_run();
  run.cases[1].timing_budget = TimingBudget{200'000, "real-time bridge (testbed netns)"};
  run.cases[1].bridge = BridgeStats{1200, 900, 3, 250'000, 1'500'000, 120'000};
  return run;
}

// What the bridge carried is written for a bridged case only (schema 1.5), reads back whole and
// passes the schema.
TEST(ResultsJson, BridgeFiguresAreWrittenForABridgedCaseOnly) {
  EXPECT_EQ(render_results_json(sample_run()).find("\"bridge\""), std::string::npos);
  const std::string text = render_results_json(budgeted_run());
  const auto j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["cases"][0].contains("bridge"));
  EXPECT_EQ(j["cases"][1]["bridge"]["lost"], 3);
  EXPECT_EQ(j["cases"][1]["bridge"]["lag_max_ns"], 1'500'000);
  EXPECT_EQ(parse_results_json(text).cases[1].bridge, budgeted_run().cases[1].bridge);
  const auto v = validate_json(load_schema(), j);
  EXPECT_TRUE(v.empty()) << violations_text(v);
}

TEST(ResultsJson, TimingBudgetIsWrittenOnlyWhenNonZero) {
  const std::string plain = render_results_json(sample_run());
  EXPECT_EQ(plain.find("timing_budget"), std::string::npos);
  const std::string text = render_results_json(budgeted_run());
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["cases"][1]["timing_budget"]["ns"], 200'000);
  EXPECT_EQ(j["cases"][1]["timing_budget"]["source"], "real-time bridge (testbed netns)");
  EXPECT_FALSE(j["cases"][0].contains("timing_budget"));
  const auto pos = [&](std::string_view key) { return text.find("\"" + std::string(key) + "\": ", text.find("\"timing_budget\"") - 200); };
  EXPECT_LT(pos("sim_time_ns"), pos("timing_budget"));
  EXPECT_LT(pos("timing_budget"), pos("evidence_files"));
  test::expect_same_run(budgeted_run(), parse_results_json(text));
  const auto v = validate_json(load_schema(), j);
  EXPECT_TRUE(v.empty()) << violations_text(v);
}

TEST(ResultsJsonReader, TimingBudgetNeedsSchema11AndANonZeroValue) {
  const auto with = [](const std::function<void(nlohmann::json&)>& f) {
    auto j = nlohmann::json::parse(render_results_json(budgeted_run()));
    f(j);
    return j.dump();
  };
  expect_read_error(with([](auto& j) { as_older_schema(j, "mrc-conform/results/1"); }),
                    "/cases/1/timing_budget: needs schema mrc-conform/results/1.1 or later");
  auto v11 = nlohmann::json::parse(render_results_json(budgeted_run()));
  as_older_schema(v11, "mrc-conform/results/1.1");
  EXPECT_EQ(parse_results_json(v11.dump()).cases[1].timing_budget.ns, 200'000u);
  expect_read_error(with([](auto& j) { j["cases"][1]["timing_budget"]["ns"] = 0; }),
                    "/cases/1/timing_budget/ns: a timing budget is written only when it is not zero");
  expect_read_error(with([](auto& j) { j["cases"][1]["timing_budget"].erase("source"); }),
                    "/cases/1/timing_budget: missing required field \"source\"");
  expect_read_error(with([](auto& j) { j["cases"][1]["timing_budget"]["by"] = "x"; }),
                    "/cases/1/timing_budget/by: unknown field");
  expect_read_error(with([](auto& j) { j["schema"] = "mrc-conform/results/1.8"; }),
                    "this reader understands \"mrc-conform/results/1\", \"mrc-conform/results/1.1\", "
                    "\"mrc-conform/results/1.2\", \"mrc-conform/results/1.3\", \"mrc-conform/results/1.4\", "
                    "\"mrc-conform/results/1.5\", \"mrc-conform/results/1.6\" and \"mrc-conform/results/1.7\", the file says \"mrc-conform/results/1.8\"");
}

TEST(ResultsJsonReader, MutatedFilesGiveReportErrorsOnly) {
  // Seeded byte mutations (flip, delete, insert) of a valid file: each either reads or throws
  // ReportError, never anything else.
  const std::string good = render_results_json(sample_run());
  std::mt19937_64 rng(20260701);
  std::size_t refused = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string text = good;
    for (int k = 0; k < 1 + i % 4; ++k) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = static_cast<char>(rng() % 256); break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        default: text.insert(at, 1, "{}[]\",:0-e\x01\xff"[rng() % 13]); break;
      }
    }
    try {
      (void)parse_results_json(text);
    } catch (const ReportError&) {
      ++refused;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "mutation " << i << " escaped as " << typeid(e).name() << ": " << e.what();
    }
  }
  EXPECT_GT(refused, 1100u);
}

TEST(ResultsJsonReader, DerivedSectionsAreRecomputedNotTrusted) {
  // A hand-edited summary does not change what is read back; re-rendering restores it.
  const std::string original = render_results_json(sample_run());
  auto j = nlohmann::json::parse(original);
  j["summary"]["PASS"] = 999;
  j["coverage"]["matrix"][0]["verdict"] = "PASS";
  const RunResult back = parse_results_json(j.dump());
  EXPECT_EQ(render_results_json(back), original);
}

TEST(ResultsJsonReader, ReadsAFileAndNamesAMissingOne) {
  const auto dir = test::fresh_dir("read-file");
  const auto path = dir / "results.json";
  test::write_file(path, render_results_json(sample_run()));
  test::expect_same_run(sample_run(), read_results_json(path));
  try {
    (void)read_results_json(dir / "absent.json");
    ADD_FAILURE() << "read a missing file";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("absent.json: cannot open"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(ResultsJson, InvalidUtf8IsReplacedNotThrown) {
  const RunResult run = test::hostile_run();
  std::string text;
  ASSERT_NO_THROW(text = render_results_json(run));
  const RunResult back = parse_results_json(text);
  EXPECT_NE(back.meta.command_line.find("bad utf8 \xEF\xBF\xBD"), std::string::npos);
  EXPECT_NE(back.meta.command_line.find(std::string("nul[") + '\0' + "]"), std::string::npos);  // NUL kept
  EXPECT_NE(text.find("nul[\\u0000]"), std::string::npos);
}

TEST(ResultsJsonReader, RefusesABadOrMissingBasisOrProfile) {
  expect_read_error(mutated([](auto& j) { j["cases"][0].erase("basis"); }), "/cases/0: missing required field \"basis\"");
  expect_read_error(mutated([](auto& j) { j["cases"][0]["basis"] = "modle"; }),
                    "/cases/0/basis: expected one of published, spec, spec-single, model, got \"modle\"");
  expect_read_error(mutated([](auto& j) { j["coverage"]["matrix"][2].erase("basis"); }),
                    "/coverage/matrix/2: missing required field \"basis\"");
  expect_read_error(mutated([](auto& j) { j["profile"] = "vendor"; }),
                    "/profile: expected one of full, spec, published, got \"vendor\"");
  expect_read_error(mutated([](auto& j) { j.erase("strict"); }), "/: missing required field \"strict\"");
  expect_read_error(mutated([](auto& j) { j["cases"][2]["advisory"] = "no"; }), "/cases/2/advisory: expected true or false");
}

// Schema 1.4 names the wire revision and splits bases four ways; a file of 1.4 must say its wire,
// and an older file cannot hold the new bases or the profile spec.
TEST(ResultsJsonReader, WireRevisionAndFourBasesNeedSchema14) {
  RunResult run = sample_run();
  run.cases[0].basis = Basis::kSpecSingle;
  run.cases[1].basis = Basis::kSpec;
  run.profile = ConformanceProfile::kSpec;
  const std::string text = render_results_json(run);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["meta"]["wire"], run.meta.wire);
  EXPECT_EQ(j["cases"][0]["basis"], "spec-single");
  EXPECT_EQ(j["profile"], "spec");
  const RunResult back = parse_results_json(text);
  EXPECT_EQ(back.meta.wire, run.meta.wire);
  EXPECT_EQ(back.cases[0].basis, Basis::kSpecSingle);
  EXPECT_EQ(back.cases[1].basis, Basis::kSpec);
  EXPECT_EQ(back.profile, ConformanceProfile::kSpec);
  EXPECT_TRUE(validate_json(load_schema(), j).empty());
  const auto with = [&](const std::function<void(nlohmann::json&)>& f) {
    auto m = j;
    f(m);
    return m.dump();
  };
  expect_read_error(with([](auto& m) { m["meta"].erase("wire"); }), "/meta: missing required field \"wire\"");
  expect_read_error(with([](auto& m) { m["meta"]["wire"] = ""; }), "/meta/wire: the wire revision the run was judged on");
  expect_read_error(with([](auto& m) { m["schema"] = "mrc-conform/results/1.3"; m["meta"].erase("wire"); }),
                    "/profile: the profile spec needs schema mrc-conform/results/1.4");
  expect_read_error(with([](auto& m) {
                      m["schema"] = "mrc-conform/results/1.3";
                      m["meta"].erase("wire");
                      m["profile"] = "full";
                    }),
                    "/cases/0/basis: the bases spec and spec-single need schema mrc-conform/results/1.4");
  expect_read_error(with([](auto& m) { m["schema"] = "mrc-conform/results/1.3"; m["profile"] = "full";
                                        m["cases"][0]["basis"] = "model"; m["cases"][1]["basis"] = "model"; }),
                    "/meta/wire: unknown field");
}

// A file of schema 1 or 1.1 (before the basis split) still reads: profile full, not strict,
// everything of published basis, which under profile full excuses nothing.
TEST(ResultsJsonReader, ReadsFilesOfSchema1And11) {
  for (const char* schema : {"mrc-conform/results/1", "mrc-conform/results/1.1"}) {
    auto j = nlohmann::json::parse(render_results_json(sample_run()));
    as_older_schema(j, schema);
    const RunResult back = parse_results_json(j.dump());
    EXPECT_EQ(back.profile, ConformanceProfile::kFull) << schema;
    EXPECT_FALSE(back.strict) << schema;
    ASSERT_EQ(back.cases.size(), 8u);
    for (const auto& c : back.cases) EXPECT_EQ(c.basis, Basis::kPublished) << schema << " " << c.id;
    for (const auto& r : back.requirements) EXPECT_EQ(r.basis, Basis::kPublished) << schema << " " << r.id;
    EXPECT_EQ(back.cases[1].verdict, Verdict::kFail);
    // 1.2 fields in an older file are not what that version wrote.
    j["conformant"] = true;
    expect_read_error(j.dump(), "/conformant: unknown field");
    j.erase("conformant");
    j["cases"][0]["basis"] = "model";
    expect_read_error(j.dump(), "/cases/0/basis: unknown field");
  }
}

}  // namespace
}  // namespace mrc::harness
