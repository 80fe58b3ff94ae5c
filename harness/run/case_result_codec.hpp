// A CaseResult as bytes: how a case run in a child process (`run --isolate`, case_child.hpp)
// hands its verdict back to the parent through a pipe.
//
// Layout (version 1): "MRCR", u16 version, u32 body length, then the body: every field of
// CaseResult in declaration order, with its CheckResults, their Evidence, metrics and Charts.
// Integers are big-endian (the agent protocol's byte_io.hpp), doubles their IEEE-754 bits (so a
// metric crosses unchanged, NaN included), strings and lists a u32 length then the items, an
// optional a 0/1 byte then the value, enums one byte checked against their range.
//
// The decoder trusts nothing: a short buffer, another magic or version, a length that disagrees
// with the buffer, a count that runs past the end, an enum out of range, a repeated metric key or
// bytes left over are each a one-line error naming the field. Both sides are the same build, so
// a version mismatch means a stale binary, and the message says so.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/verdict/verdict.hpp"

namespace mrc::run {

inline constexpr std::uint16_t kCaseResultCodecVersion = 5;  // 2: the timing budget; 3: the basis; 4: evidence_error; 5: fail_level

// Throws std::length_error when a string or list is beyond what the decoder accepts (see
// kMaxCaseResultString in the .cpp): such a result could not be read back.
std::vector<std::uint8_t> encode_case_result(const harness::CaseResult& r);

struct DecodedCaseResult {
  harness::CaseResult result;
  std::string error;  // empty: `result` is the encoded one
  bool ok() const { return error.empty(); }
};

DecodedCaseResult decode_case_result(std::span<const std::uint8_t> bytes);

}  // namespace mrc::run
