// EV expansion (mrc-wire-model.md §1.5). The algorithm and the validity rules follow the public
// example program; the extra rules (mode capacity, fixed-field min/max) are spelled out in the
// header.
#include "reference/ev/expansion.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>

namespace mrc::ev {
namespace {

int fail(int err, std::string* why, std::string msg) {
  if (why != nullptr) *why = std::move(msg);
  return err;
}

std::string field_name(std::size_t i) { return "field " + std::to_string(i); }

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%X", v);
  return buf;
}

// Largest value a field of `width` bits holds (width 1..32).
std::uint32_t width_max(std::uint32_t width) {
  return width >= 32 ? 0xFFFFFFFFu : ((1u << width) - 1u);
}

}  // namespace

std::uint32_t format_wire_bits(const FormatProfile& fmt) {
  std::uint32_t sum = 0;
  for (std::uint32_t w : fmt.widths) sum += w;
  return sum;
}

std::uint32_t mode_max_wire_bits(wire::EvFmtMode mode) {
  switch (mode) {
    case wire::EvFmtMode::kStev:
      return 32;  // W2 the STEV value V is expanded bytes 0..3
    case wire::EvFmtMode::kUdp:
      return 16;  // the UDP source port only
    case wire::EvFmtMode::kSrv6:
      return kEvMaxBits;  // DA (bytes 0..15) + single SRH segment (bytes 16..31)
  }
  return 0;
}

std::uint32_t ev_bits_used(std::span<const EvField> fields) {
  std::uint32_t n = 0;
  for (const EvField& f : fields) n += static_cast<std::uint32_t>(std::popcount(f.mask));
  return n;
}

int validate_format(const FormatProfile& fmt, std::string* why) {
  const std::uint32_t cap = mode_max_wire_bits(fmt.mode);
  if (cap == 0) return fail(EINVAL, why, "unknown EV format mode");
  if (fmt.widths.empty()) return fail(EINVAL, why, "format profile has no format fields");
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < fmt.widths.size(); ++i) {
    const std::uint32_t w = fmt.widths[i];
    if (w == 0) return fail(EINVAL, why, "format field " + std::to_string(i) + " has width 0");
    if (w > kFmtFieldMaxWidth) {
      return fail(E2BIG, why,
                  "format field " + std::to_string(i) + " width " + std::to_string(w) +
                      " exceeds " + std::to_string(kFmtFieldMaxWidth) + " bits");
    }
    sum += w;
  }
  if (sum > cap) {
    return fail(E2BIG, why,
                "sum of format field widths " + std::to_string(sum) + " exceeds the mode's " +
                    std::to_string(cap) + " wire bits");
  }
  return 0;
}

int validate_fields(const FormatProfile& fmt, std::span<const EvField> fields, std::string* why) {
  if (int rc = validate_format(fmt, why); rc != 0) return rc;
  const std::size_t k = fields.size();
  const std::size_t m = fmt.widths.size();
  if (k == 0) return fail(EINVAL, why, "EV profile has no fields");
  if (k > m) {
    return fail(E2BIG, why,
                "field count " + std::to_string(k) + " exceeds format field count " +
                    std::to_string(m) + " (k <= m)");
  }
  std::uint64_t e_sum = 0;
  for (const EvField& f : fields) e_sum += f.width;
  const std::uint32_t f_sum = format_wire_bits(fmt);
  if (e_sum > f_sum) {
    return fail(E2BIG, why,
                "sum of field widths " + std::to_string(e_sum) +
                    " exceeds sum of format field widths " + std::to_string(f_sum));
  }
  for (std::size_t i = 0; i < k; ++i) {
    const EvField& f = fields[i];
    if (f.width == 0 || f.width > kEvFieldMaxWidth) {
      return fail(EINVAL, why,
                  field_name(i) + " width " + std::to_string(f.width) + " is not 1..32");
    }
    if (f.width > fmt.widths[i]) {  // the field is written as an F[i]-bit number: it must fit
      return fail(EINVAL, why,
                  field_name(i) + " width " + std::to_string(f.width) + " is wider than format field " +
                      std::to_string(i) + " (" + std::to_string(fmt.widths[i]) + " bits)");
    }
    const std::uint32_t wmax = width_max(f.width);
    if (f.init_val > wmax) {
      return fail(EINVAL, why,
                  field_name(i) + " init_val " + hex32(f.init_val) + " does not fit width " +
                      std::to_string(f.width));
    }
    if ((f.mask & ~wmax) != 0) {
      return fail(EINVAL, why,
                  field_name(i) + " mask " + hex32(f.mask) + " has bits above width " +
                      std::to_string(f.width));
    }
    if (f.mask == 0) {
      if (f.min_val != 0 || f.max_val != 0) {
        return fail(EINVAL, why,
                    field_name(i) + " is fixed (mask 0) but min_val/max_val are not 0");
      }
      continue;
    }
    const std::uint32_t n = static_cast<std::uint32_t>(std::popcount(f.mask));
    if (f.max_val > width_max(n)) {
      return fail(EINVAL, why,
                  field_name(i) + " max_val " + hex32(f.max_val) + " is not < 2^popcount(mask) = 2^" +
                      std::to_string(n));
    }
  }
  return 0;
}

