#include "harness/agentproto/codec.hpp"

#include "harness/agentproto/body_codec.hpp"
#include "harness/agentproto/byte_io.hpp"

namespace mrc::agentproto {
namespace {

std::uint32_t be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
std::uint16_t be16(const std::uint8_t* p) { return static_cast<std::uint16_t>((p[0] << 8) | p[1]); }

Header read_header(std::span<const std::uint8_t> buf) {
  Header h;
  h.length = be32(buf.data());
  h.type = be16(buf.data() + 4);
  h.flags = be16(buf.data() + 6);
  h.seq = be32(buf.data() + 8);
  return h;
}

std::string hex16(std::uint16_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(4, '0');
  for (int i = 0; i < 4; ++i) s[static_cast<std::size_t>(3 - i)] = kHex[(v >> (4 * i)) & 0xF];
  return s;
}

Problem problem(ErrorCode code, std::string detail) { return Problem{code, std::move(detail)}; }

}  // namespace

std::uint16_t allowed_flags(std::uint16_t type) { return is_reply(type) ? kFlagClosing : 0; }

FrameCheck check_frame(std::span<const std::uint8_t> buf) {
  FrameCheck fc;
  if (buf.size() < kLengthPrefix) return fc;
  const std::uint32_t length = be32(buf.data());
  // The length alone decides whether the stream can still be framed: check it before waiting
  // for the rest of the header, so 4 bytes of garbage are refused at once.
  if (length < kMinLength) {
    fc.status = FrameCheck::Status::kBad;
    fc.problem = problem(ErrorCode::kFrameTooShort,
                         "length " + std::to_string(length) + " is below the minimum of " +
                             std::to_string(kMinLength));
  } else if (length > kMaxLength) {
    fc.status = FrameCheck::Status::kBad;
    fc.problem = problem(ErrorCode::kFrameTooLarge,
                         "length " + std::to_string(length) + " exceeds the maximum of " +
                             std::to_string(kMaxLength));
  }
  if (buf.size() >= kHeaderLen) {
    fc.have_header = true;
    fc.header = read_header(buf);
  }
  if (fc.status == FrameCheck::Status::kBad) return fc;
  fc.frame_bytes = kLengthPrefix + length;
  if (buf.size() >= fc.frame_bytes) fc.status = FrameCheck::Status::kFrame;
  return fc;
}

Problem decode_message(std::span<const std::uint8_t> frame, Message& out) {
  if (frame.size() < kHeaderLen) {
    return problem(frame.size() < kLengthPrefix || be32(frame.data()) >= kMinLength ? ErrorCode::kTruncated
                                                                                       : ErrorCode::kFrameTooShort,
                   "frame of " + std::to_string(frame.size()) + " bytes is shorter than the 12-byte header");
  }
  const Header h = read_header(frame);
  out.seq = h.seq;
  out.flags = h.flags;
  if (h.length < kMinLength) {
    return problem(ErrorCode::kFrameTooShort, "length " + std::to_string(h.length) + " is below the minimum of 8");
  }
  if (h.length > kMaxLength) {
    return problem(ErrorCode::kFrameTooLarge, "length " + std::to_string(h.length) + " exceeds the maximum");
  }
  if (kLengthPrefix + h.length > frame.size()) {
    return problem(ErrorCode::kTruncated, "length " + std::to_string(h.length) + " runs past the " +
                                              std::to_string(frame.size()) + " bytes given");
  }
  if (kLengthPrefix + h.length < frame.size()) {
    return problem(ErrorCode::kTrailingBytes, "bytes after the frame's announced length");
  }
  if (!is_known_type(h.type)) {
    return problem(ErrorCode::kUnknownType, "type 0x" + hex16(h.type) + " is not defined in protocol version " + std::to_string(kProtocolVersion));
  }
  if ((h.flags & ~allowed_flags(h.type)) != 0) {
    return problem(ErrorCode::kBadFlags, "flags 0x" + hex16(h.flags) + " has reserved bits set");
  }
  Reader r(frame.subspan(kHeaderLen));
  detail::get_body(r, static_cast<MsgType>(h.type), out.body);
  if (!r.ok()) return problem(r.code(), r.detail());
  if (r.remaining() != 0) {
    return problem(ErrorCode::kTrailingBytes,
                   std::to_string(r.remaining()) + " bytes after the last field of " +
                       std::string(to_string(static_cast<MsgType>(h.type))));
  }
  return {};
}

Problem encode_message(const Message& m, std::vector<std::uint8_t>& out) {
  const auto type = static_cast<std::uint16_t>(type_of(m.body));
  if ((m.flags & ~allowed_flags(type)) != 0) {
    return problem(ErrorCode::kBadFlags, "flags not allowed on " + std::string(to_string(type_of(m.body))));
  }
  const std::size_t start = out.size();
  Writer w(out);
  w.u32(0);  // length, patched below
  w.u16(type);
  w.u16(m.flags);
  w.u32(m.seq);
  detail::put_body(w, m.body);
  const std::size_t length = out.size() - start - kLengthPrefix;
  if (w.ok() && length > kMaxLength) {
    w.fail(ErrorCode::kFrameTooLarge, to_string(type_of(m.body)),
           "encoded length " + std::to_string(length) + " exceeds the maximum");
  }
  if (!w.ok()) {
    Problem p = problem(w.code(), w.detail());
    out.resize(start);
    return p;
  }
  w.patch_u32(start, static_cast<std::uint32_t>(length));
  return {};
}

std::vector<std::uint8_t> encode(const Message& m) {
  std::vector<std::uint8_t> out;
  if (!encode_message(m, out).ok()) out.clear();
  return out;
}

}  // namespace mrc::agentproto
