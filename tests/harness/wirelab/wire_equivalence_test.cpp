// The same cases, over a real wire: `--testbed netns --dut agent:reference` (mrc-dut-agent in a
// network namespace, its veths bridged into the simulated fabric paced to real time) must give
// the verdict the in-process reference gets, and the catalog defects below must FAIL there too.
//
// The whole library runs there: a case that is judged must get the in-process verdict, one that
// is not must say why (SameVerdictAsInProcess); the test fails on a FAIL or ERROR the in-process
// reference does not get, naming both verdicts and the wire run's message.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/capture/pcapng.hpp"
#include "harness/run/suite_runner.hpp"
#include "reference/wire/frame.hpp"
#include "tests/harness/wirelab/wire_cases.hpp"
#include "tests/harness/wirelab/wirelab_support.hpp"

namespace mrc::wirelab::testing {
namespace {

namespace fs = std::filesystem;

fs::path source_dir() { return fs::path(MRC_SOURCE_DIR); }

fs::path case_path(const std::string& id) {
  const std::string area = id.substr(0, id.find('-'));
  return source_dir() / "cases" / area / (id + ".yaml");
}

struct Outcome {
  int exit = -1;
  std::map<std::string, harness::CaseResult> cases;
  std::string err;
};

// Runs case files or folders.
Outcome run_paths(const std::vector<std::string>& paths, const std::string& testbed, const std::string& dut,
                  const fs::path& out) {
  run::RunOptions o;
  o.cases = paths;
  o.testbed = testbed;
  o.dut = dut;
  o.out = out;
  o.progress = false;
  o.isolation.enabled = false;
  std::ostringstream so;
  std::ostringstream se;
  harness::RunResult r;
  Outcome res;
  res.exit = run::run_suite(o, so, se, &r);
  res.err = se.str();
  for (auto& c : r.cases) res.cases[c.id] = c;
  return res;
}

Outcome run(const std::vector<std::string>& ids, const std::string& testbed, const std::string& dut, const fs::path& out) {
  std::vector<std::string> paths;
  for (const auto& id : ids) paths.push_back(case_path(id).string());
  return run_paths(paths, testbed, dut, out);
}

class TempOut {
 public:
  TempOut() {
    char t[] = "/tmp/mrc-wirelab-XXXXXX";
    path_ = mkdtemp(t);
  }
  ~TempOut() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const std::string& s) const { return path_ / s; }

