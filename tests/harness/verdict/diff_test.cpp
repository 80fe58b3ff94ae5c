// The semantic capture diff: normalization hides what legitimately differs between runs, a real
// difference is named at field level with both packet indices and Wireshark filters, masks,
// equivalence windows, timestamp tolerances, missing/extra and undecodable packets.
#include "harness/verdict/diff.hpp"

#include <gtest/gtest.h>

#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Feedback;
using testing::encode;
using testing::ev_value;

// One run as a capture: n WRITE packets sprayed over 4 EVs plus a feedback frame every 4th,
// with everything run-specific (QPN, first PSN, VA, addresses, start time) taken from the args.
struct RunSpec {
  std::uint32_t qpn = 0x222;
  std::uint32_t psn0 = 1000;
  std::uint64_t va0 = 0x10000;
  std::uint8_t src = 1;
  std::uint8_t dst = 2;
  std::uint64_t t0 = 5000;
};

Capture make_run(const RunSpec& r, std::size_t n = 24) {
  Capture c("run");
  for (std::size_t k = 0; k < n; ++k) {
    Data d;
    d.opcode = k % 4 == 0 ? wire::opcode::kMrcWriteFirst : (k % 4 == 3 ? wire::opcode::kMrcWriteLast : wire::opcode::kMrcWriteMiddle);
    d.psn = r.psn0 + static_cast<std::uint32_t>(k);
    d.dqpn = r.qpn;
    d.va = r.va0 + k * 256;
    d.ev = ev_value(static_cast<std::uint32_t>(k % 4));
    d.src_host = r.src;
    d.dst_host = r.dst;
    d.fill = static_cast<std::uint8_t>(k);
    c.add(r.t0 + k * 1000, encode(d));
    if (k % 4 == 3) {
      Feedback f;
      f.psn = 70000 + static_cast<std::uint32_t>(k);  // the peer's PSN space
      f.trig_psn = f.psn;
      f.dqpn = r.qpn + 1;
      f.src_host = r.dst;
      f.dst_host = r.src;
      c.add(r.t0 + k * 1000 + 500, encode(f));
    }
  }
  c.integrity().offered = c.integrity().captured;
  return c;
}

Capture rebuild(const Capture& c, const std::vector<std::size_t>& order) {
  Capture out("reordered");
  for (std::size_t i = 0; i < order.size(); ++i) out.add(c.packet(i).ts_ns, c.bytes(order[i]));
  return out;
}

TEST(CaptureDiff, NormalizationHidesQpnPsnVaAddressesAndStartTime) {
  const Capture a = make_run(RunSpec{});
  const Capture b = make_run(RunSpec{0x999, 0xFFFFF0, 0x7F000000, 9, 7, 1'000'000});  // PSNs wrap past 2^24
  const DiffReport r = diff_captures(a, b, DiffOptions{});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.identical()) << render_diff(r, DiffOptions{});
  EXPECT_EQ(r.pairs, a.size());
  EXPECT_EQ(r.reordered_pairs, 0u);
  // Without normalization the same two runs differ everywhere.
  DiffOptions raw;
  raw.normalize = false;
  EXPECT_FALSE(diff_captures(a, b, raw).identical());
}

