#include "harness/capture/pcapng.hpp"
#include "harness/capture/pcapng_format.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace mrc::harness {
namespace {

using namespace pcapng_format;  // block types and option codes
// epb_flags bits 0-1: the packet's direction.
constexpr std::uint32_t kEpbInbound = 1;
constexpr std::uint32_t kEpbOutbound = 2;

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

void put_shb(std::string& s) {
  const std::size_t start = s.size();
  put32(s, kShb);
  put32(s, 0);
  put32(s, kByteOrderMagic);
  put16(s, 1);  // major version
  put16(s, 0);  // minor version
  put32(s, 0xFFFFFFFF);  // section length unknown (-1)
  put32(s, 0xFFFFFFFF);
  close_block(s, start);
}

void put_string_option(std::string& s, std::uint16_t code, const std::string& v) {
  if (v.empty()) return;
  put_option(s, code, v.data(), static_cast<std::uint16_t>(std::min<std::size_t>(v.size(), 0xFFFF)));
}

void put_idb(std::string& s, std::uint16_t linktype, std::uint32_t snaplen, const std::string& name,
             const std::string& description) {
  const std::size_t start = s.size();
  put32(s, kIdb);
  put32(s, 0);
  put16(s, linktype);
  put16(s, 0);
  put32(s, snaplen);
  put_string_option(s, kOptIfName, name);
  put_string_option(s, kOptIfDescription, description);
  const std::uint8_t tsresol = 9;  // 10^-9 s
  put_option(s, kOptIfTsresol, &tsresol, 1);
  put16(s, kOptEnd);
  put16(s, 0);
  close_block(s, start);
}

// `flags`: 0 = no epb_flags option.
void put_epb(std::string& s, std::uint32_t iface, const CapturedPacket& p, std::span<const std::uint8_t> data,
             std::uint32_t snaplen, std::uint32_t flags) {
  const std::size_t start = s.size();
  const auto caplen = static_cast<std::uint32_t>(std::min<std::size_t>(data.size(), snaplen));
  put32(s, kEpb);
  put32(s, 0);
  put32(s, iface);
  put32(s, static_cast<std::uint32_t>(p.ts_ns >> 32));
  put32(s, static_cast<std::uint32_t>(p.ts_ns & 0xFFFFFFFF));
  put32(s, caplen);
  put32(s, p.origlen);  // the wire length, whatever is kept
  s.append(reinterpret_cast<const char*>(data.data()), caplen);
  pad4(s);
  if (flags != 0) {
    put16(s, kOptEpbFlags);
    put16(s, 4);
    put32(s, flags);
  }
  if (p.port.known()) {  // only a real-time bridge's frames: the simulator's files stay as they were
    std::string c = std::string(kPortTimeComment) + std::to_string(p.port.ns);
    if (p.port.span_ns != 0) c += "+" + std::to_string(p.port.span_ns);
    if (p.port.entry_ns != 0) c += std::string(kEntryComment) + std::to_string(p.port.entry_ns);
    put_string_option(s, kOptComment, c);
  }
  if (flags != 0 || p.port.known()) {
    put16(s, kOptEnd);
    put16(s, 0);
  }
  close_block(s, start);
}


}  // namespace

std::string write_whole_file(const std::filesystem::path& path, std::string_view bytes) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return path.string() + ": " + std::strerror(errno);
  std::size_t done = 0;
  int err = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0) return {};
  // A partial capture would read as a shorter one: it goes, and the error says why.
  std::filesystem::remove(path, ec);
  return path.string() + ": " + std::strerror(err);
}

std::string pcapng_bytes(const Capture& cap, std::uint16_t linktype) {
  std::string s;
  put_shb(s);
  put_idb(s, linktype, kFullSnaplen, cap.tap(), {});
  for (std::size_t i = 0; i < cap.size(); ++i) put_epb(s, 0, cap.packet(i), cap.bytes(i), kFullSnaplen, 0);
  return s;
}

std::string write_pcapng(const std::filesystem::path& path, const Capture& cap, std::uint16_t linktype) {
  return write_whole_file(path, pcapng_bytes(cap, linktype));
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> merge_order(std::span<const PcapngInterface> ifaces) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  std::size_t total = 0;
  for (const auto& f : ifaces) total += f.capture->size();
  out.reserve(total);
  std::vector<std::uint32_t> next(ifaces.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    std::size_t best = ifaces.size();
    for (std::size_t i = 0; i < ifaces.size(); ++i) {
      if (next[i] >= ifaces[i].capture->size()) continue;
      // Strictly earlier wins, so on a tie the lower interface (seen first) keeps its place.
      if (best == ifaces.size() ||
          ifaces[i].capture->packet(next[i]).ts_ns < ifaces[best].capture->packet(next[best]).ts_ns) {
        best = i;
      }
    }
    out.emplace_back(static_cast<std::uint32_t>(best), next[best]++);
  }
  return out;
}

std::string multi_pcapng_bytes(std::span<const PcapngInterface> ifaces, std::uint32_t snaplen) {
  std::string s;
  std::size_t bytes = 0;
  for (const auto& f : ifaces) bytes += f.capture->size() * 48 + f.capture->size() * 256;
  s.reserve(bytes);
  put_shb(s);
  for (const auto& f : ifaces) put_idb(s, kLinktypeEthernet, snaplen, f.name, f.description);
  for (const auto& [i, k] : merge_order(ifaces)) {
    const Capture& c = *ifaces[i].capture;
    put_epb(s, i, c.packet(k), c.bytes(k), snaplen, ifaces[i].outbound ? kEpbOutbound : kEpbInbound);
  }
  return s;
}

std::string write_multi_pcapng(const std::filesystem::path& path, std::span<const PcapngInterface> ifaces,
                               std::uint32_t snaplen) {
  return write_whole_file(path, multi_pcapng_bytes(ifaces, snaplen));
}

std::string retarget_frame_filter(const std::string& filter, std::int64_t index) {
  static constexpr std::string_view kHead = "frame.number == ";
  std::string head = std::string(kHead) + std::to_string(index + 1);
  if (filter.rfind(kHead, 0) != 0) return filter.empty() ? head : head + " && " + filter;
  std::size_t end = kHead.size();
  while (end < filter.size() && filter[end] >= '0' && filter[end] <= '9') ++end;
  return head + filter.substr(end);
}

}  // namespace mrc::harness
