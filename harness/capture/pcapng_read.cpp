// Reading captures: pcapng parsed here (every interface, with its name and link type, each
// packet's interface and file position), classic pcap through libpcap.
#include <pcap/pcap.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "harness/capture/link_layer.hpp"
#include "harness/capture/pcapng.hpp"
#include "harness/capture/pcapng_bytes.hpp"
#include "harness/capture/pcapng_format.hpp"

namespace mrc::harness {
namespace {

using namespace pcapng_format;  // block types and option codes

std::string supported_list() {
  return "mrc-conform reads Ethernet, Linux cooked v1/v2 (SLL, SLL2) and raw IPv4/IPv6 captures";
}

// A pcapng section as read: byte order, interfaces so far.
struct Iface {
  int linktype = 0;
  std::uint32_t snaplen = 0;
  std::uint64_t units_per_s = 1'000'000;  // if_tsresol default: microseconds
  std::int64_t tsoffset_s = 0;
  long delta = 0;
  std::size_t out = 0;  // index into the caller's interfaces
};

class Parser {
 public:
  Parser(const std::filesystem::path& path, const std::string& bytes, std::vector<ReadInterface>& out)
      : path_(path), b_(bytes), out_(out) {}

  std::string run() {
    std::size_t pos = 0;
    while (pos < b_.size()) {
      if (b_.size() - pos < 12) return damaged(pos, "a block header cut short at the end of the file");
      const std::uint32_t type = u32(pos);
      if (type == kShb) {
        if (pos + 12 > b_.size()) return damaged(pos, "a section header cut short");
        const std::uint32_t magic = raw32(pos + 8);
        if (magic == kByteOrderMagic) {
          swap_ = false;
        } else if (__builtin_bswap32(magic) == kByteOrderMagic) {
          swap_ = true;
        } else {
          return path_.string() + ": not a pcapng file (bad byte-order magic at offset " + std::to_string(pos) + ")";
        }
        if (sections_++ > 0) {
          return path_.string() + ": offset " + std::to_string(pos) +
                 ": a second pcapng section; mrc-conform reads files of one section";
        }
      } else if (sections_ == 0) {
        return path_.string() + ": not a pcapng file (no section header block first)";
      }
      const std::uint32_t len = u32(pos + 4);
      if (len < 12 || len % 4 != 0) return damaged(pos, "block length " + std::to_string(len) + " is not valid");
      if (len > b_.size() - pos) {
        return damaged(pos, "block of " + std::to_string(len) + " bytes, " + std::to_string(b_.size() - pos) +
                                " left in the file (truncated)");
      }
      if (u32(pos + len - 4) != len) return damaged(pos, "block length fields disagree");
      std::string e;
      if (type == kIdb) {
        e = idb(pos, len);
      } else if (type == kEpb || type == kSpb || type == kObsoletePacket) {
        e = packet(type, pos, len);
      }  // other blocks (name resolution, statistics, ...) carry nothing we read
      if (!e.empty()) return e;
      pos += len;
    }
    if (sections_ == 0) return path_.string() + ": empty file, not a capture";
    return {};
  }

 private:
  std::uint32_t raw32(std::size_t at) const {
    std::uint32_t v = 0;
    std::memcpy(&v, b_.data() + at, 4);
    return v;
  }
  std::uint32_t u32(std::size_t at) const {
    const std::uint32_t v = raw32(at);
    return swap_ ? __builtin_bswap32(v) : v;
  }
  std::uint16_t u16(std::size_t at) const {
    std::uint16_t v = 0;
    std::memcpy(&v, b_.data() + at, 2);
    return swap_ ? __builtin_bswap16(v) : v;
  }
  std::uint64_t u64(std::size_t at) const {
    std::uint64_t v = 0;
    std::memcpy(&v, b_.data() + at, 8);
    return swap_ ? __builtin_bswap64(v) : v;
  }
  std::string damaged(std::size_t pos, const std::string& why) const {
    return path_.string() + ": packet " + std::to_string(packets_) + " (offset " + std::to_string(pos) + "): " + why;
  }

