// libFuzzer target for decode_frame(): any byte string, with MRC framing on and off and the ICRC
// checked, must decode to kOk or a typed error without crashing, reading out of bounds (ASan) or
// hitting undefined behaviour (UBSan), and the result must describe the input consistently.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "reference/wire/frame.hpp"
#include "reference/wire/icrc.hpp"

namespace {

using mrc::wire::Bytes;

[[noreturn]] void violated(const char* what, bool mrc_framing, std::size_t size) {
  std::fprintf(stderr, "fuzz_frame_decoder: invariant violated: %s (mrc_framing=%d, size=%zu)\n",
               what, mrc_framing ? 1 : 0, size);
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

void check(Bytes frame, bool mrc_framing, bool detect_framing = false) {
  using namespace mrc::wire;
  const std::size_t size = frame.size();
  DecodedFrame out;
  const DecodeOptions opt{.mrc_framing = mrc_framing, .verify_icrc = true, .detect_framing = detect_framing};
  const DecodeResult r = decode_frame(frame, out, opt);
  if (to_string(r.error).empty()) violated("error without a name", mrc_framing, size);
  if (!r.ok()) {
    if (r.offset > size) violated("error offset past the input", mrc_framing, size);
    return;
  }
  if (r.offset > size) violated("frame length past the input", mrc_framing, size);
  if (!inside(out.payload, frame)) violated("payload outside the input", mrc_framing, size);
  if (out.has_srh && (!inside(out.srh.segments, frame) || !inside(out.srh.tlvs, frame))) {
    violated("SRH segments outside the input", mrc_framing, size);
  }
  if (out.bth_offset + kBthLen > size) violated("BTH past the input", mrc_framing, size);
  if (out.roce_ip_offset >= out.bth_offset) violated("IP header after the BTH", mrc_framing, size);
  if (!out.payload.empty() && out.payload.data() < frame.data() + out.bth_offset + kBthLen) {
    violated("payload overlaps the BTH", mrc_framing, size);
  }
  if (out.icrc_ok && out.icrc_computed != out.icrc_wire) {
    violated("icrc_ok with differing values", mrc_framing, size);
  }
  // The older model took a bad ICRC for a trim (MODEL: M11); an MRC 1.0 packet is trimmed only by
  // its DSCP (W13), so one with a bad ICRC and another DSCP decodes as corrupted, not trimmed.
  if (!out.icrc_ok && !out.trimmed && !is_mrc_opcode(out.bth.opcode)) {
    violated("bad ICRC not reported as trimmed", mrc_framing, size);
  }
  const std::uint8_t ev_len = out.ep.rsp_ev_len;
  if (out.has_ep && ev_len != 0 && ev_len != 4 && ev_len != 32) {  // MODEL: M6
    violated("EP rsp_ev_len outside {0, 4, 32}", mrc_framing, size);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Bytes frame(data, size);
  check(frame, true);   // MODEL: M3 every data packet carries a RETH
  check(frame, false);  // classic IBA framing
  check(frame, true, true);  // MRC framing recognised per frame (the diff's path)
  // The CRC engines on arbitrary lengths and alignments (the folding engine re-reads bytes near
  // the end of its input; ASan checks those reads stay inside it).
  if (mrc::wire::crc32(0, frame) != mrc::wire::crc32_portable(0, frame)) {
    violated("CRC engines disagree", true, size);
  }
  (void)mrc::wire::icrc_compute(frame);  // any version nibble, any header length
  return 0;
}
