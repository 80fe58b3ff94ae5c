// The switch of one named defect inside the reference endpoint's layers (the `*Quirks` structs of
// transport/, ev/ and cc/), which notes in a read log every time the endpoint reads it.
//
// Why: the endpoint is deterministic, and its behaviour can depend on a switch only through reads
// of it. A run with every switch off in which a switch was never read is therefore, step for step,
// the run it would have been with that switch on: up to the first read the two runs cannot differ,
// and there is no first read. `mrc-conform campaign` runs each case once on the clean reference and
// takes that run's result for every defect whose switch it never read (harness/run/campaign_engine),
// instead of running the case again to the same bytes; `--run-all` runs them and checks the claim.
//
// The log is the endpoint's (reference/endpoint.hpp: defects_read()); a Flag copied into a layer's
// object keeps pointing at it. A Flag made from a plain bool (tests, the layers' defaults) logs
// nothing. Ids are the endpoint's Defect values; nothing here knows their names.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace mrc::quirk {

inline constexpr std::size_t kMaxFlags = 128;

class ReadLog {
 public:
  void mark(std::uint8_t id) { words_[id / 64] |= std::uint64_t{1} << (id % 64); }
  bool was_read(std::uint8_t id) const { return ((words_[id / 64] >> (id % 64)) & 1u) != 0; }

 private:
  std::array<std::uint64_t, kMaxFlags / 64> words_{};
};

class Flag {
 public:
  constexpr Flag() = default;
  constexpr Flag(bool on) : on_(on) {}  // NOLINT(google-explicit-constructor): the layers' tests set switches as bools
  constexpr Flag(bool on, std::uint8_t id, ReadLog* log) : log_(log), id_(id), on_(on) {}

  // The read the log is about.
  operator bool() const {  // NOLINT(google-explicit-constructor)
    if (log_ != nullptr) log_->mark(id_);
    return on_;
  }

 private:
  ReadLog* log_ = nullptr;
  std::uint8_t id_ = 0;
  bool on_ = false;
};

}  // namespace mrc::quirk
