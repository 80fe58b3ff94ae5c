// CaptureStream: opening a capture (mapped, or through libpcap), rewinding, fetching one packet
// again by offset, and the classic pcap reader; capture_stream_pcapng.cpp reads pcapng.
#include "harness/capture/capture_stream.hpp"

#include <fcntl.h>
#include <pcap/pcap.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "harness/capture/link_layer.hpp"
#include "harness/capture/pcapng_format.hpp"

namespace mrc::harness {
namespace {

using namespace pcapng_format;  // block types and option codes

// Mapped pages behind the cursor are dropped from the process (MADV_DONTNEED; the page cache
// keeps them) every kReleaseBytes, so a file of any size costs at most this much resident.
constexpr std::uint64_t kReleaseBytes = std::uint64_t{8} << 20;
// The pages ahead of the reader are mapped in kPopulateBytes at a time with one madvise
// (MADV_POPULATE_READ, Linux 5.14): without it every 64 KiB of the file costs a page fault.
constexpr std::uint64_t kPopulateBytes = std::uint64_t{4} << 20;
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

// Classic pcap: the file header, a record header, and the largest snap length libpcap accepts for
// the link types read here (its MAXIMUM_SNAPLEN).
constexpr std::uint64_t kClassicHeader = 24;
constexpr std::uint32_t kClassicRecordHeader = 16;
constexpr std::uint32_t kClassicMaxSnaplen = 262144;

// libpcap reports DLT_ values; they equal the file's LINKTYPE_ value except raw IP (LINKTYPE_RAW
// 101 is DLT_RAW, 12 or 14 depending on the platform).
int linktype_of(pcap_t* p) {
  const int dlt = pcap_datalink(p);
  return dlt == DLT_RAW ? kLinkRaw : dlt;
}

}  // namespace

CaptureStream::~CaptureStream() {
  if (map_ && mapped_) ::munmap(const_cast<std::uint8_t*>(map_), file_size_);
  if (fd_ >= 0) ::close(fd_);
  if (pcap_) pcap_close(pcap_);
  if (fetch_pcap_) pcap_close(fetch_pcap_);
}

std::string CaptureStream::open(const std::filesystem::path& path) {
  path_ = path;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return path.string() + ": cannot open: " + std::strerror(errno);
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return path.string() + ": cannot open: " + std::strerror(errno);
  file_size_ = static_cast<std::uint64_t>(st.st_size);
  std::uint32_t magic = 0;
  const bool four = ::pread(fd_, &magic, 4, 0) == 4;
  pcapng_ = four && magic == kShb;
  if (!pcapng_) {
    if (std::string e = open_classic_mapped(); !e.empty() || classic_mapped_) return e;
    ::close(fd_);
    fd_ = -1;
    return open_classic();
  }
  void* m = ::mmap(nullptr, file_size_, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (m == MAP_FAILED) return path.string() + ": cannot map: " + std::strerror(errno);
  map_ = static_cast<const std::uint8_t*>(m);
  mapped_ = true;
  ::madvise(m, file_size_, MADV_SEQUENTIAL);
  return {};
}

std::string CaptureStream::open_bytes(const std::filesystem::path& origin, std::span<const std::uint8_t> bytes) {
  path_ = origin;
  std::uint32_t magic = 0;
  if (bytes.size() >= 4) std::memcpy(&magic, bytes.data(), 4);
  if (magic != kShb) return origin.string() + ": not a pcapng file (no section header block first)";
  pcapng_ = true;
  map_ = bytes.data();
  file_size_ = bytes.size();
  return {};
}

std::string CaptureStream::rewind() {
  error_.clear();
  packets_ = 0;
  if (!pcapng_) {
    if (pcap_) pcap_close(pcap_);
    pcap_ = nullptr;
    if (!mapped_) return open_classic();
    classic_mapped_ = true;  // and libpcap again from the same record, when one is not plain
    release(file_size_);
    released_ = 0;
    populated_ = 0;
    pos_ = kClassicHeader;
    return {};
  }
  release(file_size_);
  released_ = 0;
  populated_ = 0;
  pos_ = 0;
  sections_ = 0;
  idbs_ = 0;
  swap_ = false;
  return {};
}

bool CaptureStream::next(StreamPacket& p) {
  if (!error_.empty()) return false;
  return pcapng_ ? next_pcapng(p) : next_classic(p);
}

// ---- pcapng -------------------------------------------------------------------------------

std::uint32_t CaptureStream::u32(const std::uint8_t* at) const {
  std::uint32_t v = 0;
  std::memcpy(&v, at, 4);
  return swap_ ? __builtin_bswap32(v) : v;
}
std::uint16_t CaptureStream::u16(const std::uint8_t* at) const {
  std::uint16_t v = 0;
  std::memcpy(&v, at, 2);
  return swap_ ? __builtin_bswap16(v) : v;
}
std::uint64_t CaptureStream::u64(const std::uint8_t* at) const {
  std::uint64_t v = 0;
  std::memcpy(&v, at, 8);
  return swap_ ? __builtin_bswap64(v) : v;
}

std::string CaptureStream::damaged(std::uint64_t pos, const std::string& why) const {
  return path_.string() + ": packet " + std::to_string(packets_) + " (offset " + std::to_string(pos) + "): " + why;
}

// Drops the mapped pages before `to` (page-aligned down) from the process.
void CaptureStream::release(std::uint64_t to) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  to &= ~(page - 1);
  if (!map_ || !mapped_ || to <= released_) return;
  ::madvise(const_cast<std::uint8_t*>(map_) + released_, to - released_, MADV_DONTNEED);
  released_ = to;
}

void CaptureStream::populate_ahead() {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t from = std::max(populated_, pos_ & ~(page - 1));
  const std::uint64_t to = std::min(file_size_, from + kPopulateBytes);
  if (to > from && ::madvise(const_cast<std::uint8_t*>(map_) + from, to - from, MADV_POPULATE_READ) != 0) {
    populate_ = false;  // an older kernel: page faults as before
  }
  populated_ = to;
}

void CaptureStream::slide_window() {
  if (pos_ >= released_ + kReleaseBytes) release(pos_);  // the previous packet is done with
  if (mapped_ && populate_ && pos_ + kPopulateBytes / 2 >= populated_ && populated_ < file_size_) populate_ahead();
}

// ---- classic pcap -------------------------------------------------------------------------

std::string CaptureStream::open_classic_mapped() {
  std::uint8_t h[kClassicHeader];
  if (file_size_ < kClassicHeader || ::pread(fd_, h, kClassicHeader, 0) != static_cast<ssize_t>(kClassicHeader)) return {};
  std::uint32_t magic = 0;
  std::memcpy(&magic, h, 4);
  if (magic == 0xA1B2C3D4u || magic == 0xA1B23C4Du) {
    swap_ = false;
  } else if (magic == 0xD4C3B2A1u || magic == 0x4D3CB2A1u) {
    swap_ = true;
  } else {
    return {};  // another format, or not a capture: libpcap says which
  }
  classic_nanos_ = magic == 0xA1B23C4Du || magic == 0x4D3CB2A1u;
  const std::uint32_t linktype = u32(h + 20);
  // Version 2.4, and a link-type field with nothing but the link type (no FCS bits).
  if (u16(h + 4) != 2 || u16(h + 6) != 4 || linktype > 0xFFFF || link_type_name(static_cast<int>(linktype)).empty()) {
    return {};
  }
  void* m = ::mmap(nullptr, file_size_, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (m == MAP_FAILED) return {};
  map_ = static_cast<const std::uint8_t*>(m);
  mapped_ = true;
  ::madvise(m, file_size_, MADV_SEQUENTIAL);
  const std::uint32_t snaplen = u32(h + 16);
  classic_snaplen_ = snaplen == 0 || snaplen > kClassicMaxSnaplen ? kClassicMaxSnaplen : snaplen;
  linktype_ = static_cast<int>(linktype);
  classic_mapped_ = true;
  classic_record_header_ = kClassicRecordHeader;
  pos_ = kClassicHeader;
  if (names_.empty()) names_.push_back(StreamInterface{"", path_.stem().string()});
  ifaces_.assign(1, Iface{.linktype = linktype_, .units_per_s = 1'000'000'000, .ns_per_unit = 1, .delta = link_header_delta(linktype_)});
  return {};
}

bool CaptureStream::hand_over_to_libpcap() {
  classic_mapped_ = false;
  const std::uint64_t at = pos_;
  if (std::string e = open_classic(); !e.empty()) {
    error_ = e;
    return false;
  }
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  for (std::uint64_t i = 0; i < packets_; ++i) {  // the plain records before this one again
    if (pcap_next_ex(pcap_, &hdr, &data) != 1) {
      error_ = path_.string() + ": packet " + std::to_string(i) + ": cannot read it again: " + pcap_geterr(pcap_);
      return false;
    }
  }
  classic_pos_ = static_cast<long>(at);
  return true;
}

bool CaptureStream::next_classic_mapped(StreamPacket& p) {
  slide_window();
  if (pos_ == file_size_) return false;  // the end, on a record boundary
  const std::uint64_t left = file_size_ - pos_;
  const std::uint8_t* rec = map_ + pos_;
  const std::uint32_t caplen = left >= kClassicRecordHeader ? u32(rec + 8) : 0;
  // Anything but a whole record within the snap length (a record cut short, a length past the
  // snap length or past libpcap's maximum) is libpcap's to read, or to refuse in its own words.
  if (left < kClassicRecordHeader || caplen > classic_snaplen_ || caplen > left - kClassicRecordHeader) {
    return hand_over_to_libpcap() && next_classic(p);
  }
  if (std::string why = ethernet_view(linktype_, {rec + kClassicRecordHeader, caplen}, eth_, p.bytes); !why.empty()) {
    error_ = path_.string() + ": packet " + std::to_string(packets_) + " (" + link_type_name(linktype_) + "): " + why;
    return false;
  }
  // As libpcap gives it with nanosecond precision. Seconds past 2^31 (2038) come out of libpcap
  // sign-extended from a file in this host's byte order and not from a swapped one: the same here,
  // so a file reads the same whichever reader takes it.
  const std::uint32_t sec32 = u32(rec);
  const auto sec = swap_ ? std::uint64_t{sec32}
                         : static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(sec32)));
  const std::uint64_t frac = u32(rec + 4);
  p.ts_ns = sec * 1'000'000'000ull + (classic_nanos_ ? frac : frac * 1000);
  const long wire_len = static_cast<long>(u32(rec + 12)) - ifaces_[0].delta;
  p.origlen = static_cast<std::uint32_t>(std::max<long>(wire_len, static_cast<long>(p.bytes.size())));
  p.iface = 0;
  p.file_index = packets_++;
  p.offset = pos_;
  pos_ += kClassicRecordHeader + caplen;
  return true;
}

std::string CaptureStream::open_classic() {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  // libpcap reads through stdio: with its default 4 KiB buffer a read() per 4 KiB; 1 MiB instead.
  std::FILE* fp = std::fopen(path_.c_str(), "rb");
  if (!fp) return path_.string() + ": cannot open: " + std::strerror(errno);
  std::setvbuf(fp, nullptr, _IOFBF, std::size_t{1} << 20);
  pcap_ = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!pcap_) {
    std::fclose(fp);
    // libpcap names the file itself when it cannot open it; its other messages do not.
    const std::string why = errbuf;
    return why.rfind(path_.string() + ":", 0) == 0 ? why : path_.string() + ": " + why;
  }
  // Record offsets (fetch() handles) are counted, not asked of the stream: ftell() costs an lseek
  // per packet. Only for the usual formats, whose record header is 16 bytes; others ask ftell().
  std::uint32_t magic = 0;
  std::FILE* f = pcap_file(pcap_);
  const bool usual = ::pread(fileno(f), &magic, 4, 0) == 4 &&
                     (magic == 0xA1B2C3D4u || magic == 0xA1B23C4Du || magic == 0xD4C3B2A1u || magic == 0x4D3CB2A1u);
  classic_record_header_ = usual ? 16 : 0;
  classic_pos_ = std::ftell(f);
  linktype_ = linktype_of(pcap_);
  if (link_type_name(linktype_).empty()) {
    const int dlt = pcap_datalink(pcap_);
    const char* name = pcap_datalink_val_to_name(dlt);
    return path_.string() + ": interface 0: link type " + std::to_string(dlt) + (name ? std::string(" (") + name + ")" : "") +
           " is not supported; " + supported_link_types();
  }
  if (names_.empty()) names_.push_back(StreamInterface{"", path_.stem().string()});
  ifaces_.assign(1, Iface{.linktype = linktype_, .units_per_s = 1'000'000'000, .ns_per_unit = 1, .delta = link_header_delta(linktype_)});
  return {};
}

bool CaptureStream::next_classic(StreamPacket& p) {
  if (classic_mapped_) return next_classic_mapped(p);
  if (!pcap_) return false;
  const long at = classic_record_header_ != 0 ? classic_pos_ : std::ftell(pcap_file(pcap_));
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  const int rc = pcap_next_ex(pcap_, &hdr, &data);
  if (rc == PCAP_ERROR_BREAK) return false;  // end of file
  if (rc != 1) {
    error_ = path_.string() + ": packet " + std::to_string(packets_) + ": " + pcap_geterr(pcap_);
    return false;
  }
  if (std::string why = ethernet_view(linktype_, {data, hdr->caplen}, eth_, p.bytes); !why.empty()) {
    error_ = path_.string() + ": packet " + std::to_string(packets_) + " (" + link_type_name(linktype_) + "): " + why;
    return false;
  }
  classic_pos_ = at + static_cast<long>(classic_record_header_ + hdr->caplen);
  p.ts_ns = static_cast<std::uint64_t>(hdr->ts.tv_sec) * 1'000'000'000ull +
            static_cast<std::uint64_t>(hdr->ts.tv_usec);  // ns with NANO precision
  const long wire_len = static_cast<long>(hdr->len) - ifaces_[0].delta;
  p.origlen = static_cast<std::uint32_t>(std::max<long>(wire_len, static_cast<long>(p.bytes.size())));
  p.iface = 0;
  p.file_index = packets_++;
  p.offset = static_cast<std::uint64_t>(at);
  return true;
}

// ---- fetch --------------------------------------------------------------------------------

std::string CaptureStream::fetch(std::uint64_t offset, std::uint64_t file_index, StreamPacket& p) {
  if (!pcapng_) {
    if (!fetch_pcap_) {
      char errbuf[PCAP_ERRBUF_SIZE] = {0};
      fetch_pcap_ = pcap_open_offline_with_tstamp_precision(path_.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
      if (!fetch_pcap_) return path_.string() + ": " + errbuf;
    }
    if (std::fseek(pcap_file(fetch_pcap_), static_cast<long>(offset), SEEK_SET) != 0) {
      return path_.string() + ": packet " + std::to_string(file_index) + ": cannot seek to offset " + std::to_string(offset);
    }
    pcap_pkthdr* hdr = nullptr;
    const u_char* data = nullptr;
    if (pcap_next_ex(fetch_pcap_, &hdr, &data) != 1) {
      return path_.string() + ": packet " + std::to_string(file_index) + ": cannot read it again: " + pcap_geterr(fetch_pcap_);
    }
    if (std::string why = ethernet_view(linktype_, {data, hdr->caplen}, fetch_eth_, p.bytes); !why.empty()) return why;
    p.ts_ns = static_cast<std::uint64_t>(hdr->ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(hdr->ts.tv_usec);
    const long wire_len = static_cast<long>(hdr->len) - ifaces_[0].delta;
    p.origlen = static_cast<std::uint32_t>(std::max<long>(wire_len, static_cast<long>(p.bytes.size())));
    p.iface = 0;
    p.file_index = file_index;
    p.offset = offset;
    return {};
  }
  std::uint8_t head[8];
  if (::pread(fd_, head, 8, static_cast<off_t>(offset)) != 8) {
    return path_.string() + ": packet " + std::to_string(file_index) + ": cannot read it again at offset " + std::to_string(offset);
  }
  const std::uint32_t type = u32(head);
  const std::uint32_t len = u32(head + 4);
  if (len < 12 || len > file_size_ - offset) return damaged(offset, "block length " + std::to_string(len) + " is not valid");
  fetch_buf_.resize(std::max<std::size_t>(fetch_buf_.size(), len));
  if (::pread(fd_, fetch_buf_.data(), len, static_cast<off_t>(offset)) != static_cast<ssize_t>(len)) {
    return path_.string() + ": packet " + std::to_string(file_index) + ": cannot read it again at offset " + std::to_string(offset);
  }
  return packet(fetch_buf_.data(), type, offset, len, file_index, ifaces_.size(), fetch_eth_, p);
}

}  // namespace mrc::harness
