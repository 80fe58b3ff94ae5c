// Random, seeded project frames for cross-validation against third-party decoders (scapy,
// Wireshark's infiniband dissector, the project's own Lua dissector).
//
// Each frame is built as a wire::FrameSpec and encoded by the project's encode_frame(); the
// expected field values are written from the spec (what was asked for), never by decoding the
// result, so a third-party decoder that agrees with them checks the encoder independently.
// Field names are the Lua dissector's names without the "mrc." prefix (tools/wireshark/mrc.lua);
// the python checkers map them to their tool's names.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace mrc::cross {

enum class Profile : std::uint8_t {
  kIba,  // classic IBA framing (RETH on FIRST/ONLY only), RC WRITE + ACK(AETH): scapy, tshark
  kMrc,  // every MRC frame kind with MRC v1 framing (M3, M5, M6, M11): the Lua dissector
  // Plain RoCEv2 over IPv4 as RDMA stacks send it (no MRC framing): RDMA CM MADs on UD QP 1, RC
  // WRITE ONLY, READ request and responses, SEND FIRST / LAST IMM / ONLY IMM, 62-byte ACKs, some
  // from UDP source port 69 (roce_frames.cpp). Stands in for real captures in the tests.
  kRoce,
};

// Frame kinds of Profile::kRoce (roce_frames.cpp lists them).
inline constexpr unsigned kRoceKinds = 16;

struct GeneratedFrame {
  std::vector<std::uint8_t> bytes;  // what the capture holds (a trimmed stub is cut short)
  nlohmann::json expect;            // semantic field name -> expected value
};

class FrameFactory {
 public:
  FrameFactory(Profile profile, std::uint64_t seed) : profile_(profile), rng_(seed) {}

  // Builds frame number `index`. Kinds rotate with the index so every kind appears in any run
  // of at least kinds() frames; field values are random.
  GeneratedFrame make(std::uint32_t index);
  unsigned kinds() const;

 private:
  std::uint64_t bits(unsigned n);  // n random low bits (n <= 64)
  GeneratedFrame make_iba(std::uint32_t index);
  GeneratedFrame make_mrc(std::uint32_t index);
  GeneratedFrame make_roce(std::uint32_t index);

  Profile profile_;
  std::mt19937_64 rng_;
};

}  // namespace mrc::cross
