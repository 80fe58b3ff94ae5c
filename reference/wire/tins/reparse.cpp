// reparse() and the ICRC helpers: libtins' generic packet tree <-> the RoCEv2 / MRC PDUs.
#include "reference/wire/tins/reparse.hpp"

#include <tins/ip.h>
#include <tins/ipv6.h>
#include <tins/rawpdu.h>
#include <tins/udp.h>

#include <memory>
#include <vector>

#include "reference/wire/codec.hpp"
#include "reference/wire/icrc.hpp"
#include "reference/wire/tins/mrc_pdus.hpp"
#include "reference/wire/tins/roce_pdus.hpp"

namespace mrc::wire::tins_adapters {
namespace {

// Builds BTH / ext headers / RawPDU from the bytes of one UDP payload (BTH through ICRC),
// mirroring decode_frame()'s rules: extension headers by ext_layout(), then payload, pad, ICRC.
WireError build_chain(Bytes b, std::unique_ptr<Tins::PDU>& head,
                      bool& nonzero_pad) {
  Bth bth;
  if (WireError e = decode_bth(b, bth); e != WireError::kOk) return e;
  const ExtLayout layout = ext_layout(bth.opcode);
  if (!layout.known) return WireError::kBadOpcode;
  if (b.size() < kBthLen + kIcrcLen) return WireError::kBadUdpLength;
  const std::size_t icrc_off = b.size() - kIcrcLen;

  auto top = std::make_unique<BTH>(bth);
  top->auto_pad(false);  // keep the pad count the wire had
  top->icrc(icrc_read(b.data() + icrc_off));
  Tins::PDU* tail = top.get();
  std::size_t off = kBthLen;
  // Each step decodes one header from the bytes before the ICRC (the native decoders return
  // kTruncated when it does not fit) and appends its PDU.
  auto step = [&](auto decode, auto make) -> WireError {
    if (WireError de = decode(b.subspan(off, icrc_off - off)); de != WireError::kOk) return de;
    Tins::PDU* p = make();
    tail->inner_pdu(p);  // takes ownership
    tail = p;
    off += p->header_size();
    return WireError::kOk;
  };
  WireError e = WireError::kOk;
  Meth meth;
  Tseth tseth;
  SackFields sack;
  Neth neth;
  Peth peth;
  Erth erth;
  Reth reth;
  std::uint32_t imm = 0;
  Aeth aeth;
  if (e == WireError::kOk && layout.meth) {
    e = step([&](Bytes in) { return decode_meth(in, meth); }, [&] { return new METH(meth); });
    if (e == WireError::kOk && bth.ts) {  // W3: TS says a TSETH follows the METH
      e = step([&](Bytes in) { return decode_tseth(in, tseth); }, [&] { return new TSETH(tseth); });
    }
  }
  if (e == WireError::kOk && layout.reth) {
    e = step([&](Bytes in) { return decode_reth(in, reth); }, [&] { return new RETH(reth); });
  }
  if (e == WireError::kOk && layout.immdt) {
    e = step([&](Bytes in) { return decode_immdt(in, imm); }, [&] { return new ImmDt(imm); });
  }
  if (e == WireError::kOk && layout.aeth) {
    e = step([&](Bytes in) { return decode_aeth(in, aeth); }, [&] { return new AETH(aeth); });
  }
  if (e == WireError::kOk && layout.sack) {
    e = step([&](Bytes in) { return decode_sack(in, sack.seth, sack.cc); },
             [&] { return new SACK(sack); });
  }
  if (e == WireError::kOk && layout.neth) {
    e = step([&](Bytes in) { return decode_neth(in, neth); }, [&] { return new NETH(neth); });
  }
  if (e == WireError::kOk && layout.peth) {
    e = step([&](Bytes in) { return decode_peth(in, peth); }, [&] { return new PETH(peth); });
  }
  if (e == WireError::kOk && layout.erth) {
    e = step([&](Bytes in) { return decode_erth(in, erth); }, [&] { return new ERTH(erth); });
  }
  if (e == WireError::kOk && layout.eeth) {
    const std::size_t at = off;
    e = step([&](Bytes in) { return in.size() < kEethLen ? WireError::kTruncated : WireError::kOk; },
             [&] { return new EETH(b.data() + at, static_cast<std::uint32_t>(kEethLen)); });
  }
  if (e != WireError::kOk) return e;

  const std::size_t pad = bth.pad_count;
  if (off + pad > icrc_off) return WireError::kBadPadCount;
  const std::size_t pay_end = icrc_off - pad;
  for (std::size_t i = pay_end; i < icrc_off; ++i) nonzero_pad |= b[i] != 0;
  if (pay_end > off)
    tail->inner_pdu(new Tins::RawPDU(b.data() + off, static_cast<std::uint32_t>(pay_end - off)));
  head = std::move(top);
  return WireError::kOk;
}

// Where one BTH's ICRC-covered bytes sit in root's serialization.
struct IcrcSpan {
  std::size_t ip_off = 0;
  std::size_t end = 0;  // first ICRC byte
};

WireError locate(Tins::PDU& root, const Tins::PDU* bth, IcrcSpan& span) {
  std::size_t off = 0;
  std::size_t ip_off = 0;
  const Tins::PDU* ip = nullptr;
  const Tins::PDU* prev = nullptr;
  for (Tins::PDU* p = &root; p != nullptr; prev = p, off += p->header_size(), p = p->inner_pdu()) {
    if (p->pdu_type() == Tins::PDU::IP || p->pdu_type() == Tins::PDU::IPv6) {
      ip = p;
      ip_off = off;
    }
    if (p != bth) continue;
    // BTH must sit right under UDP, right under the IP header the ICRC starts at.
    if (prev == nullptr || prev->pdu_type() != Tins::PDU::UDP || ip == nullptr ||
        prev->parent_pdu() != ip) {
      return WireError::kBadArgument;
    }
    if (ip->pdu_type() == Tins::PDU::IPv6 &&
        !static_cast<const Tins::IPv6*>(ip)->headers().empty()) {
      return WireError::kBadArgument;  // icrc_compute() expects UDP right after the IPv6 header
    }
    span.ip_off = ip_off;
    span.end = off + p->size() - kIcrcLen;
    return WireError::kOk;
  }
  return WireError::kBadArgument;
}

IcrcResult compute_for(Tins::PDU& root, const Tins::PDU* bth) {
  IcrcResult r;
  IcrcSpan span;
  r.error = locate(root, bth, span);
  if (!r.ok()) return r;
  const Tins::PDU::serialization_type bytes = root.serialize();
  if (span.end > bytes.size() || span.ip_off >= span.end) {
    r.error = WireError::kBadArgument;
    return r;
  }
  r.icrc = icrc_compute(Bytes(bytes.data() + span.ip_off, span.end - span.ip_off));
  return r;
}

}  // namespace

ReparseResult reparse(Tins::PDU& root, const ReparseOptions& opt) {
  ReparseResult res;
  bool saw_roce = false;
  for (Tins::PDU* p = &root; p != nullptr; p = p->inner_pdu()) {
    if (p->pdu_type() != Tins::PDU::UDP) continue;
    auto* udp = static_cast<Tins::UDP*>(p);
    if (udp->dport() != kRoceV2Port) continue;
    saw_roce = true;
    auto* raw = Tins::tins_cast<Tins::RawPDU*>(udp->inner_pdu());
    if (raw == nullptr) continue;  // already a BTH chain, or nothing after the UDP header
    const auto& payload = raw->payload();
    // The UDP length bounds the RoCE packet (anything after it is link-layer padding).
    if (udp->length() < kUdpLen || udp->length() - kUdpLen > payload.size()) {
      if (res.ok()) res.error = WireError::kBadUdpLength;
      continue;
    }
    std::unique_ptr<Tins::PDU> chain;
    const WireError e = build_chain(Bytes(payload.data(), udp->length() - kUdpLen),
                                    chain, res.nonzero_pad);
    if (e != WireError::kOk) {
      if (res.ok()) res.error = e;
      continue;
    }
    const auto* bth = static_cast<const BTH*>(chain.get());
    udp->inner_pdu(chain.release());  // deletes the RawPDU
    ++res.replaced;
    if (opt.verify_icrc) {
      const IcrcResult c = compute_for(root, bth);
      res.icrc_ok = res.icrc_ok && c.ok() && c.icrc == bth->icrc();
    }
  }
  if (!saw_roce && res.ok()) res.error = WireError::kNotRoce;
  return res;
}

IcrcResult compute_icrc(Tins::PDU& root) {
  const BTH* bth = root.find_pdu<BTH>();
  if (bth == nullptr) return IcrcResult{WireError::kBadArgument, 0};
  return compute_for(root, bth);
}

IcrcResult finalize_icrc(Tins::PDU& root) {
  BTH* bth = root.find_pdu<BTH>();
  if (bth == nullptr) return IcrcResult{WireError::kBadArgument, 0};
  const IcrcResult r = compute_for(root, bth);
  if (r.ok()) bth->icrc(r.icrc);
  return r;
}

}  // namespace mrc::wire::tins_adapters