TEST(CaptureDiff, AFieldDifferenceNamesFieldValuesIndicesAndFilters) {
  const Capture a = make_run(RunSpec{});
  // make_run: k = 0..3 data, the feedback after k = 3 is index 4, k = 4 (PSN 1004, FIRST) index 5.
  Capture b("b");
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i != 5) {
      b.add(a.packet(i).ts_ns, a.bytes(i));
      continue;
    }
    Data x;
    x.opcode = wire::opcode::kMrcWriteFirst;
    x.psn = 1005;  // one too high
    x.dqpn = 0x222;
    x.va = 0x10000 + 4 * 256;
    x.ev = ev_value(0);
    x.fill = 4;
    b.add(a.packet(i).ts_ns, encode(x));
  }
  const DiffReport r = diff_captures(a, b, DiffOptions{});
  ASSERT_FALSE(r.identical());
  EXPECT_EQ(r.differing_pairs, 1u);
  ASSERT_EQ(r.differences.size(), 1u) << render_diff(r, DiffOptions{});
  const Difference& x = r.differences[0];
  EXPECT_EQ(x.kind, DiffKind::kField);
  EXPECT_EQ(x.field, "bth.psn");
  EXPECT_EQ(x.index_a, 5);
  EXPECT_EQ(x.index_b, 5);
  EXPECT_EQ(x.expected, "1004 [offset 4]");
  EXPECT_EQ(x.observed, "1005 [offset 5]");
  EXPECT_EQ(x.filter_a, "frame.number == 6 && mrc.bth.psn == 1004");
  EXPECT_EQ(x.filter_b, "frame.number == 6 && mrc.bth.psn == 1005");
  const std::string text = render_diff(r, DiffOptions{});
  EXPECT_NE(text.find("bth.psn"), std::string::npos) << text;
  EXPECT_NE(text.find("frame.number == 6 && mrc.bth.psn == 1005"), std::string::npos) << text;
}

TEST(CaptureDiff, MasksLeaveFieldsOut) {
  const Capture a = make_run(RunSpec{});
  Capture b("b");
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto bytes = std::vector<std::uint8_t>(a.bytes(i).begin(), a.bytes(i).end());
    bytes[14 + 7] = 33;  // IPv6 hop limit
    b.add(a.packet(i).ts_ns, bytes);
  }
  DiffOptions opt;
  auto r = diff_captures(a, b, opt);
  EXPECT_EQ(r.differing_pairs, a.size());
  EXPECT_EQ(r.differences.front().field, "ip.hop_limit");
  opt.masks = {"ip.hop_limit"};
  EXPECT_TRUE(diff_captures(a, b, opt).identical());
  opt.masks = {"ip.hop_limitt"};
  r = diff_captures(a, b, opt);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("ip.hop_limitt"), std::string::npos);
}

TEST(CaptureDiff, EvMaskCoversEveryEvCarryingField) {
  const Capture a = make_run(RunSpec{});
  Capture b("b");
  for (std::size_t k = 0, i = 0; i < a.size(); ++i) {
    wire::DecodedFrame f;
    ASSERT_TRUE(wire::decode_frame(a.bytes(i), f).ok());
    if (f.bth.opcode == wire::opcode::kMrcAck) {
      b.add(a.packet(i).ts_ns, a.bytes(i));
      continue;
    }
    Data d;
    d.opcode = f.bth.opcode;
    d.psn = f.bth.psn;
    d.dqpn = f.bth.dest_qp;
    d.va = f.reth.va;
    d.ev = ev_value(static_cast<std::uint32_t>(7 - k % 4));  // other EVs
    d.fill = static_cast<std::uint8_t>(k++);
    b.add(a.packet(i).ts_ns, encode(d));
  }
  DiffOptions opt;
  const auto r = diff_captures(a, b, opt);
  EXPECT_FALSE(r.identical());
  EXPECT_EQ(r.differences.front().field, "ip.flow_label");
  opt.masks = {"ev"};
  EXPECT_TRUE(diff_captures(a, b, opt).identical()) << render_diff(diff_captures(a, b, opt), opt);
}

