#include "tests/cross/frame_finish.hpp"

#include <stdexcept>
#include <string>

namespace mrc::cross {

using namespace mrc::wire;
using nlohmann::json;

void expect_bth(const Bth& b, json& e) {
  e["bth.opcode"] = b.opcode;
  e["bth.se"] = b.se ? 1 : 0;
  e["bth.m"] = b.mig_req ? 1 : 0;
  e["bth.tver"] = b.tver;
  e["bth.pkey"] = b.pkey;
  e["bth.fecn"] = b.fecn ? 1 : 0;
  e["bth.becn"] = b.becn ? 1 : 0;
  e["bth.dqpn"] = b.dest_qp;
  e["bth.ackreq"] = b.ack_req ? 1 : 0;
  e["bth.psn"] = b.psn;
}

// Encodes, cuts trimmed stubs, records the length-dependent expectations.
GeneratedFrame finish(const FrameSpec& s, json e, std::size_t keep_bytes) {
  GeneratedFrame g;
  g.bytes.resize(kMaxFrameLen);
  const EncodeResult r = encode_frame(s, MutBytes(g.bytes.data(), g.bytes.size()));
  if (!r.ok()) {
    throw std::runtime_error("encode_frame failed: " + std::string(to_string(r.error)) +
                             " for kind " + e.value("_kind", std::string("?")));
  }
  g.bytes.resize(r.length);
  const std::size_t pay = s.payload.size();
  e["payload_len"] = pay;
  e["bth.padcnt"] = (4 - pay % 4) % 4;
  if (keep_bytes != 0 && keep_bytes < g.bytes.size()) {
    g.bytes.resize(keep_bytes);
    e.erase("payload_len");  // the stub holds only part of it
    e["trimmed"] = 1;
  } else {
    const std::uint8_t* t = g.bytes.data() + g.bytes.size() - kIcrcLen;
    e["icrc"] = static_cast<std::uint32_t>(t[0]) | static_cast<std::uint32_t>(t[1]) << 8 |
                static_cast<std::uint32_t>(t[2]) << 16 | static_cast<std::uint32_t>(t[3]) << 24;
    e["icrc_ok"] = 1;
    e["trimmed"] = 0;
  }
  g.expect = std::move(e);
  return g;
}

}  // namespace mrc::cross
