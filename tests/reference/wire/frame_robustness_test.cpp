// Robustness of decode_frame: over 1,000,000 decodes of mutated frames (every truncation of valid
// frames in every mode, random byte changes biased to the headers, valid prefixes followed by
// garbage, pure garbage), half of the MRC-framed ones with per-frame framing detection. Every decode must end in kOk with views inside the input, or in a
// typed decoder error whose offset lies inside the input. Each input is copied into a heap block
// of exactly its size, so a sanitizer build (preset asan) catches any read past the end.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <memory>

#include "reference/wire/icrc.hpp"
#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

class Checker {
 public:
  void decode(const std::uint8_t* src, std::size_t n, bool mrc) {
    std::unique_ptr<std::uint8_t[]> exact(new std::uint8_t[n == 0 ? 1 : n]);
    if (n != 0) std::memcpy(exact.get(), src, n);
    const Bytes in(exact.get(), n);
    DecodedFrame d;
    // Every other MRC decode recognises the framing per frame (the diff's path), so the length
    // rule of detect_mrc_framing() meets the same mutated inputs.
    const bool detect = mrc && (decodes_ % 2 == 1);
    const DecodeResult r = decode_frame(in, d, DecodeOptions{mrc, true, detect});
    // Every fourth input again with the payload CRC asked for: the same decode, and the CRC of
    // the payload it cut, however the mutation placed pad, ICRC and lengths.
    if (decodes_ % 4 == 3) {
      DecodedFrame dc;
      DecodeOptions with_crc{mrc, true, detect};
      with_crc.payload_crc = true;
      const DecodeResult rc = decode_frame(in, dc, with_crc);
      ASSERT_EQ(rc.error, r.error);
      ASSERT_EQ(rc.offset, r.offset);
      if (r.ok()) {
        ASSERT_TRUE(dc.has_payload_crc);
        ASSERT_EQ(dc.payload.data(), d.payload.data());
        ASSERT_EQ(dc.payload.size(), d.payload.size());
        ASSERT_EQ(dc.icrc_computed, d.icrc_computed);
        ASSERT_EQ(dc.trimmed, d.trimmed);
        ASSERT_EQ(dc.payload_crc, crc32(0, d.payload));
        ++payload_crcs_;
      }
      ASSERT_FALSE(d.has_payload_crc);
    }
    ++decodes_;
    ++by_error_[static_cast<std::size_t>(r.error)];
    ASSERT_LE(r.offset, n) << to_string(r.error);
    if (!r.ok()) {
      // Decoders only ever return decoder errors.
      ASSERT_NE(r.error, WireError::kBufferTooSmall);
      ASSERT_NE(r.error, WireError::kBadArgument);
      ASSERT_LE(static_cast<int>(r.error), static_cast<int>(WireError::kBadArgument));
      return;
    }
    const std::uint8_t* lo = in.data();
    const std::uint8_t* hi = in.data() + n;
    ASSERT_LE(d.bth_offset + kBthLen, n);
    ASSERT_LT(d.roce_ip_offset, d.bth_offset);
    ASSERT_GE(d.payload.data(), lo);
    ASSERT_LE(d.payload.data() + d.payload.size(), hi);
    ASSERT_GE(d.payload.data(), lo + d.bth_offset + kBthLen);
    if (d.has_srh) {
      ASSERT_GE(d.srh.segments.data(), lo);
      ASSERT_LE(d.srh.tlvs.data() + d.srh.tlvs.size(), hi);
    }
    // Not a stub means complete and verified (legacy opcodes; an MRC 1.0 packet is trimmed only by
    // its DSCP, W13, and may be cut short or carry a bad ICRC without being one).
    if (!d.trimmed && !is_mrc_opcode(d.bth.opcode)) {
      ASSERT_TRUE(d.icrc_ok);
      ASSERT_EQ(d.icrc_wire, d.icrc_computed);
    }
    if (d.trimmed) ++trimmed_;
  }

  std::size_t decodes() const { return decodes_; }
  std::size_t count(WireError e) const { return by_error_[static_cast<std::size_t>(e)]; }
  std::size_t trimmed() const { return trimmed_; }
  std::size_t payload_crcs() const { return payload_crcs_; }

