// The capture diff of diff.hpp over two packet streams, in memory bounded by the window, not by
// the captures: what `mrc-conform diff` runs on files of any size.
//
// Normalization needs values of the whole capture (earliest timestamp, lowest PSN per space,
// lowest VA; addresses and QPs get their ordinals in order of first appearance). Each side is
// read once when the values met on the way prove to be those (nearly always: diff_row_maker.hpp
// says how), else twice: a first pass gathers them, the second makes the rows. Either way the two
// sides are read on two threads when they can be (B's rows from a second reader of its own:
// diff_row_feed.hpp).
// Each packet's row (diff_table.hpp) is matched as diff_captures() does, with the same findings,
// in the same order:
//   1. A packet i takes the first unused B packet j of its key in [i+1-w, i+w) (w = window):
//      per key a FIFO of B slots, found by a hash table, so a match costs O(1), not O(w).
//   2. A packet still unpaired takes the first unused B packet in that range, positionally; it
//      can only be decided once step 1 has run for every A packet up to i+2w-2, so step 2 and
//      the comparison trail step 1 by 2w-1 packets.
//   3. A B packet that no A packet can reach any more is final: extra when unused.
// The rows live in two rings (A: 2w rows, B: 4w rows); a differing pair is read again from its
// source (fetch) to name its fields. Nothing is allocated per packet.
// Golden checks keep diff_captures() (match_identity pairs "wherever they sit", which no window
// bounds); diff_streams() refuses match_identity.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "harness/capture/capture_stream.hpp"
#include "harness/observe/capture.hpp"
#include "harness/verdict/diff.hpp"

namespace mrc::harness {

// `mrc-conform diff --window` at most: the rings and the key table take about 0.8 KiB per window
// packet (under 1 GB here), and above 4,096 never more than the captures' own packets need (the
// diff then reads each side twice, the first time to count them). Golden checks
// keep harness/case/limits.hpp's kMaxDiffWindow (diff_captures scans its window).
inline constexpr std::uint32_t kMaxStreamDiffWindow = 1'000'000;

struct SourcePacket {
  std::uint64_t ts_ns = 0;
  std::span<const std::uint8_t> bytes;  // valid until the next call on the source
  std::uint64_t handle = 0;             // fetch() finds the packet again by it
  std::int64_t label = 0;               // the index reported for it (a file's frame number - 1)
};

class PacketSource {
 public:
  virtual ~PacketSource() = default;
  virtual std::string rewind() = 0;  // back to the first packet; "" or an error
  virtual bool next(SourcePacket& p) = 0;  // false at the end or on an error
  virtual std::string error() const = 0;
  // The packet of `handle` again; p.bytes valid until the next fetch(). "" or an error.
  virtual std::string fetch(std::uint64_t handle, SourcePacket& p) = 0;
  // A second, independent source of the same packets, at its first packet, for another thread;
  // nullptr when there is none (the diff then reads this side on one thread).
  virtual std::unique_ptr<PacketSource> reopen() const { return nullptr; }
  // What a reopen()ed reader of the same packets learned by reading them through (a file's
  // interfaces), for this source, which another thread read for it.
  virtual void learn_from(const PacketSource& /*reader*/) {}
};

// A capture in memory (goldens, tests): labels are capture indices.
class CaptureSource : public PacketSource {
 public:
  explicit CaptureSource(const Capture& c) : c_(c) {}
  std::string rewind() override;
  bool next(SourcePacket& p) override;
  std::string error() const override { return {}; }
  std::string fetch(std::uint64_t handle, SourcePacket& p) override;
  std::unique_ptr<PacketSource> reopen() const override;

 private:
  const Capture& c_;
  std::size_t i_ = 0;
};

// One interface of a capture file, streamed (capture_stream.hpp): labels are file positions.
class FileInterfaceSource : public PacketSource {
 public:
  // Opens its own reader of `path`; check open_error().
  FileInterfaceSource(const std::filesystem::path& path, std::uint32_t iface);
  const std::string& open_error() const { return open_error_; }
  // The interfaces a reader of the same file already met (`scanned`), so that fetch() need not
  // read ahead to learn the packet's interface.
  void adopt_interfaces(const CaptureStream& scanned) { s_.adopt_interfaces(scanned); }
  // The file's interfaces this source knows: all of them once it, or a reader it learned from,
  // read the file through without an error.
  const std::vector<StreamInterface>& interfaces() const { return s_.interfaces(); }
  std::string rewind() override { return s_.rewind(); }
  bool next(SourcePacket& p) override;
  std::string error() const override { return s_.error(); }
  std::string fetch(std::uint64_t handle, SourcePacket& p) override;
  std::unique_ptr<PacketSource> reopen() const override;
  void learn_from(const PacketSource& reader) override;

 private:
  std::filesystem::path path_;
  CaptureStream s_;
  std::uint32_t iface_;
  std::string open_error_;
  StreamPacket sp_;
};

// Work counters of the last diff_streams() in this thread, for tests that bound the work (not
// the time) of a large window: key lookups plus slots scanned by positional pairing.
struct DiffStreamWork {
  std::uint64_t probes = 0;
  bool one_pass = false;  // each source was read once (diff_row_maker.hpp), not twice
};
DiffStreamWork last_diff_stream_work();

// The findings of diff_captures() on the same packets; r.error names a source's read error. The
// sources are rewound first, and fetch()ed from for differing packets while (or without) being
// read through: a FileInterfaceSource learns the interfaces it needs for that by itself.
DiffReport diff_streams(PacketSource& a, PacketSource& b, const DiffOptions& opt);

}  // namespace mrc::harness
