// EV expansion: turning a controller-supplied EV (the compact bit string) into the bytes that go
// on the wire, exactly as the public MRC example program does it (mrc-wire-model.md §1.5).
//
// An EV format profile is an ordered list of format-field widths F[0..m-1]; an EV profile is an
// ordered list of fields E[0..k-1] {width, init_val, min_val, max_val, mask}. Field i starts from
// init_val, takes the next popcount(mask) EV bits (MSB first) and scatters them onto the set mask
// bits (the most significant EV bit lands on the highest mask bit), then is written right-aligned
// as an F[i]-bit big-endian number. Format fields beyond k stay zero.
//
// Errors are errno values (EINVAL, E2BIG) as the controller API reports them, plus a message that
// names the broken rule. The hot path (expand_unchecked) allocates nothing.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/quirk/quirk_flag.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::ev {

inline constexpr std::uint32_t kEvMaxBits = static_cast<std::uint32_t>(wire::kEvMaxBytes) * 8;
inline constexpr std::uint32_t kEvFieldMaxWidth = 32;   // init_val/mask are uint32
inline constexpr std::uint32_t kFmtFieldMaxWidth = 255; // API format field width is uint8

// EV format profile: the on-wire layout.
struct FormatProfile {
  wire::EvFmtMode mode = wire::EvFmtMode::kStev;
  std::vector<std::uint32_t> widths;  // format field widths in bits, F[0..m-1]
};

// One EV profile field.
struct EvField {
  std::uint32_t width = 0;     // bits, 1..32
  std::uint32_t init_val = 0;  // the field's value before EV bits are overlaid
  std::uint32_t min_val = 0;   // generated EVs: smallest n-bit value drawn
  std::uint32_t max_val = 0;   // generated EVs: largest n-bit value drawn (< 2^popcount(mask))
  std::uint32_t mask = 0;      // where EV bits land inside the field; 0 = fixed field
};

// Bits a format profile puts on the wire (sum of F widths).
std::uint32_t format_wire_bits(const FormatProfile& fmt);
// The most wire bits a mode can carry: STEV 32 (W2: bytes 0..3), UDP 16, SRv6 256.
std::uint32_t mode_max_wire_bits(wire::EvFmtMode mode);
// EV bits an EV profile consumes (sum of popcount(mask)).
std::uint32_t ev_bits_used(std::span<const EvField> fields);

// Format profile on its own: at least one field, every width 1..255, the total within the mode's
// capacity and within 32 bytes. EINVAL for a zero width / empty list / unknown mode, E2BIG for
// too wide. Returns 0 when valid.
int validate_format(const FormatProfile& fmt, std::string* why);

// EV profile against its format profile (every §1.5 rule except the per-EV trailing-bit rule):
//   k <= m                                     (E2BIG)
//   sum E widths <= sum F widths               (E2BIG)
//   field width 1..32                          (EINVAL)
//   init_val fits the field width              (EINVAL)
//   mask has no bits above the field width     (EINVAL)
//   max_val < 2^popcount(mask)                 (EINVAL)
//   fixed field (mask 0): min_val = max_val = 0 (EINVAL)
// `validate_format` is applied first.
int validate_fields(const FormatProfile& fmt, std::span<const EvField> fields, std::string* why);

// Per-EV rule: every EV bit past the last bit used (ev_bits_used) must be zero (EINVAL).
int validate_ev_bits(std::span<const EvField> fields, const wire::EvBytes& ev, std::string* why);

// Validates everything above, then expands `ev` into `wire_out` (fully overwritten; unused bytes
// zero). On error `wire_out` is all zero and *why (if given) names the rule.
int expand(const FormatProfile& fmt, std::span<const EvField> fields, const wire::EvBytes& ev,
           wire::EvBytes& wire_out, std::string* why);

// The expansion alone, for callers that validated the profile once (no checks, no allocation).
// `scatter16` is the ev-scatter-16 defect (reference/defects.hpp): EV bits a field's mask places
// above bit 15 are lost.
void expand_unchecked(std::span<const std::uint32_t> fmt_widths, std::span<const EvField> fields,
                      const wire::EvBytes& ev, wire::EvBytes& wire_out, quirk::Flag scatter16 = false);

// MSB-first bit string helpers (bit b is bit 7 - b%8 of byte b/8). n <= 64; bits past the
// 256-bit array read as zero and are not written.
std::uint64_t read_bits(const wire::EvBytes& bytes, std::uint32_t bit_off, std::uint32_t n);
void write_bits(wire::EvBytes& bytes, std::uint32_t bit_off, std::uint32_t n, std::uint64_t v);

// Scatter the low popcount(mask) bits of x onto the set bits of mask (bit j of x -> j-th lowest
// set mask bit), over init; and the inverse gather.
std::uint32_t scatter_bits(std::uint32_t init, std::uint32_t x, std::uint32_t mask);
std::uint32_t gather_bits(std::uint32_t value, std::uint32_t mask);

// "EINVAL", "E2BIG", "EBUSY", "ENOENT", "EPERM", "ENOSPC"; "E?" for anything else; "OK" for 0.
std::string_view errno_name(int err);

}  // namespace mrc::ev
