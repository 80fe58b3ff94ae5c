// Internal to the capture diff (diff.hpp): decoded, normalized field tables.
//
// A table row is 64 words: one slot per comparable frame field (the vocabulary's header fields
// through frame.len, then ts and the payload digest), a bit mask of the slots present, a match
// key and the decode error (0 = decoded). Slots are filled once per packet; comparing two rows is
// a word-by-word loop the compiler vectorizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/capture/capture.hpp"
#include "harness/verdict/diff.hpp"
#include "harness/verdict/field_access.hpp"

namespace mrc::harness::diffing {

inline constexpr std::size_t kSlots = 64;
inline constexpr int kTsSlot = 61;
inline constexpr int kPayloadSlot = 62;

// The table slot of a field, or -1 when the diff does not compare it (tap-level fields).
int slot_of(FieldId id);
FieldId field_of_slot(int slot);

struct MaskSet {
  std::uint64_t bits = 0;  // masked slots
  bool ev = false;         // `ev`: also the SRv6 outer DA (a path, not an address)
};
// Resolves option mask names; returns "" or an error naming the unknown mask.
std::string parse_masks(const std::vector<std::string>& names, MaskSet& out);

// Fields whose table value is a normalization of the wire value (for evidence text).
bool is_normalized(FieldId id, bool encapsulated);

struct FieldTable {
  std::size_t rows = 0;
  std::vector<std::uint64_t> values;   // rows * kSlots
  std::vector<std::uint64_t> present;  // slot bit mask per row
  std::vector<std::uint64_t> key;      // window-matching key per row
  std::vector<std::uint8_t> error;     // wire::WireError per row (0 = decoded)
  std::size_t decode_failures = 0;

  const std::uint64_t* row(std::size_t i) const { return values.data() + i * kSlots; }
};

void build_table(const Capture& cap, const DiffOptions& opt, const MaskSet& masks, FieldTable& out);

}  // namespace mrc::harness::diffing
