// The semantic capture diff (anchors G8): golden checks and `mrc-conform diff A B`.
//
// Both captures are decoded once into compact per-packet rows (diff_table.hpp: a hash of every
// compared field plus the few values normalized late, in one preallocated array per capture) and
// normalized so that what legitimately differs between two runs does not show: QPNs and addresses
// (MAC, IP, GID) become ordinals in order of first appearance, PSNs become offsets from the lowest
// PSN of their space (data or feedback, per destination address and QP), RETH VAs offsets from the lowest VA,
// timestamps offsets from the first packet. The outer IPv6 destination of an SRv6 frame is the
// EV's uSID container, a path, and is compared as is.
//
// Then A (expected) is walked in order and each packet is matched to a packet of B (observed)
// inside the equivalence window: packets within `window` positions of each other may match in
// any order when their key (opcode, normalized PSN; for feedback also the NACK reason and the PSN a SACK answers;
// for endpoint ops the request id) agrees. Unkeyed leftovers are paired positionally inside the
// window and diffed field by field; the rest are missing (in A only) or extra (in B only).
// Golden checks ask for more (field_class.hpp): packets pair by identity (`match_identity`: source
// address, destination QP, opcode, PSN, NACK reason and answered PSN, endpoint request id, and the
// retransmission ordinal, i.e. the n-th packet of an identity in A pairs with the n-th in B,
// wherever they sit), and the EV-carrying fields of B are judged against the eligible EVs of its
// sender (`ev_choice`, the `choice` class) instead of being compared with A's. Without them the
// diff is the plain capture diff of `mrc-conform diff A B`, which knows no profile.
// Matching and comparing allocate nothing per packet pair: equal rows compare in a few words;
// only a differing pair is decoded again to name its fields, and only the first
// `max_differences` are formatted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/observe/capture.hpp"
#include "harness/verdict/field_access.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness {

class EvChoice;

// Difference records a diff reserves up front, so a run keeps them without allocating per packet;
// a larger max_differences grows on demand instead of reserving what `--max 1000000000` asks.
inline constexpr std::size_t kReserveDifferences = 4096;

struct DiffOptions {
  // Fields left out: vocabulary names (harness/case/frame_fields.hpp) and aliases, plus `ts`,
  // `payload`, and `ev` (= every EV-carrying field: flow label, UDP source port, SRv6 outer DA and
  // SRH segment). `port`, `plane`, `direction` and `ev_index` describe taps, not frames: accepted,
  // never compared.
  std::vector<std::string> masks;
  std::uint32_t window = 1;          // equivalence window, packets (1 = strict order)
  std::uint64_t tolerance_ns = 0;    // |ts_b - ts_a| <= tolerance_ns + tolerance_pct% of ts_a
  double tolerance_pct = 0;          //   (timestamps relative to each capture's first packet)
  // Per packet of A (by index): how much earlier than A's time B's may come on top of the
  // tolerance, ns. The golden check across a real-time bridge gives A's times paced at the
  // bridge's rate (field class `bridged`, field_class.hpp) and here how far the pacing moved
  // each, so B may come as early as the golden's own time. Empty: the tolerance both ways.
  std::vector<std::uint64_t> early_ns_a;
  bool normalize = true;
  // Pair by identity, not position (above); leftovers then pair positionally inside `window`.
  bool match_identity = false;
  // The eligible EVs of B's sender, or null: the choice-class fields are then compared with A's
  // (exact). Ignored when `ev` is masked (those fields are then not judged at all).
  const EvChoice* ev_choice = nullptr;
  // B's egress port (1-based) per packet, judged with ev_choice; empty or 0: not judged.
  std::vector<std::uint8_t> ports_b;
  std::size_t max_differences = 20;  // kept in detail; all are counted
  std::string name_a = "A";          // the pcap files, for messages and evidence
  std::string name_b = "B";
  // The run's traffic classes (W13): a data packet in their TRIMMED or TRIMMED_LASTHOP DSCP is a
  // trimmed packet, decoded as one on both sides.
  wire::DscpConfig dscp;
};

// How the diff decodes a frame of either side: with `opt`'s trimmed DSCPs.
wire::DecodeOptions diff_decode_options(const DiffOptions& opt);

enum class DiffKind : std::uint8_t {
  kField,     // a pair matched and this field differs
  kMissing,   // packet of A with no counterpart in B
  kExtra,     // packet of B with no counterpart in A
  kDecode,    // one side decodes and the other does not, or both fail differently
  kChoice,    // a pair matched and B's EV fields are not one eligible EV's expansion (ev_choice)
};

struct Difference {
  DiffKind kind = DiffKind::kField;
  std::int64_t index_a = -1;   // 0-based packet index in A (-1: none)
  std::int64_t index_b = -1;
  std::uint64_t ts_a = 0;      // relative to A's first packet
  std::uint64_t ts_b = 0;
  std::string field;           // vocabulary name, or "frame" for missing/extra/decode
  std::string field_class;     // "exact", "choice" or "bounded" (field_class.hpp); "" for frames
  std::string message;         // one sentence naming the class: "bth.psn differs (exact): ..."
  std::string expected;        // A's value (raw, with the normalized value when they differ)
  std::string observed;        // B's value
  std::string filter_a;        // Wireshark display filters that find the packets
  std::string filter_b;
};

struct DiffReport {
  std::string error;            // bad options (an unknown mask); nothing was compared
  std::size_t packets_a = 0;
  std::size_t packets_b = 0;
  std::size_t pairs = 0;            // packet pairs compared
  std::size_t reordered_pairs = 0;  // of those, matched at different positions (inside the window)
  std::size_t differing_pairs = 0;
  std::size_t field_differences = 0;
  std::size_t missing = 0;
  std::size_t extra = 0;
  std::size_t decode_failures_a = 0;  // RoCEv2 frames (IP, UDP 4791) that do not decode
  std::size_t decode_failures_b = 0;
  std::size_t not_roce_a = 0;         // ARP, TCP, other UDP, ...: compared as raw bytes
  std::size_t not_roce_b = 0;
  std::vector<Difference> differences;  // the first max_differences, in A order

  bool ok() const { return error.empty(); }
  bool identical() const { return ok() && differing_pairs == 0 && missing == 0 && extra == 0; }
  std::size_t total_differences() const { return field_differences + missing + extra; }
};

DiffReport diff_captures(const Capture& a, const Capture& b, const DiffOptions& opt);

// Text for humans: a summary line and up to max_lines differences with their filters.
std::string render_diff(const DiffReport& r, const DiffOptions& opt, std::size_t max_lines = 20);

}  // namespace mrc::harness