TEST(CaptureDiff, ReorderingInsideTheWindowMatchesByOpcodeAndPsn) {
  const Capture a = make_run(RunSpec{});
  std::vector<std::size_t> order(a.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::swap(order[1], order[2]);  // two MIDDLE packets sprayed out of order
  const Capture b = rebuild(a, order);
  DiffOptions strict;
  EXPECT_FALSE(diff_captures(a, b, strict).identical());
  DiffOptions win;
  win.window = 4;
  // Matched across positions, the pairs keep their own timestamps: only `ts` differs.
  auto r = diff_captures(a, b, win);
  EXPECT_EQ(r.reordered_pairs, 2u);
  EXPECT_EQ(r.field_differences, 2u);
  for (const auto& d : r.differences) EXPECT_EQ(d.field, "ts");
  win.tolerance_ns = 1000;  // one packet gap
  r = diff_captures(a, b, win);
  EXPECT_TRUE(r.identical()) << render_diff(r, win);
  EXPECT_EQ(r.reordered_pairs, 2u);
  // Reordering at the very start: PSN and VA bases are the lowest values, not the first seen.
  std::vector<std::size_t> first(a.size());
  for (std::size_t i = 0; i < first.size(); ++i) first[i] = i;
  std::swap(first[0], first[1]);
  r = diff_captures(a, rebuild(a, first), win);
  EXPECT_TRUE(r.identical()) << render_diff(r, win);
  // A swap wider than the window is still a difference.
  std::vector<std::size_t> far(a.size());
  for (std::size_t i = 0; i < far.size(); ++i) far[i] = i;
  std::swap(far[0], far[10]);
  EXPECT_FALSE(diff_captures(a, rebuild(a, far), win).identical());
}

TEST(CaptureDiff, MissingAndExtraPackets) {
  const Capture a = make_run(RunSpec{});
  Capture b("b");
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i != 6) b.add(a.packet(i).ts_ns, a.bytes(i));
  }
  DiffOptions opt;
  opt.window = 2;
  auto r = diff_captures(a, b, opt);
  EXPECT_EQ(r.missing, 1u);
  EXPECT_EQ(r.extra, 0u);
  EXPECT_EQ(r.differing_pairs, 0u);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].kind, DiffKind::kMissing);
  EXPECT_EQ(r.differences[0].index_a, 6);
  r = diff_captures(b, a, opt);
  EXPECT_EQ(r.extra, 1u);
  EXPECT_EQ(r.missing, 0u);
  EXPECT_EQ(r.differences[0].index_b, 6);
}

TEST(CaptureDiff, TimestampToleranceAbsoluteAndRelative) {
  const Capture a = make_run(RunSpec{});
  Capture b("b");
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::uint64_t rel = a.packet(i).ts_ns - a.packet(0).ts_ns;
    b.add(a.packet(0).ts_ns + rel + rel / 20 + 3, a.bytes(i));  // 5% slower plus 3 ns
  }
  DiffOptions opt;
  auto r = diff_captures(a, b, opt);
  EXPECT_EQ(r.differing_pairs, a.size() - 1);  // all but the first (both at 0)
  EXPECT_EQ(r.differences.front().field, "ts");
  opt.tolerance_ns = 3;
  opt.tolerance_pct = 5;
  EXPECT_TRUE(diff_captures(a, b, opt).identical());
  opt.tolerance_pct = 4;
  EXPECT_FALSE(diff_captures(a, b, opt).identical());
  opt.masks = {"ts"};
  EXPECT_TRUE(diff_captures(a, b, opt).identical());
}

TEST(CaptureDiff, AClockThatStepsBackGivesSaneTimesNotWrappedOnes) {
  const Capture a = make_run(RunSpec{});
  Capture b("b");
  for (std::size_t i = 0; i < a.size(); ++i) {
    // Packet 0 stamped 30 us late: the packets after it are "before" it.
    b.add(a.packet(i).ts_ns + (i == 0 ? 30000 : 0), a.bytes(i));
  }
  const auto r = diff_captures(a, b, DiffOptions{});
  ASSERT_FALSE(r.differences.empty());
  for (const Difference& d : r.differences) {
    if (d.field != "ts") continue;
    // Offsets from the earliest packet ("N ns after the first packet" in time): never the
    // 2^64 - x of an unsigned wrap.
    EXPECT_LT(std::stoull(d.observed), 1'000'000u) << d.observed;
    EXPECT_LT(std::stoull(d.expected), 1'000'000u) << d.expected;
  }
}

