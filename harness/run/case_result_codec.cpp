#include "harness/run/case_result_codec.hpp"

#include <array>
#include <map>
#include <optional>
#include <stdexcept>

#include "harness/agentproto/byte_io.hpp"

namespace mrc::run {
namespace {

using agentproto::ErrorCode;
using agentproto::Reader;
using agentproto::Writer;
using harness::CaseResult;
using harness::Chart;

constexpr std::array<std::uint8_t, 4> kMagic{'M', 'R', 'C', 'R'};
constexpr std::size_t kHeaderSize = 4 + 2 + 4;
// Generous bounds that still stop a corrupt count from asking for gigabytes: a message, a list of
// chart points or of checks is far below them in any real run.
constexpr std::size_t kMaxString = 16u << 20;
constexpr std::size_t kMaxList = 16u << 20;

// One field list serves both directions (visit_* below), so the encoder and the decoder cannot
// disagree on the order. Put reads the fields of a const result; Get fills a fresh one, checking
// everything (the Reader keeps the first problem; every later read is a harmless zero).

// Smallest encoding of one list entry, so a count the bytes cannot back fails before any loop.
constexpr std::size_t kMinString = 4;
constexpr std::size_t kMinDouble = 8;
constexpr std::size_t kMinEvidence = 4 + 8 + 8 + 5 * 4;
constexpr std::size_t kMinChart = 1 + 3 * 4 + 4 * 4;
constexpr std::size_t kMinCheck = 2 * 4 + 1 + 4 + 3 * 4;

struct Put {
  Writer& w;
  void str(const std::string& s, std::string_view field) {
    w.blob32({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}, kMaxString, field);
  }
  void u64(const std::uint64_t& v, std::string_view) { w.u64(v); }
  void i64(const std::int64_t& v, std::string_view) { w.u64(static_cast<std::uint64_t>(v)); }
  void f64(const double& v, std::string_view) { w.f64(v); }
  template <class E>
  void enumeration(const E& v, E, std::string_view) {
    w.u8(static_cast<std::uint8_t>(v));
  }
  void optional(const std::optional<double>& v, std::string_view field) {
    w.boolean(v.has_value());
    if (v) f64(*v, field);
  }
  template <class T, class Each>
  void optional_of(const std::optional<T>& v, std::string_view, Each each) {
    w.boolean(v.has_value());
    if (v) each(*v);
  }
  template <class T, class Each>
  void list(const std::vector<T>& v, std::size_t, std::string_view field, Each each) {
    if (!w.count(v.size(), kMaxList, field)) return;
    for (const T& item : v) each(item);
  }
  void map(const std::map<std::string, double>& m, std::string_view field) {
    if (!w.count(m.size(), kMaxList, field)) return;
    for (const auto& [k, v] : m) {
      str(k, field);
      f64(v, field);
    }
  }
};

struct Get {
  Reader& r;
  void str(std::string& s, std::string_view field) {
    std::vector<std::uint8_t> bytes;
    r.blob32(bytes, kMaxString, field);
    s.assign(bytes.begin(), bytes.end());
  }
  void u64(std::uint64_t& v, std::string_view field) { v = r.u64(field); }
  void i64(std::int64_t& v, std::string_view field) { v = static_cast<std::int64_t>(r.u64(field)); }
  void f64(double& v, std::string_view field) { v = r.f64(field); }
  // An enum byte, refused above `last` (its highest enumerator).
  template <class E>
  void enumeration(E& v, E last, std::string_view field) {
    const std::uint8_t b = r.u8(field);
    if (b > static_cast<std::uint8_t>(last)) r.fail(ErrorCode::kBadValue, field, std::to_string(b) + " is not a valid value");
    v = r.ok() ? static_cast<E>(b) : E{};
  }
  void optional(std::optional<double>& v, std::string_view field) {
    if (r.boolean(field)) f64(v.emplace(), field);
  }
  template <class T, class Each>
  void optional_of(std::optional<T>& v, std::string_view field, Each each) {
    if (r.boolean(field)) each(v.emplace());
  }
  template <class T, class Each>
  void list(std::vector<T>& v, std::size_t min_entry, std::string_view field, Each each) {
    v.resize(r.count(kMaxList, min_entry, field));
    for (T& item : v) each(item);
  }
  void map(std::map<std::string, double>& m, std::string_view field) {
    const std::size_t n = r.count(kMaxList, kMinString + kMinDouble, field);
    for (std::size_t i = 0; i < n && r.ok(); ++i) {
      std::string key;
      double v = 0;
      str(key, field);
      f64(v, field);
      // The encoder writes a map, so a repeated key can only be corruption; taking either value
      // silently would hide it.
      if (r.ok() && !m.emplace(key, v).second) r.fail(ErrorCode::kBadValue, field, "metric '" + key + "' appears twice");
    }
  }
};

template <class A, class S>
void visit_strings(A& a, S& v, std::string_view field) {
  a.list(v, kMinString, field, [&](auto& s) { a.str(s, field); });
}
template <class A, class D>
void visit_doubles(A& a, D& v, std::string_view field) {
  a.list(v, kMinDouble, field, [&](auto& d) { a.f64(d, field); });
}

template <class A, class E>
void visit_evidence(A& a, E& e) {
  a.str(e.pcap, "evidence.pcap");
  a.i64(e.packet_index, "evidence.packet_index");
  a.u64(e.ts_ns, "evidence.ts_ns");
  a.str(e.field, "evidence.field");
  a.str(e.expected, "evidence.expected");
  a.str(e.observed, "evidence.observed");
  a.str(e.display_filter, "evidence.display_filter");
  a.str(e.note, "evidence.note");
}

template <class A, class C>
void visit_chart(A& a, C& c) {
  a.enumeration(c.kind, Chart::Kind::kRaster, "chart.kind");
  a.str(c.title, "chart.title");
  a.str(c.x_label, "chart.x_label");
  a.str(c.y_label, "chart.y_label");
  visit_strings(a, c.labels, "chart.labels");
  visit_doubles(a, c.values, "chart.values");
  visit_doubles(a, c.expected, "chart.expected");
  visit_doubles(a, c.markers, "chart.markers");
  visit_doubles(a, c.limits, "chart.limits");
  visit_strings(a, c.groups, "chart.groups");
}

template <class A, class C>
void visit_check(A& a, C& c) {
  a.str(c.type, "check.type");
  a.str(c.name, "check.name");
  a.enumeration(c.verdict, harness::Verdict::kError, "check.verdict");
  a.str(c.message, "check.message");
  a.list(c.evidence, kMinEvidence, "check.evidence", [&](auto& e) { visit_evidence(a, e); });
  a.map(c.metrics, "check.metrics");
  a.list(c.charts, kMinChart, "check.charts", [&](auto& ch) { visit_chart(a, ch); });
}

template <class A, class R>
void visit_case(A& a, R& c) {
  a.str(c.id, "id");
  a.str(c.title, "title");
  a.str(c.area, "area");
  a.str(c.file, "file");
  visit_strings(a, c.clauses, "clauses");
  a.str(c.level, "level");
  a.str(c.fail_level, "fail_level");
  a.enumeration(c.basis, harness::Basis::kModel, "basis");
  a.str(c.behaviour, "behaviour");
  visit_strings(a, c.tags, "tags");
  a.u64(c.seed, "seed");
  a.enumeration(c.verdict, harness::Verdict::kError, "verdict");
  a.str(c.message, "message");
  a.list(c.checks, kMinCheck, "checks", [&](auto& chk) { visit_check(a, chk); });
  visit_strings(a, c.evidence_files, "evidence_files");
  a.str(c.evidence_error, "evidence_error");
  a.u64(c.sim_time_ns, "sim_time_ns");
  a.u64(c.timing_budget.ns, "timing_budget.ns");
  a.str(c.timing_budget.source, "timing_budget.source");
  a.u64(c.timing_budget.rate_bps, "timing_budget.rate_bps");
  a.optional_of(c.bridge, "bridge", [&](auto& b) {
    a.u64(b.to_dut, "bridge.to_dut");
    a.u64(b.from_dut, "bridge.from_dut");
    a.u64(b.lost, "bridge.lost");
    a.u64(b.lag_p99_ns, "bridge.lag_p99_ns");
    a.u64(b.lag_max_ns, "bridge.lag_max_ns");
    a.u64(b.entry_p99_ns, "bridge.entry_p99_ns");
  });
  a.optional(c.wall_ms, "wall_ms");
  a.enumeration(c.expectation, harness::ExpectationOutcome::kExpired, "expectation");
  a.str(c.expectation_reason, "expectation_reason");
  a.str(c.expectation_link, "expectation_link");
}

}  // namespace

std::vector<std::uint8_t> encode_case_result(const CaseResult& r) {
  std::vector<std::uint8_t> out;
  // Room up front: GCC 12 (-O2) otherwise warns, wrongly, that the first insert into an empty
  // vector overflows (-Wstringop-overflow, an error with MRC_WERROR).
  out.reserve(4096);
  Writer w(out);
  w.fixed(kMagic);
  w.u16(kCaseResultCodecVersion);
  w.u32(0);  // the body length, patched below
  Put put{w};
  visit_case(put, r);
  if (!w.ok()) throw std::length_error("case result of " + r.id + " cannot be encoded: " + w.detail());
  if (out.size() - kHeaderSize > 0xFFFFFFFFu) throw std::length_error("case result of " + r.id + " exceeds 4 GiB");
  w.patch_u32(6, static_cast<std::uint32_t>(out.size() - kHeaderSize));
  return out;
}

DecodedCaseResult decode_case_result(std::span<const std::uint8_t> bytes) {
  DecodedCaseResult d;
  if (bytes.size() < kHeaderSize) {
    d.error = "truncated: " + std::to_string(bytes.size()) + " byte(s), shorter than the " +
              std::to_string(kHeaderSize) + "-byte header";
    return d;
  }
  Reader head(bytes.first(kHeaderSize));
  std::array<std::uint8_t, 4> magic{};
  head.fixed(magic, "magic");
  const std::uint16_t version = head.u16("version");
  const std::uint32_t length = head.u32("length");
  if (magic != kMagic) {
    d.error = "not a case result: the first bytes are not \"MRCR\"";
    return d;
  }
  if (version != kCaseResultCodecVersion) {
    d.error = "wrong version: " + std::to_string(version) + ", this build reads version " +
              std::to_string(kCaseResultCodecVersion) + " (parent and child are different builds?)";
    return d;
  }
  const std::size_t have = bytes.size() - kHeaderSize;
  if (have < length) {
    d.error = "truncated: the header announces " + std::to_string(length) + " body byte(s), " + std::to_string(have) +
              " arrived";
    return d;
  }
  if (have > length) {
    d.error = "trailing bytes: " + std::to_string(have - length) + " byte(s) after the " + std::to_string(length) +
              "-byte body";
    return d;
  }
  Reader r(bytes.subspan(kHeaderSize));
  Get get{r};
  visit_case(get, d.result);
  if (!r.ok()) {
    const bool truncated = r.code() == ErrorCode::kTruncatedBody;
    d.error = std::string(truncated ? "truncated: " : "bad value: ") + r.detail();
  } else if (r.remaining() != 0) {
    d.error = "trailing bytes: " + std::to_string(r.remaining()) + " byte(s) inside the body after its last field";
  }
  if (!d.ok()) d.result = CaseResult{};
  return d;
}

}  // namespace mrc::run
