// libtins PDUs for the MRC 1.0 headers after the BTH (mrc_headers.hpp): METH, TSETH, the SACK body
// (SETH + CC_STATE), NETH, PETH, ERTH and EETH, so frames compose Scapy-style:
//
//   EthernetII() / IPv6() / UDP(4791, sport) / BTH(0xCA) / METH() / TSETH() / RETH() / RawPDU(..)
//
// Every header is fixed-length, so one class template serves them all: the PDU holds the native
// field struct (`fields()`, read and written directly) and serializes and parses through the
// native codec in codec.hpp, so each byte layout lives in one place. Parsing constructors throw
// Tins::malformed_packet on bytes the native decoder rejects. The BTH's TS flag is not derived
// here (encode_frame() derives it): set it when a TSETH follows.
#pragma once

#include <tins/pdu.h>

#include <array>
#include <cstdint>

#include "reference/wire/frame.hpp"
#include "reference/wire/mrc_headers.hpp"
#include "reference/wire/tins/roce_pdus.hpp"

namespace mrc::wire::tins_adapters {

// The SACK body as one PDU: SETH and CC_STATE always travel together (opcode 0xDC).
struct SackFields {
  Seth seth;
  CcState cc;
};

// How each header maps onto the codec: its field struct, PDU tag, length, decode and encode.
template <typename F, int Tag, std::size_t Len>
struct MrcPduTraits {
  using Fields = F;
  static constexpr Tins::PDU::PDUType kType =
      static_cast<Tins::PDU::PDUType>(Tins::PDU::USER_DEFINED_PDU + Tag);
  static constexpr std::size_t kLen = Len;
  static WireError decode(Bytes in, F& out);
  static void encode(const F& f, std::uint8_t* out);
};

using MethTraits = MrcPduTraits<Meth, 10, kMethLen>;
using TsethTraits = MrcPduTraits<Tseth, 11, kTsethLen>;
using SackTraits = MrcPduTraits<SackFields, 12, kSackHdrLen>;
using NethTraits = MrcPduTraits<Neth, 13, kNethLen>;
using PethTraits = MrcPduTraits<Peth, 14, kPethLen>;
using ErthTraits = MrcPduTraits<Erth, 15, kErthLen>;

// Defined in mrc_pdus.cpp through the codecs of codec.hpp.
template <>
WireError MethTraits::decode(Bytes in, Meth& out);
template <>
void MethTraits::encode(const Meth& f, std::uint8_t* out);
template <>
WireError TsethTraits::decode(Bytes in, Tseth& out);
template <>
void TsethTraits::encode(const Tseth& f, std::uint8_t* out);
template <>
WireError SackTraits::decode(Bytes in, SackFields& out);
template <>
void SackTraits::encode(const SackFields& f, std::uint8_t* out);
template <>
WireError NethTraits::decode(Bytes in, Neth& out);
template <>
void NethTraits::encode(const Neth& f, std::uint8_t* out);
template <>
WireError PethTraits::decode(Bytes in, Peth& out);
template <>
void PethTraits::encode(const Peth& f, std::uint8_t* out);
template <>
WireError ErthTraits::decode(Bytes in, Erth& out);
template <>
void ErthTraits::encode(const Erth& f, std::uint8_t* out);

template <typename T>
class MrcPdu : public Tins::PDU {
 public:
  using Fields = typename T::Fields;
  static constexpr PDUType pdu_flag = T::kType;

  MrcPdu() = default;
  explicit MrcPdu(const Fields& fields) : f_(fields) {}
  MrcPdu(const std::uint8_t* data, std::uint32_t size);  // throws Tins::malformed_packet

  const Fields& fields() const { return f_; }
  Fields& fields() { return f_; }

  std::uint32_t header_size() const override { return static_cast<std::uint32_t>(T::kLen); }
  PDUType pdu_type() const override { return pdu_flag; }
  MrcPdu* clone() const override { return new MrcPdu(*this); }

 private:
  void write_serialization(std::uint8_t* buffer, std::uint32_t) override { T::encode(f_, buffer); }
  Fields f_{};
};

using METH = MrcPdu<MethTraits>;
using TSETH = MrcPdu<TsethTraits>;
using SACK = MrcPdu<SackTraits>;
using NETH = MrcPdu<NethTraits>;
using PETH = MrcPdu<PethTraits>;
using ERTH = MrcPdu<ErthTraits>;

// EETH: its 26 undecoded bytes live in the PDU (a view into the parsed packet would dangle), so
// parse -> serialize gives the same bytes. fields().opaque is kept pointing at them.
class EETH : public Tins::PDU {
 public:
  static constexpr PDUType pdu_flag = static_cast<PDUType>(Tins::PDU::USER_DEFINED_PDU + 16);

  EETH() { f_.opaque = Bytes(opaque_.data(), opaque_.size()); }
  explicit EETH(const Eeth& fields);
  EETH(const std::uint8_t* data, std::uint32_t size);  // throws Tins::malformed_packet
  EETH(const EETH& o) : Tins::PDU(o), f_(o.f_), opaque_(o.opaque_) {
    f_.opaque = Bytes(opaque_.data(), opaque_.size());
  }
  EETH& operator=(const EETH&) = delete;

  const Eeth& fields() const { return f_; }
  std::uint8_t op() const { return f_.op; }
  void op(std::uint8_t v) { f_.op = v & 3u; }
  std::uint16_t tx_timestamp() const { return f_.tx_timestamp; }
  void tx_timestamp(std::uint16_t v) { f_.tx_timestamp = v; }
  const std::array<std::uint8_t, kEethOpaqueLen>& opaque() const { return opaque_; }
  void opaque(const std::array<std::uint8_t, kEethOpaqueLen>& v) { opaque_ = v; }

  std::uint32_t header_size() const override { return static_cast<std::uint32_t>(kEethLen); }
  PDUType pdu_type() const override { return pdu_flag; }
  EETH* clone() const override { return new EETH(*this); }

 private:
  void write_serialization(std::uint8_t* buffer, std::uint32_t total_sz) override;
  Eeth f_{};
  std::array<std::uint8_t, kEethOpaqueLen> opaque_{};
};

extern template class MrcPdu<MethTraits>;
extern template class MrcPdu<TsethTraits>;
extern template class MrcPdu<SackTraits>;
extern template class MrcPdu<NethTraits>;
extern template class MrcPdu<PethTraits>;
extern template class MrcPdu<ErthTraits>;

}  // namespace mrc::wire::tins_adapters
