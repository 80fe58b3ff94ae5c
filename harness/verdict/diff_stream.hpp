// The capture diff of diff.hpp over two packet streams, in memory bounded by the window, not by
// the captures: what `mrc-conform diff` runs on files of any size.
//
// Each side is read twice, and each pass reads the two sides on two threads when it can (B's
// second pass from a second reader of its own: diff_row_feed.hpp). The first pass gathers what
// normalization needs from the whole capture (earliest timestamp, lowest PSN per space, lowest
// VA; addresses and QPs get their ordinals in order of first appearance, which the second pass
// meets again in the same order).
// The second pass makes each packet's row (diff_table.hpp) and matches as diff_captures() does,
// with the same findings, in the same order:
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
// packet (under 1 GB here), and never more than the captures' own packets need. Golden checks
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
  // The interfaces a reader of the same file already met (`scanned`), so that fetch() works before
  // this source was read through: with a first pass made elsewhere (FirstPass) it never is.
  void adopt_interfaces(const CaptureStream& scanned) { s_.adopt_interfaces(scanned); }
  std::string rewind() override { return s_.rewind(); }
  bool next(SourcePacket& p) override;
  std::string error() const override { return s_.error(); }
  std::string fetch(std::uint64_t handle, SourcePacket& p) override;
  std::unique_ptr<PacketSource> reopen() const override;

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
};
DiffStreamWork last_diff_stream_work();

// The first pass over one side, fed packet by packet, for a caller that reads the capture anyway:
// `mrc-conform diff` checks each file whole before it compares anything, and makes the first pass
// of every interface on the way, so each file is read twice rather than three times.
class FirstPass {
 public:
  explicit FirstPass(const DiffOptions& opt);  // the options diff_streams() will be given
  FirstPass(FirstPass&&) noexcept;
  FirstPass& operator=(FirstPass&&) noexcept;
  ~FirstPass();
  void add(std::span<const std::uint8_t> bytes, std::uint64_t ts_ns);
  std::size_t packets() const;

  struct State;  // diff_stream.cpp's
  const State& state() const { return *s_; }

 private:
  std::unique_ptr<State> s_;
};

// The findings of diff_captures() on the same packets; r.error names a source's read error.
// `first_a` / `first_b`: first passes already made of every packet of `a` / `b` with the same
// options; diff_streams() then reads each source once more, not twice, and fetch()es differing
// packets from sources it has not read through (a FileInterfaceSource needs adopt_interfaces()). One made with other
// options (masks, normalization, framing) is not used: the source is read for it again.
DiffReport diff_streams(PacketSource& a, PacketSource& b, const DiffOptions& opt, const FirstPass* first_a = nullptr,
                        const FirstPass* first_b = nullptr);

}  // namespace mrc::harness
