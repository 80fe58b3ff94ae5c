// A case's evidence: the taps of the run in one pcapng (evidence/<case-id>.pcapng, one interface
// per tap, capture/pcapng.hpp), what is kept (--evidence all|failures|none) and at what snap
// length (--snaplen auto|full|N), and every evidence reference of the checks mapped from (tap,
// index in the tap) to (case file, frame in that file).
//
// The checks judge the in-memory captures, so neither option ever changes a verdict; the options
// decide only what a lab keeps on disk.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "harness/case/case_model.hpp"
#include "harness/run/case_session.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

enum class EvidenceKeep : std::uint8_t {
  kAll,       // every case's file
  kFailures,  // only cases whose verdict is not PASS
  kNone,      // no file
};

enum class SnapMode : std::uint8_t {
  kAuto,   // whole frames for a case whose checks read payload bytes, else kHeaderSnaplen
  kFull,   // whole frames
  kFixed,  // EvidenceOptions::snaplen for every case
};

// The longest header stack the decoder reads (reference/wire/frame.hpp, kMaxFrameLen less its
// payload, pad and ICRC): Ethernet 14 + VLAN 4 + IPv6 40 + SRH 8 + 8 segments x 16 (a full uSID
// container list) + inner IPv6 40 + UDP 8 + BTH 12 + the longest MRC 1.0 extension stack, 36
// (SETH + CC_STATE, or EETH; a data packet's METH + TSETH + RETH + ImmDt is 28) = 290 bytes.
inline constexpr std::uint32_t kHeaderSnaplen = 14 + 4 + 40 + 8 + 8 * 16 + 40 + 8 + 12 + 36;
static_assert(kHeaderSnaplen == 290);
// --snaplen N: at least every header (a shorter cut would lose fields a check judged), at most
// what Wireshark takes.
inline constexpr std::uint32_t kMinSnaplen = kHeaderSnaplen;
inline constexpr std::uint32_t kMaxSnaplen = 262144;

struct EvidenceOptions {
  EvidenceKeep keep = EvidenceKeep::kAll;
  SnapMode snap = SnapMode::kAuto;
  std::uint32_t snaplen = 0;  // kFixed only
};

std::string_view to_string(EvidenceKeep k);  // "all", "failures", "none"
std::string snaplen_spelling(const EvidenceOptions& o);  // "auto", "full", "1024"

// Parse the option values as typed; "" on success, else the message for the user (naming the
// option and what it takes).
std::string parse_evidence_keep(const std::string& text, EvidenceKeep& out);
std::string parse_snaplen(const std::string& text, EvidenceOptions& out);

// True when a check of the case reads past the headers: a golden (payload digest, ICRC), a field
// or expect step on payload or ICRC, an ICRC or memory-content invariant. Decided from the check
// types, conservatively: what is not known to read only headers counts as reading payload.
bool case_needs_payload(const harness::Case& c);

// The snap length the case's file is written with.
std::uint32_t case_snaplen(const harness::Case& c, const EvidenceOptions& o);

// "evidence/<case-id>.pcapng", relative to the run's output folder.
std::string case_evidence_path(const std::string& case_id);

// The key a tap's evidence references carry until keep_evidence() maps them (TapCapture::pcap,
// set by collect()).
std::string tap_evidence_key(const std::string& case_id, const std::string& tap);

// After the checks: every evidence reference (and "<key> packet N" in check messages) to a tap is
// mapped to the case file and the packet's frame in it; then the file is written when `write` and
// the keep policy say so. A failed write leaves no file and sets r.evidence_error.
void keep_evidence(harness::CaseResult& r, const harness::Case& c, const SessionResult& s,
                   const std::filesystem::path& out_dir, bool write, const EvidenceOptions& o);

}  // namespace mrc::run
