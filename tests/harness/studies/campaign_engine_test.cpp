// The campaign's unreached-defect rule (campaign_engine.hpp, reference/quirk/quirk_flag.hpp): a
// case whose clean run never read a defect's switch takes the clean result for that defect, and
// --run-all runs it anyway and reports a reach error when the two differ. Shown with a baseline
// binding that hides its reads, the failure the rule guards against.
#include <sstream>

#include "harness/dut/reference_binding.hpp"
#include "harness/report/campaign_report.hpp"
#include "harness/run/case_select.hpp"
#include "harness/studies/campaign_engine.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

using harness::CampaignDefect;
using harness::CampaignResult;

// The reference without defects, claiming its endpoint read no defect switch at all.
class ReadsHidden : public harness::ReferenceBinding {
 public:
  std::optional<ref::DefectSet> defects_read() const override { return ref::DefectSet{}; }
};

struct Fixture {
  TempSuite suite;
  CaseSelection sel;
  Fixture() {
    suite.write_case("spray-v-001", kTinySprayCase);  // spray-single-ev FAILs it
    suite.write_case("spray-v-002", kTinyPlainCase);
    std::ostringstream err;
    sel = select_cases({(suite.path() / "cases").string()}, {}, {}, "mini", err);
  }
  CampaignResult run(bool run_all, bool hide_reads, const std::filesystem::path& kills = {},
                     KeptKills keep = KeptKills::kFirst) const {
    CampaignPlan plan;
    plan.kill_runs = kills;
    plan.keep_kills = keep;
    plan.pool.evidence.keep = EvidenceKeep::kFailures;
    plan.kill_report.meta.testbed = "mini";
    // spray-single-ev is read by every sending requester; drop-encapsulated only by a host that
    // receives an SRv6-encapsulated WRITE, which neither case sends.
    plan.defects = {CampaignDefect{"spray-single-ev", "", {"SPRAY-PER-PACKET-EV"}},
                    CampaignDefect{"drop-encapsulated", "", {"SRV6-ACCEPT-DECAPSULATED"}}};
    plan.run_all = run_all;
    plan.pool.write_evidence = false;
    plan.pool.jobs = 2;
    if (hide_reads) plan.clean = [] { return std::make_unique<ReadsHidden>(); };
    return run_defect_campaign(sel.cases, sel.suite.root, plan);
  }
};

TEST(CampaignUnreached, ACaseTheDefectNeverReachesTakesTheCleanResult) {
  const Fixture f;
  ASSERT_TRUE(f.sel.ok);
  const CampaignResult r = f.run(false, false);
  ASSERT_EQ(r.defects.size(), 2u);
  // Both cases send data: spray-single-ev's switch is read in both, so both run and it is caught.
  EXPECT_TRUE(r.defects[0].caught);
  EXPECT_TRUE(r.defects[0].unreached.empty());
  // Neither case receives an encapsulated WRITE: both runs of drop-encapsulated are the clean ones.
  EXPECT_EQ(r.defects[1].unreached, (std::vector<std::string>{"spray-v-001", "spray-v-002"}));
  EXPECT_EQ(r.defects[1].cases_run.size(), 2u);
  EXPECT_FALSE(r.defects[1].caught);
  EXPECT_EQ(r.runs_skipped, 2u);
  EXPECT_EQ(r.reach_errors(), 0u);

  // --run-all makes those two runs as well, finds them equal to the clean ones, and reports the
  // same campaign to the byte.
  const CampaignResult all = f.run(true, false);
  EXPECT_EQ(all.runs_skipped, 0u);
  EXPECT_EQ(all.reach_errors(), 0u);
  EXPECT_EQ(harness::render_campaign_json(all), harness::render_campaign_json(r));
}

