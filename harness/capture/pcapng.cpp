#include "harness/capture/pcapng.hpp"

#include <pcap/pcap.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <vector>

#include "harness/capture/link_layer.hpp"

namespace mrc::harness {
namespace {

// pcapng block types and option codes (pcapng specification, IETF draft-ietf-opsawg-pcapng).
constexpr std::uint32_t kShb = 0x0A0D0D0A;
constexpr std::uint32_t kIdb = 0x00000001;
constexpr std::uint32_t kEpb = 0x00000006;
constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr std::uint16_t kOptEnd = 0;
constexpr std::uint16_t kOptIfName = 2;
constexpr std::uint16_t kOptIfTsresol = 9;
constexpr std::uint32_t kSnaplen = 262144;

// pcapng is written in the host's byte order and says which through the byte-order magic; we
// write little-endian explicitly so files are identical on every host.
void put16(std::string& s, std::uint16_t v) {
  s.push_back(static_cast<char>(v & 0xFF));
  s.push_back(static_cast<char>(v >> 8));
}
void put32(std::string& s, std::uint32_t v) {
  put16(s, static_cast<std::uint16_t>(v & 0xFFFF));
  put16(s, static_cast<std::uint16_t>(v >> 16));
}
void pad4(std::string& s) {
  while (s.size() % 4 != 0) s.push_back('\0');
}
void put_option(std::string& s, std::uint16_t code, const void* data, std::uint16_t len) {
  put16(s, code);
  put16(s, len);
  s.append(static_cast<const char*>(data), len);
  pad4(s);
}
// Closes a block that started at `start` with a placeholder length: fills both length fields.
void close_block(std::string& s, std::size_t start) {
  const auto total = static_cast<std::uint32_t>(s.size() - start + 4);
  put32(s, total);
  for (int i = 0; i < 4; ++i) s[start + 4 + i] = static_cast<char>((total >> (8 * i)) & 0xFF);
}

}  // namespace

std::string pcapng_bytes(const Capture& cap, std::uint16_t linktype) {
  std::string s;
  std::size_t start = s.size();
  put32(s, kShb);
  put32(s, 0);
  put32(s, kByteOrderMagic);
  put16(s, 1);  // major version
  put16(s, 0);  // minor version
  put32(s, 0xFFFFFFFF);  // section length unknown (-1)
  put32(s, 0xFFFFFFFF);
  close_block(s, start);

  start = s.size();
  put32(s, kIdb);
  put32(s, 0);
  put16(s, linktype);
  put16(s, 0);
  put32(s, kSnaplen);
  if (!cap.tap().empty()) {
    put_option(s, kOptIfName, cap.tap().data(), static_cast<std::uint16_t>(cap.tap().size()));
  }
  const std::uint8_t tsresol = 9;  // 10^-9 s
  put_option(s, kOptIfTsresol, &tsresol, 1);
  put16(s, kOptEnd);
  put16(s, 0);
  close_block(s, start);

  for (std::size_t i = 0; i < cap.size(); ++i) {
    const auto& p = cap.packet(i);
    const auto data = cap.bytes(i);
    start = s.size();
    put32(s, kEpb);
    put32(s, 0);
    put32(s, 0);  // interface 0
    put32(s, static_cast<std::uint32_t>(p.ts_ns >> 32));
    put32(s, static_cast<std::uint32_t>(p.ts_ns & 0xFFFFFFFF));
    put32(s, p.caplen);
    put32(s, p.origlen);
    s.append(reinterpret_cast<const char*>(data.data()), data.size());
    pad4(s);
    close_block(s, start);
  }
  return s;
}

std::string write_pcapng(const std::filesystem::path& path, const Capture& cap, std::uint16_t linktype) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return path.string() + ": cannot open for writing: " + std::strerror(errno);
  const auto bytes = pcapng_bytes(cap, linktype);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return path.string() + ": write failed: " + std::strerror(errno);
  return {};
}

namespace {

// libpcap reports DLT_ values; they equal the file's LINKTYPE_ value except raw IP (LINKTYPE_RAW
// 101 is DLT_RAW, 12 or 14 depending on the platform).
int linktype_of(pcap_t* p) {
  const int dlt = pcap_datalink(p);
  return dlt == DLT_RAW ? kLinkRaw : dlt;
}

std::string unsupported_link(const std::filesystem::path& path, pcap_t* p) {
  const int dlt = pcap_datalink(p);
  const char* name = pcap_datalink_val_to_name(dlt);
  // libpcap reads the link type of the first interface and refuses packets of any other, so the
  // link type is interface 0's.
  return path.string() + ": interface 0: link type " + std::to_string(dlt) + (name ? std::string(" (") + name + ")" : "") +
         " is not supported; mrc-conform reads Ethernet, Linux cooked v1/v2 (SLL, SLL2) and raw IPv4/IPv6 captures";
}

}  // namespace

std::string read_capture(const std::filesystem::path& path, Capture& out) {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* p = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!p) return path.string() + ": " + errbuf;
  out.clear();
  out.set_tap(path.stem().string());
  const int linktype = linktype_of(p);
  if (link_type_name(linktype).empty()) {
    std::string err = unsupported_link(path, p);
    pcap_close(p);
    return err;
  }
  const long delta = link_header_delta(linktype);
  std::vector<std::uint8_t> eth;  // the packet as Ethernet, reused
  std::size_t index = 0;
  std::string err;
  for (;;) {
    pcap_pkthdr* hdr = nullptr;
    const u_char* data = nullptr;
    const int rc = pcap_next_ex(p, &hdr, &data);
    if (rc == PCAP_ERROR_BREAK) break;  // end of file
    if (rc != 1) {
      err = path.string() + ": packet " + std::to_string(index) + ": " + pcap_geterr(p);
      break;
    }
    const std::uint64_t ts = static_cast<std::uint64_t>(hdr->ts.tv_sec) * 1'000'000'000ull +
                             static_cast<std::uint64_t>(hdr->ts.tv_usec);  // ns with NANO precision
    if (std::string why = to_ethernet(linktype, {data, hdr->caplen}, eth); !why.empty()) {
      err = path.string() + ": packet " + std::to_string(index) + " (" + link_type_name(linktype) + "): " + why;
      break;
    }
    const long wire_len = static_cast<long>(hdr->len) - delta;
    out.add(ts, eth, static_cast<std::uint32_t>(std::max<long>(wire_len, static_cast<long>(eth.size()))));
    ++index;
  }
  pcap_close(p);
  out.integrity().offered = out.integrity().captured;
  return err;
}

}  // namespace mrc::harness
