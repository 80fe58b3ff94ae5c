// mrc_cross_gen: writes seeded random project frames (encoded by encode_frame) to a classic
// pcap file (Ethernet link type) plus a JSON side file with the fields each frame must decode to.
// Third-party decoders (scapy, tshark's infiniband dissector, tools/wireshark/mrc.lua) read the
// pcap; the python checkers in this folder and in tests/tools/wireshark compare.
//
//   mrc_cross_gen [--profile mrc|roce] --count N --seed S --pcap out.pcap --expect out.json
//
// Profile mrc (the default) is MRC 1.0 as mrc-wire-model.md section 5 lays it out: every MRC
// opcode, trimmed data packets, every EV placement (cross_frames.cpp). Profile roce is plain RoCEv2
// of the kinds real RDMA traffic holds: RDMA CM MADs on UD QP 1, RC WRITE / READ / SEND with
// immediate and 62-byte ACKs (roce_frames.cpp).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "tests/cross/cross_frames.hpp"
#include "tests/cross/pcap_writer.hpp"

namespace {

int usage(const char* why) {
  std::cerr << "mrc_cross_gen: " << why
            << "\nusage: mrc_cross_gen [--profile mrc|roce] --count N --seed S --pcap FILE "
               "--expect FILE\n";
  return 2;
}

bool parse_u64(const std::string& s, std::uint64_t& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtoull(s.c_str(), &end, 0);
  return end != nullptr && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  std::string profile_name = "mrc", pcap_path, expect_path;
  std::uint64_t count = 0, seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) return usage("missing value after an option");
    const std::string v = argv[++i];
    if (a == "--profile") {
      profile_name = v;
    } else if (a == "--count") {
      if (!parse_u64(v, count) || count == 0 || count > 1000000) return usage("bad --count");
    } else if (a == "--seed") {
      if (!parse_u64(v, seed)) return usage("bad --seed");
    } else if (a == "--pcap") {
      pcap_path = v;
    } else if (a == "--expect") {
      expect_path = v;
    } else {
      return usage("unknown option");
    }
  }
  if (profile_name != "mrc" && profile_name != "roce") {
    return usage("--profile must be mrc or roce");
  }
  if (pcap_path.empty() || expect_path.empty() || count == 0) return usage("missing option");

  const auto profile =
      profile_name == "roce" ? mrc::cross::Profile::kRoce : mrc::cross::Profile::kMrc;
  mrc::cross::FrameFactory factory(profile, seed);
  mrc::cross::PcapWriter pcap(pcap_path);
  if (!pcap.good()) return usage("cannot open the pcap file");
  nlohmann::json frames = nlohmann::json::array();
  try {
    for (std::uint32_t i = 0; i < count; ++i) {
      mrc::cross::GeneratedFrame f = factory.make(i);
      pcap.record(i * 10u, f.bytes);
      frames.push_back(std::move(f.expect));
    }
  } catch (const std::exception& e) {
    std::cerr << "mrc_cross_gen: " << e.what() << "\n";
    return 1;
  }
  std::ofstream side(expect_path);
  side << nlohmann::json{{"profile", profile_name}, {"seed", seed}, {"frames", frames}}.dump(1)
       << "\n";
  if (!side || !pcap.good()) {
    std::cerr << "mrc_cross_gen: write failed\n";
    return 1;
  }
  std::cout << "mrc_cross_gen: " << count << " " << profile_name << " frames -> " << pcap_path
            << "\n";
  return 0;
}
