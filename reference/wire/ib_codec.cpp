// InfiniBand transport header codecs: BTH, RETH, AETH, ImmDt (IBA vol 1 §9.2-9.3; RoCEv2 A17).
#include "reference/wire/codec.hpp"

namespace mrc::wire {

WireError decode_bth(Bytes in, Bth& out) {
  if (in.size() < kBthLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  out.opcode = p[0];
  out.se = (p[1] & 0x80) != 0;
  out.mig_req = (p[1] & 0x40) != 0;
  out.pad_count = (p[1] >> 4) & 0x03;
  out.tver = p[1] & 0x0F;
  out.pkey = load_be16(p + 2);
  out.fecn = (p[4] & 0x80) != 0;
  out.becn = (p[4] & 0x40) != 0;
  out.dest_qp = load_be24(p + 5);
  out.ack_req = (p[8] & 0x80) != 0;
  out.r = (p[8] & 0x40) != 0;
  out.rtx = (p[8] & 0x20) != 0;
  out.ts = (p[8] & 0x10) != 0;
  out.psn = load_be24(p + 9);
  return WireError::kOk;
}

void encode_bth(const Bth& h, std::uint8_t* out) {
  out[0] = h.opcode;
  out[1] = static_cast<std::uint8_t>((h.se ? 0x80 : 0) | (h.mig_req ? 0x40 : 0) |
                                     ((h.pad_count & 0x03) << 4) | (h.tver & 0x0F));
  store_be16(out + 2, h.pkey);
  out[4] = static_cast<std::uint8_t>((h.fecn ? 0x80 : 0) | (h.becn ? 0x40 : 0));
  store_be24(out + 5, h.dest_qp);
  out[8] = static_cast<std::uint8_t>((h.ack_req ? 0x80 : 0) | (h.r ? 0x40 : 0) | (h.rtx ? 0x20 : 0) |
                                     (h.ts ? 0x10 : 0));
  store_be24(out + 9, h.psn);
}

WireError decode_reth(Bytes in, Reth& out) {
  if (in.size() < kRethLen) return WireError::kTruncated;
  out.va = load_be64(in.data());
  out.rkey = load_be32(in.data() + 8);
  out.dma_length = load_be32(in.data() + 12);
  return WireError::kOk;
}

void encode_reth(const Reth& h, std::uint8_t* out) {
  store_be64(out, h.va);
  store_be32(out + 8, h.rkey);
  store_be32(out + 12, h.dma_length);
}

WireError decode_aeth(Bytes in, Aeth& out) {
  if (in.size() < kAethLen) return WireError::kTruncated;
  out.syndrome = in[0];
  out.msn = load_be24(in.data() + 1);
  return WireError::kOk;
}

void encode_aeth(const Aeth& h, std::uint8_t* out) {
  out[0] = h.syndrome;
  store_be24(out + 1, h.msn);
}

WireError decode_immdt(Bytes in, std::uint32_t& out) {
  if (in.size() < kImmDtLen) return WireError::kTruncated;
  out = load_be32(in.data());
  return WireError::kOk;
}

void encode_immdt(std::uint32_t immdt, std::uint8_t* out) { store_be32(out, immdt); }

}  // namespace mrc::wire
