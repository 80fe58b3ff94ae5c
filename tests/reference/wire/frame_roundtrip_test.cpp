// encode_frame -> decode_frame round trips: 10,000 seeded random frames in every mode.
#include <gtest/gtest.h>

#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

constexpr int kFramesPerMode = 10'000;

class FrameRoundTrip : public ::testing::TestWithParam<Mode> {};

TEST_P(FrameRoundTrip, RandomFrames) {
  Rng r(0xF00D + static_cast<std::uint64_t>(GetParam()));
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  FrameCase c;
  for (int i = 0; i < kFramesPerMode; ++i) {
    make_case(r, GetParam(), c);
    const EncodeResult e = encode_frame(c.spec, buf);
    ASSERT_TRUE(e.ok()) << to_string(e.error) << " frame " << i;
    const Bytes frame(buf.data(), e.length);
    DecodedFrame d;
    const DecodeResult dr = decode_frame(frame, d);
    ASSERT_TRUE(dr.ok()) << to_string(dr.error) << " at " << dr.offset << " frame " << i;
    ASSERT_EQ(dr.offset, e.length);
    ASSERT_TRUE(frame_matches(c.spec, d, frame)) << "frame " << i;
    // The payload is a view into the frame, right before the pad.
    ASSERT_GE(d.payload.data(), frame.data());
    ASSERT_LE(d.payload.data() + d.payload.size() + d.bth.pad_count + kIcrcLen,
              frame.data() + frame.size());
  }
}

INSTANTIATE_TEST_SUITE_P(AllModes, FrameRoundTrip, ::testing::ValuesIn(kAllModes),
                         [](const ::testing::TestParamInfo<Mode>& p) {
                           std::string n = mode_name(p.param);
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

TEST(FrameRoundTrip, DecapsulatedFormDecodesLikeAPlainFrame) {  // W1
  Rng r(77);
  std::array<std::uint8_t, kMaxFrameLen> enc{}, plain{};
  FrameCase c;
  for (int i = 0; i < 1000; ++i) {
    make_case(r, coin(r) ? Mode::kSrv6Srh : Mode::kSrv6NoSrh, c);
    const EncodeResult e = encode_frame(c.spec, enc);
    ASSERT_TRUE(e.ok());
    DecodedFrame d;
    ASSERT_TRUE(decode_frame(Bytes(enc.data(), e.length), d).ok());
    // What the last switch (uDT6) or the NIC sees after decapsulation: Eth + the inner packet.
    const std::size_t eth = d.roce_ip_offset - kIpv6Len - (d.has_srh ? d.srh.wire_length() : 0);
    std::copy(enc.begin(), enc.begin() + static_cast<std::ptrdiff_t>(eth), plain.begin());
    std::copy(enc.begin() + static_cast<std::ptrdiff_t>(d.roce_ip_offset),
              enc.begin() + static_cast<std::ptrdiff_t>(e.length),
              plain.begin() + static_cast<std::ptrdiff_t>(eth));
    const std::size_t n = e.length - (d.roce_ip_offset - eth);
    DecodedFrame p;
    ASSERT_TRUE(decode_frame(Bytes(plain.data(), n), p).ok());
    EXPECT_FALSE(p.encapsulated);
    EXPECT_TRUE(p.icrc_ok);  // same ICRC: it covered the inner packet only
    EXPECT_EQ(fields(p.ip6), fields(d.inner_ip6));
    EXPECT_EQ(fields(p.udp), fields(d.udp));
    EXPECT_EQ(fields(p.bth), fields(d.bth));
    EXPECT_TRUE(same_bytes(p.payload, d.payload));
  }
}

}  // namespace
}  // namespace mrc::wire::test
