// MRC's own headers: the feedback extension header (MODEL: M5) and the endpoint-operation
// header (MODEL: M6). Layouts are in ../shared/mrc-wire-model.md §5; this file and headers.hpp are
// the only places that know them.
#include <cstring>

#include "reference/wire/codec.hpp"

namespace mrc::wire {

namespace {
// MFEH flag bits, byte 1.                                                        MODEL: M5
constexpr std::uint8_t kMfehCe = 0x80;
constexpr std::uint8_t kMfehSvcValid = 0x40;
constexpr std::uint8_t kMfehEvValid = 0x20;
constexpr std::uint8_t kMfehMprValid = 0x10;
constexpr std::uint8_t kMfehSackValid = 0x08;
constexpr std::uint8_t kMfehMaxType = static_cast<std::uint8_t>(FeedbackType::kPsnOutOfRange);
// EP header flag bits, byte 1.                                                   MODEL: M6
constexpr std::uint8_t kEpSvcValid = 0x80;
constexpr std::uint8_t kEpMaxOp = static_cast<std::uint8_t>(EpOp::kPortStatusUpdate);
}  // namespace

// MODEL: M5 -- off 0 ver:4 type:4 | 1 flags | 2 svc_time:16 | 4 rsvd:8 trig_psn:24 |
// 8 ev_echo:32 | 12 ev_port | 13 mpr | 14 sack_base_off:16 | 16 sack_bitmap:64 |
// 24 rcvd_bytes:32 | 28 reserved:32
WireError decode_mfeh(Bytes in, Mfeh& out) {
  if (in.size() < kMfehLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  out.version = p[0] >> 4;
  const std::uint8_t type = p[0] & 0x0F;
  if (out.version != kMfehVersion || type > kMfehMaxType) return WireError::kBadMfeh;
  out.type = static_cast<FeedbackType>(type);
  out.ce = (p[1] & kMfehCe) != 0;
  out.svc_valid = (p[1] & kMfehSvcValid) != 0;
  out.ev_valid = (p[1] & kMfehEvValid) != 0;
  out.mpr_valid = (p[1] & kMfehMprValid) != 0;
  out.sack_valid = (p[1] & kMfehSackValid) != 0;
  out.svc_time = load_be16(p + 2);
  out.trig_psn = load_be24(p + 5);
  out.ev_echo = load_be32(p + 8);
  out.ev_port = p[12];
  out.mpr = p[13];
  out.sack_base_off = load_be16(p + 14);
  out.sack_bitmap = load_be64(p + 16);
  out.rcvd_bytes = load_be32(p + 24);
  return WireError::kOk;
}

void encode_mfeh(const Mfeh& h, std::uint8_t* out) {
  out[0] = static_cast<std::uint8_t>((h.version << 4) | (static_cast<std::uint8_t>(h.type) & 0x0F));
  out[1] = static_cast<std::uint8_t>((h.ce ? kMfehCe : 0) | (h.svc_valid ? kMfehSvcValid : 0) |
                                     (h.ev_valid ? kMfehEvValid : 0) |
                                     (h.mpr_valid ? kMfehMprValid : 0) |
                                     (h.sack_valid ? kMfehSackValid : 0));
  store_be16(out + 2, h.svc_time);
  out[4] = 0;
  store_be24(out + 5, h.trig_psn);
  store_be32(out + 8, h.ev_echo);
  out[12] = h.ev_port;
  out[13] = h.mpr;
  store_be16(out + 14, h.sack_base_off);
  store_be64(out + 16, h.sack_bitmap);
  store_be32(out + 24, h.rcvd_bytes);
  store_be32(out + 28, 0);
}

// MODEL: M6 -- 0 op:8 | 1 flags:8 | 2 req_id:16 | 4 port_status:32 | 8 tx_timestamp:64 |
// 16 svc_time_ns:32 | 20 rsp_fmt_mode:8 | 21 rsp_port:8 | 22 rsp_ev_len:8 | 23 reserved:8 |
// 24 rsp_ev[rsp_ev_len]
WireError decode_ep(Bytes in, EpHdr& out) {
  if (in.size() < kEpHdrFixedLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  if (p[0] > kEpMaxOp || !ep_rsp_ev_len_valid(p[22])) return WireError::kBadEpHeader;
  out.op = static_cast<EpOp>(p[0]);
  out.svc_valid = (p[1] & kEpSvcValid) != 0;
  out.req_id = load_be16(p + 2);
  out.port_status = load_be32(p + 4);
  out.tx_timestamp = load_be64(p + 8);
  out.svc_time_ns = load_be32(p + 16);
  out.rsp_fmt_mode = p[20];
  out.rsp_port = p[21];
  out.rsp_ev_len = p[22];
  out.rsp_ev.fill(0);
  if (in.size() < out.wire_length()) return WireError::kTruncated;
  std::memcpy(out.rsp_ev.data(), p + kEpHdrFixedLen, out.rsp_ev_len);
  return WireError::kOk;
}

void encode_ep(const EpHdr& h, std::uint8_t* out) {
  out[0] = static_cast<std::uint8_t>(h.op);
  out[1] = h.svc_valid ? kEpSvcValid : 0;
  store_be16(out + 2, h.req_id);
  store_be32(out + 4, h.port_status);
  store_be64(out + 8, h.tx_timestamp);
  store_be32(out + 16, h.svc_time_ns);
  out[20] = h.rsp_fmt_mode;
  out[21] = h.rsp_port;
  out[22] = h.rsp_ev_len;
  out[23] = 0;
  std::memcpy(out + kEpHdrFixedLen, h.rsp_ev.data(), h.rsp_ev_len);
}

}  // namespace mrc::wire