TEST(CampaignUnreached, RunAllCatchesABaselineThatHidesItsReads) {
  const Fixture f;
  ASSERT_TRUE(f.sel.ok);
  // Believed, the hidden reads make spray-single-ev look unreached everywhere: it "survives".
  const CampaignResult blind = f.run(false, true);
  EXPECT_FALSE(blind.defects[0].caught);
  EXPECT_EQ(blind.runs_skipped, 4u);
  // --run-all runs it and sees both cases go otherwise than their clean runs: spray-v-001 FAILs,
  // spray-v-002 still PASSes on other packets.
  const CampaignResult all = f.run(true, true);
  EXPECT_TRUE(all.defects[0].caught);
  ASSERT_EQ(all.defects[0].reach_errors.size(), 2u);
  EXPECT_NE(all.defects[0].reach_errors[0].find("spray-v-001: the defect's run (FAIL) differs"), std::string::npos)
      << all.defects[0].reach_errors[0];
  EXPECT_NE(all.defects[0].reach_errors[1].find("spray-v-002: the defect's run (PASS) differs"), std::string::npos)
      << all.defects[0].reach_errors[1];
  EXPECT_TRUE(all.defects[1].reach_errors.empty());
  EXPECT_EQ(all.exit_code(), 1);
  const std::string text = harness::render_campaign_text(all);
  EXPECT_NE(text.find("REACH ERROR spray-single-ev: spray-v-001: the defect's run"), std::string::npos) << text;
  EXPECT_NE(harness::render_campaign_json(all).find("\"reach_errors\""), std::string::npos);
  EXPECT_NE(harness::render_campaign_html(all).find("id=\"reach-errors\""), std::string::npos);
}

// The run that killed a defect is kept beside the campaign: its report (the case section the
// campaign page links to) and its evidence; a defect nothing killed leaves no folder; the
// campaign's verdicts are the same with or without them.
TEST(CampaignKills, TheKillingRunIsKeptWithItsReportAndEvidence) {
  const Fixture f;
  ASSERT_TRUE(f.sel.ok);
  const std::filesystem::path kills = f.suite.path() / "out" / "kills";
  const CampaignResult r = f.run(false, false, kills);
  ASSERT_EQ(r.defects.size(), 2u);
  ASSERT_TRUE(r.defects[0].caught);
  EXPECT_EQ(r.defects[0].kept_runs, (std::vector<std::string>{"spray-v-001"}));
  const std::filesystem::path dir = kills / "spray-single-ev";
  const std::string html = slurp(dir / "index.html");
  EXPECT_NE(html.find("id=\"case-spray-v-001\""), std::string::npos);
  EXPECT_NE(html.find("reference:spray-single-ev"), std::string::npos) << "the report names the defect's DUT";
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "results.json"));
  EXPECT_GT(std::filesystem::file_size(dir / "evidence" / "spray-v-001.pcapng"), 1000u);
  // Nothing else of that defect's runs is left, and the survivor has no folder.
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "evidence")) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 2u);  // the pcapng and the context replay reads
  EXPECT_FALSE(std::filesystem::exists(kills / "drop-encapsulated"));
  EXPECT_TRUE(r.defects[1].kept_runs.empty());
  // The campaign page links the kill to the kept case section.
  EXPECT_NE(harness::render_campaign_html(r).find("href=\"kills/spray-single-ev/index.html#case-spray-v-001\""),
            std::string::npos);

  // --kill-runs none: no folder, no link, the same verdicts.
  const std::filesystem::path none = f.suite.path() / "none" / "kills";
  const CampaignResult n = f.run(false, false, none, KeptKills::kNone);
  EXPECT_FALSE(std::filesystem::exists(none));
  EXPECT_TRUE(n.defects[0].kept_runs.empty());
  EXPECT_EQ(harness::render_campaign_html(n).find("class=\"kill-run\""), std::string::npos);
  EXPECT_EQ(n.defects[0].killers.size(), r.defects[0].killers.size());
  EXPECT_EQ(n.caught(), r.caught());
}

}  // namespace
}  // namespace mrc::run::testing
