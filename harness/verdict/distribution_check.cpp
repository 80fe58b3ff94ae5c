// The `distribution` check (anchors G6): is the DUT's spraying uniform over the eligible EVs,
// planes or ports? A goodness-of-fit test (Pearson chi-square or G) at a declared alpha, with the
// minimum sample size from a power analysis for a declared effect size, so "too few packets" is
// INCONCLUSIVE rather than a PASS that could not have failed.
#include <algorithm>
#include <cmath>

#include "harness/verdict/check_support.hpp"
#include "harness/verdict/checks.hpp"
#include "harness/verdict/gof_stats.hpp"

namespace mrc::harness {
namespace {

constexpr std::uint32_t kEvGood = 1u << 0;  // host-API EV state bit GOOD

struct Category {
  std::uint32_t key = 0;  // EV echo identity, or port number
  std::uint8_t port = 0;  // the EV's port (its plane)
  std::string label;
  std::uint64_t count = 0;
  const PacketRec* first = nullptr;
};

std::string_view over_name(DistributionOver o) { return kDistributionOverNames[static_cast<std::size_t>(o)]; }

// The eligible categories: EVs that are GOOD and not DENIED, or the ports those EVs leave on.
std::vector<Category> categories(const DistributionCheck& spec, const CheckContext& ctx) {
  std::vector<Category> out;
  for (const EvRecord& e : ctx.dut.evs) {
    if (e.denied || !(e.state & kEvGood)) continue;
    if (spec.over == DistributionOver::kEv) {
      out.push_back(Category{e.echo, e.port, "ev " + hex(e.echo) + " (index " + std::to_string(e.index) + ", port " +
                                                 std::to_string(e.port) + ")"});
      continue;
    }
    const bool seen = std::any_of(out.begin(), out.end(), [&](const Category& c) { return c.key == e.port; });
    if (!seen) out.push_back(Category{e.port, e.port, std::string(over_name(spec.over)) + " " + std::to_string(e.port)});
  }
  std::sort(out.begin(), out.end(), [](const Category& a, const Category& b) { return a.key < b.key; });
  return out;
}

// The category key of one data packet: its EV, the plane (tap port) it was captured on, or the
// configured port of its EV.
bool packet_key(const DistributionCheck& spec, const CheckContext& ctx, const PacketRec& p, std::uint32_t& key) {
  switch (spec.over) {
    case DistributionOver::kEv: key = p.ev; return true;
    case DistributionOver::kPlane: key = p.port; return p.port != 0;
    case DistributionOver::kPort:
      for (const EvRecord& e : ctx.dut.evs) {
        if (e.echo == p.ev) {
          key = e.port;
          return true;
        }
      }
      return false;
  }
  return false;
}

}  // namespace

CheckResult run_distribution(const DistributionCheck& spec, const CheckContext& ctx) {
  CheckResult r = make_result("distribution", "distribution/" + std::string(over_name(spec.over)));
  const auto taps = select_taps(ctx, TapSide::kFromDut);
  if (integrity_gate(ctx, taps, "data frames from the DUT", r)) return r;
  if (ctx.dut.evs.empty()) {
    conclude(r, Verdict::kError, "the DUT binding reported no EV list: the categories of the test are unknown");
    return r;
  }
  std::optional<std::uint32_t> qpn;
  if (spec.qp) {
    if (*spec.qp < ctx.peer_qpns.size()) {
      qpn = ctx.peer_qpns[*spec.qp];
    } else if (*spec.qp == 0 && ctx.dut.peer_qpn != 0) {
      qpn = ctx.dut.peer_qpn;
    } else {
      conclude(r, Verdict::kError, "the context maps no QPN for qp " + std::to_string(*spec.qp));
      return r;
    }
  }

  std::vector<Category> cats = categories(spec, ctx);
  r.metrics["categories"] = static_cast<double>(cats.size());
  if (cats.size() < 2) {
    conclude(r, Verdict::kInconclusive,
             std::to_string(cats.size()) + " eligible " + std::string(over_name(spec.over)) +
                 " categories (GOOD, not DENIED): a distribution needs at least 2");
    return r;
  }

  const auto shared = trace_of(ctx, taps);
  const Trace& t = *shared;
  note_decode_issues(ctx, t, r);
  std::uint64_t outside = 0;
  for (const PacketRec& p : t.packets) {
    if (!p.is_write_data() || (qpn && p.dqpn != *qpn)) continue;
    std::uint32_t key = 0;
    auto it = packet_key(spec, ctx, p, key)
                  ? std::lower_bound(cats.begin(), cats.end(), key,
                                     [](const Category& c, std::uint32_t k) { return c.key < k; })
                  : cats.end();
    if (it == cats.end() || it->key != key) {
      ++outside;
      continue;
    }
    if (it->count++ == 0) it->first = &p;
  }

  std::vector<std::uint64_t> observed;
  for (const auto& c : cats) observed.push_back(c.count);
  const std::vector<double> expected(cats.size(), 1.0 / static_cast<double>(cats.size()));
  const auto kind = spec.test == GofTest::kG ? stats::GofKind::kG : stats::GofKind::kChi2;
  const stats::GofResult g = stats::gof_test(observed, expected, kind);
  const std::uint64_t n_min = stats::min_sample_size(spec.effect_size, g.df, spec.alpha, spec.power);

  r.metrics["n"] = static_cast<double>(g.n);
  r.metrics["n_min"] = static_cast<double>(n_min);
  r.metrics["df"] = g.df;
  r.metrics["alpha"] = spec.alpha;
  r.metrics["power"] = spec.power;
  r.metrics["effect_size_target"] = spec.effect_size;
  r.metrics["outside_categories"] = static_cast<double>(outside);

  Chart chart;
  chart.kind = Chart::Kind::kBars;
  chart.title = "data packets per " + std::string(over_name(spec.over)) + ": observed vs uniform";
  chart.x_label = std::string(over_name(spec.over));
  chart.y_label = "packets";
  // Per EV the bars stand by plane, the busiest first within each, so at 256 EVs a starved EV
  // or a plane out of step shows as a step in the profile; the tooltips keep each EV's name.
  std::vector<std::size_t> order(cats.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const bool by_plane = spec.over == DistributionOver::kEv;
  if (by_plane) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (cats[a].port != cats[b].port) return cats[a].port < cats[b].port;
      return cats[a].count > cats[b].count;
    });
  }
  for (std::size_t i : order) {
    chart.labels.push_back(cats[i].label);
    chart.values.push_back(static_cast<double>(cats[i].count));
    chart.expected.push_back(static_cast<double>(g.n) * expected[i]);
    if (by_plane) chart.groups.push_back("plane " + std::to_string(cats[i].port));
  }
  r.charts.push_back(std::move(chart));

  const std::string test_name = spec.test == GofTest::kG ? "G" : "chi2";
  if (g.n < n_min) {
    conclude(r, Verdict::kInconclusive,
             "need >= " + std::to_string(n_min) + " data packets to detect w = " + fmt_double(spec.effect_size) +
                 " with power " + fmt_double(spec.power) + " at alpha " + fmt_double(spec.alpha) + " over " +
                 std::to_string(cats.size()) + " categories, saw " + std::to_string(g.n));
    return r;
  }
  r.metrics["p_value"] = g.p_value;
  r.metrics["statistic"] = g.statistic;
  r.metrics["effect_size_w"] = g.cohen_w;
  r.metrics["cramers_v"] = g.cramers_v;
  r.metrics["max_rel_dev"] = g.max_rel_dev;

  const Category& worst = cats[g.max_dev_category];
  const double e_worst = static_cast<double>(g.n) / static_cast<double>(cats.size());
  const std::string summary = test_name + " = " + fmt_double(g.statistic, 6) + ", df = " + fmt_double(g.df) +
                              ", p = " + fmt_double(g.p_value) + " (alpha " + fmt_double(spec.alpha) + "), n = " +
                              std::to_string(g.n) + " (>= " + std::to_string(n_min) + "), observed w = " +
                              fmt_double(g.cohen_w) + ", largest deviation " + fmt_double(100 * g.max_rel_dev, 3) +
                              "% on " + worst.label;
  if (g.p_value < spec.alpha) {
    Evidence e;
    if (worst.first) {
      e = packet_evidence(ctx, *worst.first, std::string(over_name(spec.over)), fmt_double(e_worst, 6) + " packets",
                          std::to_string(worst.count) + " packets", "first data packet of " + worst.label);
    } else {
      e.field = std::string(over_name(spec.over));
      e.expected = fmt_double(e_worst, 6) + " packets";
      e.observed = "0 packets";
      e.note = worst.label + " never used";
    }
    r.evidence.insert(r.evidence.begin(), std::move(e));
    conclude(r, Verdict::kFail, "not uniform over " + std::to_string(cats.size()) + " eligible " +
                                    std::string(over_name(spec.over)) + " categories: " + summary);
    return r;
  }
  conclude(r, Verdict::kPass, "uniform over " + std::to_string(cats.size()) + " eligible " +
                                  std::string(over_name(spec.over)) + " categories not rejected: " + summary);
  return r;
}

}  // namespace mrc::harness
