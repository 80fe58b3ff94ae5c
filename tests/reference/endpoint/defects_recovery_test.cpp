// Wire symptoms of the loss-recovery and EV-health defects, each against a control run:
// keep-failed-ev, retransmit-same-ev, go-back-n, slow-timeout, early-probe-reuse,
// ignore-min-active, probe-wrong-ev.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

PairOptions fast_timeout() {
  PairOptions o;
  o.timeout = 6;  // T = 65.5 us: recovery fits in a short run, above NSCC-bounded queueing
  return o;
}

// 10 Gb/s per plane: long enough transfers to watch EV state change under way.
constexpr LinkParams kSlow{1000, 10.0};

// A -> B frames on `port` vanish while `from <= now < to`.
void blackhole(Pair& p, std::uint8_t port, std::uint64_t from, std::uint64_t to) {
  p.fabric->filter = [=](int side, transport::TxFrame& f, std::uint64_t now) {
    return !(side == 0 && f.port == port && now >= from && now < to);
  };
}

// Data frames A sends on `port` at or after `after`.
std::size_t data_on_port_after(const std::vector<WireFrame>& frames, std::uint8_t port, std::uint64_t after) {
  std::size_t n = 0;
  for (const auto& w : frames) n += w.from() == 0 && is_data_frame(w) && w.port() == port && w.t() >= after;
  return n;
}

std::size_t keep_failed_run(const PairOptions& o) {
  Pair p(o, kSlow);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  blackhole(p, 3, 0, UINT64_MAX);  // plane 3 is dead for the whole run
  Traffic t = setup_traffic(p);
  post_writes(p, t, 1000, 8192);
  p.fabric->run_for(3'000'000);
  return data_on_port_after(decode_taps(*p.fabric), 3, 200'000);
}

TEST(DefectSymptoms, KeepFailedEv) {
  PairOptions o = fast_timeout();
  EXPECT_EQ(keep_failed_run(o), 0u);  // W11: lost EVs are retired; only probes visit plane 3
  o.defects_a = with(Defect::kKeepFailedEv);
  EXPECT_GT(keep_failed_run(o), 0u);
}

// Drops the first copy of A's PSN sq_psn + 5 (a LAST packet: nothing after it reveals the hole,
// so the ACK timeout recovers it). Returns the (lost first copy, retransmission) frames.
std::pair<WireFrame, WireFrame> lost_and_resent(const PairOptions& o) {
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  const std::uint32_t target = 0x100 + 5;  // A's sq_psn is 0x100
  bool dropped = false;
  p.fabric->filter = [&](int side, transport::TxFrame& f, std::uint64_t) {
    if (side != 0 || dropped) return true;
    wire::DecodedFrame d;
    if (wire::decode_frame(f.view(), d).ok() && is_data(d) && d.bth.psn == target) {
      dropped = true;
      return false;
    }
    return true;
  };
  Traffic t = setup_traffic(p);
  post_writes(p, t, 3, 2048);  // PSNs 0x100..0x105
  p.fabric->run_for(5'000'000);
  EXPECT_EQ(drain_completions(p).first, 3);
  std::vector<WireFrame> copies;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 0 && is_data_frame(w) && w.f.bth.psn == target) copies.push_back(w);
  }
  EXPECT_EQ(copies.size(), 2u);
  if (copies.size() < 2) return {};
  EXPECT_TRUE(copies[0].tap->filtered);
  return {copies[0], copies[1]};
}

TEST(DefectSymptoms, RetransmitSameEv) {
  PairOptions o = fast_timeout();
  auto good = lost_and_resent(o);
  EXPECT_NE(ev_key(good.second), ev_key(good.first));  // W15: a different EV
  o.defects_a = with(Defect::kRetransmitSameEv);
  auto bad = lost_and_resent(o);
  EXPECT_EQ(ev_key(bad.second), ev_key(bad.first));
}

TEST(DefectSymptoms, SlowTimeout) {
  PairOptions o;  // timeout 8: T = 262,144 ns
  const std::uint64_t T = 262'144;
  auto gap = [](const PairOptions& opt) {
    const auto [lost, resent] = lost_and_resent(opt);
    return resent.t() - lost.t();
  };
  const std::uint64_t good = gap(o);
  EXPECT_GE(good, T);
  EXPECT_LT(good, T + T / 4);
  o.defects_a = with(Defect::kSlowTimeout);
  EXPECT_GE(gap(o), 2 * T);
}

// Data frames A sent for PSNs B had already reported received (cumulative ACK or SACK bit) in
// feedback emitted at least `margin` ns before.
std::size_t resent_after_sack(const std::vector<WireFrame>& frames, std::uint64_t margin) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> received;  // (time, psn)
  std::size_t bad = 0;
  for (const auto& w : frames) {
    if (!w.ok) continue;
    if (w.from() == 1 && is_sack(w)) {
      const std::uint32_t base = w.f.seth.sack_base();
      for (unsigned i = 0; i < 64; ++i) {
        if (w.f.seth.sack_bit(i)) received.push_back({w.t(), (base + i) & transport::kPsnMask});
      }
    } else if (w.from() == 0 && is_data(w.f)) {
      for (const auto& [t, psn] : received) {
        if (psn == w.f.bth.psn && t + margin <= w.t()) {
          ++bad;
          break;
        }
      }
    }
  }
  return bad;
}

