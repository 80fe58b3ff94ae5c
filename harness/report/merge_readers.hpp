// Readers of campaign.json, variants.json and falsefail.json (the writers are campaign_report,
// variants_report and falsefail_report), for `mrc-conform merge`: rendering what they return gives
// the same bytes back. Throw ReportError naming the file and the JSON pointer of a bad value.
#pragma once

#include <filesystem>

#include "harness/report/campaign_result.hpp"
#include "harness/report/falsefail_result.hpp"
#include "harness/report/variants_result.hpp"

namespace mrc::harness {

// campaign.json keeps each defect's count of case runs, not their ids: cases_run holds that many
// empty ids (the renderers read only the count).
CampaignResult read_campaign_json(const std::filesystem::path& file);
VariantsResult read_variants_json(const std::filesystem::path& file);
FalsefailResult read_falsefail_json(const std::filesystem::path& file);

}  // namespace mrc::harness
