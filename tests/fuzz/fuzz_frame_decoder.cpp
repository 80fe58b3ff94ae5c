// libFuzzer target for decode_frame(): any byte string, with the ICRC checked, the default trimmed
// DSCPs and every DSCP counted as a trimmed one (so that MRC data packets take the trimmed-packet
// path, W13), must decode to kOk or a typed error without crashing, reading out of bounds (ASan)
// or hitting undefined behaviour (UBSan), and the result must describe the input consistently.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "reference/wire/frame.hpp"
#include "reference/wire/icrc.hpp"

namespace {

using mrc::wire::Bytes;

[[noreturn]] void violated(const char* what, const char* options, std::size_t size) {
  std::fprintf(stderr, "fuzz_frame_decoder: invariant violated: %s (options=%s, size=%zu)\n", what,
               options, size);
  std::abort();
}

// True when `part` is empty or lies entirely inside `whole`.
bool inside(Bytes part, Bytes whole) {
  if (part.empty()) return true;
  const auto* lo = whole.data();
  const auto* hi = whole.data() + whole.size();
  return part.data() >= lo && part.data() <= hi &&
         part.size() <= static_cast<std::size_t>(hi - part.data());
}

// The DSCP a trimming switch rewrites (frame.cpp, W13): the outer one, or the inner one of an SRv6
// packet when the outer one is not a trimmed DSCP.
bool carries_trimmed_dscp(const mrc::wire::DecodedFrame& d, std::uint64_t trimmed_dscps) {
  const auto marks = [&](std::uint8_t dscp) { return ((trimmed_dscps >> (dscp & 63)) & 1u) != 0; };
  if (d.l3 == mrc::wire::L3Kind::kIpv4) return marks(d.ip4.dscp);
  return marks(d.ip6.dscp) || (d.encapsulated && marks(d.inner_ip6.dscp));
}

void check(Bytes frame, const mrc::wire::DecodeOptions& opt, const char* name) {
  using namespace mrc::wire;
  const std::size_t size = frame.size();
  DecodedFrame out;
  const DecodeResult r = decode_frame(frame, out, opt);
  if (to_string(r.error).empty()) violated("error without a name", name, size);
  if (!r.ok()) {
    if (r.offset > size) violated("error offset past the input", name, size);
    if (r.error == WireError::kBufferTooSmall || r.error == WireError::kBadArgument) {
      violated("encoder error from the decoder", name, size);
    }
    return;
  }
  if (r.offset > size) violated("frame length past the input", name, size);
  if (!inside(out.payload, frame)) violated("payload outside the input", name, size);
  if (out.has_srh && (!inside(out.srh.segments, frame) || !inside(out.srh.tlvs, frame))) {
    violated("SRH segments outside the input", name, size);
  }
  if (out.bth_offset + kBthLen > size) violated("BTH past the input", name, size);
  if (out.roce_ip_offset >= out.bth_offset) violated("IP header after the BTH", name, size);
  if (!out.payload.empty() && out.payload.data() < frame.data() + out.bth_offset + kBthLen) {
    violated("payload overlaps the BTH", name, size);
  }
  if (out.icrc_ok && out.icrc_computed != out.icrc_wire) {
    violated("icrc_ok with differing values", name, size);
  }
  // W13: an MRC data packet (0xC6..0xCB) is trimmed exactly when its DSCP is a trimmed one; its
  // stale ICRC is never checked. A bad ICRC, a cut capture or a trimmed DSCP on any other packet
  // does not make a trim.
  const bool trim_expected = is_mrc_data(out.bth.opcode) && carries_trimmed_dscp(out, opt.trimmed_dscps);
  if (out.trimmed != trim_expected) violated("trimmed without the W13 reason, or missed", name, size);
  if (out.trimmed) {
    if (out.icrc_ok) violated("trimmed packet with a checked ICRC", name, size);
    if (!out.has_meth) violated("trimmed packet without its METH", name, size);
    return;
  }
  // Not trimmed: the UDP length ends the RoCE packet. Captured whole, the payload ends at its pad
  // and 4-byte ICRC; cut by the capture (a snap length), it runs to the end of the input.
  const std::size_t roce_end = out.bth_offset - kUdpLen + out.udp.length;
  // (An empty payload is still a view at its place in the input.)
  const std::uint8_t* pay_end = out.payload.data() + out.payload.size();
  if (roce_end <= size) {
    if (pay_end + out.bth.pad_count + kIcrcLen != frame.data() + roce_end) {
      violated("payload does not end at pad + ICRC", name, size);
    }
  } else {
    if (pay_end != frame.data() + size) {
      violated("payload of a cut capture does not run to its end", name, size);
    }
    if (out.icrc_ok) violated("icrc_ok on a packet whose ICRC was not captured", name, size);
  }
}

// The same decode with the payload CRC asked for (the diff's path, icrc_compute_split): the same
// outcome, and the CRC of exactly the payload it cut.
void check_payload_crc(Bytes frame) {
  using namespace mrc::wire;
  DecodedFrame a;
  DecodedFrame b;
  const DecodeResult ra = decode_frame(frame, a);
  DecodeOptions with_crc;
  with_crc.payload_crc = true;
  const DecodeResult rb = decode_frame(frame, b, with_crc);
  if (ra.error != rb.error || ra.offset != rb.offset) {
    violated("payload_crc changes the outcome", "payload_crc", frame.size());
  }
  if (!ra.ok()) return;
  if (a.payload.data() != b.payload.data() || a.payload.size() != b.payload.size() ||
      a.icrc_computed != b.icrc_computed || a.icrc_ok != b.icrc_ok || a.trimmed != b.trimmed) {
    violated("payload_crc changes the decode", "payload_crc", frame.size());
  }
  if (!b.has_payload_crc || b.payload_crc != crc32(0, b.payload)) {
    violated("payload_crc is not the CRC of the payload", "payload_crc", frame.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mrc::wire;
  const Bytes frame(data, size);
  check(frame, DecodeOptions{}, "default");  // the default trimmed DSCPs (W13: 11 and 13)
  DecodeOptions every_dscp_trims;
  every_dscp_trims.trimmed_dscps = ~std::uint64_t{0};
  check(frame, every_dscp_trims, "every-dscp-trims");  // every MRC data packet is a trimmed one
  check_payload_crc(frame);
  // The CRC engines on arbitrary lengths and alignments (the folding engine re-reads bytes near
  // the end of its input; ASan checks those reads stay inside it).
  if (crc32(0, frame) != crc32_portable(0, frame)) violated("CRC engines disagree", "-", size);
  (void)icrc_compute(frame);  // any version nibble, any header length
  return 0;
}
