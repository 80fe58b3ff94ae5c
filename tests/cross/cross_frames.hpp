// Random, seeded project frames for cross-validation against third-party decoders (scapy,
// Wireshark's infiniband dissector, the project's own Lua dissector).
//
// Each frame is built as a wire::FrameSpec and encoded by the project's encode_frame(); the
// expected field values are written from the spec (what was asked for), never by decoding the
// result, so a third-party decoder that agrees with them checks the encoder independently.
// Field names are the Lua dissector's names without the "mrc." prefix (tools/wireshark/mrc.lua),
// but udp.length (Wireshark's name; a trimmed packet's stale UDP length); the python checkers map
// them to their tool's names. Names starting with "_" describe the frame (kind, EV placement, IP
// version, bytes the IP packet holds from the UDP header on) and are no decoder's field.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace mrc::cross {

enum class Profile : std::uint8_t {
  // MRC 1.0 (mrc-wire-model.md section 5, W1-W19), the default: data packets 0xC6-0xCB, data
  // packets trimmed by a switch (DSCP_TRIMMED / DSCP_TRIMMED_LASTHOP), Transport ACK 0xD1, SACK
  // 0xDC, NACK 0xDD, reliability probe 0xDE, endpoint request 0xD8 and response 0xD9, over every
  // EV placement (UDP mode over IPv4 and IPv6, STEV, SRv6 with and without SRH). cross_frames.cpp.
  kMrc,
  // Plain RoCEv2 over IPv4 as RDMA stacks send it (nothing MRC): RDMA CM MADs on UD QP 1, RC
  // WRITE ONLY, READ request and responses, SEND FIRST / LAST IMM / ONLY IMM, 62-byte ACKs, some
  // from UDP source port 69 (roce_frames.cpp). Stands in for real captures in the tests.
  kRoce,
};

// Frame kinds of each profile (cross_frames.cpp and roce_frames.cpp list them).
inline constexpr unsigned kMrcKinds = 14;
inline constexpr unsigned kRoceKinds = 16;

struct GeneratedFrame {
  std::vector<std::uint8_t> bytes;  // the frame on the wire (a trimmed packet is shorter)
  nlohmann::json expect;            // semantic field name -> expected value
};

class FrameFactory {
 public:
  FrameFactory(Profile profile, std::uint64_t seed) : profile_(profile), rng_(seed) {}

  // Builds frame number `index`. Kinds rotate with the index so every kind appears in any run
  // of at least kinds() frames; field values are random.
  GeneratedFrame make(std::uint32_t index);
  unsigned kinds() const { return profile_ == Profile::kRoce ? kRoceKinds : kMrcKinds; }

 private:
  std::uint64_t bits(unsigned n);  // n random low bits (n <= 64)
  GeneratedFrame make_mrc(std::uint32_t index);
  GeneratedFrame make_roce(std::uint32_t index);

  Profile profile_;
  std::mt19937_64 rng_;
};

}  // namespace mrc::cross
