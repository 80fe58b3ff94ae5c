// The campaign's totals (campaign_result.hpp).
#include "harness/report/campaign_result.hpp"

#include <algorithm>

namespace mrc::harness {

std::size_t CampaignResult::caught() const {
  return static_cast<std::size_t>(
      std::count_if(defects.begin(), defects.end(), [](const DefectOutcome& d) { return d.caught; }));
}

double CampaignResult::kill_rate() const {
  return defects.empty() ? 0.0 : static_cast<double>(caught()) / static_cast<double>(defects.size());
}

std::vector<std::string> CampaignResult::survivors() const {
  std::vector<std::string> out;
  for (const auto& d : defects) {
    if (!d.caught) out.push_back(d.defect.name);
  }
  return out;
}

std::size_t CampaignResult::reach_errors() const {
  std::size_t n = 0;
  for (const auto& d : defects) n += d.reach_errors.size();
  return n;
}

int CampaignResult::exit_code() const {
  if (interrupted) return 3;
  if (!baseline_problems.empty() || reach_errors() > 0) return 1;
  // A shard dealt no defect judged nothing: no survivor, so no failure (merge judges the whole).
  if (defects.empty()) return 0;
  return kill_rate() >= min_kill_rate ? 0 : 1;
}

}  // namespace mrc::harness