int validate_ev_bits(std::span<const EvField> fields, const wire::EvBytes& ev, std::string* why) {
  const std::uint32_t used = ev_bits_used(fields);
  for (std::uint32_t b = used; b < kEvMaxBits; ++b) {
    if (b % 8 == 0 && ev[b / 8] == 0) {  // skip zero bytes whole
      b += 7;
      continue;
    }
    if ((ev[b / 8] >> (7 - b % 8)) & 1u) {
      return fail(EINVAL, why,
                  "EV bit " + std::to_string(b) + " is set past the " + std::to_string(used) +
                      " bits the profile uses");
    }
  }
  return 0;
}

int expand(const FormatProfile& fmt, std::span<const EvField> fields, const wire::EvBytes& ev,
           wire::EvBytes& wire_out, std::string* why) {
  wire_out.fill(0);
  if (int rc = validate_fields(fmt, fields, why); rc != 0) return rc;
  if (int rc = validate_ev_bits(fields, ev, why); rc != 0) return rc;
  expand_unchecked(fmt.widths, fields, ev, wire_out);
  return 0;
}

void expand_unchecked(std::span<const std::uint32_t> fmt_widths, std::span<const EvField> fields,
                      const wire::EvBytes& ev, wire::EvBytes& wire_out, quirk::Flag scatter16) {
  wire_out.fill(0);
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  const std::size_t k = fields.size() < fmt_widths.size() ? fields.size() : fmt_widths.size();
  for (std::size_t i = 0; i < k; ++i) {
    const EvField& f = fields[i];
    std::uint32_t v = f.init_val;
    if (f.mask != 0) {
      const auto n = static_cast<std::uint32_t>(std::popcount(f.mask));
      const auto x = static_cast<std::uint32_t>(read_bits(ev, src, n));
      src += n;
      v = scatter_bits(v, x, f.mask);
      // defect ev-scatter-16: a 16-bit scatter register (read only for a mask that reaches past it)
      if ((f.mask & ~0xFFFFu) != 0 && scatter16) v &= 0xFFFFu | ~f.mask;
    }
    // v is written as an F[i]-bit big-endian number: right-aligned, zero-extended on the left
    // (a format field wider than 32 bits gets leading zeros; a narrower one keeps v's low bits).
    const std::uint32_t fw = fmt_widths[i];
    if (fw > 32) {
      write_bits(wire_out, dst + (fw - 32), 32, v);
    } else {
      write_bits(wire_out, dst, fw, v);
    }
    dst += fw;
  }
}

// Both helpers move whole byte chunks (up to 8 bits at a time) rather than single bits.
std::uint64_t read_bits(const wire::EvBytes& bytes, std::uint32_t bit_off, std::uint32_t n) {
  if (n > 64) n = 64;
  std::uint64_t v = 0;
  std::uint32_t b = bit_off;
  std::uint32_t left = n;
  while (left != 0) {
    if (b >= kEvMaxBits) {  // past the array: zeros
      v = left >= 64 ? 0 : (v << left);
      break;
    }
    const std::uint32_t off = b % 8;
    const std::uint32_t take = std::min<std::uint32_t>(8 - off, left);
    const std::uint32_t chunk = (bytes[b / 8] >> (8 - off - take)) & ((1u << take) - 1u);
    v = (v << take) | chunk;
    b += take;
    left -= take;
  }
  return v;
}

void write_bits(wire::EvBytes& bytes, std::uint32_t bit_off, std::uint32_t n, std::uint64_t v) {
  if (n > 64) n = 64;
  std::uint32_t b = bit_off;
  std::uint32_t left = n;
  while (left != 0 && b < kEvMaxBits) {
    const std::uint32_t off = b % 8;
    const std::uint32_t take = std::min<std::uint32_t>(8 - off, left);
    const auto chunk = static_cast<std::uint32_t>((v >> (left - take)) & ((1u << take) - 1u));
    const std::uint32_t shift = 8 - off - take;
    const std::uint32_t m = ((1u << take) - 1u) << shift;
    bytes[b / 8] = static_cast<std::uint8_t>((bytes[b / 8] & ~m) | (chunk << shift));
    b += take;
    left -= take;
  }
}

std::uint32_t scatter_bits(std::uint32_t init, std::uint32_t x, std::uint32_t mask) {
  std::uint32_t v = init & ~mask;
  std::uint32_t j = 0;
  for (std::uint32_t m = mask; m != 0; m &= m - 1, ++j) {
    const std::uint32_t low = m & (~m + 1u);  // lowest set mask bit
    if ((x >> j) & 1u) v |= low;
  }
  return v;
}

std::uint32_t gather_bits(std::uint32_t value, std::uint32_t mask) {
  std::uint32_t x = 0;
  std::uint32_t j = 0;
  for (std::uint32_t m = mask; m != 0; m &= m - 1, ++j) {
    const std::uint32_t low = m & (~m + 1u);
    if (value & low) x |= 1u << j;
  }
  return x;
}

std::string_view errno_name(int err) {
  switch (err) {
    case 0: return "OK";
    case EINVAL: return "EINVAL";
    case E2BIG: return "E2BIG";
    case EBUSY: return "EBUSY";
    case ENOENT: return "ENOENT";
    case EPERM: return "EPERM";
    case ENOSPC: return "ENOSPC";
    default: return "E?";
  }
}

}  // namespace mrc::ev
