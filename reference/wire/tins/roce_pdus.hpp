// libtins PDUs for the RoCEv2 / MRC transport headers, so tests and the packet generator can
// compose frames Scapy-style:
//
//   EthernetII() / IPv6() / UDP(4791, sport) / BTH() / RETH() / RawPDU(payload)
//
// Each PDU wraps the native field struct from reference/wire/headers.hpp and serializes and
// parses through the native per-header codec (reference/wire/codec.hpp), so the byte layout lives
// in one place. Parsing constructors throw Tins::malformed_packet (libtins' convention) on bytes
// the native decoder rejects; reparse() (reparse.hpp) is the non-throwing way in.
//
// ICRC and pad: the BTH owns them as a *trailer* (like Scapy's BTH owns its FCS-style icrc
// field). BTH::size() = 12 + inner PDUs + pad (0..3 zero bytes) + 4 ICRC bytes. By default the pad
// count is derived from the inner size at serialization time (auto_pad); reparse() switches
// auto_pad off and keeps the pad count read from the wire. The ICRC value is whatever icrc()
// holds: finalize_icrc() (reparse.hpp) computes and stores it.
#pragma once

#include <tins/pdu.h>

#include <cstdint>

#include "reference/wire/headers.hpp"

namespace mrc::wire::tins_adapters {

// PDU type tags: Tins::PDU::USER_DEFINED_PDU + n.
inline constexpr Tins::PDU::PDUType kBthType =
    static_cast<Tins::PDU::PDUType>(Tins::PDU::USER_DEFINED_PDU + 1);
inline constexpr Tins::PDU::PDUType kRethType =
    static_cast<Tins::PDU::PDUType>(Tins::PDU::USER_DEFINED_PDU + 2);
inline constexpr Tins::PDU::PDUType kAethType =
    static_cast<Tins::PDU::PDUType>(Tins::PDU::USER_DEFINED_PDU + 3);
inline constexpr Tins::PDU::PDUType kImmDtType =
    static_cast<Tins::PDU::PDUType>(Tins::PDU::USER_DEFINED_PDU + 4);

// ---- BTH (12 bytes) + pad + ICRC trailer -----------------------------------------------------
class BTH : public Tins::PDU {
 public:
  static constexpr PDUType pdu_flag = kBthType;

  BTH() = default;
  explicit BTH(const Bth& fields) : f_(fields) {}
  // Parses the 12 BTH bytes only (no inner PDUs, no trailer). Throws Tins::malformed_packet.
  BTH(const std::uint8_t* data, std::uint32_t size);

  const Bth& fields() const { return f_; }
  Bth& fields() { return f_; }

  std::uint8_t opcode() const { return f_.opcode; }
  void opcode(std::uint8_t v) { f_.opcode = v; }
  bool se() const { return f_.se; }
  void se(bool v) { f_.se = v; }
  bool mig_req() const { return f_.mig_req; }
  void mig_req(bool v) { f_.mig_req = v; }
  // With auto_pad (the default) the serialized pad count is derived from the inner size.
  std::uint8_t pad_count() const { return f_.pad_count; }
  void pad_count(std::uint8_t v) { f_.pad_count = v & 3u; }
  std::uint8_t tver() const { return f_.tver; }
  void tver(std::uint8_t v) { f_.tver = v & 0x0Fu; }
  std::uint16_t pkey() const { return f_.pkey; }
  void pkey(std::uint16_t v) { f_.pkey = v; }
  bool fecn() const { return f_.fecn; }
  void fecn(bool v) { f_.fecn = v; }
  bool becn() const { return f_.becn; }
  void becn(bool v) { f_.becn = v; }
  std::uint32_t dest_qp() const { return f_.dest_qp; }
  void dest_qp(std::uint32_t v) { f_.dest_qp = v & 0xFFFFFFu; }
  bool ack_req() const { return f_.ack_req; }
  void ack_req(bool v) { f_.ack_req = v; }
  std::uint32_t psn() const { return f_.psn; }
  void psn(std::uint32_t v) { f_.psn = v & 0xFFFFFFu; }

  bool auto_pad() const { return auto_pad_; }
  void auto_pad(bool v) { auto_pad_ = v; }
  // Pad bytes the trailer holds: derived from the inner size (auto_pad) or the pad_count field.
  std::uint32_t pad_bytes() const;

