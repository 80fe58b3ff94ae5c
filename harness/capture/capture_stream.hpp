// A capture file read packet by packet in bounded memory: what `mrc-conform diff` streams, and
// what read_capture_file() (pcapng.hpp) collects into whole Captures.
//
// pcapng is parsed here from a read-only mapping of the file whose pages behind the cursor are
// dropped every 8 MiB (madvise MADV_DONTNEED), so the resident memory does not grow with the
// file and no byte is copied. Classic pcap of the usual four formats (micro- or nanosecond,
// either byte order) is read from the same kind of mapping while its records are plain (whole,
// within the snap length); libpcap reads the rest: other formats, and from the first record that
// is not plain on, so its rules and its messages stay the ones for a damaged or odd file.
// (A file cut short by another process while it is mapped would fault: the diff reads captures
// that are finished.) Each packet comes as Ethernet (link_layer.hpp)
// with its interface, its position in the file (frame number - 1) and the file offset of its
// record, by which fetch() reads it again (a diff re-reads only the few packets it reports).
// Errors are the reader's one wording for every caller: the file, the packet index, the offset.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "harness/observe/port_time.hpp"

typedef struct pcap pcap_t;

namespace mrc::harness {

struct StreamPacket {
  std::uint64_t ts_ns = 0;
  std::uint32_t origlen = 0;     // on the wire, as Ethernet (>= bytes.size())
  std::uint32_t iface = 0;       // interface index in the file
  std::uint64_t file_index = 0;  // frame number - 1
  std::uint64_t offset = 0;      // of the packet's record (fetch())
  PortTime port;                 // its port time (pcapng_format.hpp kPortTimeComment), if it has one
  std::span<const std::uint8_t> bytes;  // Ethernet; valid until the next call on the reader
};

struct StreamInterface {
  std::string name;  // if_name; "" when the IDB has none (and for classic pcap)
  std::string tap;   // name, or "if<N>", or the file's stem for classic pcap
};

class CaptureStream {
 public:
  CaptureStream() = default;
  CaptureStream(const CaptureStream&) = delete;
  CaptureStream& operator=(const CaptureStream&) = delete;
  ~CaptureStream();

  // "" or an error naming the file (cannot open, not a capture, unsupported link type).
  std::string open(const std::filesystem::path& path);
  // A pcapng already in memory (a bundle's member), named `origin` in errors; `bytes` must outlive
  // the reader. Classic pcap is read from files only (libpcap).
  std::string open_bytes(const std::filesystem::path& origin, std::span<const std::uint8_t> bytes);
  // The next packet of any interface; false at the end of the file or on an error (error()).
  bool next(StreamPacket& p);
  const std::string& error() const { return error_; }
  // Back to the first packet; interfaces already known stay known.
  std::string rewind();
  // The packet whose record starts at `offset` (a StreamPacket::offset of this file) into `p`;
  // p.bytes stays valid until the next fetch(). "" or an error.
  std::string fetch(std::uint64_t offset, std::uint64_t file_index, StreamPacket& p);
  // Interfaces seen so far (all of them after one whole pass).
  const std::vector<StreamInterface>& interfaces() const { return names_; }
  // Takes the interface descriptions another reader of the same file met. fetch() needs the
  // packet's interface, which a reader otherwise learns only by reading up to it.
  void adopt_interfaces(const CaptureStream& from) {
    if (from.ifaces_.size() > ifaces_.size()) {
      ifaces_ = from.ifaces_;
      names_ = from.names_;
    }
  }

 private:
  struct Iface {
    int linktype = 0;
    std::uint64_t units_per_s = 1'000'000;  // if_tsresol default: microseconds
    std::uint64_t ns_per_unit = 1'000;      // 10^9 / units_per_s when exact, else 0
    std::int64_t tsoffset_s = 0;
    long delta = 0;
  };

  // pcapng
  bool next_pcapng(StreamPacket& p);
  void release(std::uint64_t to);
  void populate_ahead();
  void slide_window();  // release() behind the cursor, populate_ahead() before it, as due
  std::string idb(const std::uint8_t* blk, std::uint64_t pos, std::uint32_t len);
  std::string packet(const std::uint8_t* blk, std::uint32_t type, std::uint64_t pos, std::uint32_t len,
                     std::uint64_t index, std::size_t known_ifaces, std::vector<std::uint8_t>& eth,
                     StreamPacket& p) const;
  // The port time an EPB's options carry from `opts` on (pcapng_format.hpp kPortTimeComment).
  PortTime port_time(const std::uint8_t* blk, std::uint32_t len, std::size_t opts) const;
  std::string damaged(std::uint64_t pos, const std::string& why) const;
  std::uint32_t u32(const std::uint8_t* at) const;
  std::uint16_t u16(const std::uint8_t* at) const;
  std::uint64_t u64(const std::uint8_t* at) const;

  // classic pcap
  std::string open_classic();
  std::string open_classic_mapped();  // "" also when the file is not for the mapping (then libpcap)
  bool next_classic(StreamPacket& p);
  bool next_classic_mapped(StreamPacket& p);
  bool hand_over_to_libpcap();  // at the record pos_ (packets_ read): false with error_ set

  std::filesystem::path path_;
  bool pcapng_ = false;
  std::string error_;
  std::vector<StreamInterface> names_;
  std::uint64_t packets_ = 0;  // packets returned in this pass

  int fd_ = -1;
  std::uint64_t file_size_ = 0;
  const std::uint8_t* map_ = nullptr;  // the whole file, read-only
  bool mapped_ = false;                // map_ is this reader's mmap (not open_bytes()'s memory)
  std::uint64_t released_ = 0;         // mapped pages before it were dropped
  std::uint64_t populated_ = 0;        // pages before it were mapped in ahead of the reader
  bool populate_ = true;               // false once the kernel refused MADV_POPULATE_READ
  std::uint64_t pos_ = 0;      // next block
  bool swap_ = false;
  int sections_ = 0;
  std::size_t idbs_ = 0;       // IDBs met in this pass
  std::vector<Iface> ifaces_;
  std::vector<std::uint8_t> eth_;        // a packet rewritten as Ethernet, reused
  std::vector<std::uint8_t> fetch_buf_;  // fetch()'s block and Ethernet frame
  std::vector<std::uint8_t> fetch_eth_;

  pcap_t* pcap_ = nullptr;
  pcap_t* fetch_pcap_ = nullptr;
  int linktype_ = 0;
  long classic_pos_ = 0;                   // the next record's offset
  std::uint32_t classic_record_header_ = 0;  // 16 for the usual formats; 0: ask ftell()
  bool classic_mapped_ = false;            // records come from map_ (pos_), not pcap_
  bool classic_nanos_ = false;             // the mapped file's timestamps are in ns, else us
  std::uint32_t classic_snaplen_ = 0;      // as libpcap takes it (0 or too large: the maximum)
};

}  // namespace mrc::harness
