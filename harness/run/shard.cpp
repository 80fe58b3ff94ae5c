#include "harness/run/shard.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "harness/report/file_digest.hpp"
#include "harness/report/report.hpp"

namespace mrc::run {
namespace {

// More shards than this is a typo (a job array of a million processes is not a lab set-up).
constexpr std::uint32_t kMaxShards = 100000;

// Digits only, 0 .. kMaxShards: from_chars alone would accept "+1" nowhere but "1x" partly.
bool parse_count(std::string_view text, std::uint32_t& v) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc{} && end == text.data() + text.size() && v <= kMaxShards;
}

std::string count_range() { return "1 .. " + std::to_string(kMaxShards); }

// K/N from --shard: "" or the error.
std::string parse_shard_text(const std::string& text, ShardSpec& out) {
  const auto slash = text.find('/');
  std::uint32_t k = 0;
  std::uint32_t n = 0;
  if (slash == std::string::npos || !parse_count(std::string_view(text).substr(0, slash), k) ||
      !parse_count(std::string_view(text).substr(slash + 1), n)) {
    return "--shard '" + text + "' is not K/N: give the 0-based shard index and the shard count, e.g. --shard 1/4";
  }
  if (n == 0) return "--shard '" + text + "': the shard count N must be " + count_range();
  if (k >= n) {
    return "--shard '" + text + "': the shard index K is 0-based and must be below N (0 .. " + std::to_string(n - 1) +
           ")";
  }
  out = ShardSpec{true, k, n, "--shard"};
  return "";
}

// A variable that must hold a whole number: "" or the error naming it.
std::string env_number(const EnvLookup& env, const char* name, std::uint32_t& v) {
  const char* text = env(name);
  if (text == nullptr) return std::string(name) + " is not set";
  if (!parse_count(text, v)) {
    return std::string(name) + "='" + text + "' is not a whole number 0 .. " + std::to_string(kMaxShards);
  }
  return "";
}

}  // namespace

std::string resolve_shard(const std::string& shard_text, const std::string& count_text, const EnvLookup& env,
                          ShardSpec& out) {
  out = ShardSpec{};
  std::uint32_t flag_count = 0;
  if (!count_text.empty() && (!parse_count(count_text, flag_count) || flag_count == 0)) {
    return "--shard-count '" + count_text + "' is not a shard count " + count_range();
  }
  auto count_agrees = [&](const char* from) -> std::string {
    if (count_text.empty() || flag_count == out.count) return "";
    return "--shard-count " + count_text + " disagrees with the shard count " + std::to_string(out.count) + " of " +
           from;
  };
  if (!shard_text.empty()) {
    if (std::string e = parse_shard_text(shard_text, out); !e.empty()) return e;
    return count_agrees("--shard");
  }
  std::string e;
  if (env("SLURM_ARRAY_TASK_ID") != nullptr) {
    std::uint32_t id = 0;
    std::uint32_t min = 0;
    std::uint32_t n = 0;
    if (!(e = env_number(env, "SLURM_ARRAY_TASK_ID", id)).empty()) return e;
    if (env("SLURM_ARRAY_TASK_MIN") != nullptr && !(e = env_number(env, "SLURM_ARRAY_TASK_MIN", min)).empty()) return e;
    if (env("SLURM_ARRAY_TASK_COUNT") == nullptr) {
      return "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: run inside a Slurm job array "
             "(sbatch --array) or give --shard K/N";
    }
    if (!(e = env_number(env, "SLURM_ARRAY_TASK_COUNT", n)).empty()) return e;
    if (n == 0) return "SLURM_ARRAY_TASK_COUNT=0: a job array has at least one task";
    if (id < min || id - min >= n) {
      return "SLURM_ARRAY_TASK_ID=" + std::to_string(id) + " is outside the array (SLURM_ARRAY_TASK_MIN=" +
             std::to_string(min) + ", SLURM_ARRAY_TASK_COUNT=" + std::to_string(n) +
             "); arrays with a step or gaps (--array=0-6:2, --array=1,5) cannot be sharded from the environment: "
             "give --shard K/N";
    }
    out = ShardSpec{true, id - min, n, "SLURM_ARRAY_TASK_ID"};
    return count_agrees("SLURM_ARRAY_TASK_COUNT");
  }
  if (env("JOB_COMPLETION_INDEX") != nullptr) {
    std::uint32_t k = 0;
    if (!(e = env_number(env, "JOB_COMPLETION_INDEX", k)).empty()) return e;
    std::uint32_t n = flag_count;
    if (count_text.empty()) {
      if (env("MRC_SHARD_COUNT") == nullptr) {
        return "JOB_COMPLETION_INDEX is set but the shard count is not: give --shard-count N (the Job's "
               "completions) or set MRC_SHARD_COUNT";
      }
      if (!(e = env_number(env, "MRC_SHARD_COUNT", n)).empty()) return e;
      if (n == 0) return "MRC_SHARD_COUNT=0: the shard count must be " + count_range();
    }
    if (k >= n) {
      return "JOB_COMPLETION_INDEX=" + std::to_string(k) + " is not below the shard count " + std::to_string(n) +
             (count_text.empty() ? " (MRC_SHARD_COUNT)" : " (--shard-count)");
    }
    out = ShardSpec{true, k, n, "JOB_COMPLETION_INDEX"};
    return "";
  }
  if (!count_text.empty()) {
    return "--shard-count is the count of a Kubernetes Indexed Job, but JOB_COMPLETION_INDEX is not set: give "
           "--shard K/N";
  }
  return "";
}

