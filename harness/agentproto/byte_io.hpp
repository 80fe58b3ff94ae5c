// Big-endian writer and strict reader for the agent protocol bodies. The reader is sticky: the
// first problem (truncation, a limit, a bad value) is kept with the field it happened in, every
// later read returns zeros, and the decoder checks ok() once at the end. Nothing here throws.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/agentproto/messages.hpp"

namespace mrc::agentproto {

class Writer {
 public:
  explicit Writer(std::vector<std::uint8_t>& out) : out_(out) {}

  // Like the Reader, the writer keeps the first limit a field breaks; the encoder checks ok().
  bool ok() const { return code_ == ErrorCode::kNone; }
  ErrorCode code() const { return code_; }
  const std::string& detail() const { return detail_; }
  void fail(ErrorCode code, std::string_view field, std::string_view what) {
    if (!ok()) return;
    code_ = code;
    detail_.assign(field);
    detail_ += ": ";
    detail_ += what;
  }

  void u8(std::uint8_t v) { out_.push_back(v); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void u16(std::uint16_t v) {
    u8(static_cast<std::uint8_t>(v >> 8));
    u8(static_cast<std::uint8_t>(v));
  }
  void u32(std::uint32_t v) {
    u16(static_cast<std::uint16_t>(v >> 16));
    u16(static_cast<std::uint16_t>(v));
  }
  void u64(std::uint64_t v) {
    u32(static_cast<std::uint32_t>(v >> 32));
    u32(static_cast<std::uint32_t>(v));
  }
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  template <std::size_t N>
  void fixed(const std::array<std::uint8_t, N>& a) {
    out_.insert(out_.end(), a.begin(), a.end());
  }
  void str(std::string_view s, std::size_t max, std::string_view field) {
    if (!within(s.size(), max, field)) return;
    u16(static_cast<std::uint16_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  void blob8(std::span<const std::uint8_t> b, std::size_t max, std::string_view field) {
    if (!within(b.size(), max, field)) return;
    u8(static_cast<std::uint8_t>(b.size()));
    out_.insert(out_.end(), b.begin(), b.end());
  }
  void blob32(std::span<const std::uint8_t> b, std::size_t max, std::string_view field) {
    if (!within(b.size(), max, field)) return;
    u32(static_cast<std::uint32_t>(b.size()));
    out_.insert(out_.end(), b.begin(), b.end());
  }
  // A list count; false (and nothing written) when over the limit.
  bool count(std::size_t n, std::size_t max, std::string_view field) {
    if (!within(n, max, field)) return false;
    u32(static_cast<std::uint32_t>(n));
    return true;
  }
  std::size_t size() const { return out_.size(); }
  // Overwrites 4 bytes at `at` (the frame's length field, once the body is known).
  void patch_u32(std::size_t at, std::uint32_t v) {
    out_[at] = static_cast<std::uint8_t>(v >> 24);
    out_[at + 1] = static_cast<std::uint8_t>(v >> 16);
    out_[at + 2] = static_cast<std::uint8_t>(v >> 8);
    out_[at + 3] = static_cast<std::uint8_t>(v);
  }

 private:
  bool within(std::size_t n, std::size_t max, std::string_view field) {
    if (n <= max) return true;
    fail(ErrorCode::kFieldTooLong, field,
         std::to_string(n) + " exceeds the limit of " + std::to_string(max));
    return false;
  }

  std::vector<std::uint8_t>& out_;
  ErrorCode code_ = ErrorCode::kNone;
  std::string detail_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}

  bool ok() const { return code_ == ErrorCode::kNone; }
  ErrorCode code() const { return code_; }
  const std::string& detail() const { return detail_; }
  std::size_t remaining() const { return ok() ? in_.size() - pos_ : 0; }

  // Records the first problem only; `field` names where it happened.
  void fail(ErrorCode code, std::string_view field, std::string_view what) {
    if (!ok()) return;
    code_ = code;
    detail_.assign(field);
    detail_ += ": ";
    detail_ += what;
  }

  std::uint8_t u8(std::string_view field) {
    if (!need(1, field)) return 0;
    return in_[pos_++];
  }
  std::uint16_t u16(std::string_view field) {
    if (!need(2, field)) return 0;
    const auto v = static_cast<std::uint16_t>((in_[pos_] << 8) | in_[pos_ + 1]);
    pos_ += 2;
    return v;
  }
  std::uint32_t u32(std::string_view field) {
    if (!need(4, field)) return 0;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | in_[pos_ + static_cast<std::size_t>(i)];
    pos_ += 4;
    return v;
  }
  std::uint64_t u64(std::string_view field) {
    const std::uint64_t hi = u32(field);
    const std::uint64_t lo = u32(field);
    return (hi << 32) | lo;
  }
  std::int32_t i32(std::string_view field) { return static_cast<std::int32_t>(u32(field)); }
  double f64(std::string_view field) { return std::bit_cast<double>(u64(field)); }
  bool boolean(std::string_view field) {
    const std::uint8_t v = u8(field);
    if (v > 1) fail(ErrorCode::kBadValue, field, "bool must be 0 or 1");
    return v == 1;
  }
  template <std::size_t N>
  void fixed(std::array<std::uint8_t, N>& out, std::string_view field) {
    if (!need(N, field)) {
      out.fill(0);
      return;
    }
    for (std::size_t i = 0; i < N; ++i) out[i] = in_[pos_ + i];
    pos_ += N;
  }
  void str(std::string& out, std::size_t max, std::string_view field) {
    const std::size_t n = u16(field);
    if (n > max) return too_long(field, n, max);
    if (!need(n, field)) return;
    out.assign(reinterpret_cast<const char*>(in_.data() + pos_), n);
    pos_ += n;
  }
  void blob8(std::vector<std::uint8_t>& out, std::size_t max, std::string_view field) {
    blob(out, u8(field), max, field);
  }
  void blob32(std::vector<std::uint8_t>& out, std::size_t max, std::string_view field) {
    blob(out, u32(field), max, field);
  }
  // A list count: over `max` is kFieldTooLong; more entries than bytes left (each entry takes at
  // least `min_entry` bytes) is kTruncatedBody, so no count can make the decoder reserve memory
  // the frame does not back.
  std::size_t count(std::size_t max, std::size_t min_entry, std::string_view field) {
    const std::size_t n = u32(field);
    if (n > max) {
      too_long(field, n, max);
      return 0;
    }
    if (ok() && min_entry != 0 && n > remaining() / min_entry) {
      fail(ErrorCode::kTruncatedBody, field, "list count runs past the end of the body");
      return 0;
    }
    return ok() ? n : 0;
  }

 private:
  bool need(std::size_t n, std::string_view field) {
    if (!ok()) return false;
    if (in_.size() - pos_ < n) {
      fail(ErrorCode::kTruncatedBody, field, "body ends inside this field");
      return false;
    }
    return true;
  }
  void too_long(std::string_view field, std::size_t n, std::size_t max) {
    fail(ErrorCode::kFieldTooLong, field,
         std::to_string(n) + " exceeds the limit of " + std::to_string(max));
  }
  void blob(std::vector<std::uint8_t>& out, std::size_t n, std::size_t max, std::string_view field) {
    if (n > max) return too_long(field, n, max);
    if (!need(n, field)) return;
    out.assign(in_.begin() + static_cast<std::ptrdiff_t>(pos_),
               in_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
  }

  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
  ErrorCode code_ = ErrorCode::kNone;
  std::string detail_;
};

}  // namespace mrc::agentproto
