// A classic pcap file writer (Ethernet link type) for generated test captures: mrc_cross_gen and
// the tests that build their own RoCEv2 captures at test time write through it.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace mrc::cross {

// Classic pcap (not pcapng): little-endian magic 0xa1b2c3d4, microsecond timestamps, v2.4,
// LINKTYPE_ETHERNET. Each record's captured length is its wire length.
class PcapWriter {
 public:
  explicit PcapWriter(const std::string& path);
  bool good() const { return static_cast<bool>(out_); }
  void record(std::uint32_t usec_total, const std::vector<std::uint8_t>& bytes);

 private:
  void put16(std::uint16_t v);
  void put32(std::uint32_t v);
  std::ofstream out_;
};

}  // namespace mrc::cross