  std::uint32_t icrc() const { return icrc_; }
  void icrc(std::uint32_t v) { icrc_ = v; }

  std::uint32_t header_size() const override { return static_cast<std::uint32_t>(kBthLen); }
  std::uint32_t trailer_size() const override {
    return pad_bytes() + static_cast<std::uint32_t>(kIcrcLen);
  }
  PDUType pdu_type() const override { return pdu_flag; }
  BTH* clone() const override { return new BTH(*this); }

 private:
  void write_serialization(std::uint8_t* buffer, std::uint32_t total_sz) override;

  Bth f_{};
  bool auto_pad_ = true;
  std::uint32_t icrc_ = 0;
};

// ---- RETH (16 bytes) ----------------------------------------------------------------------
class RETH : public Tins::PDU {
 public:
  static constexpr PDUType pdu_flag = kRethType;

  RETH() = default;
  explicit RETH(const Reth& fields) : f_(fields) {}
  RETH(std::uint64_t va, std::uint32_t rkey, std::uint32_t dma_length) : f_{va, rkey, dma_length} {}
  RETH(const std::uint8_t* data, std::uint32_t size);  // throws Tins::malformed_packet

  const Reth& fields() const { return f_; }
  Reth& fields() { return f_; }
  std::uint64_t va() const { return f_.va; }
  void va(std::uint64_t v) { f_.va = v; }
  std::uint32_t rkey() const { return f_.rkey; }
  void rkey(std::uint32_t v) { f_.rkey = v; }
  std::uint32_t dma_length() const { return f_.dma_length; }
  void dma_length(std::uint32_t v) { f_.dma_length = v; }

  std::uint32_t header_size() const override { return static_cast<std::uint32_t>(kRethLen); }
  PDUType pdu_type() const override { return pdu_flag; }
  RETH* clone() const override { return new RETH(*this); }

 private:
  void write_serialization(std::uint8_t* buffer, std::uint32_t total_sz) override;
  Reth f_{};
};

// ---- AETH (4 bytes) -----------------------------------------------------------------------
class AETH : public Tins::PDU {
 public:
  static constexpr PDUType pdu_flag = kAethType;

  AETH() = default;
  explicit AETH(const Aeth& fields) : f_(fields) {}
  AETH(std::uint8_t syndrome, std::uint32_t msn) : f_{syndrome, msn & 0xFFFFFFu} {}
  AETH(const std::uint8_t* data, std::uint32_t size);  // throws Tins::malformed_packet

  const Aeth& fields() const { return f_; }
  Aeth& fields() { return f_; }
  std::uint8_t syndrome() const { return f_.syndrome; }
  void syndrome(std::uint8_t v) { f_.syndrome = v; }
  std::uint32_t msn() const { return f_.msn; }
  void msn(std::uint32_t v) { f_.msn = v & 0xFFFFFFu; }

  std::uint32_t header_size() const override { return static_cast<std::uint32_t>(kAethLen); }
  PDUType pdu_type() const override { return pdu_flag; }
  AETH* clone() const override { return new AETH(*this); }

 private:
  void write_serialization(std::uint8_t* buffer, std::uint32_t total_sz) override;
  Aeth f_{};
};

// ---- ImmDt (4 bytes) ----------------------------------------------------------------------
class ImmDt : public Tins::PDU {
 public:
  static constexpr PDUType pdu_flag = kImmDtType;

  ImmDt() = default;
  explicit ImmDt(std::uint32_t value) : value_(value) {}
  ImmDt(const std::uint8_t* data, std::uint32_t size);  // throws Tins::malformed_packet

  std::uint32_t value() const { return value_; }
  void value(std::uint32_t v) { value_ = v; }

  std::uint32_t header_size() const override { return static_cast<std::uint32_t>(kImmDtLen); }
  PDUType pdu_type() const override { return pdu_flag; }
  ImmDt* clone() const override { return new ImmDt(*this); }

 private:
  void write_serialization(std::uint8_t* buffer, std::uint32_t total_sz) override;
  std::uint32_t value_ = 0;
};

}  // namespace mrc::wire::tins_adapters
