// SRv6 Segment Routing Header (RFC 8754): segment access and codec.
#include <cstring>

#include "reference/wire/codec.hpp"

namespace mrc::wire {

Ipv6Addr Srh::segment(std::size_t i) const {
  Ipv6Addr a{};
  std::memcpy(a.data(), segments.data() + i * kSrhSegmentLen, kSrhSegmentLen);
  return a;
}

WireError decode_srh(Bytes in, Srh& out) {
  if (in.size() < kSrhFixedLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  out.next_header = p[0];
  out.hdr_ext_len = p[1];
  out.routing_type = p[2];
  out.segments_left = p[3];
  out.last_entry = p[4];
  out.flags = p[5];
  out.tag = load_be16(p + 6);
  out.segments = {};
  out.tlvs = {};
  if (out.routing_type != kSrhRoutingType) return WireError::kBadSrh;
  const std::size_t total = out.wire_length();
  // RFC 8754 §4.3.1.1: max_LE = HdrExtLen/2 - 1; Segments Left may be Last Entry + 1 (reduced
  // encapsulation keeps the first segment only in the DA), never more.
  const std::size_t seg_bytes = (std::size_t{out.last_entry} + 1) * kSrhSegmentLen;
  if (kSrhFixedLen + seg_bytes > total) return WireError::kBadSrh;
  if (std::size_t{out.segments_left} > std::size_t{out.last_entry} + 1) return WireError::kBadSrh;
  if (in.size() < total) return WireError::kTruncated;
  out.segments = in.subspan(kSrhFixedLen, seg_bytes);
  out.tlvs = in.subspan(kSrhFixedLen + seg_bytes, total - kSrhFixedLen - seg_bytes);
  return WireError::kOk;
}

WireError check_srh_encodable(const Srh& h) {
  const std::size_t body = h.segments.size() + h.tlvs.size();
  if (h.segments.size() % kSrhSegmentLen != 0) return WireError::kBadArgument;
  if (body % 8 != 0 || body / 8 > 255) return WireError::kBadArgument;
  return WireError::kOk;
}

void encode_srh(const Srh& h, std::uint8_t* out) {
  out[0] = h.next_header;
  out[1] = static_cast<std::uint8_t>((h.segments.size() + h.tlvs.size()) / 8);
  out[2] = h.routing_type;
  out[3] = h.segments_left;
  out[4] = h.last_entry;
  out[5] = h.flags;
  store_be16(out + 6, h.tag);
  if (!h.segments.empty()) std::memcpy(out + kSrhFixedLen, h.segments.data(), h.segments.size());
  if (!h.tlvs.empty()) {
    std::memcpy(out + kSrhFixedLen + h.segments.size(), h.tlvs.data(), h.tlvs.size());
  }
}

}  // namespace mrc::wire
