// Serialization and parsing of the RoCEv2 / MRC PDUs through the native per-header codecs.
#include "reference/wire/tins/roce_pdus.hpp"

#include <tins/exceptions.h>

#include <algorithm>
#include <cstring>

#include "reference/wire/codec.hpp"
#include "reference/wire/icrc.hpp"

namespace mrc::wire::tins_adapters {
namespace {

// libtins parsing constructors signal bad bytes by throwing malformed_packet.
void require(WireError e) {
  if (e != WireError::kOk) throw Tins::malformed_packet();
}

Bytes view(const std::uint8_t* data, std::uint32_t size) { return Bytes(data, size); }

}  // namespace

// ---- BTH ------------------------------------------------------------------------------------
BTH::BTH(const std::uint8_t* data, std::uint32_t size) {
  require(decode_bth(view(data, size), f_));
  auto_pad_ = false;  // the wire said how much pad there is
}

std::uint32_t BTH::pad_bytes() const {
  if (!auto_pad_) return f_.pad_count & 3u;
  const std::uint32_t inner = inner_pdu() != nullptr ? inner_pdu()->size() : 0u;
  return (4u - inner % 4u) % 4u;
}

void BTH::write_serialization(std::uint8_t* buffer, std::uint32_t total_sz) {
  const std::uint32_t pad = pad_bytes();
  if (auto_pad_) f_.pad_count = static_cast<std::uint8_t>(pad);
  encode_bth(f_, buffer);
  // total_sz = header + inner + trailer; the trailer is pad (zeros) then the ICRC.
  std::uint8_t* trailer = buffer + total_sz - pad - kIcrcLen;
  std::memset(trailer, 0, pad);
  icrc_write(trailer + pad, icrc_);
}

// ---- RETH -----------------------------------------------------------------------------------
RETH::RETH(const std::uint8_t* data, std::uint32_t size) {
  require(decode_reth(view(data, size), f_));
}

void RETH::write_serialization(std::uint8_t* buffer, std::uint32_t) { encode_reth(f_, buffer); }

// ---- AETH -----------------------------------------------------------------------------------
AETH::AETH(const std::uint8_t* data, std::uint32_t size) {
  require(decode_aeth(view(data, size), f_));
}

void AETH::write_serialization(std::uint8_t* buffer, std::uint32_t) { encode_aeth(f_, buffer); }

// ---- ImmDt ----------------------------------------------------------------------------------
ImmDt::ImmDt(const std::uint8_t* data, std::uint32_t size) {
  require(decode_immdt(view(data, size), value_));
}

void ImmDt::write_serialization(std::uint8_t* buffer, std::uint32_t) {
  encode_immdt(value_, buffer);
}

}  // namespace mrc::wire::tins_adapters
