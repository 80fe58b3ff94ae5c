// CaptureStream's pcapng reader: the blocks of one section read in place from the mapped file
// (section header, interface descriptions with their time resolution and offset, enhanced and
// simple packet blocks); capture_stream.cpp opens the file and holds the classic pcap reader.
#include <cstring>

#include "harness/capture/capture_stream.hpp"
#include "harness/capture/link_layer.hpp"
#include "harness/capture/pcapng_format.hpp"

namespace mrc::harness {

using namespace pcapng_format;  // block types and option codes

bool CaptureStream::next_pcapng(StreamPacket& p) {
  slide_window();
  while (pos_ < file_size_) {
    const std::uint64_t pos = pos_;
    if (file_size_ - pos < 12) {
      error_ = damaged(pos, "a block header cut short at the end of the file");
      return false;
    }
    const std::uint8_t* blk = map_ + pos;
    std::uint32_t type = 0;
    std::memcpy(&type, blk, 4);  // the SHB type reads the same in both byte orders
    if (type == kShb) {
      std::uint32_t magic = 0;
      std::memcpy(&magic, blk + 8, 4);
      if (magic == kByteOrderMagic) {
        swap_ = false;
      } else if (__builtin_bswap32(magic) == kByteOrderMagic) {
        swap_ = true;
      } else {
        error_ = path_.string() + ": not a pcapng file (bad byte-order magic at offset " + std::to_string(pos) + ")";
        return false;
      }
      if (sections_++ > 0) {
        error_ = path_.string() + ": offset " + std::to_string(pos) +
                 ": a second pcapng section; mrc-conform reads files of one section";
        return false;
      }
    } else if (sections_ == 0) {
      error_ = path_.string() + ": not a pcapng file (no section header block first)";
      return false;
    }
    type = u32(blk);
    const std::uint32_t len = u32(blk + 4);
    if (len < 12 || len % 4 != 0) {
      error_ = damaged(pos, "block length " + std::to_string(len) + " is not valid");
      return false;
    }
    if (len > file_size_ - pos) {
      error_ = damaged(pos, "block of " + std::to_string(len) + " bytes, " + std::to_string(file_size_ - pos) +
                                " left in the file (truncated)");
      return false;
    }
    if (u32(blk + len - 4) != len) {
      error_ = damaged(pos, "block length fields disagree");
      return false;
    }
    pos_ = pos + len;
    if (type == kIdb) {
      error_ = idb(blk, pos, len);
      if (!error_.empty()) return false;
    } else if (type == kEpb || type == kSpb || type == kObsoletePacket) {
      error_ = packet(blk, type, pos, len, packets_, idbs_, eth_, p);
      if (!error_.empty()) return false;
      ++packets_;
      return true;
    }  // other blocks (name resolution, statistics, ...) carry nothing we read
  }
  if (sections_ == 0) error_ = path_.string() + ": empty file, not a capture";
  return false;
}

std::string CaptureStream::idb(const std::uint8_t* blk, std::uint64_t pos, std::uint32_t len) {
  if (len < 20) return damaged(pos, "interface description block shorter than 20 bytes");
  const std::size_t index = idbs_++;
  if (index < ifaces_.size()) return {};  // known from an earlier pass
  Iface f;
  f.linktype = u16(blk + 8);
  std::string name;
  for (std::size_t o = 16; o + 4 <= len - 4;) {
    const std::uint16_t code = u16(blk + o);
    const std::uint16_t olen = u16(blk + o + 2);
    if (code == 0) break;
    if (o + 4 + olen > len - 4) return damaged(pos, "interface " + std::to_string(index) + ": option runs past its block");
    const std::size_t v = o + 4;
    if (code == kOptIfName) name.assign(reinterpret_cast<const char*>(blk + v), olen);
    if (code == kOptIfTsresol && olen >= 1) {
      const std::uint8_t r = blk[v];
      const unsigned exp = r & 0x7F;
      if ((r & 0x80) ? exp > 63 : exp > 19) return damaged(pos, "interface " + std::to_string(index) + ": if_tsresol out of range");
      f.units_per_s = 1;
      for (unsigned i = 0; i < exp; ++i) f.units_per_s *= (r & 0x80) ? 2 : 10;
    }
    if (code == kOptIfTsoffset && olen >= 8) f.tsoffset_s = static_cast<std::int64_t>(u64(blk + v));
    o = v + ((olen + 3u) & ~3u);
  }
  if (link_type_name(f.linktype).empty()) {
    return path_.string() + ": interface " + std::to_string(index) + (name.empty() ? "" : " (" + name + ")") +
           ": link type " + std::to_string(f.linktype) + " is not supported; " + supported_link_types();
  }
  f.delta = link_header_delta(f.linktype);
  f.ns_per_unit = 1'000'000'000ull % f.units_per_s == 0 ? 1'000'000'000ull / f.units_per_s : 0;
  ifaces_.push_back(f);
  names_.push_back(StreamInterface{name, name.empty() ? "if" + std::to_string(index) : name});
  return {};
}

std::string CaptureStream::packet(const std::uint8_t* blk, std::uint32_t type, std::uint64_t pos, std::uint32_t len,
                                  std::uint64_t index, std::size_t known_ifaces, std::vector<std::uint8_t>& eth,
                                  StreamPacket& p) const {
  const auto damaged_at = [&](const std::string& why) {
    return path_.string() + ": packet " + std::to_string(index) + " (offset " + std::to_string(pos) + "): " + why;
  };
  std::uint32_t iface = 0;
  std::uint64_t ts = 0;
  std::uint32_t caplen = 0;
  std::uint32_t origlen = 0;
  std::size_t data = 0;
  if (type == kSpb) {
    if (len < 16) return damaged_at("simple packet block shorter than 16 bytes");
    origlen = u32(blk + 8);
    data = 12;
    caplen = std::min<std::uint32_t>(origlen, len - 16);
  } else {
    if (len < 32) return damaged_at("packet block shorter than 32 bytes");
    iface = type == kEpb ? u32(blk + 8) : u16(blk + 8);
    ts = (std::uint64_t{u32(blk + 12)} << 32) | u32(blk + 16);
    caplen = u32(blk + 20);
    origlen = u32(blk + 24);
    data = 28;
    if (caplen > len - 32) {
      return damaged_at("captured length " + std::to_string(caplen) + " runs past its block (truncated)");
    }
  }
  if (iface >= known_ifaces) {
    return damaged_at("interface " + std::to_string(iface) + " has no interface description block before it");
  }
  const Iface& f = ifaces_[iface];
  if (type != kSpb) {
    const std::uint64_t offset_ns = static_cast<std::uint64_t>(f.tsoffset_s) * 1'000'000'000ull;
    if (f.ns_per_unit != 0) {
      // 10^0 .. 10^9 units per second: one multiply, no division per packet (the same value as
      // whole seconds and remainder apart, modulo 2^64)
      ts = ts * f.ns_per_unit + offset_ns;
    } else {
      // to ns: whole seconds and the remainder apart, so 64 bits do not overflow
      const std::uint64_t sec = ts / f.units_per_s;
      const std::uint64_t rem = ts % f.units_per_s;
      ts = sec * 1'000'000'000ull + offset_ns +
           static_cast<std::uint64_t>(static_cast<long double>(rem) * 1e9L / static_cast<long double>(f.units_per_s));
    }
  }
  if (std::string why = ethernet_view(f.linktype, {blk + data, caplen}, eth, p.bytes); !why.empty()) {
    return path_.string() + ": packet " + std::to_string(index) + " (" + link_type_name(f.linktype) + "): " + why;
  }
  const long wire_len = static_cast<long>(origlen) - f.delta;
  p.ts_ns = ts;
  p.origlen = static_cast<std::uint32_t>(std::max<long>(wire_len, static_cast<long>(p.bytes.size())));
  p.iface = iface;
  p.file_index = index;
  p.offset = pos;
  p.port = type == kEpb ? port_time(blk, len, data + ((caplen + 3u) & ~3u)) : PortTime{};
  return {};
}

PortTime CaptureStream::port_time(const std::uint8_t* blk, std::uint32_t len, std::size_t opts) const {
  constexpr std::size_t kPrefixLen = kPortTimeComment.size();
  // "N", "N+S" or "N entry_ns=E", decimal; anything else in the comment is no port time.
  const auto parse = [](const char* v, std::size_t n, PortTime& out) {
    std::uint64_t value[3] = {0, 0, 0};  // ns, span, entry
    std::size_t part = 0;
    bool digits = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (v[i] == '+' && part == 0 && digits) {
        part = 1;
        digits = false;
        continue;
      }
      if (v[i] == kEntryComment[0] && part < 2 && digits && n - i > kEntryComment.size() &&
          std::memcmp(v + i, kEntryComment.data(), kEntryComment.size()) == 0) {
        part = 2;
        digits = false;
        i += kEntryComment.size() - 1;
        continue;
      }
      if (v[i] < '0' || v[i] > '9' || value[part] > (UINT64_MAX - 9) / 10) return false;
      value[part] = value[part] * 10 + static_cast<std::uint64_t>(v[i] - '0');
      digits = true;
    }
    if (!digits || value[1] > UINT32_MAX || value[2] > UINT32_MAX) return false;
    out = {value[0], static_cast<std::uint32_t>(value[1]), static_cast<std::uint32_t>(value[2])};
    return true;
  };
  for (std::size_t o = opts; o + 4 <= std::size_t{len} - 4;) {
    const std::uint16_t code = u16(blk + o);
    const std::uint16_t olen = u16(blk + o + 2);
    if (code == kOptEnd || o + 4 + olen > std::size_t{len} - 4) return {};  // a damaged option list is no port time
    const auto* v = reinterpret_cast<const char*>(blk + o + 4);
    PortTime t;
    if (code == kOptComment && olen > kPrefixLen && std::memcmp(v, kPortTimeComment.data(), kPrefixLen) == 0 &&
        parse(v + kPrefixLen, olen - kPrefixLen, t)) {
      return t;
    }
    o += 4 + ((olen + 3u) & ~3u);
  }
  return {};
}

}  // namespace mrc::harness
