// EV expansion: the worked examples of mrc-wire-model.md §1.5 (W19) and every validity rule.
#include "reference/ev/expansion.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <initializer_list>
#include <vector>

namespace mrc::ev {
namespace {

wire::EvBytes bytes(std::initializer_list<int> b) {
  wire::EvBytes out{};
  std::size_t i = 0;
  for (int v : b) out[i++] = static_cast<std::uint8_t>(v);
  return out;
}

FormatProfile fmt(wire::EvFmtMode mode, std::vector<std::uint32_t> widths) {
  return FormatProfile{mode, std::move(widths)};
}

// Example 1: STEV, F=[16,16], mask 0x0F0F, EV 33 12 -> 13 03 21 02.
TEST(EvExpansion, WorkedExample1StevWeirdMask) {
  const FormatProfile f = fmt(wire::EvFmtMode::kStev, {16, 16});
  const std::vector<EvField> e{{16, 0x1000, 1, 0xFF, 0x0F0F}, {16, 0x2000, 1, 0xFF, 0x0F0F}};
  wire::EvBytes out{};
  std::string why;
  ASSERT_EQ(expand(f, e, bytes({0x33, 0x12}), out, &why), 0) << why;
  EXPECT_EQ(out, bytes({0x13, 0x03, 0x21, 0x02}));
}

// Example 2: SRv6 generated, locator 0x13131313 + 4 tier uSIDs i<<8 | nibble.
TEST(EvExpansion, WorkedExample2Srv6Generated) {
  const FormatProfile f = fmt(wire::EvFmtMode::kSrv6, {32, 16, 16, 16, 16});
  std::vector<EvField> e{{32, 0x13131313, 0, 0, 0}};
  for (std::uint32_t i = 1; i <= 4; ++i) e.push_back({16, i << 8, 1, 15, 0x000F});
  wire::EvBytes out{};
  std::string why;
  ASSERT_EQ(expand(f, e, bytes({0x9b, 0x79}), out, &why), 0) << why;
  EXPECT_EQ(out, bytes({0x13, 0x13, 0x13, 0x13, 0x01, 0x09, 0x02, 0x0b, 0x03, 0x07, 0x04, 0x09}));
  // Bytes 12..15 (the last two uSID slots) are zero: End-of-Carrier.
  for (int i = 12; i < 32; ++i) EXPECT_EQ(out[i], 0) << i;
}

// Example 3: SRv6 + SRH explicit, F=[32,16x6,32,16x2] (192 bits), locators from init_val.
TEST(EvExpansion, WorkedExample3Srv6SrhExplicit) {
  std::vector<std::uint32_t> w{32, 16, 16, 16, 16, 16, 16, 32, 16, 16};
  const FormatProfile f = fmt(wire::EvFmtMode::kSrv6, w);
  std::vector<EvField> e;
  e.push_back({32, 0xcafecafe, 0, 0, 0});
  for (int i = 0; i < 6; ++i) e.push_back({16, 0, 0, 0, 0xFFFF});
  e.push_back({32, 0xdecafbad, 0, 0, 0});
  for (int i = 0; i < 2; ++i) e.push_back({16, 0, 0, 0, 0xFFFF});
  // Eight explicit uSIDs: 0x1001, 0x2002, ..., 0x8008 (only masked bits are stored in the EV).
  wire::EvBytes ev{};
  for (int i = 0; i < 8; ++i) {
    ev[2 * i] = static_cast<std::uint8_t>((i + 1) << 4);
    ev[2 * i + 1] = static_cast<std::uint8_t>(i + 1);
  }
  wire::EvBytes out{};
  std::string why;
  ASSERT_EQ(expand(f, e, ev, out, &why), 0) << why;
  const wire::EvBytes expect = bytes({0xca, 0xfe, 0xca, 0xfe, 0x10, 0x01, 0x20, 0x02, 0x30, 0x03,
                                      0x40, 0x04, 0x50, 0x05, 0x60, 0x06,  // DA
                                      0xde, 0xca, 0xfb, 0xad, 0x70, 0x07, 0x80, 0x08});  // SRH seg
  EXPECT_EQ(out, expect);
  for (int i = 24; i < 32; ++i) EXPECT_EQ(out[i], 0) << "SRH segment tail byte " << i;
  EXPECT_EQ(format_wire_bits(f), 192u);
}

TEST(EvExpansion, NarrowFieldIsRightAlignedAndTrailingFormatFieldsZero) {
  // E[0] is 8 bits in a 16-bit format field; F[1] has no EV field.
  const FormatProfile f = fmt(wire::EvFmtMode::kStev, {16, 16});
  const std::vector<EvField> e{{8, 0, 0, 0, 0xFF}};
  wire::EvBytes out{};
  ASSERT_EQ(expand(f, e, bytes({0xAB}), out, nullptr), 0);
  EXPECT_EQ(out, bytes({0x00, 0xAB, 0x00, 0x00}));
}

TEST(EvExpansion, MostSignificantEvBitLandsOnHighestMaskBit) {
  const FormatProfile f = fmt(wire::EvFmtMode::kUdp, {16});
  const std::vector<EvField> e{{16, 0, 0, 0, 0x8001}};  // 2 EV bits: MSB -> bit 15, LSB -> bit 0
  wire::EvBytes out{};
  ASSERT_EQ(expand(f, e, bytes({0x80}), out, nullptr), 0);  // EV bits "10"
  EXPECT_EQ(out, bytes({0x80, 0x00}));
  ASSERT_EQ(expand(f, e, bytes({0x40}), out, nullptr), 0);  // EV bits "01"
  EXPECT_EQ(out, bytes({0x00, 0x01}));
}

TEST(EvExpansion, WideFormatFieldZeroExtends) {
  const FormatProfile f = fmt(wire::EvFmtMode::kSrv6, {64});
  const std::vector<EvField> e{{32, 0xA0B0C0D0, 0, 0, 0}};
  wire::EvBytes out{};
  ASSERT_EQ(expand(f, e, wire::EvBytes{}, out, nullptr), 0);
  EXPECT_EQ(out, bytes({0, 0, 0, 0, 0xA0, 0xB0, 0xC0, 0xD0}));
}

struct RuleCase {
  const char* name;
  FormatProfile f;
  std::vector<EvField> e;
  wire::EvBytes ev;
  int err;
  const char* needle;  // must appear in the message
};

class EvExpansionRules : public ::testing::TestWithParam<int> {};

std::vector<RuleCase> rule_cases() {
  using M = wire::EvFmtMode;
  return {
      {"k>m", fmt(M::kStev, {16}), {{8, 0, 0, 0, 0xFF}, {8, 0, 0, 0, 0xFF}}, {}, E2BIG, "k <= m"},
      {"sumE>sumF", fmt(M::kStev, {8, 8}), {{16, 0, 0, 0, 0xFF}, {8, 0, 0, 0, 0xFF}}, {}, E2BIG,
       "sum of field widths"},
      {"init too wide", fmt(M::kStev, {16}), {{8, 0x100, 0, 0, 0}}, {}, EINVAL, "init_val"},
      {"mask above width", fmt(M::kStev, {16}), {{8, 0, 0, 0, 0x1FF}}, {}, EINVAL, "mask"},
      {"max_val too big", fmt(M::kStev, {16}), {{8, 0, 0, 16, 0x0F}}, {}, EINVAL, "max_val"},
      {"fixed with min", fmt(M::kStev, {16}), {{8, 5, 1, 0, 0}}, {}, EINVAL, "fixed"},
      {"fixed with max", fmt(M::kStev, {16}), {{8, 5, 0, 3, 0}}, {}, EINVAL, "fixed"},
      {"trailing EV bit", fmt(M::kStev, {16}), {{8, 0, 0, 0, 0x0F}}, bytes({0x08}), EINVAL,
       "EV bit 4"},
      {"width 0", fmt(M::kStev, {16}), {{0, 0, 0, 0, 0}}, {}, EINVAL, "width 0"},
      {"width 33", fmt(M::kSrv6, {64}), {{33, 0, 0, 0, 0}}, {}, EINVAL, "width 33"},
      {"no fields", fmt(M::kStev, {16}), {}, {}, EINVAL, "no fields"},
      {"fmt width 0", fmt(M::kStev, {16, 0}), {{8, 0, 0, 0, 0xFF}}, {}, EINVAL, "width 0"},
      {"fmt empty", fmt(M::kStev, {}), {{8, 0, 0, 0, 0xFF}}, {}, EINVAL, "no format fields"},
      {"stev > 32", fmt(M::kStev, {32, 8}), {{8, 0, 0, 0, 0xFF}}, {}, E2BIG, "32 wire bits"},
      {"udp > 16", fmt(M::kUdp, {16, 8}), {{8, 0, 0, 0, 0xFF}}, {}, E2BIG, "16 wire bits"},
      {"srv6 > 256", fmt(M::kSrv6, {255, 2}), {{8, 0, 0, 0, 0xFF}}, {}, E2BIG, "256 wire bits"},
      {"fmt field > 255", fmt(M::kSrv6, {256}), {{8, 0, 0, 0, 0xFF}}, {}, E2BIG, "255"},
  };
}

TEST_P(EvExpansionRules, RejectsWithErrnoAndRule) {
  const RuleCase c = rule_cases()[static_cast<std::size_t>(GetParam())];
  wire::EvBytes out;
  out.fill(0xEE);
  std::string why;
  EXPECT_EQ(expand(c.f, c.e, c.ev, out, &why), c.err) << c.name;
  EXPECT_NE(why.find(c.needle), std::string::npos) << c.name << ": " << why;
  EXPECT_EQ(out, wire::EvBytes{}) << "output cleared on error";
}

INSTANTIATE_TEST_SUITE_P(AllRules, EvExpansionRules,
                         ::testing::Range(0, static_cast<int>(rule_cases().size())));

TEST(EvExpansion, BoundaryValuesAccepted) {
  // max_val exactly 2^n - 1, init_val exactly 2^w - 1, 32-bit field with full mask.
  const FormatProfile f = fmt(wire::EvFmtMode::kSrv6, {8, 32});
  const std::vector<EvField> e{{8, 0xFF, 0, 15, 0x0F}, {32, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF}};
  wire::EvBytes out{};
  std::string why;
  ASSERT_EQ(expand(f, e, bytes({0x5D, 0xEA, 0xDB, 0xEE, 0xF0}), out, &why), 0) << why;
  // field0: 0xF0 | 0x5 = 0xF5; field1: next 32 EV bits = 0xDEADBEEF.
  EXPECT_EQ(out, bytes({0xF5, 0xDE, 0xAD, 0xBE, 0xEF}));
}

// Defect ev-scatter-16 (reference/defects.hpp): EV bits a mask places above bit 15 are lost. A
// mask within the low 16 bits expands the same either way; a 32-bit field whose mask reaches the
// high half is where it shows.
TEST(EvExpansion, Scatter16DefectLosesOnlyHighMaskBits) {
  const std::vector<std::uint32_t> w16{16, 16};
  const std::vector<EvField> low{{16, 0x1000, 0, 0xFF, 0x0F0F}, {16, 0x2000, 0, 0xFF, 0x0F0F}};
  wire::EvBytes good{};
  wire::EvBytes bad{};
  expand_unchecked(w16, low, bytes({0x33, 0x12}), good);
  expand_unchecked(w16, low, bytes({0x33, 0x12}), bad, true);
  EXPECT_EQ(good, bad);
  const std::vector<std::uint32_t> w32{32};
  const std::vector<EvField> high{{32, 0x01000000, 0, 0xFFF, 0xF00F000F}};  // 12 EV bits: 4 + 4 + 4
  expand_unchecked(w32, high, bytes({0xAB, 0xC0}), good);
  expand_unchecked(w32, high, bytes({0xAB, 0xC0}), bad, true);
  EXPECT_EQ(good, bytes({0xA1, 0x0B, 0x00, 0x0C}));
  EXPECT_EQ(bad, bytes({0x01, 0x00, 0x00, 0x0C}));  // the fixed init bit stays, the EV's high bits are gone
}

TEST(EvExpansion, BitHelpers) {
  wire::EvBytes b{};
  write_bits(b, 4, 12, 0xABC);
  EXPECT_EQ(b[0], 0x0A);
  EXPECT_EQ(b[1], 0xBC);
  EXPECT_EQ(read_bits(b, 4, 12), 0xABCu);
  EXPECT_EQ(read_bits(b, 250, 10), 0u);  // past the end reads zero
  wire::EvBytes w{};
  write_bits(w, 3, 64, 0xFEDCBA9876543210ull);
  EXPECT_EQ(read_bits(w, 3, 64), 0xFEDCBA9876543210ull);
  EXPECT_EQ(w[0], 0x1F);  // 000 + 11111
  EXPECT_EQ(read_bits(w, 0, 3), 0u);
  EXPECT_EQ(read_bits(w, 67, 8), 0u);
  write_bits(w, 252, 8, 0xFF);  // only 4 bits fit
  EXPECT_EQ(w[31], 0x0F);
  EXPECT_EQ(read_bits(w, 252, 8), 0xF0u);
  write_bits(w, 3, 5, 0);  // clears only its own bits
  EXPECT_EQ(w[0], 0x00);
  EXPECT_EQ(w[1], 0xDB);
  EXPECT_EQ(scatter_bits(0x1000, 0x33, 0x0F0F), 0x1303u);
  EXPECT_EQ(gather_bits(0x1303, 0x0F0F), 0x33u);
  EXPECT_EQ(ev_bits_used(std::vector<EvField>{{16, 0, 0, 0, 0x0F0F}, {8, 0, 0, 0, 0x3}}), 10u);
  EXPECT_EQ(errno_name(E2BIG), "E2BIG");
  EXPECT_EQ(errno_name(EINVAL), "EINVAL");
}

}  // namespace
}  // namespace mrc::ev
