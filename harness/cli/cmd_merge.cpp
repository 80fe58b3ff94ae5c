// `mrc-conform merge DIR... -o OUT` (commands.hpp): the shards of one sharded command checked and
// merged (harness/report/merge_reports.hpp), the merged report written the way the command itself
// writes it (staged in OUT.partial, harness/report/report_folder.hpp), run's evidence files copied.
#include <ostream>

#include "harness/cli/byte_progress.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/staged_out.hpp"
#include "harness/report/campaign_report.hpp"
#include "harness/report/falsefail_report.hpp"
#include "harness/report/merge_readers.hpp"
#include "harness/report/merge_reports.hpp"
#include "harness/report/report.hpp"
#include "harness/report/run_outcome.hpp"
#include "harness/report/variants_report.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {
namespace {

namespace fs = std::filesystem;
using harness::ShardFolder;
using run::kExitBadInput;
using run::kExitHarness;

// What a merge writes: the files (name, content) and, for run, the evidence folders to copy.
struct Merged {
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<fs::path> evidence_from;
  std::vector<fs::path> kills_from;  // campaign: each shard's kills/ (the kept killing runs)
  bool complete = true;
  int exit_code = 0;
  std::string summary;  // for `out`
};

template <typename Result, typename Read>
std::vector<Result> read_all(const std::vector<ShardFolder>& shards, const char* name, Read read) {
  std::vector<Result> out;
  for (const ShardFolder& s : shards) {
    std::error_code ec;
    if (!fs::is_regular_file(s.dir / name, ec)) {
      throw harness::ReportError(s.dir.string() + " has a shard record but no " + name +
                                 " (the shard did not finish writing its report)");
    }
    out.push_back(read(s.dir / name));
  }
  return out;
}

// Throws ReportError on a shard set or a report that does not merge (bad input).
Merged merge(const std::vector<ShardFolder>& shards, const std::string& command_line) {
  const std::string& kind = shards.front().record.kind;
  Merged m;
  if (kind == "run") {
    auto results = read_all<harness::RunResult>(shards, "results.json", harness::read_results_json);
    // A shard whose report names evidence it does not hold would make a merged report that does.
    for (std::size_t i = 0; i < shards.size(); ++i) {
      for (const harness::CaseResult& c : results[i].cases) {
        for (const std::string& e : c.evidence_files) {
          std::error_code ec;
          if (!fs::is_regular_file(shards[i].dir / e, ec)) {
            throw harness::ReportError(shards[i].dir.string() + "/results.json: case " + c.id + " names evidence " + e +
                                       ", which is not in " + shards[i].dir.string() +
                                       ": that shard's report is incomplete; run the shard again");
          }
        }
      }
    }
    const harness::RunResult r = harness::merge_run_results(shards, std::move(results), command_line);
    m.files = {{std::string(harness::kResultsJsonName), harness::render_results_json(r)},
               {std::string(harness::kJunitXmlName), harness::render_junit_xml(r)},
               {std::string(harness::kHtmlReportName), harness::render_html(r)}};
    for (const ShardFolder& s : shards) m.evidence_from.push_back(s.dir / "evidence");
    m.complete = !r.interrupted;
    m.exit_code = harness::exit_code(r);
    const auto counts = r.counts();
    m.summary = std::to_string(r.cases.size()) + " case(s): " + std::to_string(counts.at(harness::Verdict::kPass)) +
                " PASS, " + std::to_string(counts.at(harness::Verdict::kFail)) + " FAIL, " +
                std::to_string(counts.at(harness::Verdict::kUnsupported)) + " UNSUPPORTED, " +
                std::to_string(counts.at(harness::Verdict::kInconclusive)) + " INCONCLUSIVE, " +
                std::to_string(counts.at(harness::Verdict::kError)) + " ERROR" +
                (r.interrupted ? " (interrupted: partial report)" : "") + "\n" +
                harness::conformance_line(harness::run_outcome(r)) + "\n";
  } else if (kind == "campaign") {
    auto results = read_all<harness::CampaignResult>(shards, "campaign.json", harness::read_campaign_json);
    // A shard whose campaign.json names a kept killing run it does not hold is incomplete.
    for (std::size_t i = 0; i < shards.size(); ++i) {
      for (const harness::DefectOutcome& d : results[i].defects) {
        if (d.kept_runs.empty()) continue;
        const fs::path report = shards[i].dir / "kills" / d.defect.name / harness::kHtmlReportName;
        std::error_code ec;
        if (!fs::is_regular_file(report, ec)) {
          throw harness::ReportError(shards[i].dir.string() + "/campaign.json: defect " + d.defect.name +
                                     " names kept killing runs, but " + report.string() +
                                     " is missing: that shard's report is incomplete; run the shard again");
        }
      }
      m.kills_from.push_back(shards[i].dir / "kills");
    }
    const harness::CampaignResult r = harness::merge_campaign_results(shards, std::move(results));
    m.files = {{"campaign.json", harness::render_campaign_json(r)}, {"campaign.html", harness::render_campaign_html(r)}};
    m.complete = !r.interrupted;
    m.exit_code = r.exit_code();
    m.summary = harness::render_campaign_text(r);
  } else if (kind == "variants") {
    auto results = read_all<harness::VariantsResult>(shards, "variants.json", harness::read_variants_json);
    const harness::VariantsResult r = harness::merge_variants_results(shards, std::move(results));
    m.files = {{"variants.json", harness::render_variants_json(r)}, {"variants.html", harness::render_variants_html(r)}};
    m.complete = !r.interrupted;
    m.exit_code = r.exit_code();
    m.summary = harness::render_variants_text(r);
  } else if (kind == "falsefail") {
    auto results = read_all<harness::FalsefailResult>(shards, "falsefail.json", harness::read_falsefail_json);
    const harness::FalsefailResult r = harness::merge_falsefail_results(shards, std::move(results));
    m.files = {{"falsefail.json", harness::render_falsefail_json(r)}};
    m.complete = !r.interrupted;
    m.exit_code = r.exit_code();
    m.summary = harness::render_falsefail_text(r);
  } else {
    throw harness::ReportError(shards.front().dir.string() + "/" + std::string(harness::kShardRecordName) +
                               ": /kind: '" + kind + "' is not run, campaign, variants or falsefail");
  }
  return m;
}

// The bytes a merge copies, for its progress line (byte_progress.hpp).
struct CopyCount {
  ByteProgress& bar;
  std::uint64_t total = 0;
  std::uint64_t done = 0;
};

// Copies one file a chunk at a time through copy_file_atomically (staged, synced, every write
// checked), so a full disk is named as such, not as the I/O error a kernel copy reports.
std::string copy_file_checked(const fs::path& from, const fs::path& to, CopyCount& count) {
  try {
    harness::copy_file_atomically(from, to, [&count](std::uint64_t n) {
      count.done += n;
      count.bar.update(count.done, count.total);
    });
  } catch (const std::exception& e) {
    return "copying " + from.string() + ": " + e.what();
  }
  return "";
}

// The bytes of the regular files under each folder (what the copies below will move).
std::uint64_t bytes_under(const std::vector<fs::path>& dirs) {
  std::uint64_t n = 0;
  std::error_code ec;
  for (const fs::path& dir : dirs) {
    if (!fs::is_directory(dir, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_regular_file(ec)) n += it->file_size(ec);
    }
  }
  return n;
}

// Copies each shard's kills/ (a folder per defect: a report and its evidence) into <stage>/kills
// (a defect runs whole in one shard, so two shards never share a folder). "" or the error.
std::string copy_kills(const std::vector<fs::path>& from, const fs::path& stage, CopyCount& count) {
  std::error_code ec;
  for (const fs::path& dir : from) {
    if (!fs::is_directory(dir, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      const fs::path to = stage / "kills" / fs::relative(it->path(), dir);
      if (it->is_symlink()) return it->path().string() + ": a link: kept killing runs hold files and folders only";
      if (it->is_directory()) {
        fs::create_directories(to, ec);
        if (ec) return "creating " + to.string() + ": " + ec.message();
        continue;
      }
      if (!it->is_regular_file()) return it->path().string() + ": not a regular file";
      if (std::string e = copy_file_checked(it->path(), to, count); !e.empty()) return e;
    }
    if (ec) return "reading " + dir.string() + ": " + ec.message();
  }
  return "";
}

// Copies each shard's evidence/ into <stage>/evidence (the cases of different shards never share a
// file name: each case is in one shard). "" or the error.
std::string copy_evidence(const std::vector<fs::path>& from, const fs::path& stage, CopyCount& count) {
  std::error_code ec;
  for (const fs::path& dir : from) {
    if (!fs::is_directory(dir, ec)) continue;
    fs::create_directories(stage / "evidence", ec);
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const fs::path to = stage / "evidence" / entry.path().filename();
      if (!entry.is_regular_file()) return entry.path().string() + ": not a regular file: a report's evidence holds files only";
      if (std::string e = copy_file_checked(entry.path(), to, count); !e.empty()) return e;
    }
    if (ec) return "reading " + dir.string() + ": " + ec.message();
  }
  return "";
}

}  // namespace