 private:
  std::size_t decodes_ = 0;
  std::size_t trimmed_ = 0;
  std::size_t payload_crcs_ = 0;
  std::array<std::size_t, 32> by_error_{};
};

TEST(FrameRobustness, MillionMutatedAndRandomFrames) {
  Rng r(0x5EED);
  Checker ck;
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  std::array<std::uint8_t, kMaxFrameLen> mut{};
  FrameCase c;
  constexpr int kBaseFrames = 1200;
  for (int i = 0; i < kBaseFrames; ++i) {
    const Mode mode = kAllModes[static_cast<std::size_t>(i) % std::size(kAllModes)];
    make_case(r, mode, c, 500);
    const EncodeResult e = encode_frame(c.spec, buf);
    ASSERT_TRUE(e.ok());
    const std::size_t n = e.length;
    const bool mrc = c.mrc_framing;

    // 1. Every truncation, including the empty frame and the whole frame.
    for (std::size_t cut = 0; cut <= n; ++cut) {
      ck.decode(buf.data(), cut, mrc);
      if (::testing::Test::HasFatalFailure()) return;
    }
    // 2. Random byte changes, mostly in the first 120 bytes (the headers), some with a cut.
    for (int k = 0; k < 250; ++k) {
      std::memcpy(mut.data(), buf.data(), n);
      const int changes = static_cast<int>(uni(r, 1, 4));
      for (int j = 0; j < changes; ++j) {
        const std::size_t span = (r() % 4 != 0) ? std::min<std::size_t>(n, 120) : n;
        mut[uni(r, 0, span - 1)] = static_cast<std::uint8_t>(r());
      }
      const std::size_t len = (r() % 4 == 0) ? uni(r, 0, n) : n;
      ck.decode(mut.data(), len, (r() & 1) ? mrc : !mrc);
      if (::testing::Test::HasFatalFailure()) return;
    }
    // 3. A valid prefix followed by garbage (sometimes longer than the original).
    for (int k = 0; k < 100; ++k) {
      const std::size_t keep = uni(r, 0, n);
      const std::size_t len = uni(r, keep, std::min<std::size_t>(n + 64, mut.size()));
      std::memcpy(mut.data(), buf.data(), keep);
      for (std::size_t j = keep; j < len; ++j) mut[j] = static_cast<std::uint8_t>(r());
      ck.decode(mut.data(), len, mrc);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // 4. Pure garbage, with a RoCE-ish Ethernet type half of the time so decoding gets deeper.
  while (ck.decodes() < 1'050'000) {
    const std::size_t len = uni(r, 0, 300);
    for (std::size_t j = 0; j < len; ++j) mut[j] = static_cast<std::uint8_t>(r());
    if (len >= 15 && coin(r)) {
      const bool v6 = coin(r);
      store_be16(mut.data() + 12, v6 ? kEthTypeIpv6 : kEthTypeIpv4);
      mut[14] = static_cast<std::uint8_t>((v6 ? 0x60 : 0x45) | (mut[14] & (v6 ? 0x0F : 0x00)));
    }
    ck.decode(mut.data(), len, coin(r));
    if (::testing::Test::HasFatalFailure()) return;
  }

  EXPECT_GE(ck.decodes(), 1'000'000u);
  // The mix must actually exercise the decoder: complete frames, stubs and many error kinds.
  EXPECT_GT(ck.count(WireError::kOk), 1000u);
  EXPECT_GT(ck.trimmed(), 1000u);
  EXPECT_GT(ck.payload_crcs(), 250u);  // decoded frames checked with the payload CRC asked for
  int kinds = 0;
  for (int e = 1; e <= static_cast<int>(WireError::kBadEpHeader); ++e) {
    kinds += ck.count(static_cast<WireError>(e)) > 0;
  }
  EXPECT_GE(kinds, 11);
  std::cout << "[ robustness ] decodes=" << ck.decodes() << " ok=" << ck.count(WireError::kOk)
            << " trimmed=" << ck.trimmed();
  for (int e = 1; e <= static_cast<int>(WireError::kBadEpHeader); ++e) {
    std::cout << " " << to_string(static_cast<WireError>(e)) << "="
              << ck.count(static_cast<WireError>(e));
  }
  std::cout << "\n";
}

}  // namespace
}  // namespace mrc::wire::test