 private:
  fs::path path_;
};

// A paced fabric on a shared 2-core machine has latency spikes the declared budget does not
// always cover: a case whose wire verdict differs is run again (up to kAttempts in all). The whole
// library runs, not a list: on the wire a case either gets the in-process verdict, or says why it
// was not judged there (UNSUPPORTED before it starts, INCONCLUSIVE after, each naming its reason:
// the bridge's lag past its budget, a limit its traffic never reached, ...). A FAIL or an ERROR
// the in-process reference does not get fails the test after kAttempts runs, naming both verdicts
// and the wire run's message; and at least kMinAgreeing cases must agree (the bar: 150
// PASS of the library on this 2-core machine). kWireCases (wire_cases.hpp) is the subset that
// agreed run after run here, which the lab image's test runs. No case is exempt: the failover
// cases that FAILed here (the reference, its window held to a packet or two across the bridge,
// came back round its 32 EVs to a dead one 16.8 ms later, past the 2 T its checks allow) PASS
// since an inferred loss marks its EV when the lost copy's own ACK timeout passes (EvHealth).
constexpr int kAttempts = 3;
constexpr std::size_t kMinAgreeing = 150;

TEST(WireEquivalence, SameVerdictAsInProcess) {
  MRC_SKIP_UNLESS_NETNS();
  TempOut out;
  const Outcome in = run_paths({(source_dir() / "cases").string()}, "mini", "reference", out / "in");
  ASSERT_GE(in.cases.size(), kWireCases.size()) << in.err;
  std::vector<std::string> left;
  for (const auto& [id, r] : in.cases) left.push_back(id);
  const std::size_t library = left.size();
  std::map<std::string, harness::CaseResult> last;  // each case's latest wire result
  for (int attempt = 0; attempt < kAttempts && !left.empty(); ++attempt) {
    const Outcome wire = attempt == 0
                             ? run_paths({(source_dir() / "cases").string()}, "netns", "agent:reference", out / "wire0")
                             : run(left, "netns", "agent:reference", out / ("wire" + std::to_string(attempt)));
    ASSERT_EQ(wire.cases.size(), left.size()) << wire.err;
    std::vector<std::string> still;
    for (const auto& id : left) {
      const harness::CaseResult& b = wire.cases.at(id);
      last[id] = b;
      // Not run there (UNSUPPORTED names why before it starts): no second try changes that.
      if (in.cases.at(id).verdict != b.verdict && b.verdict != harness::Verdict::kUnsupported) still.push_back(id);
    }
    left = std::move(still);
  }
  std::size_t agreeing = 0;
  std::map<harness::Verdict, std::size_t> not_judged;  // UNSUPPORTED, INCONCLUSIVE
  for (const auto& [id, b] : last) {
    const harness::Verdict a = in.cases.at(id).verdict;
    if (a == b.verdict) {
      ++agreeing;
      continue;
    }
    const std::string why = "in-process " + std::string(harness::to_string(a)) + ", on the wire " +
                            std::string(harness::to_string(b.verdict)) + " (" + std::to_string(kAttempts) + " runs): " +
                            b.message;
    if (b.verdict == harness::Verdict::kUnsupported || b.verdict == harness::Verdict::kInconclusive) {
      ++not_judged[b.verdict];
      EXPECT_FALSE(b.message.empty()) << id << " gives no reason: " << why;
      std::cout << "not judged on the wire: " << id << ": " << why.substr(0, 400) << '\n';
    } else {
      ADD_FAILURE() << id << ": " << why;
    }
  }
  RecordProperty("same_verdict", static_cast<int>(agreeing));
  std::cout << agreeing << " of " << library << " cases agree; " << not_judged[harness::Verdict::kUnsupported]
            << " UNSUPPORTED and " << not_judged[harness::Verdict::kInconclusive] << " INCONCLUSIVE on the wire\n";
  EXPECT_GE(agreeing, kMinAgreeing) << agreeing << " of " << library << " cases agree";
}

// A `timing: scales` case whose ACK timeout is under two round trips of the bridge runs with a
// raised one, says so, and keeps it in its evidence context for replay; so does a case that writes
// times in F (frame times), with F at the bridge's rate. A run this machine could not carry in
// real time (the bridge's queue towards the DUT past its limit: the case stops there, and no
// check of the DUT's own bytes here finds a FAIL on what it captured) is made again, at most kAttempts times in all, as
// SameVerdictAsInProcess does: it says nothing about the scaling.
TEST(WireEquivalence, AScalingCaseRunsWithARaisedTimeoutAndSaysSo) {
  MRC_SKIP_UNLESS_NETNS();
  TempOut out;
  Outcome wire;
  const auto overrun = [](const harness::CaseResult& r) {
    return r.message.find("the real-time bridge's queue towards the DUT reached") != std::string::npos;
  };
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    wire = run({"evctl-v-005", "reliab-v-010"}, "netns", "agent:reference", out / "wire");
    if (wire.cases.size() != 2u) break;
    if (!overrun(wire.cases.at("evctl-v-005")) && !overrun(wire.cases.at("reliab-v-010"))) break;
  }
  ASSERT_EQ(wire.cases.size(), 2u) << wire.err;
  const auto context = [&](const std::string& id) {
    std::ifstream in(out / "wire" / "evidence" / (id + ".context.json"));
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const harness::CaseResult& r = wire.cases.at("evctl-v-005");
  EXPECT_NE(r.verdict, harness::Verdict::kUnsupported) << r.message;
  EXPECT_NE(r.verdict, harness::Verdict::kFail) << r.message;
  EXPECT_NE(r.message.find("timing scaled to this wire: config.qp.timeout 6 -> 10"), std::string::npos) << r.message;
  EXPECT_NE(context("evctl-v-005").find("\"qp_timeout\":10"), std::string::npos) << context("evctl-v-005").substr(0, 400);
  // reliab-v-010 loses 2 % of its first 1500 frame times: 63 us in-process, 50 ms here, so it
  // still has retransmissions to judge (with its window in absolute units it had none).
  const harness::CaseResult& f = wire.cases.at("reliab-v-010");
  EXPECT_NE(f.verdict, harness::Verdict::kUnsupported) << f.message;
  EXPECT_NE(f.verdict, harness::Verdict::kFail) << f.message;
  EXPECT_NE(f.message.find("frame time F on this testbed: 41.96 ns -> 33.57 us"), std::string::npos) << f.message;
  EXPECT_NE(context("reliab-v-010").find("\"spray_bps\":1000000000"), std::string::npos)
      << context("reliab-v-010").substr(0, 400);
}

// The data packets of a case's evidence in timestamp order, and how many of them came after a
// higher PSN (a reordered or retransmitted packet).
std::size_t psn_inversions(const fs::path& pcap, std::size_t& data) {
  std::vector<harness::ReadInterface> ifaces;
  const std::string error = harness::read_capture_file(pcap, ifaces);
  EXPECT_EQ(error, "");
  std::vector<std::pair<std::uint64_t, std::uint32_t>> seen;  // (timestamp, PSN)
  for (const harness::ReadInterface& i : ifaces) {
    for (std::size_t k = 0; k < i.capture.size(); ++k) {
      wire::DecodedFrame f;
      if (wire::decode_frame(i.capture.bytes(k), f).ok() && f.has_meth) {
        seen.emplace_back(i.capture.packet(k).ts_ns, f.bth.psn);
      }
    }
  }
  std::stable_sort(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  data = seen.size();
  std::size_t inversions = 0;
  std::uint32_t highest = 0;
  for (const auto& [ts, psn] : seen) {
    if (psn < highest) ++inversions;
    highest = std::max(highest, psn);
  }
  return inversions;
}

// A reorder hold written in frame times reorders on the wire too. Written as 2 us it reordered
// nothing across a bridge that forwards a packet every 33 us (2 inversions in 384 packets there,
// 189 in the simulator), and the reordering cases PASSed on the wire without testing reordering.
// Held 48 frame times it gave 12 to 43 inversions in runs here: fewer than in the simulator, as
// the sender's window at the bridge's rate is a couple of packets, and held packets fill it. On a
// loaded machine (CI, the fabric paused 103 times) one run gave 3: the number depends on how the
// window and the holds line up in real time, so the wire gets up to three runs to show six.
TEST(WireEquivalence, ReorderingHappensOnTheWire) {
  MRC_SKIP_UNLESS_NETNS();
  TempOut out;
  const Outcome sim = run({"reorder-v-017"}, "mini", "reference", out / "sim");
  ASSERT_EQ(sim.cases.size(), 1u) << sim.err;
  std::size_t sim_data = 0;
  const std::size_t in_sim = psn_inversions(out / "sim" / "evidence" / "reorder-v-017.pcapng", sim_data);
  EXPECT_GE(sim_data, 384u);
  EXPECT_GE(in_sim, 50u);
  constexpr int kReorderAttempts = 3;
  std::size_t on_wire = 0;
  std::string runs;  // each run's figures, for the failure message
  for (int attempt = 0; attempt < kReorderAttempts && on_wire < 6u; ++attempt) {
    const fs::path dir = out / ("wire" + std::to_string(attempt));
    const Outcome wire = run({"reorder-v-017"}, "netns", "agent:reference", dir);
    ASSERT_EQ(wire.cases.size(), 1u) << wire.err;
    std::size_t wire_data = 0;
    const std::size_t inversions = psn_inversions(dir / "evidence" / "reorder-v-017.pcapng", wire_data);
    EXPECT_GE(wire_data, 384u) << wire.cases.at("reorder-v-017").message;
    on_wire = std::max(on_wire, inversions);
    runs += "\nrun " + std::to_string(attempt + 1) + ": " + std::to_string(inversions) + " of " +
            std::to_string(wire_data) + " data packets; " + wire.cases.at("reorder-v-017").message;
  }
  EXPECT_GE(on_wire, 6u) << "inversions in the best of " << kReorderAttempts << " runs on the wire" << runs;
}

// A check that FAILed but was withheld because the bridge's lag (either way), or a pause of the simulated
// fabric with that lag (bridge_trust.hpp pause_overrun), passed its budget, with no frame lost
// (case_result.cpp): the check saw the violation on the wire; the lag only made the verdict
// untrustworthy. A check that passed is never withheld, so this hides no missed defect. (With 2
// frames a case's p99 lag is its slowest frame: one late frame withholds every check.)
bool withheld_fail(const harness::CaseResult& r) {
  if (r.verdict != harness::Verdict::kInconclusive) return false;
  for (const auto& c : r.checks) {
    const bool lagged = c.message.rfind("not judged, the real-time bridge's lag", 0) == 0 ||
                        c.message.rfind("not judged, the real-time bridge's entry delay", 0) == 0 ||
                        c.message.rfind("not judged, the simulated fabric's clock stood still", 0) == 0;
    if (c.verdict == harness::Verdict::kInconclusive && lagged && c.message.find(" (the checks found: ") != std::string::npos) {
      return true;
    }
  }
  return false;
}

// One case per defect, each run short: a lag spike of the bridge under the rest of the suite (ctest
// -j) ends a run INCONCLUSIVE, never PASS, so a few more tries cost little and hide no defect.
constexpr int kDefectAttempts = 5;
// A run the machine could not carry at all (the case stopped early: its queue towards the DUT past
// the runner's limit) judged nothing about the defect, so it is not one of those tries: seen here
// five in a row on spray-v-029 while another ctest ran the campaign beside this test. Up to this
// many such runs more, each after a pause for the load to pass.
constexpr int kOverloadedRetries = 5;
constexpr auto kOverloadPause = std::chrono::seconds(2);

bool overloaded(const harness::CaseResult& r) {
  return r.verdict == harness::Verdict::kInconclusive &&
         r.message.find("this machine cannot carry the case's traffic") != std::string::npos;
}

TEST(WireEquivalence, CatalogDefectsFailOnTheWire) {
  MRC_SKIP_UNLESS_NETNS();
  TempOut out;
  // A first wire run in a fresh process lags past the budget on its first frames (seen here: p99
  // 1 ms on 2 frames, every try); one untimed run warms the path. Its verdict is not judged.
  (void)run({kWireDefects[0].second}, "netns", "agent:reference", out / "warm-up");
  int i = 0;
  for (const auto& [defect, id] : kWireDefects) {
    std::string last;
    bool failed = false;
    int runs = 0;
    int overloads = 0;
    for (int attempt = 0; attempt < kDefectAttempts && !failed; ++attempt, ++runs) {
      const Outcome wire = run({id}, "netns", std::string("agent:reference:") + defect, out / std::to_string(i++));
      ASSERT_EQ(wire.cases.size(), 1u) << defect << ": " << wire.err;
      const auto& r = wire.cases.begin()->second;
      failed = r.verdict == harness::Verdict::kFail || withheld_fail(r);
      last = std::string(harness::to_string(r.verdict)) + ": " + r.message;
      if (!failed && overloaded(r) && overloads < kOverloadedRetries) {
        ++overloads;
        --attempt;
        std::this_thread::sleep_for(kOverloadPause);
      }
    }
    EXPECT_TRUE(failed) << "agent:reference:" << defect << " on " << id << " in " << runs << " runs (" << overloads
                        << " the machine could not carry), last " << last;
  }
}

}  // namespace
}  // namespace mrc::wirelab::testing
