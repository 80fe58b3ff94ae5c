// rejudge_case (replay_case.hpp): one case's evidence pcapng and context rebuild the SessionResult
// the run judged, and the runner's own judge_case() judges it again.
#include "harness/certify/replay_case.hpp"

#include <algorithm>

#include "harness/capture/pcapng_bytes.hpp"
#include "harness/case/case_loader.hpp"
#include "harness/run/case_evidence.hpp"
#include "harness/run/case_result.hpp"
#include "harness/run/replay_context.hpp"

namespace mrc::run {
namespace {

using harness::Verdict;

// The frames of every tap from the evidence file, each with the integrity the run recorded, except
// `captured`: what the file holds now. A frame missing from the file (or a tap) leaves the capture
// incomplete, so the checks that read it are INCONCLUSIVE, as a run with a lossy tap would be.
void load_frames(const std::string& member, const std::string& bytes, SessionResult& s, ReplayedCase& out) {
  std::vector<harness::ReadInterface> ifaces;
  if (std::string e = harness::read_pcapng_bytes(member, bytes, ifaces); !e.empty()) throw ReplayRefused(e);
  for (harness::TapCapture& t : s.ctx.taps) {
    const auto it = std::find_if(ifaces.begin(), ifaces.end(), [&](const harness::ReadInterface& i) { return i.name == t.name; });
    harness::CaptureIntegrity g = t.capture.integrity();
    harness::Capture read(t.name);
    if (it == ifaces.end()) {
      out.notes.push_back(member + " has no interface " + t.name + " (the run captured " + std::to_string(g.captured) +
                          " frame(s) there)");
    } else {
      read = std::move(it->capture);
      read.set_tap(t.name);
      if (read.size() != g.captured) {
        out.notes.push_back(member + " interface " + t.name + ": " + std::to_string(read.size()) + " frame(s), the run captured " +
                            std::to_string(g.captured));
      }
    }
    g.captured = read.size();
    read.integrity() = g;
    t.capture = std::move(read);
  }
}

// Frames the evidence file holds shorter than the run captured them (its --snaplen), beyond the
// ones the run's own tap truncated; with the longest kept length.
std::pair<std::uint64_t, std::uint32_t> cut_by_snaplen(const SessionResult& s) {
  std::uint64_t cut = 0;
  std::uint32_t kept = 0;
  for (const harness::TapCapture& t : s.ctx.taps) {
    std::uint64_t short_frames = 0;
    for (const harness::CapturedPacket& p : t.capture.packets()) {
      if (p.caplen < p.origlen) {
        ++short_frames;
        kept = std::max(kept, p.caplen);
      }
    }
    if (short_frames > t.capture.integrity().truncated) cut += short_frames - t.capture.integrity().truncated;
  }
  return {cut, kept};
}

// Gives every frame the evidence cut back its length and ICRC status (restore_cut_frame), in
// the taps whose own capture cut nothing (else which frames the file cut is not known).
void restore_cut_frames(SessionResult& s, const std::vector<std::vector<std::uint32_t>>& icrc_bad) {
  std::vector<std::uint8_t> buf;
  for (std::size_t t = 0; t < s.ctx.taps.size(); ++t) {
    harness::Capture& cap = s.ctx.taps[t].capture;
    if (cap.integrity().truncated > 0) continue;
    const auto& cut = cap.packets();
    if (std::none_of(cut.begin(), cut.end(), [](const harness::CapturedPacket& p) { return p.caplen < p.origlen; })) continue;
    harness::Capture whole(cap.tap());
    const std::vector<std::uint32_t>& bad = t < icrc_bad.size() ? icrc_bad[t] : std::vector<std::uint32_t>{};
    for (std::size_t i = 0; i < cap.size(); ++i) {
      const harness::CapturedPacket& p = cap.packet(i);
      if (p.caplen >= p.origlen) {
        whole.add(p.ts_ns, cap.bytes(i), p.origlen);
        continue;
      }
      const bool is_bad = std::binary_search(bad.begin(), bad.end(), static_cast<std::uint32_t>(i));
      restore_cut_frame(cap.bytes(i), p.origlen, is_bad, buf);
      whole.add(p.ts_ns, buf, p.origlen);
    }
    whole.integrity() = cap.integrity();
    cap = std::move(whole);
  }
}

// The first check (by position) whose verdict differs; "" when none does.
void first_difference(const harness::CaseResult& was, const harness::CaseResult& now, ReplayedCase& out) {
  const std::size_t n = std::max(was.checks.size(), now.checks.size());
  for (std::size_t i = 0; i < n; ++i) {
    const harness::CheckResult* a = i < was.checks.size() ? &was.checks[i] : nullptr;
    const harness::CheckResult* b = i < now.checks.size() ? &now.checks[i] : nullptr;
    if (a && b && a->verdict == b->verdict && a->name == b->name) continue;
    if (b) {
      out.first_check = b->name;
      out.first_message = std::string(harness::to_string(b->verdict)) + ": " + b->message +
                          (a ? " (was " + std::string(harness::to_string(a->verdict)) + ": " + a->message + ")" : " (a new check)");
    } else {
      out.first_check = a->name;
      out.first_message = "no longer run (was " + std::string(harness::to_string(a->verdict)) + ": " + a->message + ")";
    }
    return;
  }
  out.first_message = now.message;
}

}  // namespace

void rejudge_case(const ReplaySuite& suite, const harness::CaseResult& was, const std::string& case_path, const CaseEvidence& ev,
                  ReplayedCase& out) {
  SessionResult s;
  std::vector<std::vector<std::uint32_t>> icrc_bad;
  if (std::string e = parse_case_context(ev.context, ev.context_name, s, icrc_bad); !e.empty()) throw ReplayRefused(e);
  // A case the run rescaled for its testbed is judged with the ACK timeout and frame time it ran with.
  harness::LoadResult loaded = harness::load_case(suite.tree.locate(case_path), suite.clauses,
                                                  harness::LoadOptions{s.wire_timeout, s.spray_bps});
  if (!loaded.ok()) throw ReplayRefused("case " + out.id + ": " + case_path + " does not load:\n" + loaded.diagnostics.to_string());
  harness::Case& c = *loaded.value;
  for (const harness::Check& k : c.checks) {
    const auto* g = std::get_if<harness::GoldenCheck>(&k.params);
    if (g && suite.mismatched.contains(g->pcap.generic_string())) {
      out.reason = "its golden " + g->pcap.generic_string() + " differs from this suite's tree";
    }
  }
  if (!out.reason.empty()) return;
  if (s.ctx.case_id != out.id) throw ReplayRefused(ev.context_name + ": /case: '" + s.ctx.case_id + "', not " + out.id);
  if (s.status != Verdict::kPass) {
    out.reason = "the run ended before its checks (" + std::string(harness::to_string(s.status)) + ": " + s.message + ")";
    return;
  }
  load_frames(ev.pcap_name, ev.pcap, s, out);
  if (const auto [cut, kept] = cut_by_snaplen(s); cut > 0 && case_needs_payload(c)) {
    out.reason = "its checks read payload and " + ev.pcap_name + " keeps " + std::to_string(cut) + " frame(s) cut at " +
                 std::to_string(kept) + " bytes (run --snaplen " + suite.recorded.evidence.snaplen +
                 "; auto or full keeps them whole)";
    return;
  }
  restore_cut_frames(s, icrc_bad);
  s.ctx.golden_dir = suite.root / "pcaps";
  if (suite.options.adjust_case) suite.options.adjust_case(c);
  harness::CaseResult now = judge_case(c, s, suite.root, was.seed);
  keep_evidence(now, c, s, {}, /*write=*/false, EvidenceOptions{});
  out.now = now.verdict;
  out.status = now.verdict == out.recorded ? ReplayStatus::kUnchanged : ReplayStatus::kChanged;
  if (out.status == ReplayStatus::kChanged) first_difference(was, now, out);
  out.result = std::move(now);
}

}  // namespace mrc::run
