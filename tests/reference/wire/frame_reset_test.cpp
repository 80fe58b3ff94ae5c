// decode_frame() starts every decode from the all-defaults DecodedFrame (frame.cpp resets it with
// block copies of a constant instead of `out = DecodedFrame{}`). Decoding into a DecodedFrame that
// holds an earlier frame, or arbitrary bytes, must give exactly what decoding into a fresh one
// gives: on success, on trimmed stubs and on every error path, with and without ICRC checking.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

struct Input {
  std::vector<std::uint8_t> bytes;
  bool mrc_framing = true;
};

// Valid frames of every mode, some of their truncations, and copies with a header byte changed.
std::vector<Input> corpus() {
  Rng r(0xDEC0DE);
  std::vector<Input> out;
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
      out.push_back({buf, c.mrc_framing});
      for (std::size_t cut = 0; cut < buf.size(); cut += 1 + r() % 29) {
        out.push_back({std::vector<std::uint8_t>(buf.begin(), buf.begin() + cut), c.mrc_framing});
      }
      for (int k = 0; k < 6; ++k) {
        std::vector<std::uint8_t> mutated = buf;
        mutated[r() % std::min<std::size_t>(mutated.size(), 120)] ^= static_cast<std::uint8_t>(
            1u << (r() % 8));
        out.push_back({mutated, c.mrc_framing});
      }
    }
  }
  return out;
}

bool same_object(const DecodedFrame& a, const DecodedFrame& b) {
  return std::memcmp(&a, &b, sizeof(DecodedFrame)) == 0;
}

TEST(FrameReset, ReusedOrDirtyOutputDecodesLikeAFreshOne) {
  const std::vector<Input> inputs = corpus();
  ASSERT_GT(inputs.size(), 500u);
  DecodedFrame reused;  // carries whatever the previous input left in it
  std::size_t ok = 0;
  std::size_t errors = 0;
  for (const Input& in : inputs) {
    for (bool verify : {true, false}) {
      const DecodeOptions opt{in.mrc_framing, verify};
      DecodedFrame fresh{};
      const DecodeResult want = decode_frame(in.bytes, fresh, opt);
      want.ok() ? ++ok : ++errors;

      const DecodeResult got_reused = decode_frame(in.bytes, reused, opt);
      EXPECT_EQ(got_reused.error, want.error);
      EXPECT_EQ(got_reused.offset, want.offset);
      ASSERT_TRUE(same_object(reused, fresh)) << "reused output, " << in.bytes.size()
                                              << " bytes, " << to_string(want.error);

      DecodedFrame dirty;
      std::memset(static_cast<void*>(&dirty), 0xA5, sizeof dirty);
      const DecodeResult got_dirty = decode_frame(in.bytes, dirty, opt);
      EXPECT_EQ(got_dirty.error, want.error);
      ASSERT_TRUE(same_object(dirty, fresh)) << "dirty output, " << in.bytes.size() << " bytes, "
                                             << to_string(want.error);
    }
  }
  // The corpus reaches both outcomes often enough to mean something.
  EXPECT_GT(ok, 100u);
  EXPECT_GT(errors, 100u);
}

TEST(FrameReset, HeadersOfTheEarlierFrameDoNotLeak) {
  // An IPv4 ACK with AETH + MFEH, then an IPv6 STEV write: everything the write does not carry is
  // back at its default, field by field.
  Rng r(17);
  FrameCase ack;
  make_case(r, Mode::kAckMfeh, ack);
  ack.spec.l3 = L3Kind::kIpv4;
  FrameCase write;
  make_case(r, Mode::kStevIpv6, write);
  std::vector<std::uint8_t> a(kMaxFrameLen);
  std::vector<std::uint8_t> w(kMaxFrameLen);
  const EncodeResult ea = encode_frame(ack.spec, a);
  const EncodeResult ew = encode_frame(write.spec, w);
  ASSERT_TRUE(ea.ok() && ew.ok());

  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(a.data(), ea.length), d).ok());
  ASSERT_TRUE(d.has_aeth && d.has_mfeh);
  ASSERT_EQ(d.l3, L3Kind::kIpv4);
  ASSERT_TRUE(decode_frame(Bytes(w.data(), ew.length), d, DecodeOptions{true, false}).ok());
  EXPECT_FALSE(d.has_aeth);
  EXPECT_FALSE(d.has_mfeh);
  EXPECT_EQ(fields(d.aeth), fields(Aeth{}));
  EXPECT_EQ(fields(d.mfeh), fields(Mfeh{}));
  EXPECT_EQ(fields(d.ip4), fields(Ipv4{}));
  EXPECT_EQ(d.icrc_computed, 0u);  // not checked this time
  EXPECT_FALSE(d.icrc_ok);
}

}  // namespace
}  // namespace mrc::wire::test