std::string load_case_costs(const std::filesystem::path& dir, CaseCosts& out) {
  const std::filesystem::path file = dir / harness::kResultsJsonName;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return "--shard-costs " + dir.string() + ": no " + std::string(harness::kResultsJsonName) +
           " there (give the --out folder of a previous `run --wall-clock`)";
  }
  harness::RunResult previous;
  try {
    previous = harness::read_results_json(file);
  } catch (const std::exception& e) {
    return std::string("--shard-costs: ") + e.what();
  }
  out.by_case.clear();
  for (const harness::CaseResult& c : previous.cases) {
    if (c.wall_ms) out.by_case[c.id] = std::max(*c.wall_ms, 0.0);
  }
  if (out.by_case.empty()) {
    return "--shard-costs " + file.string() + " records no wall times (it was written without --wall-clock)";
  }
  out.basis = "wall-ms:" + dir.string();
  return "";
}

double estimated_case_cost(const harness::Case& c) {
  const double mtu = c.testbed.mtu.value_or(4096);
  double packets = 1;
  for (const harness::StimulusStep& s : c.stimulus) {
    if (const auto* t = std::get_if<harness::TrafficStep>(&s.body)) {
      packets += static_cast<double>(t->writes) * std::max(1.0, std::ceil(static_cast<double>(t->size) / mtu));
    } else if (std::holds_alternative<harness::InjectStep>(s.body)) {
      packets += 1;
    }
  }
  return packets;
}

double case_cost(const harness::Case& c, const CaseCosts& costs) {
  if (costs.by_case.empty()) return estimated_case_cost(c);
  if (const auto it = costs.by_case.find(c.id); it != costs.by_case.end()) return it->second;
  double sum = 0;
  for (const auto& [id, ms] : costs.by_case) sum += ms;
  return sum / static_cast<double>(costs.by_case.size());
}

std::vector<std::vector<std::size_t>> partition_units(const std::vector<ShardUnit>& units, std::uint32_t count) {
  std::vector<std::vector<std::size_t>> shards(std::max<std::uint32_t>(count, 1));
  std::vector<std::size_t> order(units.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (units[a].cost != units[b].cost) return units[a].cost > units[b].cost;
    return units[a].id < units[b].id;
  });
  std::vector<double> load(shards.size(), 0.0);
  for (std::size_t u : order) {
    // The lowest index among the least loaded: min_element keeps the first of equals.
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shards[least].push_back(u);
    load[least] += units[u].cost;
  }
  for (auto& s : shards) std::sort(s.begin(), s.end());
  return shards;
}

std::string fingerprint_hex(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string cases_fingerprint_text(const std::vector<const harness::Case*>& cases) {
  std::string s;
  for (const harness::Case* c : cases) {
    s += "case " + c->id + ' ' + harness::sha256_file_hex(c->file).value_or("unreadable") + " seed " +
         std::to_string(c->seed) + '\n';
  }
  return s;
}

}  // namespace mrc::run