TEST(CaptureDiff, PayloadAndUndecodablePackets) {
  const Capture a = make_run(RunSpec{}, 4);
  Capture b("b");
  Capture c("c");
  const std::vector<std::uint8_t> junk(60, 0xEE);
  std::vector<std::uint8_t> junk2 = junk;
  junk2[30] = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto bytes = std::vector<std::uint8_t>(a.bytes(i).begin(), a.bytes(i).end());
    if (i == 1) bytes[bytes.size() - 10] ^= 1;  // one payload byte (ICRC now bad as well)
    b.add(a.packet(i).ts_ns, bytes);
    c.add(a.packet(i).ts_ns, a.bytes(i));
  }
  auto r = diff_captures(a, b, DiffOptions{});
  ASSERT_EQ(r.differing_pairs, 1u);
  std::vector<std::string> fields;
  for (const auto& d : r.differences) fields.push_back(d.field);
  EXPECT_NE(std::find(fields.begin(), fields.end(), "payload"), fields.end());
  EXPECT_NE(std::find(fields.begin(), fields.end(), "icrc"), fields.end());
  // Undecodable frames compare by error and bytes.
  Capture a2 = a;
  a2.add(100'000, junk);
  c.add(100'000, junk);
  EXPECT_TRUE(diff_captures(a2, c, DiffOptions{}).identical());
  Capture c2 = make_run(RunSpec{}, 4);
  c2.add(100'000, junk2);
  r = diff_captures(a2, c2, DiffOptions{});
  EXPECT_EQ(r.differing_pairs, 1u);
  EXPECT_EQ(r.not_roce_a, 1u);  // ethertype 0xEEEE: not RoCEv2, compared as bytes
  EXPECT_EQ(r.decode_failures_a, 0u);
  ASSERT_FALSE(r.differences.empty());
  EXPECT_EQ(r.differences.back().kind, DiffKind::kDecode);
  EXPECT_NE(r.differences.back().observed.find("different bytes"), std::string::npos);
}

// Real captures hold ARP, TCP and other UDP beside the RoCEv2 traffic: those frames are counted
// as "not RoCEv2" (compared as raw bytes), apart from RoCEv2 frames that fail to decode, so a
// reader (and diff.real_roce) can tell a foreign frame from a decoder that gave up.
TEST(CaptureDiff, ForeignFramesAreCountedApartFromUndecodableRoce) {
  Capture a = make_run(RunSpec{}, 4);
  std::vector<std::uint8_t> arp(60, 0);
  arp[12] = 0x08;
  arp[13] = 0x06;
  std::vector<std::uint8_t> tcp(a.bytes(0).begin(), a.bytes(0).end());
  tcp[14 + 6] = 6;  // IPv6 next header: TCP
  std::vector<std::uint8_t> cut(a.bytes(0).begin(), a.bytes(0).begin() + 14 + 40 + 8 + 6);  // inside the BTH
  a.add(200'000, arp);
  a.add(201'000, tcp);
  a.add(202'000, cut);
  const DiffReport r = diff_captures(a, a, DiffOptions{});
  EXPECT_TRUE(r.identical());
  EXPECT_EQ(r.not_roce_a, 2u);
  EXPECT_EQ(r.not_roce_b, 2u);
  EXPECT_EQ(r.decode_failures_a, 1u);
  const std::string text = render_diff(r, DiffOptions{});
  EXPECT_NE(text.find("undecodable RoCEv2: 1 in A, 1 in B"), std::string::npos) << text;
  EXPECT_NE(text.find("not RoCEv2 (compared as raw bytes): 2 in A, 2 in B"), std::string::npos) << text;
  // Without the cut frame nothing is undecodable, and the text does not say so.
  Capture clean = make_run(RunSpec{}, 4);
  clean.add(200'000, arp);
  const std::string clean_text = render_diff(diff_captures(clean, clean, DiffOptions{}), DiffOptions{});
  EXPECT_EQ(clean_text.find("undecodable"), std::string::npos) << clean_text;
}

TEST(CaptureDiff, KeepsOnlyTheFirstDifferencesButCountsAll) {
  const Capture a = make_run(RunSpec{}, 40);
  Capture b("b");
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto bytes = std::vector<std::uint8_t>(a.bytes(i).begin(), a.bytes(i).end());
    bytes[14 + 7] = 1;
    b.add(a.packet(i).ts_ns, bytes);
  }
  DiffOptions opt;
  opt.max_differences = 3;
  const auto r = diff_captures(a, b, opt);
  EXPECT_EQ(r.differences.size(), 3u);
  EXPECT_EQ(r.field_differences, a.size());
  const std::string text = render_diff(r, opt, 2);
  EXPECT_NE(text.find("more"), std::string::npos) << text;
}

// Two hosts whose QPs both have number 0x11 (soft-RoCE gives every first QP that number) talk
// to each other: one SEND stream each way, host 1's PSNs from psn1, host 2's from psn2, interleaved
// (host 1 first, or host 2 first with `host2_first`). Host 1's QP may be numbered qpn1 instead.
Capture two_hosts_same_qpn(std::uint32_t psn1, std::uint32_t psn2, bool host2_first = false,
                           std::uint32_t qpn1 = 0x11) {
  Capture c("two-hosts");
  auto send = [](std::uint8_t from, std::uint8_t to, std::uint32_t psn, std::uint32_t dqpn, std::size_t k) {
    Data d;
    d.opcode = wire::opcode::kRcSendOnly;
    d.reth = false;
    d.psn = psn;
    d.dqpn = dqpn;
    d.src_host = from;
    d.dst_host = to;
    d.len = 64;
    d.fill = static_cast<std::uint8_t>(k);
    return encode(d);
  };
  for (std::size_t k = 0; k < 8; ++k) {
    const auto k32 = static_cast<std::uint32_t>(k);
    auto to_host2 = send(1, 2, psn1 + k32, 0x11, k);  // to host 2's QP 0x11
    auto to_host1 = send(2, 1, psn2 + k32, qpn1, k);  // to host 1's QP
    c.add(10'000 + 2000 * k, host2_first ? to_host1 : to_host2);
    c.add(11'000 + 2000 * k, host2_first ? to_host2 : to_host1);
  }
  return c;
}

// QPN ordinals and PSN spaces are per (destination address, destination QPN): two hosts that
// both use QPN 0x11 are two QPs, each with its own PSN base, not one QP with a merged base.
TEST(CaptureDiff, TwoHostsWithTheSameQpnKeepTheirOwnQpOrdinalsAndPsnSpaces) {
  const Capture a = two_hosts_same_qpn(1000, 5000);
  // The same exchange with each host's initial PSN swapped, or with host 2 speaking first, or
  // with host 1's QP numbered 0x12: each host chooses these, so none is a difference.
  for (const Capture& b : {two_hosts_same_qpn(5000, 1000), two_hosts_same_qpn(1000, 5000, true),
                           two_hosts_same_qpn(1000, 5000, false, 0x12)}) {
    const DiffReport r = diff_captures(a, b, DiffOptions{});
    EXPECT_TRUE(r.identical()) << render_diff(r, DiffOptions{});
  }
  // A real difference is still named: host 2's sixth PSN one too high (a skipped PSN).
  Capture b("b");
  const Capture swapped = two_hosts_same_qpn(5000, 1000);
  for (std::size_t i = 0; i < swapped.size(); ++i) {
    if (i != 11) {
      b.add(swapped.packet(i).ts_ns, swapped.bytes(i));
      continue;
    }
    Data d;
    d.opcode = wire::opcode::kRcSendOnly;
    d.reth = false;
    d.psn = 1000 + 6;
    d.dqpn = 0x11;
    d.src_host = 2;
    d.dst_host = 1;
    d.len = 64;
    d.fill = 5;
    b.add(swapped.packet(i).ts_ns, encode(d));
  }
  const DiffReport r = diff_captures(a, b, DiffOptions{});
  ASSERT_EQ(r.differences.size(), 1u) << render_diff(r, DiffOptions{});
  EXPECT_EQ(r.differences[0].field, "bth.psn");
  EXPECT_EQ(r.differences[0].index_a, 11);
  EXPECT_EQ(r.differences[0].expected, "5005 [offset 5]");
  EXPECT_EQ(r.differences[0].observed, "1006 [offset 6]");
}

}  // namespace
}  // namespace mrc::harness
