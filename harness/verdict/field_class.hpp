// The semantic classes of a golden check's fields: what the requirements fix about each field,
// and so how a golden check judges it. This table is the one place that says it; the capture diff
// (diff.hpp), the golden check and cases/README.md ("golden") follow it.
//
// - exact: the requirements fix the value for a given case and seed (header stack, BTH, RETH VA
//   and length, payload, ICRC validity, ...): it must equal the golden's.
// - choice: the value follows from a choice the requirements leave to the DUT, among a legal set.
//   The EV (which eligible EV a packet goes on, SPRAY-PER-PACKET-EV): the fields that carry it
//   (IPv6 flow label, UDP source port, the SRv6 outer DA and SRH segment, the egress port) must be
//   the expansion of *some* eligible EV of the sending side, all of one packet's from the same EV
//   (ev_choice.hpp). Also when to ask for an ACK (BTH A), whether data carries a TSETH (BTH TS and
//   the TSETH; lengths then compare without its 4 bytes), the timestamps a sender's own clock
//   gives (TSETH, PETH, ERTH) and what echoes them or the EV (SETH/NETH entropy, reflected
//   timestamps), and the ECN codepoint: the invariants judge those. None is compared with the
//   golden's.
// - bounded: a measured time (the capture timestamp) within the check's tolerance of the golden's,
//   widened by the testbed's timing budget (timing_budget.hpp).
// - bridged: the same time measured across a real-time bridge that declares its rate
//   (TimingBudget::rate_bps). Times count from the first packet of their message (the RETH on
//   every data packet names it, W4): when a message starts follows the host's post, which across
//   an agent is a round trip of the harness's own. The bridge forwards one frame after another at
//   its rate, so a burst the golden shows at once reaches the taps spread out: the golden's times
//   are first paced at the rate (bridged_times below), then the DUT's must be within the
//   tolerance and budget after the later of the paced and the golden's own time and before the
//   earlier. Never pinned to the simulated fabric's times; order and contents stay as the classes
//   above say.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "harness/verdict/field_access.hpp"

namespace mrc::harness {

enum class FieldClass : std::uint8_t { kExact, kChoice, kBounded, kBridged };

// `encapsulated`: the frame is SRv6-encapsulated, so ip.dst is the outer DA, the EV's uSID
// container (a path, W1), not an address. Inline: the diff asks it per field per packet.
constexpr FieldClass field_class(FieldId id, bool encapsulated) {
  switch (id) {
    // The EV-carrying fields (W1, W2: wire::place_ev) and where the EV sends the packet.
    case FieldId::kIpFlowLabel:
    case FieldId::kUdpSport:
    case FieldId::kSrhSegment0:
    case FieldId::kPort:
    case FieldId::kPlane:
    case FieldId::kEv:
    case FieldId::kEvIndex:
    // Also a choice: what the sender decides per packet within the rules (W3 A policy; W4 the
    // free-running timestamp counter, whose origin is local) and the echoes of those choices
    // (the SACK's and NACK's entropy is the trigger's EV, W2; reflected timestamps, W5, W7). The
    // invariants judge them (ev_echo_matches and the timestamp reflection checks).
    case FieldId::kBthAckReq:
    case FieldId::kBthTs:  // TSETH present or not: the sender's configuration (W4)
    case FieldId::kTsethTs:
    case FieldId::kTsethTsr:
    case FieldId::kTsethFtype:
    case FieldId::kCcTxTimestamp:
    case FieldId::kNethTxTimestamp:
    case FieldId::kPethTs:
    case FieldId::kErthTs:
    case FieldId::kEethTxTimestamp:
    case FieldId::kSethEntropy:
    case FieldId::kNethEntropy:
    // Which 64-PSN window a SACK reports is the responder's (5.21): the offset and the bits with
    // it; sack_exact and sack_consistent judge the bits against the arrivals.
    case FieldId::kSethSackOffset:
    case FieldId::kSethSackBitmap:
    // Which ECN-capable codepoint a sender uses, ECT(0) or ECT(1), is its own (W13); ecn_capable
    // judges that data is ECN-capable at all.
    case FieldId::kIpEcn:
      return FieldClass::kChoice;
    case FieldId::kIpDst:
      return encapsulated ? FieldClass::kChoice : FieldClass::kExact;  // W1 outer DA = EV
    case FieldId::kTs:
      return FieldClass::kBounded;
    default:
      return FieldClass::kExact;
  }
}
std::string_view to_string(FieldClass c);  // "exact", "choice", "bounded", "bridged"

// The `bridged` class's expected times: `ts_ns` (a capture's times, in order) paced at `rate_bps`
// for frames of `bytes` bytes, into `paced_ns` (of ts_ns's size).
void bridged_times(std::span<const std::uint64_t> ts_ns, std::span<const std::uint32_t> bytes, std::uint64_t rate_bps,
                   std::span<std::uint64_t> paced_ns);

}  // namespace mrc::harness
