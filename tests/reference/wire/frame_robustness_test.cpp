// Robustness of decode_frame: over 1,000,000 decodes of mutated frames (every truncation of valid
// frames in every mode, random byte changes biased to the headers, valid prefixes followed by
// garbage, pure garbage), every other one with every DSCP counted as a trimmed one so that the MRC
// data frames among them take the trimmed-packet path (W13). Every decode must end in kOk with
// views inside the input and the payload where the length rules put it, or in a typed decoder
// error whose offset lies inside the input. Each input is copied into a heap block of exactly its
// size, so a sanitizer build (preset asan) catches any read past the end.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <memory>

#include "reference/wire/icrc.hpp"
#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

// The DSCP a trimming switch rewrites (frame.cpp, W13): the outer one, or the inner one of an
// SRv6 packet when the outer one is not a trimmed DSCP.
bool carries_trimmed_dscp(const DecodedFrame& d, std::uint64_t trimmed_dscps) {
  const auto marks = [&](std::uint8_t dscp) { return ((trimmed_dscps >> (dscp & 63)) & 1u) != 0; };
  if (d.l3 == L3Kind::kIpv4) return marks(d.ip4.dscp);
  return marks(d.ip6.dscp) || (d.encapsulated && marks(d.inner_ip6.dscp));
}

class Checker {
 public:
  void decode(const std::uint8_t* src, std::size_t n) {
    std::unique_ptr<std::uint8_t[]> exact(new std::uint8_t[n == 0 ? 1 : n]);
    if (n != 0) std::memcpy(exact.get(), src, n);
    const Bytes in(exact.get(), n);
    DecodedFrame d;
    DecodeOptions opt;
    if (decodes_ % 2 == 1) opt.trimmed_dscps = ~std::uint64_t{0};
    const DecodeResult r = decode_frame(in, d, opt);
    // Every fourth input again with the payload CRC asked for: the same decode, and the CRC of
    // the payload it cut, however the mutation placed pad, ICRC and lengths.
    if (decodes_ % 4 == 3) {
      DecodedFrame dc;
      DecodeOptions with_crc = opt;
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
    if (d.icrc_ok) {
      ASSERT_EQ(d.icrc_wire, d.icrc_computed);
    }
    if (d.trimmed) {
      // W13: only an MRC data packet with a trimmed DSCP is trimmed, and its stale ICRC is never
      // checked.
      ASSERT_TRUE(is_mrc_data(d.bth.opcode)) << int(d.bth.opcode);
      ASSERT_TRUE(d.has_meth);
      ASSERT_TRUE(carries_trimmed_dscp(d, opt.trimmed_dscps));
      ASSERT_FALSE(d.icrc_ok);
      ++trimmed_;
      return;
    }
    ASSERT_FALSE(is_mrc_data(d.bth.opcode) && carries_trimmed_dscp(d, opt.trimmed_dscps));
    // Not trimmed: the UDP length ends the RoCE packet. Captured whole, the payload ends at its pad
    // and 4-byte ICRC; cut by the capture (a snap length), it runs to the end of the input, with no
    // ICRC read.
    const std::size_t roce_end = d.bth_offset - kUdpLen + d.udp.length;
    const std::uint8_t* pay_end = d.payload.data() + d.payload.size();
    if (roce_end <= n) {
      ASSERT_EQ(pay_end + d.bth.pad_count + kIcrcLen, lo + roce_end);
      ++complete_;
    } else {
      ASSERT_EQ(pay_end, hi);
      ASSERT_FALSE(d.icrc_ok);
      ++cut_;
    }
  }

  std::size_t decodes() const { return decodes_; }
  std::size_t count(WireError e) const { return by_error_[static_cast<std::size_t>(e)]; }
  std::size_t trimmed() const { return trimmed_; }
  std::size_t complete() const { return complete_; }
  std::size_t cut() const { return cut_; }
  std::size_t payload_crcs() const { return payload_crcs_; }

 private:
  std::size_t decodes_ = 0;
  std::size_t trimmed_ = 0;
  std::size_t complete_ = 0;
  std::size_t cut_ = 0;
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

    // 1. Every truncation, including the empty frame and the whole frame.
    for (std::size_t cut = 0; cut <= n; ++cut) {
      ck.decode(buf.data(), cut);
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
      ck.decode(mut.data(), len);
      if (::testing::Test::HasFatalFailure()) return;
    }
    // 3. A valid prefix followed by garbage (sometimes longer than the original).
    for (int k = 0; k < 100; ++k) {
      const std::size_t keep = uni(r, 0, n);
      const std::size_t len = uni(r, keep, std::min<std::size_t>(n + 64, mut.size()));
      std::memcpy(mut.data(), buf.data(), keep);
      for (std::size_t j = keep; j < len; ++j) mut[j] = static_cast<std::uint8_t>(r());
      ck.decode(mut.data(), len);
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
    ck.decode(mut.data(), len);
    if (::testing::Test::HasFatalFailure()) return;
  }

  EXPECT_GE(ck.decodes(), 1'000'000u);
  // The mix must actually exercise the decoder: complete, cut and trimmed frames, and every
  // decoder error kind.
  EXPECT_GT(ck.count(WireError::kOk), 1000u);
  EXPECT_GT(ck.trimmed(), 1000u);
  EXPECT_GT(ck.complete(), 1000u);
  EXPECT_GT(ck.cut(), 1000u);
  EXPECT_GT(ck.payload_crcs(), 250u);  // decoded frames checked with the payload CRC asked for
  int kinds = 0;
  for (int e = 1; e < static_cast<int>(WireError::kBufferTooSmall); ++e) {
    kinds += ck.count(static_cast<WireError>(e)) > 0;
  }
  EXPECT_EQ(kinds, static_cast<int>(WireError::kBufferTooSmall) - 1);
  std::cout << "[ robustness ] decodes=" << ck.decodes() << " ok=" << ck.count(WireError::kOk)
            << " trimmed=" << ck.trimmed() << " complete=" << ck.complete() << " cut=" << ck.cut();
  for (int e = 1; e < static_cast<int>(WireError::kBufferTooSmall); ++e) {
    std::cout << " " << to_string(static_cast<WireError>(e)) << "="
              << ck.count(static_cast<WireError>(e));
  }
  std::cout << "\n";
}

}  // namespace
}  // namespace mrc::wire::test
