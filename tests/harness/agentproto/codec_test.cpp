// Agent-protocol codec: every message round-trips byte-exact, the encoder refuses what the
// decoder would refuse, framing finds boundaries in a stream, and every entry of the bad-message
// catalog that the codec alone can see gets its expected error code.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "harness/agentproto/codec.hpp"
#include "tests/harness/agentproto/bad_messages.hpp"
#include "tests/harness/agentproto/sample_messages.hpp"

namespace mrc::agentproto::testing {
namespace {

TEST(AgentCodec, EveryMessageTypeRoundTrips) {
  std::set<MsgType> seen;
  for (const auto& [name, m] : sample_messages()) {
    SCOPED_TRACE(name);
    std::vector<std::uint8_t> bytes;
    ASSERT_TRUE(encode_message(m, bytes).ok());
    // Header: the length counts everything after itself.
    ASSERT_GE(bytes.size(), kHeaderLen);
    const std::uint32_t len = (std::uint32_t{bytes[0]} << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3];
    EXPECT_EQ(len, bytes.size() - 4);
    EXPECT_EQ(((bytes[4] << 8) | bytes[5]), static_cast<int>(type_of(m.body)));
    Message back;
    const Problem p = decode_message(bytes, back);
    ASSERT_TRUE(p.ok()) << to_string(p.code) << ": " << p.detail;
    EXPECT_EQ(back, m);
    // Canonical: decoding then encoding gives the same bytes.
    EXPECT_EQ(encode(back), bytes);
    seen.insert(type_of(m.body));
  }
  EXPECT_EQ(seen.size(), std::variant_size_v<Body>);  // one sample per message type, at least
}

TEST(AgentCodec, EmptyOptionalsAndListsRoundTrip) {
  Message m;
  m.seq = 0xFFFFFFFFu;
  m.body = ApplyConfig{};
  Message back;
  ASSERT_TRUE(decode_message(encode(m), back).ok());
  EXPECT_EQ(back, m);
  EXPECT_FALSE(std::get<ApplyConfig>(back.body).cc.has_value());
  EXPECT_FALSE(std::get<ApplyConfig>(back.body).peer.has_value());
}

// v4: APPLY_CONFIG carries the six DSCP values (W13) as its last six bytes, in the order the
// spec gives (trimmable, trimmable_retx, no_trim, trimmed, trimmed_lasthop, control).
TEST(AgentCodec, ApplyConfigCarriesTheDscpValues) {
  ApplyConfig a;
  a.dscp = DscpValues{20, 22, 18, 21, 23, 63};
  const Message m{0, 9, a};
  const std::vector<std::uint8_t> bytes = encode(m);
  ASSERT_GE(bytes.size(), kHeaderLen + 6);
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.end() - 6, bytes.end()), (std::vector<std::uint8_t>{20, 22, 18, 21, 23, 63}));
  Message back;
  ASSERT_TRUE(decode_message(bytes, back).ok());
  EXPECT_EQ(std::get<ApplyConfig>(back.body).dscp, a.dscp);
  // A version-3 body (the same without the six bytes) is short: refused, never read as defaults.
  std::vector<std::uint8_t> v3(bytes.begin(), bytes.end() - 6);
  const std::uint32_t len = static_cast<std::uint32_t>(v3.size() - kLengthPrefix);
  v3[0] = static_cast<std::uint8_t>(len >> 24);
  v3[1] = static_cast<std::uint8_t>(len >> 16);
  v3[2] = static_cast<std::uint8_t>(len >> 8);
  v3[3] = static_cast<std::uint8_t>(len);
  EXPECT_EQ(decode_message(v3, back).code, ErrorCode::kTruncatedBody);
}

TEST(AgentCodec, LimitsAreInclusive) {
  Message m;
  m.body = Hello{1, std::string(limit::kToken, 't'), std::string(limit::kName, 'c')};
  Message back;
  EXPECT_TRUE(decode_message(encode(m), back).ok());
  ApplyConfig a;
  a.evs.assign(limit::kEvs, EvValue{std::vector<std::uint8_t>(limit::kEvBytes, 1), 1});
  m.body = a;
  std::vector<std::uint8_t> bytes;
  ASSERT_TRUE(encode_message(m, bytes).ok());
  EXPECT_TRUE(decode_message(bytes, back).ok());
  m.body = WriteMemory{0, std::vector<std::uint8_t>(limit::kMemoryChunk, 7)};
  EXPECT_TRUE(decode_message(encode(m), back).ok());
}

