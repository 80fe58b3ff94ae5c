// The `choice` field class (ev_choice.hpp): a packet's EV fields must be the expansion of some
// eligible EV, all from the same one, and the packet must leave on that EV's port.
#include <gtest/gtest.h>

#include "harness/verdict/ev_choice.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::ev_value;

WireEvRecord stev_record(std::uint32_t i, int port) {  // W2 V = bytes 0..3, big endian
  const std::uint32_t v = ev_value(i);
  WireEvRecord r;
  r.wire[0] = static_cast<std::uint8_t>(v >> 24);
  r.wire[1] = static_cast<std::uint8_t>(v >> 16);
  r.wire[2] = static_cast<std::uint8_t>(v >> 8);
  r.wire[3] = static_cast<std::uint8_t>(v);
  r.port = static_cast<std::uint8_t>(port);
  r.index = static_cast<std::uint8_t>(i);
  return r;
}

// Four eligible STEV EVs 0..3 on ports 1..4.
EvChoice four_evs() {
  std::vector<WireEvRecord> evs;
  for (std::uint32_t i = 0; i < 4; ++i) evs.push_back(stev_record(i, static_cast<int>(i) + 1));
  return EvChoice(wire::EvFmtMode::kStev, evs);
}

wire::DecodedFrame decoded(const Data& d, std::vector<std::uint8_t>& bytes) {
  bytes = testing::encode(d);
  wire::DecodedFrame f;
  EXPECT_TRUE(wire::decode_frame(bytes, f, wire::DecodeOptions{}).ok());
  return f;
}

TEST(EvChoice, AnyEligibleEvOnItsPortPasses) {
  const EvChoice c = four_evs();
  for (std::uint32_t i = 0; i < 4; ++i) {
    Data d;
    d.ev = ev_value(i);
    std::vector<std::uint8_t> b;
    const auto f = decoded(d, b);
    EXPECT_TRUE(c.judge(f, static_cast<int>(i) + 1).ok()) << i;
    EXPECT_TRUE(c.judge(f, 0).ok()) << "unknown port: the fields alone";
  }
}

TEST(EvChoice, AFieldNoEligibleEvExpandsToFailsNamingTheClass) {
  const EvChoice c = four_evs();
  Data d;
  d.ev = ev_value(7);  // not in the profile
  std::vector<std::uint8_t> b;
  const auto f = decoded(d, b);
  const EvJudgement j = c.judge(f, 1);
  ASSERT_EQ(j.kind, EvJudgement::Kind::kNotAnyEv);
  EXPECT_EQ(j.field, FieldId::kIpFlowLabel);
  EXPECT_EQ(c.describe(j, f, 1), "ip.flow_label 0x1007 is not the expansion of any eligible EV (4 eligible)");
}

TEST(EvChoice, FieldsFromTwoEvsFail) {
  const EvChoice c = four_evs();
  Data d;
  d.ev = ev_value(1);
  d.flow_label = ev_value(2) >> 16;  // the flow label of EV 2, the source port of EV 1
  std::vector<std::uint8_t> b;
  const auto f = decoded(d, b);
  const EvJudgement j = c.judge(f, 0);
  ASSERT_EQ(j.kind, EvJudgement::Kind::kMixed);
  const std::string text = c.describe(j, f, 0);
  EXPECT_NE(text.find("one packet's EV fields come from one EV"), std::string::npos) << text;
  EXPECT_NE(text.find("EV 1"), std::string::npos) << text;
  EXPECT_NE(text.find("EV 2"), std::string::npos) << text;
}

TEST(EvChoice, AnEligibleEvOnAnotherEvsPortFails) {
  const EvChoice c = four_evs();
  Data d;
  d.ev = ev_value(1);  // EV 1 leaves on port 2
  std::vector<std::uint8_t> b;
  const auto f = decoded(d, b);
  const EvJudgement j = c.judge(f, 3);
  ASSERT_EQ(j.kind, EvJudgement::Kind::kMixed);
  EXPECT_EQ(j.field, FieldId::kPort);
  EXPECT_EQ(j.ev, 2);
  EXPECT_EQ(j.other_ev, 1);
}

