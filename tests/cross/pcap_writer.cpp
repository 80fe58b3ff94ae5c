#include "tests/cross/pcap_writer.hpp"

namespace mrc::cross {

PcapWriter::PcapWriter(const std::string& path) : out_(path, std::ios::binary) {
  put32(0xa1b2c3d4u);
  put16(2);
  put16(4);
  put32(0);      // thiszone
  put32(0);      // sigfigs
  put32(65535);  // snaplen
  put32(1);      // LINKTYPE_ETHERNET
}

void PcapWriter::record(std::uint32_t usec_total, const std::vector<std::uint8_t>& bytes) {
  put32(usec_total / 1000000u);
  put32(usec_total % 1000000u);
  put32(static_cast<std::uint32_t>(bytes.size()));
  put32(static_cast<std::uint32_t>(bytes.size()));
  out_.write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

void PcapWriter::put16(std::uint16_t v) {
  const char b[2] = {static_cast<char>(v), static_cast<char>(v >> 8)};
  out_.write(b, 2);
}

void PcapWriter::put32(std::uint32_t v) {
  put16(static_cast<std::uint16_t>(v));
  put16(static_cast<std::uint16_t>(v >> 16));
}

}  // namespace mrc::cross