TEST(AgentCodec, EncoderRefusesWhatTheDecoderWould) {
  struct Case {
    const char* name;
    Message m;
    ErrorCode code;
  };
  ApplyConfig long_ev;
  long_ev.evs = {{std::vector<std::uint8_t>(33, 1), 1}};
  ApplyConfig many_evs;
  many_evs.evs.assign(limit::kEvs + 1, EvValue{{1}, 1});
  ApplyConfig many_qps;
  many_qps.qp.count = limit::kQps + 1;
  ApplyConfig big_region;
  big_region.regions = {{0, limit::kRegionBytes + 1}};
  ApplyConfig wide_dscp;
  wide_dscp.dscp.trimmed_lasthop = 64;
  const std::vector<Case> cases = {
      {"token", Message{0, 1, Hello{1, std::string(limit::kToken + 1, 't'), ""}}, ErrorCode::kFieldTooLong},
      {"ev_value", Message{0, 1, long_ev}, ErrorCode::kFieldTooLong},
      {"evs", Message{0, 1, many_evs}, ErrorCode::kFieldTooLong},
      {"error_text", Message{0, 1, Error{ErrorCode::kLimit, 0, std::string(limit::kText + 1, 'e')}}, ErrorCode::kFieldTooLong},
      {"memory", Message{0, 1, WriteMemory{0, std::vector<std::uint8_t>(limit::kMemoryChunk + 1)}}, ErrorCode::kFieldTooLong},
      {"read_len", Message{0, 1, ReadMemory{0, static_cast<std::uint32_t>(limit::kMemoryChunk + 1)}}, ErrorCode::kFieldTooLong},
      {"region", Message{0, 1, big_region}, ErrorCode::kFieldTooLong},
      {"dscp", Message{0, 1, wide_dscp}, ErrorCode::kBadValue},
      {"request_flags", Message{kFlagClosing, 1, Poll{}}, ErrorCode::kBadFlags},
      {"reply_reserved_flag", Message{2, 1, Ok{}}, ErrorCode::kBadFlags},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::uint8_t> out = {0xAA};
    const Problem p = encode_message(c.m, out);
    EXPECT_EQ(p.code, c.code) << p.detail;
    EXPECT_EQ(out, std::vector<std::uint8_t>{0xAA});  // nothing appended
    EXPECT_TRUE(encode(c.m).empty());
  }
  // A QP count over the limit encodes (it is a plain u32) but never decodes.
  Message back;
  std::vector<std::uint8_t> bytes;
  ASSERT_TRUE(encode_message(Message{0, 1, many_qps}, bytes).ok());
  EXPECT_EQ(decode_message(bytes, back).code, ErrorCode::kFieldTooLong);
}

TEST(AgentCodec, FramingFindsBoundariesInAStream) {
  std::vector<std::uint8_t> stream;
  std::vector<std::size_t> sizes;
  for (const auto& [name, m] : sample_messages()) {
    const auto f = encode(m);
    sizes.push_back(f.size());
    stream.insert(stream.end(), f.begin(), f.end());
  }
  // Byte by byte: kNeedMore until exactly the frame's last byte arrives.
  std::size_t start = 0;
  for (std::size_t size : sizes) {
    for (std::size_t have = 0; have < size; ++have) {
      const FrameCheck fc = check_frame(std::span(stream).subspan(start, have));
      ASSERT_EQ(fc.status, FrameCheck::Status::kNeedMore) << "at " << have << " of " << size;
    }
    const FrameCheck fc = check_frame(std::span(stream).subspan(start));
    ASSERT_EQ(fc.status, FrameCheck::Status::kFrame);
    ASSERT_EQ(fc.frame_bytes, size);
    Message m;
    EXPECT_TRUE(decode_message(std::span(stream).subspan(start, size), m).ok());
    start += size;
  }
  EXPECT_EQ(start, stream.size());
}

TEST(AgentCodec, BadLengthIsRefusedFromItsFourBytes) {
  const FrameCheck big = check_frame(u32be(kMaxLength + 1));
  EXPECT_EQ(big.status, FrameCheck::Status::kBad);
  EXPECT_EQ(big.problem.code, ErrorCode::kFrameTooLarge);
  EXPECT_FALSE(big.have_header);
  const FrameCheck zero = check_frame(u32be(0));
  EXPECT_EQ(zero.problem.code, ErrorCode::kFrameTooShort);
  EXPECT_EQ(check_frame(u32be(kMaxLength)).status, FrameCheck::Status::kNeedMore);  // legal, just large
}

