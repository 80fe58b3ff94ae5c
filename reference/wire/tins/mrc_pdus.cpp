// The MRC 1.0 header PDUs (mrc_pdus.hpp): each one's traits call the native codec.
#include "reference/wire/tins/mrc_pdus.hpp"

#include <tins/exceptions.h>

#include <algorithm>

#include "reference/wire/codec.hpp"

namespace mrc::wire::tins_adapters {

template <>
WireError MethTraits::decode(Bytes in, Meth& out) { return decode_meth(in, out); }
template <>
void MethTraits::encode(const Meth& f, std::uint8_t* out) { encode_meth(f, out); }
template <>
WireError TsethTraits::decode(Bytes in, Tseth& out) { return decode_tseth(in, out); }
template <>
void TsethTraits::encode(const Tseth& f, std::uint8_t* out) { encode_tseth(f, out); }
template <>
WireError SackTraits::decode(Bytes in, SackFields& out) { return decode_sack(in, out.seth, out.cc); }
template <>
void SackTraits::encode(const SackFields& f, std::uint8_t* out) { encode_sack(f.seth, f.cc, out); }
template <>
WireError NethTraits::decode(Bytes in, Neth& out) { return decode_neth(in, out); }
template <>
void NethTraits::encode(const Neth& f, std::uint8_t* out) { encode_neth(f, out); }
template <>
WireError PethTraits::decode(Bytes in, Peth& out) { return decode_peth(in, out); }
template <>
void PethTraits::encode(const Peth& f, std::uint8_t* out) { encode_peth(f, out); }
template <>
WireError ErthTraits::decode(Bytes in, Erth& out) { return decode_erth(in, out); }
template <>
void ErthTraits::encode(const Erth& f, std::uint8_t* out) { encode_erth(f, out); }

template <typename T>
MrcPdu<T>::MrcPdu(const std::uint8_t* data, std::uint32_t size) {
  if (T::decode(Bytes(data, size), f_) != WireError::kOk) throw Tins::malformed_packet();
}

EETH::EETH(const Eeth& fields) : f_(fields) {
  if (fields.opaque.size() == opaque_.size()) {
    std::copy(fields.opaque.begin(), fields.opaque.end(), opaque_.begin());
  }
  f_.opaque = Bytes(opaque_.data(), opaque_.size());
}

EETH::EETH(const std::uint8_t* data, std::uint32_t size) {
  if (decode_eeth(Bytes(data, size), f_) != WireError::kOk) throw Tins::malformed_packet();
  std::copy(f_.opaque.begin(), f_.opaque.end(), opaque_.begin());
  f_.opaque = Bytes(opaque_.data(), opaque_.size());
}

void EETH::write_serialization(std::uint8_t* buffer, std::uint32_t) {
  Eeth f = f_;
  f.opaque = Bytes(opaque_.data(), opaque_.size());
  encode_eeth(f, buffer);
}

template class MrcPdu<MethTraits>;
template class MrcPdu<TsethTraits>;
template class MrcPdu<SackTraits>;
template class MrcPdu<NethTraits>;
template class MrcPdu<PethTraits>;
template class MrcPdu<ErthTraits>;

}  // namespace mrc::wire::tins_adapters
