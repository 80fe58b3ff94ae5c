// The renderers of a campaign: campaign.json, campaign.html and the stdout summary. Pure functions
// of a CampaignResult: no wall clock unless the result carries one, keys and rows in a fixed
// order, so the same campaign gives byte-identical files.
#pragma once

#include <string>

#include "harness/report/campaign_result.hpp"

namespace mrc::harness {

// campaign.json: 2-space indented, keys in a fixed order, byte-identical for the same result.
std::string render_campaign_json(const CampaignResult& r);
// campaign.html: one self-contained page (inline CSS, no script, no external URL).
std::string render_campaign_html(const CampaignResult& r);
// The stdout summary: one line per defect (CAUGHT/SURVIVED and the killer case ids), totals.
std::string render_campaign_text(const CampaignResult& r);

}  // namespace mrc::harness