TEST(EvChoice, SrV6ExpansionComesFromTheWireLayer) {
  // Two 256-bit EVs: outer DA = bytes 0..15, SRH segment = bytes 16..31, sport 0xC000 | index.
  std::vector<WireEvRecord> evs(2);
  for (std::uint8_t i = 0; i < 2; ++i) {
    evs[i].wire[0] = 0xFC;
    evs[i].wire[3] = static_cast<std::uint8_t>(i + 1);
    evs[i].wire[16] = 0xFC;
    evs[i].wire[19] = static_cast<std::uint8_t>(0x10 + i);
    evs[i].port = static_cast<std::uint8_t>(i + 1);
    evs[i].index = i;
  }
  const EvChoice c(wire::EvFmtMode::kSrv6, evs);
  // A frame on EV `da_ev`'s DA whose SRH segment is EV `seg_ev`'s, both through wire::place_ev.
  auto frame = [&](std::uint8_t da_ev, std::uint8_t seg_ev, std::uint8_t index) {
    wire::FrameSpec s = testing::detail::base_spec(0, wire::kDscpTrimmable, wire::kEcnEct0);
    const std::vector<std::uint8_t> payload(64, 0x33);
    s.bth.opcode = wire::opcode::kMrcWriteOnly;
    s.bth.dest_qp = testing::kPeerQpn;
    s.has_reth = true;
    s.reth.dma_length = 64;
    s.payload = wire::Bytes(payload);
    std::array<std::uint8_t, 16> seg{};
    wire::place_ev(s, wire::EvFmtMode::kSrv6, evs[da_ev].wire, index, seg);
    wire::FrameSpec t;
    std::array<std::uint8_t, 16> other{};
    wire::place_ev(t, wire::EvFmtMode::kSrv6, evs[seg_ev].wire, index, other);
    s.srh.segments = wire::Bytes(other.data(), other.size());
    return testing::detail::finish(s);
  };
  for (std::uint8_t i = 0; i < 2; ++i) {
    const auto bytes = frame(i, i, i);
    wire::DecodedFrame f;
    ASSERT_TRUE(wire::decode_frame(bytes, f, wire::DecodeOptions{}).ok());
    EXPECT_TRUE(c.judge(f, i + 1).ok()) << int{i};
  }
  const auto mixed = frame(0, 1, 0);  // DA of EV 0, SRH segment of EV 1
  wire::DecodedFrame f;
  ASSERT_TRUE(wire::decode_frame(mixed, f, wire::DecodeOptions{}).ok());
  const EvJudgement j = c.judge(f, 1);
  EXPECT_EQ(j.kind, EvJudgement::Kind::kMixed);
  EXPECT_EQ(j.field, FieldId::kSrhSegment0);
}

TEST(EvChoice, EndpointOperationsAreNotAChoice) {
  const EvChoice c = four_evs();
  // An endpoint request (W10) on an EV outside the four: it tests the EV it names, so no QP's
  // EV choice judges it (probe_on_tested_ev does).
  testing::Probe p;
  p.ev = ev_value(9);
  const std::vector<std::uint8_t> b = testing::encode(p);
  wire::DecodedFrame f;
  ASSERT_TRUE(wire::decode_frame(b, f).ok());
  EXPECT_FALSE(EvChoice::applies(f));
  EXPECT_TRUE(c.judge(f, 1).ok());
  // The same EV on a data packet is judged, and fails.
  Data d;
  d.ev = ev_value(9);
  std::vector<std::uint8_t> db;
  EXPECT_FALSE(c.judge(decoded(d, db), 1).ok());
}

}  // namespace
}  // namespace mrc::harness