std::size_t go_back_run(const PairOptions& o) {
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  int seen = 0;
  p.fabric->filter = [&](int side, transport::TxFrame& f, std::uint64_t) {
    if (side != 0) return true;
    wire::DecodedFrame d;
    // Lose the first copy of the 3rd data packet: later ones arrive and are SACKed.
    if (wire::decode_frame(f.view(), d).ok() && is_data(d) && d.bth.psn == 0x102 && seen++ == 0) return false;
    return true;
  };
  Traffic t = setup_traffic(p);
  post_writes(p, t, 1, 40 * 1024);
  p.fabric->run_for(2'000'000);
  EXPECT_EQ(drain_completions(p).first, 1);
  return resent_after_sack(decode_taps(*p.fabric), 5'000);
}

TEST(DefectSymptoms, GoBackN) {
  PairOptions o;
  EXPECT_EQ(go_back_run(o), 0u);  // selective: only the hole is resent
  o.defects_a = with(Defect::kGoBackN);
  EXPECT_GT(go_back_run(o), 0u);
}

// Plane 3 goes dark for [50 us, 400 us). For each plane-3 EV that carried data before, counts
// the probes on it between the outage's end and its first data frame after the outage.
std::vector<std::size_t> probes_before_reuse(const PairOptions& o) {
  Pair p(o, kSlow);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  blackhole(p, 3, 50'000, 400'000);
  Traffic t = setup_traffic(p);
  post_writes(p, t, 1000, 8192);
  p.fabric->run_for(1'500'000);
  const auto frames = decode_taps(*p.fabric);
  std::map<EvKey, std::size_t> probes;
  std::map<EvKey, bool> reused;
  std::vector<std::size_t> out;
  for (const auto& w : frames) {
    if (w.from() != 0 || w.port() != 3 || w.t() < 400'000) continue;
    if (is_probe(w)) {
      if (!reused[ev_key(w)]) ++probes[ev_key(w)];
    } else if (is_data_frame(w)) {
      const EvKey k = ev_key(w);
      if (!reused[k]) {
        reused[k] = true;
        out.push_back(probes[k]);
      }
    }
  }
  return out;
}

TEST(DefectSymptoms, EarlyProbeReuse) {
  PairOptions o = fast_timeout();
  const auto good = probes_before_reuse(o);
  ASSERT_FALSE(good.empty());
  for (std::size_t n : good) EXPECT_GE(n, 2u);  // W11: two good probes before data returns
  o.defects_a = with(Defect::kEarlyProbeReuse);
  const auto bad = probes_before_reuse(o);
  ASSERT_FALSE(bad.empty());
  EXPECT_EQ(*std::min_element(bad.begin(), bad.end()), 1u);
}

// Planes 1..6 are dead; ev_min_active = 16 of 32 EVs. Counts EVs carrying data late in the run.
std::size_t evs_in_use(const PairOptions& base) {
  PairOptions o = base;
  o.ev_min_active = 16;
  o.nscc = false;  // 3/4 of the planes lose everything: keep the send rate up to see every EV
  Pair p(o, kSlow);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  p.fabric->filter = [](int side, transport::TxFrame& f, std::uint64_t) { return side != 0 || f.port > 6; };
  Traffic t = setup_traffic(p);
  post_writes(p, t, 1000, 8192);
  p.fabric->run_for(2'000'000);
  std::set<EvKey> used;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 0 && is_data_frame(w) && w.t() > 300'000) used.insert(ev_key(w));
  }
  return used.size();
}

TEST(DefectSymptoms, IgnoreMinActive) {
  PairOptions o = fast_timeout();
  EXPECT_GE(evs_in_use(o), 16u);  // W11: the floor keeps 16 EVs active
  o.defects_a = with(Defect::kIgnoreMinActive);
  EXPECT_LT(evs_in_use(o), 16u);
}

// Ports the probes A sends leave on while plane 3 is dark.
std::set<std::uint8_t> probe_ports(const PairOptions& o) {
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  blackhole(p, 3, 0, UINT64_MAX);
  Traffic t = setup_traffic(p);
  post_writes(p, t, 400, 4096);
  p.fabric->run_for(1'000'000);
  std::set<std::uint8_t> ports;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 0 && is_probe(w)) ports.insert(w.port());
  }
  return ports;
}

TEST(DefectSymptoms, ProbeWrongEv) {
  PairOptions o = fast_timeout();
  EXPECT_EQ(probe_ports(o), (std::set<std::uint8_t>{3}));  // probes test exactly the failed EVs
  o.defects_a = with(Defect::kProbeWrongEv);
  const auto bad = probe_ports(o);
  EXPECT_FALSE(bad.empty());
  EXPECT_EQ(bad.count(3), 0u);
}

}  // namespace
}  // namespace mrc::ref::testing
