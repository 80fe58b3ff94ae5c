// decode_frame() starts every decode from the all-defaults DecodedFrame (frame.cpp resets it with
// block copies of a constant instead of `out = DecodedFrame{}`). Decoding into a DecodedFrame that
// holds an earlier frame, or arbitrary bytes, must give exactly what decoding into a fresh one
// gives: on success, on trimmed packets (W13) and on every error path, with and without ICRC
// checking.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

// Valid frames of every mode, some of their truncations, and copies with a header byte changed.
std::vector<std::vector<std::uint8_t>> corpus() {
  Rng r(0xDEC0DE);
  std::vector<std::vector<std::uint8_t>> out;
  for (Mode m : kAllModes) {
    for (int i = 0; i < 8; ++i) {
      FrameCase c;
      make_case(r, m, c, 300);
      std::vector<std::uint8_t> buf(kMaxFrameLen);
      const EncodeResult e = encode_frame(c.spec, buf);
      if (!e.ok()) {
        ADD_FAILURE() << mode_name(m) << ": " << to_string(e.error);
        continue;
      }
      buf.resize(e.length);
      out.push_back(buf);
      for (std::size_t cut = 0; cut < buf.size(); cut += 1 + r() % 29) {
        out.emplace_back(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(cut));
      }
      for (int k = 0; k < 6; ++k) {
        std::vector<std::uint8_t> mutated = buf;
        mutated[r() % std::min<std::size_t>(mutated.size(), 120)] ^= static_cast<std::uint8_t>(
            1u << (r() % 8));
        out.push_back(mutated);
      }
    }
  }
  return out;
}

bool same_object(const DecodedFrame& a, const DecodedFrame& b) {
  return std::memcmp(&a, &b, sizeof(DecodedFrame)) == 0;
}

TEST(FrameReset, ReusedOrDirtyOutputDecodesLikeAFreshOne) {
  const std::vector<std::vector<std::uint8_t>> inputs = corpus();
  ASSERT_GT(inputs.size(), 500u);
  // Without ICRC checking; with it; and with every DSCP marking a trim, so that the MRC data
  // frames of the corpus take the trimmed-packet path (W13).
  DecodeOptions no_icrc;
  no_icrc.verify_icrc = false;
  DecodeOptions every_dscp_trims;
  every_dscp_trims.trimmed_dscps = ~std::uint64_t{0};
  const DecodeOptions options[] = {DecodeOptions{}, no_icrc, every_dscp_trims};
  DecodedFrame reused;  // carries whatever the previous input left in it
  std::size_t ok = 0;
  std::size_t errors = 0;
  std::size_t trimmed = 0;
  for (const std::vector<std::uint8_t>& in : inputs) {
    for (const DecodeOptions& opt : options) {
      DecodedFrame fresh{};
      const DecodeResult want = decode_frame(in, fresh, opt);
      want.ok() ? ++ok : ++errors;
      trimmed += fresh.trimmed;

      const DecodeResult got_reused = decode_frame(in, reused, opt);
      EXPECT_EQ(got_reused.error, want.error);
      EXPECT_EQ(got_reused.offset, want.offset);
      ASSERT_TRUE(same_object(reused, fresh)) << "reused output, " << in.size() << " bytes, "
                                              << to_string(want.error);

      DecodedFrame dirty;
      std::memset(static_cast<void*>(&dirty), 0xA5, sizeof dirty);
      const DecodeResult got_dirty = decode_frame(in, dirty, opt);
      EXPECT_EQ(got_dirty.error, want.error);
      ASSERT_TRUE(same_object(dirty, fresh)) << "dirty output, " << in.size() << " bytes, "
                                             << to_string(want.error);
    }
  }
  // The corpus reaches every outcome often enough to mean something.
  EXPECT_GT(ok, 100u);
  EXPECT_GT(errors, 100u);
  EXPECT_GT(trimmed, 20u);
}

TEST(FrameReset, HeadersOfTheEarlierFrameDoNotLeak) {
  // An IPv4 SACK (SETH + CC_STATE) and an MRC data packet (METH + TSETH + RETH), each followed by
  // an IPv6 STEV RC write decoded without ICRC checking: everything the write does not carry is
  // back at its default, field by field.
  Rng r(17);
  FrameCase sack;
  make_case(r, Mode::kMrcControl, sack);
  sack.spec.l3 = L3Kind::kIpv4;
  sack.spec.bth.opcode = opcode::kMrcSack;
  set_layout(sack.spec, expected_layout(opcode::kMrcSack), r);
  FrameCase data;
  make_case(r, Mode::kMrcData, data);
  data.spec.has_tseth = true;
  FrameCase write;
  make_case(r, Mode::kStevIpv6, write);
  std::vector<std::uint8_t> w(kMaxFrameLen);
  const EncodeResult ew = encode_frame(write.spec, w);
  ASSERT_TRUE(ew.ok());
  DecodeOptions no_icrc;
  no_icrc.verify_icrc = false;

  for (const FrameCase* earlier : {&sack, &data}) {
    std::vector<std::uint8_t> a(kMaxFrameLen);
    const EncodeResult ea = encode_frame(earlier->spec, a);
    ASSERT_TRUE(ea.ok());
    DecodedFrame d;
    ASSERT_TRUE(decode_frame(Bytes(a.data(), ea.length), d).ok());
    ASSERT_TRUE(d.icrc_ok);
    if (earlier == &sack) {
      ASSERT_TRUE(d.has_sack);
      ASSERT_EQ(d.l3, L3Kind::kIpv4);
    } else {
      ASSERT_TRUE(d.has_meth && d.has_tseth && d.has_reth);
    }
    ASSERT_TRUE(decode_frame(Bytes(w.data(), ew.length), d, no_icrc).ok());
    EXPECT_FALSE(d.has_sack);
    EXPECT_EQ(fields(d.seth), fields(Seth{}));
    EXPECT_EQ(fields(d.cc), fields(CcState{}));
    EXPECT_FALSE(d.has_meth);
    EXPECT_EQ(fields(d.meth), fields(Meth{}));
    EXPECT_FALSE(d.has_tseth);
    EXPECT_EQ(fields(d.tseth), fields(Tseth{}));
    EXPECT_FALSE(d.bth.ts);
    EXPECT_EQ(d.has_reth, write.spec.has_reth);
    if (!write.spec.has_reth) {
      EXPECT_EQ(fields(d.reth), fields(Reth{}));
    }
    EXPECT_FALSE(d.has_aeth);
    EXPECT_EQ(fields(d.aeth), fields(Aeth{}));
    EXPECT_EQ(fields(d.ip4), fields(Ipv4{}));
    EXPECT_EQ(d.icrc_computed, 0u);  // not checked this time
    EXPECT_FALSE(d.icrc_ok);
  }
}

}  // namespace
}  // namespace mrc::wire::test