  std::string idb(std::size_t pos, std::uint32_t len) {
    if (len < 20) return damaged(pos, "interface description block shorter than 20 bytes");
    Iface f;
    f.linktype = u16(pos + 8);
    f.snaplen = u32(pos + 12);
    const std::size_t index = ifaces_.size();
    std::string name;
    for (std::size_t o = pos + 16; o + 4 <= pos + len - 4;) {
      const std::uint16_t code = u16(o);
      const std::uint16_t olen = u16(o + 2);
      if (code == 0) break;
      if (o + 4 + olen > pos + len - 4) return damaged(pos, "interface " + std::to_string(index) + ": option runs past its block");
      const std::size_t v = o + 4;
      if (code == kOptIfName) name.assign(b_.data() + v, olen);
      if (code == kOptIfTsresol && olen >= 1) {
        const auto r = static_cast<std::uint8_t>(b_[v]);
        const unsigned exp = r & 0x7F;
        if ((r & 0x80) ? exp > 63 : exp > 19) return damaged(pos, "interface " + std::to_string(index) + ": if_tsresol out of range");
        f.units_per_s = 1;
        for (unsigned i = 0; i < exp; ++i) f.units_per_s *= (r & 0x80) ? 2 : 10;
      }
      if (code == kOptIfTsoffset && olen >= 8) f.tsoffset_s = static_cast<std::int64_t>(u64(v));
      o = v + ((olen + 3u) & ~3u);
    }
    if (link_type_name(f.linktype).empty()) {
      return path_.string() + ": interface " + std::to_string(index) + (name.empty() ? "" : " (" + name + ")") +
             ": link type " + std::to_string(f.linktype) + " is not supported; " + supported_list();
    }
    f.delta = link_header_delta(f.linktype);
    f.out = out_.size();
    ReadInterface ri;
    ri.name = name;
    ri.capture.set_tap(name.empty() ? "if" + std::to_string(index) : name);
    out_.push_back(std::move(ri));
    ifaces_.push_back(f);
    return {};
  }

  std::string packet(std::uint32_t type, std::size_t pos, std::uint32_t len) {
    std::uint32_t iface = 0;
    std::uint64_t ts = 0;
    std::uint32_t caplen = 0;
    std::uint32_t origlen = 0;
    std::size_t data = 0;
    if (type == kSpb) {
      if (len < 16) return damaged(pos, "simple packet block shorter than 16 bytes");
      origlen = u32(pos + 8);
      data = pos + 12;
      caplen = std::min<std::uint32_t>(origlen, len - 16);
    } else {
      if (len < 32) return damaged(pos, "packet block shorter than 32 bytes");
      iface = type == kEpb ? u32(pos + 8) : u16(pos + 8);
      ts = (std::uint64_t{u32(pos + 12)} << 32) | u32(pos + 16);
      caplen = u32(pos + 20);
      origlen = u32(pos + 24);
      data = pos + 28;
      if (caplen > len - 32) {
        return damaged(pos, "captured length " + std::to_string(caplen) + " runs past its block (truncated)");
      }
    }
    if (iface >= ifaces_.size()) {
      return damaged(pos, "interface " + std::to_string(iface) + " has no interface description block before it");
    }
    const Iface& f = ifaces_[iface];
    if (type != kSpb) {
      // to ns: whole seconds and the remainder apart, so 64 bits do not overflow
      const std::uint64_t sec = ts / f.units_per_s;
      const std::uint64_t rem = ts % f.units_per_s;
      ts = (sec + static_cast<std::uint64_t>(f.tsoffset_s)) * 1'000'000'000ull +
           (1'000'000'000ull % f.units_per_s == 0
                ? rem * (1'000'000'000ull / f.units_per_s)  // exact for 10^0 .. 10^9
                : static_cast<std::uint64_t>(static_cast<long double>(rem) * 1e9L / static_cast<long double>(f.units_per_s)));
    }
    const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(b_.data() + data), caplen);
    if (std::string why = to_ethernet(f.linktype, bytes, eth_); !why.empty()) {
      return path_.string() + ": packet " + std::to_string(packets_) + " (" + link_type_name(f.linktype) + "): " + why;
    }
    const long wire_len = static_cast<long>(origlen) - f.delta;
    ReadInterface& ri = out_[f.out];
    ri.capture.add(ts, eth_, static_cast<std::uint32_t>(std::max<long>(wire_len, static_cast<long>(eth_.size()))));
    ri.file_index.push_back(static_cast<std::uint32_t>(packets_));
    ++packets_;
    return {};
  }

