#include "harness/run/case_evidence.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <variant>

#include "harness/capture/pcapng.hpp"
#include "harness/run/replay_context.hpp"

namespace mrc::run {
namespace {

// Invariants that read payload bytes or the ICRC, or judge memory contents: a re-judgement needs
// whole frames. Every other invariant reads headers (and lengths, which the original length keeps).
constexpr std::array<std::string_view, 6> kPayloadInvariants{"icrc_valid", "data_verified", "not_placed",
                                                             "stub_not_placed", "injected_placed", "silently_dropped"};

bool payload_field(const std::string& f) { return f.rfind("payload", 0) == 0 || f.rfind("icrc", 0) == 0; }

bool any_payload_field(const std::vector<harness::FieldMatch>& m) {
  return std::any_of(m.begin(), m.end(), [](const harness::FieldMatch& x) { return payload_field(x.field); });
}

bool check_needs_payload(const harness::CheckParams& p) {
  if (const auto* inv = std::get_if<harness::InvariantCheck>(&p)) {
    return std::find(kPayloadInvariants.begin(), kPayloadInvariants.end(), inv->name) != kPayloadInvariants.end();
  }
  if (const auto* f = std::get_if<harness::FieldCheck>(&p)) return payload_field(f->field) || any_payload_field(f->select);
  // Headers, times and counts only. A golden compares payload digests and the ICRC.
  return !(std::holds_alternative<harness::DistributionCheck>(p) || std::holds_alternative<harness::TimingCheck>(p) ||
           std::holds_alternative<harness::PositiveControlCheck>(p));
}

std::string describe(const harness::TapCapture& t) {
  std::string d = t.host < 0 ? std::string("fabric link") : "host " + std::to_string(t.host) + (t.host == 0 ? " (DUT)" : " (peer)");
  if (t.port > 0) d += " port " + std::to_string(t.port);
  d += t.from_dut ? ", transmit (frames the DUT sent)" : ", receive (frames sent to the DUT)";
  if (t.port > 0) d += ", plane " + std::to_string(t.port);
  return d;
}

// "<key> packet <N>" (a check's tap-local 0-based index) -> "<file> frame <F>" in a message, for
// every tap's key: F is the Wireshark frame number in the case's evidence file (index + 1), the
// number every evidence row and display filter uses too.
void map_message(std::string& msg, const std::string& key, const std::string& file, const std::vector<std::uint32_t>& frame) {
  const std::string pat = key + " packet ";
  for (std::size_t at = msg.find(pat); at != std::string::npos; at = msg.find(pat, at)) {
    std::size_t end = at + pat.size();
    std::uint64_t n = 0;
    const auto r = std::from_chars(msg.data() + end, msg.data() + msg.size(), n);
    if (r.ec != std::errc{} || n >= frame.size()) {
      at = end;
      continue;
    }
    end = static_cast<std::size_t>(r.ptr - msg.data());
    const std::string with = file + " frame " + std::to_string(std::uint64_t{frame[n]} + 1);
    msg.replace(at, end - at, with);
    at += with.size();
  }
}

// An error of the capture writer (write_whole_file()) named by the file relative to the output
// folder, as every evidence path is.
std::string relative_error(const std::filesystem::path& out_dir, const std::string& rel, const std::string& e) {
  const std::string full = (out_dir / rel).string();
  return e.rfind(full, 0) == 0 ? rel + e.substr(full.size()) : e;
}

}  // namespace

std::string_view to_string(EvidenceKeep k) {
  switch (k) {
    case EvidenceKeep::kAll: return "all";
    case EvidenceKeep::kFailures: return "failures";
    case EvidenceKeep::kNone: return "none";
  }
  return "all";
}

std::string snaplen_spelling(const EvidenceOptions& o) {
  switch (o.snap) {
    case SnapMode::kAuto: return "auto";
    case SnapMode::kFull: return "full";
    case SnapMode::kFixed: return std::to_string(o.snaplen);
  }
  return "auto";
}

std::string parse_evidence_keep(const std::string& text, EvidenceKeep& out) {
  for (EvidenceKeep k : {EvidenceKeep::kAll, EvidenceKeep::kFailures, EvidenceKeep::kNone}) {
    if (text == to_string(k)) {
      out = k;
      return {};
    }
  }
  return "--evidence '" + text + "' is not a choice: all (a pcapng per case), failures (only cases whose verdict is "
         "not PASS) or none";
}

std::string parse_snaplen(const std::string& text, EvidenceOptions& out) {
  if (text == "auto") {
    out.snap = SnapMode::kAuto;
    return {};
  }
  if (text == "full") {
    out.snap = SnapMode::kFull;
    return {};
  }
  const std::string range = std::to_string(kMinSnaplen) + " .. " + std::to_string(kMaxSnaplen) +
                            " bytes (at least every header the decoder reads)";
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (text.empty() || r.ptr != end || (r.ec != std::errc{} && r.ec != std::errc::result_out_of_range)) {
    return "--snaplen '" + text + "' is not auto, full or a number of bytes (" + range + ")";
  }
  if (r.ec != std::errc{} || v < kMinSnaplen || v > kMaxSnaplen) return "--snaplen " + text + " is out of range: " + range;
  out.snap = SnapMode::kFixed;
  out.snaplen = static_cast<std::uint32_t>(v);
  return {};
}

bool case_needs_payload(const harness::Case& c) {
  for (const harness::Check& k : c.checks) {
    if (check_needs_payload(k.params)) return true;
  }
  for (const harness::StimulusStep& st : c.stimulus) {
    if (const auto* e = std::get_if<harness::ExpectStep>(&st.body); e && any_payload_field(e->match)) return true;
  }
  return false;
}

std::uint32_t case_snaplen(const harness::Case& c, const EvidenceOptions& o) {
  switch (o.snap) {
    case SnapMode::kFull: return harness::kFullSnaplen;
    case SnapMode::kFixed: return o.snaplen;
    case SnapMode::kAuto: return case_needs_payload(c) ? harness::kFullSnaplen : kHeaderSnaplen;
  }
  return harness::kFullSnaplen;
}

std::string case_evidence_path(const std::string& case_id) { return "evidence/" + case_id + ".pcapng"; }

std::string tap_evidence_key(const std::string& case_id, const std::string& tap) {
  return "evidence/" + case_id + "/" + tap + ".pcapng";
}

void keep_evidence(harness::CaseResult& r, const harness::Case& c, const SessionResult& s,
                   const std::filesystem::path& out_dir, bool write, const EvidenceOptions& o) {
  const auto& taps = s.ctx.taps;
  if (taps.empty()) return;
  std::vector<harness::PcapngInterface> ifaces;
  ifaces.reserve(taps.size());
  for (const auto& t : taps) ifaces.push_back({&t.capture, t.name, describe(t), t.from_dut});
  // frame[tap][index in tap] = index in the case file
  std::vector<std::vector<std::uint32_t>> frame(taps.size());
  for (std::size_t i = 0; i < taps.size(); ++i) frame[i].resize(taps[i].capture.size());
  const auto order = harness::merge_order(ifaces);
  for (std::size_t n = 0; n < order.size(); ++n) frame[order[n].first][order[n].second] = static_cast<std::uint32_t>(n);

  const std::string file = case_evidence_path(c.id);
  for (harness::CheckResult& cr : r.checks) {
    for (harness::Evidence& e : cr.evidence) {
      for (std::size_t i = 0; i < taps.size(); ++i) {
        if (taps[i].pcap.empty() || e.pcap != taps[i].pcap) continue;
        e.pcap = file;
        if (e.packet_index >= 0 && static_cast<std::size_t>(e.packet_index) < frame[i].size()) {
          e.packet_index = frame[i][static_cast<std::size_t>(e.packet_index)];
          e.display_filter = harness::retarget_frame_filter(e.display_filter, e.packet_index);
        }
        break;
      }
    }
    for (std::size_t i = 0; i < taps.size(); ++i) {
      if (!taps[i].pcap.empty()) map_message(cr.message, taps[i].pcap, file, frame[i]);
    }
  }
  for (std::size_t i = 0; i < taps.size(); ++i) {
    if (!taps[i].pcap.empty()) map_message(r.message, taps[i].pcap, file, frame[i]);
  }

  if (!write || o.keep == EvidenceKeep::kNone) return;
  if (o.keep == EvidenceKeep::kFailures && r.verdict == harness::Verdict::kPass) return;
  if (std::string e = harness::write_multi_pcapng(out_dir / file, ifaces, case_snaplen(c, o)); !e.empty()) {
    r.evidence_error = relative_error(out_dir, file, e);
    return;
  }
  r.evidence_files.push_back(file);
  // What the checks read besides the frames, for `replay` (replay_context.hpp): evidence too, so
  // it is listed (and counted in the run's evidence volume) after the pcapng.
  const std::string context = case_context_path(c.id);
  if (std::string e = harness::write_whole_file(out_dir / context, render_case_context(s, case_snaplen(c, o)));
      !e.empty()) {
    r.evidence_error = relative_error(out_dir, context, e);
    return;
  }
  r.evidence_files.push_back(context);
}

}  // namespace mrc::run
