// What a case's checks read besides the frames, as a companion file of its evidence pcapng:
// evidence/<case-id>.context.json. With the pcapng (the frames of every tap) it is the whole
// CheckContext and the rest of the SessionResult judge_case() reads (case_result.hpp), so
// `mrc-conform replay` re-judges a case from a bundle with the current checks (replay.hpp).
//
// A companion file rather than a pcapng Custom Block: the evidence pcapng stays the plain file
// Wireshark, tshark and libpcap read today (a Custom Block of an unknown Private Enterprise Number
// is shown by some Wireshark versions as an undissected record and skipped by none reliably
// enough to promise), and the context is readable JSON a certifier can open on its own.
//
// Holds: the session's status, message, notes, wire overrun and virtual time; per tap its name,
// host, port, direction, evidence key and the capture's integrity counters as the run saw them (the
// pcapng may be cut to a snap length, which is not a loss the checks saw); faults; the scripted
// expects as matched and the control steps' results; the DUT's observations (completions, EV
// events, EV table, writes, injected writes read back, counters, QPNs); the limits and EV set the
// runner appended; the timing budget and late steps. Deterministic bytes: keys in a fixed order,
// integers as integers, a double as the shortest text that reads back to it (a non-finite one as a
// string), byte strings as hex.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/run/case_session.hpp"

namespace mrc::run {

inline constexpr std::string_view kCaseContextSchemaId = "mrc-conform/case-context/1";

// "evidence/<case-id>.context.json", relative to the run's output folder.
std::string case_context_path(const std::string& case_id);

// The file's text (ends with a newline). `snaplen`: the length the evidence pcapng cuts frames to
// (case_snaplen): per tap, the frames it cuts whose ICRC was wrong are listed ("cut_icrc_bad"),
// so replay can give the cut frames back their length and ICRC status (restore_cut_frames).
std::string render_case_context(const SessionResult& s, std::uint32_t snaplen);

// Reads the text into `out`: every field render_case_context() writes; the taps get their names,
// places, evidence keys and integrity but no packets (the pcapng holds those), and
// `cut_icrc_bad[tap]` the listed frames. Returns "" on success, else "<origin>: <JSON pointer>:
// <what is wrong>".
std::string parse_case_context(std::string_view text, std::string_view origin, SessionResult& out,
                               std::vector<std::vector<std::uint32_t>>& cut_icrc_bad);

// A frame the evidence cut short (--snaplen) made whole again for the checks that read its length
// and ICRC status, not its payload: zeros up to its original length, then, when its IP length fits
// and its ICRC was right in the run (`icrc_bad` false), the ICRC of those bytes, else a wrong one.
// The decoder then finds the payload length, the trimmed flag and icrc_ok the run found. `buf`
// is resized to `origlen`. Cases whose checks read payload bytes are not re-judged from cut
// frames (replay.cpp).
void restore_cut_frame(std::span<const std::uint8_t> cut, std::uint32_t origlen, bool icrc_bad,
                       std::vector<std::uint8_t>& buf);

}  // namespace mrc::run