  const std::filesystem::path& path_;
  const std::string& b_;
  std::vector<ReadInterface>& out_;
  std::vector<Iface> ifaces_;
  std::vector<std::uint8_t> eth_;  // the packet as Ethernet, reused
  bool swap_ = false;
  int sections_ = 0;
  std::size_t packets_ = 0;
};

// libpcap reports DLT_ values; they equal the file's LINKTYPE_ value except raw IP (LINKTYPE_RAW
// 101 is DLT_RAW, 12 or 14 depending on the platform).
int linktype_of(pcap_t* p) {
  const int dlt = pcap_datalink(p);
  return dlt == DLT_RAW ? kLinkRaw : dlt;
}

std::string read_classic(const std::filesystem::path& path, ReadInterface& out) {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* p = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!p) {
    // libpcap names the file itself when it cannot open it; its other messages do not.
    const std::string why = errbuf;
    return why.rfind(path.string() + ":", 0) == 0 ? why : path.string() + ": " + why;
  }
  out.capture.set_tap(path.stem().string());
  const int linktype = linktype_of(p);
  if (link_type_name(linktype).empty()) {
    const int dlt = pcap_datalink(p);
    const char* name = pcap_datalink_val_to_name(dlt);
    pcap_close(p);
    return path.string() + ": interface 0: link type " + std::to_string(dlt) + (name ? std::string(" (") + name + ")" : "") +
           " is not supported; " + supported_list();
  }
  const long delta = link_header_delta(linktype);
  std::vector<std::uint8_t> eth;
  std::uint32_t index = 0;
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
    out.capture.add(ts, eth, static_cast<std::uint32_t>(std::max<long>(wire_len, static_cast<long>(eth.size()))));
    out.file_index.push_back(index++);
  }
  pcap_close(p);
  return err;
}

}  // namespace

std::string read_capture_file(const std::filesystem::path& path, std::vector<ReadInterface>& out) {
  out.clear();
  std::ifstream f(path, std::ios::binary);
  if (!f) return path.string() + ": cannot open: " + std::strerror(errno);
  char magic[4] = {0};
  f.read(magic, 4);
  std::uint32_t m = 0;
  std::memcpy(&m, magic, 4);
  std::string err;
  if (f.gcount() == 4 && m == kShb) {
    f.seekg(0);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    err = Parser(path, bytes, out).run();
  } else {
    f.close();
    out.emplace_back();
    err = read_classic(path, out.back());
  }
  for (auto& i : out) i.capture.integrity().offered = i.capture.integrity().captured;
  return err;
}

std::string read_pcapng_bytes(const std::filesystem::path& origin, const std::string& bytes, std::vector<ReadInterface>& out) {
  out.clear();
  std::uint32_t m = 0;
  if (bytes.size() >= 4) std::memcpy(&m, bytes.data(), 4);
  if (m != kShb) return origin.string() + ": not a pcapng file (no section header block first)";
  std::string err = Parser(origin, bytes, out).run();
  for (auto& i : out) i.capture.integrity().offered = i.capture.integrity().captured;
  return err;
}

std::string read_capture(const std::filesystem::path& path, Capture& out) {
  std::vector<ReadInterface> ifaces;
  const std::string err = read_capture_file(path, ifaces);
  out.clear();
  out.set_tap(path.stem().string());
  if (ifaces.size() > 1 && err.empty()) {
    std::string names;
    for (const auto& i : ifaces) names += (names.empty() ? "" : ", ") + i.capture.tap();
    return path.string() + ": " + std::to_string(ifaces.size()) + " interfaces (" + names +
           "); name one (mrc-conform diff --iface NAME)";
  }
  if (!ifaces.empty()) {
    const Capture& c = ifaces.front().capture;
    for (std::size_t i = 0; i < c.size(); ++i) out.add(c.packet(i).ts_ns, c.bytes(i), c.packet(i).origlen);
  }
  out.integrity().offered = out.integrity().captured;
  return err;
}

}  // namespace mrc::harness