int run_merge(const MergeOptions& o, std::ostream& out, std::ostream& err) {
  std::vector<ShardFolder> shards;
  Merged m;
  try {
    shards = harness::collect_shards(o.dirs);
    m = merge(shards, o.command_line);
  } catch (const std::exception& e) {
    err << "error: merge: " << e.what() << '\n';
    return kExitBadInput;
  }
  std::error_code ec;
  for (const ShardFolder& s : shards) {
    if (fs::equivalent(s.dir, o.out, ec)) {
      err << "error: --out " << o.out.string() << " is one of the shards: merge into another folder\n";
      return kExitBadInput;
    }
  }
  auto folder = open_out(o.out, err);
  if (!folder) return kExitBadInput;
  try {
    // Evidence first, reports last: a report is written only over the evidence it names.
    ByteProgress bar(err, "merge: copying evidence", stderr_is_terminal());
    CopyCount count{bar, bytes_under(m.evidence_from) + bytes_under(m.kills_from)};
    if (std::string e = copy_evidence(m.evidence_from, folder->staging, count); !e.empty()) throw harness::ReportError(e);
    if (std::string e = copy_kills(m.kills_from, folder->staging, count); !e.empty()) throw harness::ReportError(e);
    for (const auto& [name, content] : m.files) harness::write_file_atomically(folder->staging / name, content);
  } catch (const std::exception& e) {
    // Nothing half made is left to read as a report (a full disk, an I/O error): the shards still
    // hold everything, and the merge can be made again once the cause is mended.
    harness::discard_staged(*folder);
    err << "error: writing the merged report: " << e.what() << "\nnothing written to " << o.out.string()
        << " (the shards are unchanged: merge again once there is room)\n";
    return kExitHarness;
  }
  const fs::path dir = place_out(*folder, m.complete, err);
  out << "merged " << shards.size() << ' ' << shards.front().record.kind << " shard(s) into " << dir.string() << '\n'
      << m.summary;
  return m.exit_code;
}

}  // namespace mrc::cli
