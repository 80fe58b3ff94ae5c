#include "harness/run/injected_write.hpp"

#include <utility>

#include "harness/stimulus/frame_builder.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::run {

void note_injected_write(SessionState& s, std::span<const std::uint8_t> bytes) {
  wire::DecodedFrame d;
  if (!wire::decode_frame(bytes, d).ok() || !d.has_reth || !harness::stim::is_write_opcode(d.bth.opcode)) return;
  const harness::DutLocal& rx = s.dut_local;
  const std::uint64_t size = s.setups.dut.buffer_bytes;
  if (d.reth.rkey != rx.rkey || d.reth.va < rx.buffer_va || d.payload.empty()) return;
  const std::uint64_t offset = d.reth.va - rx.buffer_va;
  if (offset >= size || d.payload.size() > size - offset) return;
  harness::InjectedWriteRecord w;
  w.psn = d.bth.psn;
  w.trimmed = d.trimmed;  // W13: a data packet with a trimmed DSCP
  w.offset = offset;
  w.payload.assign(d.payload.begin(), d.payload.end());
  s.injected_writes.push_back(std::move(w));
}

}  // namespace mrc::run
