// What every check shares: building a CheckResult, the capture-integrity gate, evidence that
// points at a pcap and packet index with a Wireshark filter, and a bounded list of findings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/verdict/check_context.hpp"
#include "harness/verdict/trace.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

inline constexpr std::size_t kMaxEvidence = 10;

CheckResult make_result(std::string_view type, std::string_view name);
// Sets the verdict and the one-line message.
void conclude(CheckResult& r, Verdict v, std::string message);

// The evidence file of a tap ("" pcap falls back to the tap name).
std::string pcap_of(const TapCapture& tap);
// "frame.number == N" for a 0-based packet index.
std::string frame_filter(std::size_t index);
// frame_filter plus "&& <dissector field> == <value>" when the field has a display name.
std::string frame_filter(std::size_t index, std::string_view display_field, std::string_view value);

Evidence packet_evidence(const CheckContext& ctx, const PacketRec& p, std::string field, std::string expected,
                         std::string observed, std::string note = {});

// The capture-integrity gate (G11): when any of `taps` is not complete(), the check is
// INCONCLUSIVE with a message naming each such tap and its counters; returns true then.
// With no taps at all the check cannot observe anything: also INCONCLUSIVE.
bool integrity_gate(const CheckContext& ctx, const std::vector<std::size_t>& taps, std::string_view what,
                    CheckResult& r);

// Malformed frames are evidence: this adds one entry per remembered decode failure (notes only;
// the caller decides whether they change the verdict) and a `malformed_frames` metric.
void note_decode_issues(const CheckContext& ctx, const Trace& t, CheckResult& r);

// Counts violations and keeps the first kMaxEvidence as evidence.
class Findings {
 public:
  explicit Findings(CheckResult& r, std::size_t keep = kMaxEvidence) : r_(r), keep_(keep) {}
  void add(Evidence e) {
    ++count_;
    if (kept_ < keep_) {
      r_.evidence.push_back(std::move(e));
      ++kept_;
    }
  }
  bool want_more() const { return kept_ < keep_; }  // build evidence strings only while kept
  void count_only() { ++count_; }
  std::size_t count() const { return count_; }

 private:
  CheckResult& r_;
  std::size_t keep_;
  std::size_t count_ = 0;
  std::size_t kept_ = 0;
};

// Numbers for messages: "0x1f", "12.5".
std::string hex(std::uint64_t v);
std::string fmt_double(double v, int precision = 4);
// "12.3 us" style duration for messages.
std::string fmt_ns(double ns);

// Parameters of a named invariant as written in the case (strings); typed readers with defaults.
// A value that does not parse is reported through *error (first one wins).
std::uint64_t param_uint(const std::vector<std::pair<std::string, std::string>>& params, std::string_view key,
                         std::uint64_t def, std::string* error);

}  // namespace mrc::harness
