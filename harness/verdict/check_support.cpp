#include "harness/verdict/check_support.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace mrc::harness {

CheckResult make_result(std::string_view type, std::string_view name) {
  CheckResult r;
  r.type = std::string(type);
  r.name = name.empty() ? std::string(type) : std::string(name);
  r.verdict = Verdict::kError;
  return r;
}

void conclude(CheckResult& r, Verdict v, std::string message) {
  r.verdict = v;
  r.message = std::move(message);
}

std::string pcap_of(const TapCapture& tap) { return tap.pcap.empty() ? tap.name : tap.pcap; }

std::string frame_filter(std::size_t index) { return "frame.number == " + std::to_string(index + 1); }

std::string frame_filter(std::size_t index, std::string_view display_field, std::string_view value) {
  std::string f = frame_filter(index);
  if (!display_field.empty() && !value.empty()) {
    f += " && ";
    f += display_field;
    f += " == ";
    f += value;
  }
  return f;
}

Evidence packet_evidence(const CheckContext& ctx, const PacketRec& p, std::string field, std::string expected,
                         std::string observed, std::string note) {
  Evidence e;
  e.pcap = pcap_of(ctx.taps[p.tap]);
  e.packet_index = p.index;
  e.ts_ns = p.ts_ns;
  e.field = std::move(field);
  e.expected = std::move(expected);
  e.observed = std::move(observed);
  e.display_filter = frame_filter(p.index, "mrc.bth.psn", std::to_string(p.psn));
  e.note = std::move(note);
  return e;
}

bool integrity_gate(const CheckContext& ctx, const std::vector<std::size_t>& taps, std::string_view what,
                    CheckResult& r) {
  if (taps.empty()) {
    conclude(r, Verdict::kInconclusive, "no tap observes " + std::string(what) + ": nothing to judge");
    return true;
  }
  std::string msg;
  for (auto i : taps) {
    const TapCapture& t = ctx.taps[i];
    const CaptureIntegrity& in = t.capture.integrity();
    if (in.complete()) continue;
    if (!msg.empty()) msg += "; ";
    msg += "tap " + t.name + " (" + pcap_of(t) + ") is incomplete: " + in.describe();
  }
  if (msg.empty()) return false;
  r.metrics["incomplete_taps"] = 1;
  conclude(r, Verdict::kInconclusive, "capture integrity: " + msg + "; the check cannot judge a partial capture");
  return true;
}

void note_decode_issues(const CheckContext& ctx, const Trace& t, CheckResult& r) {
  r.metrics["malformed_frames"] = static_cast<double>(t.malformed);
  for (const auto& ti : t.issues) {
    if (r.evidence.size() >= kMaxEvidence) break;
    Evidence e;
    e.pcap = pcap_of(ctx.taps[ti.tap]);
    e.packet_index = static_cast<std::int64_t>(ti.issue.index);
    e.ts_ns = ti.issue.ts_ns;
    e.field = "frame";
    e.expected = "a decodable RoCEv2/MRC frame";
    e.observed = std::string(wire::to_string(ti.issue.error)) + " at byte " + std::to_string(ti.issue.offset);
    e.display_filter = frame_filter(ti.issue.index);
    e.note = "malformed frame, skipped by the analysis";
    r.evidence.push_back(std::move(e));
  }
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string fmt_double(double v, int precision) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

std::string fmt_ns(double ns) {
  char buf[48];
  if (ns >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.3f s", ns / 1e9);
  } else if (ns >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  } else if (ns >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.3f us", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  }
  return buf;
}

std::uint64_t param_uint(const std::vector<std::pair<std::string, std::string>>& params, std::string_view key,
                         std::uint64_t def, std::string* error) {
  for (const auto& [k, v] : params) {
    if (k != key) continue;
    char* end = nullptr;
    errno = 0;
    const unsigned long long u = std::strtoull(v.c_str(), &end, 0);
    if (v.empty() || v[0] == '-' || !end || *end != '\0' || errno != 0) {
      if (error && error->empty()) *error = "param " + std::string(key) + ": '" + v + "' is not an unsigned integer";
      return def;
    }
    return u;
  }
  return def;
}

}  // namespace mrc::harness