TEST(AgentCodec, BadMessageCatalog) {
  const auto catalog = bad_message_catalog();
  ASSERT_GE(catalog.size(), 25u);
  std::set<std::string> names;
  std::set<ErrorCode> codes;
  int checked = 0;
  for (const BadMessage& b : catalog) {
    SCOPED_TRACE(b.name);
    EXPECT_TRUE(names.insert(b.name).second) << "duplicate catalog name";
    codes.insert(b.expect);
    if (!b.codec_visible) continue;
    const FrameCheck fc = check_frame(b.bytes);
    ErrorCode got = ErrorCode::kNone;
    if (fc.status == FrameCheck::Status::kBad) {
      got = fc.problem.code;
    } else {
      ASSERT_EQ(fc.status, FrameCheck::Status::kFrame);
      Message m;
      got = decode_message(std::span(b.bytes).first(fc.frame_bytes), m).code;
    }
    EXPECT_EQ(got, b.expect) << to_string(got) << " instead of " << to_string(b.expect);
    ++checked;
  }
  EXPECT_GE(checked, 25);
  EXPECT_GE(codes.size(), 15u);  // the catalog covers most error codes, not one code 25 times
}

TEST(AgentCodec, DecodeOfAWrongSizedSpan) {
  const auto f = encode(hello_msg(1));
  Message m;
  EXPECT_EQ(decode_message(std::span(f).first(f.size() - 1), m).code, ErrorCode::kTruncated);
  auto longer = f;
  longer.push_back(0);
  EXPECT_EQ(decode_message(longer, m).code, ErrorCode::kTrailingBytes);
  EXPECT_EQ(decode_message(std::span(f).first(5), m).code, ErrorCode::kTruncated);
}

TEST(AgentCodec, NamesAndFatality) {
  for (std::uint16_t c = 0; c <= static_cast<std::uint16_t>(ErrorCode::kLimit); ++c) {
    EXPECT_NE(to_string(static_cast<ErrorCode>(c)), "unknown_error") << c;
  }
  for (const auto& [name, m] : sample_messages()) {
    const auto type = static_cast<std::uint16_t>(type_of(m.body));
    EXPECT_NE(to_string(type_of(m.body)), "UNKNOWN");
    if (!is_reply(type)) {
      EXPECT_TRUE(is_reply(static_cast<std::uint16_t>(reply_type_of(type_of(m.body))))) << name;
    }
  }
  EXPECT_EQ(reply_type_of(MsgType::kReadMemory), MsgType::kMemory);
  EXPECT_EQ(reply_type_of(MsgType::kEvProfileOp), MsgType::kOk);
  EXPECT_TRUE(is_fatal(ErrorCode::kBadToken));
  EXPECT_TRUE(is_fatal(ErrorCode::kFrameTooLarge));
  EXPECT_FALSE(is_fatal(ErrorCode::kNotHello));
  EXPECT_FALSE(is_fatal(ErrorCode::kRejected));
  EXPECT_FALSE(is_known_type(0x0042));
  EXPECT_TRUE(is_reply(static_cast<std::uint16_t>(MsgType::kError)));
}

// The fuzz seed corpus is the encoding of every sample message. MRC_REGEN_AGENT_CORPUS=1 rewrites
// it after a deliberate protocol change.
TEST(AgentCodec, FuzzSeedCorpusIsCurrent) {
  const std::filesystem::path dir = std::filesystem::path(MRC_SOURCE_DIR) / "tests/fuzz/agent_corpus";
  const bool regen = std::getenv("MRC_REGEN_AGENT_CORPUS") != nullptr;
  for (const auto& [name, m] : sample_messages()) {
    const auto bytes = encode(m);
    const auto path = dir / (name + ".bin");
    if (regen) {
      std::filesystem::create_directories(dir);
      std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                  static_cast<std::streamsize>(bytes.size()));
    }
    std::ifstream f(path, std::ios::binary);
    ASSERT_TRUE(f) << path << " missing (run with MRC_REGEN_AGENT_CORPUS=1)";
    const std::vector<std::uint8_t> on_disk((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(on_disk, bytes) << path << " is stale (run with MRC_REGEN_AGENT_CORPUS=1)";
  }
}

}  // namespace
}  // namespace mrc::agentproto::testing
