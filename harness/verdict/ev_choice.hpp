// The `choice` class of a golden check (field_class.hpp): which eligible EV a packet goes on is
// the DUT's choice (SPRAY-PER-PACKET-EV lets it pick any eligible EV, round robin or random), so
// a golden cannot pin the EV order. What the requirements do fix is that every EV-carrying field
// of a packet is the expansion of *some* eligible EV of the sending side (EV-EXPANSION, the
// placement rules W1/W2) and that all of one packet's EV fields, and the port it leaves on, come
// from the same EV.
//
// The expansion is the wire layer's (wire::place_ev), applied once per EV when the set is built;
// judging a packet then compares a handful of words per EV and allocates nothing, so the diff's
// hot path stays allocation-free (diff.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/verdict/check_context.hpp"
#include "harness/verdict/field_access.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness {

// The verdict on one packet's EV fields.
struct EvJudgement {
  enum class Kind : std::uint8_t {
    kOk,        // every EV field (and the port) is the expansion of one eligible EV
    kNotAnyEv,  // `field` holds a value no eligible EV expands to
    kMixed,     // each field is some EV's, but no single EV's: `field` is EV `ev`'s, `other` EV `other_ev`'s
  };
  Kind kind = Kind::kOk;
  FieldId field = FieldId::kIpFlowLabel;
  FieldId other = FieldId::kIpFlowLabel;
  std::int16_t ev = -1;        // EV index (position in the EV array)
  std::int16_t other_ev = -1;
  bool ok() const { return kind == Kind::kOk; }
};

class EvChoice {
 public:
  EvChoice() = default;
  // `evs`: the sending side's eligible EVs as they go on the wire (CheckContext::dut_wire_evs).
  EvChoice(wire::EvFmtMode mode, const std::vector<WireEvRecord>& evs);

  bool empty() const { return evs_.empty(); }
  std::size_t size() const { return evs_.size(); }
  wire::EvFmtMode mode() const { return mode_; }

  // Does the EV class judge this frame? Frames of a QP do; endpoint operations (W10) do not: a
  // request travels on the one EV it tests (judged exactly), a response on an EV of the
  // responder's reverse set, which no QP's profile lists.
  static bool applies(const wire::DecodedFrame& f);
  // One packet sent on `port` (1-based; 0 = unknown, the port is then not judged).
  EvJudgement judge(const wire::DecodedFrame& f, int port) const;
  // Evidence for a judgement that is not ok: the field's name, a sentence naming the class.
  std::string field_name(const EvJudgement& j) const;
  std::string describe(const EvJudgement& j, const wire::DecodedFrame& f, int port) const;

 private:
  // What wire::place_ev puts in the EV-carrying fields for one EV (W1, W2).
  struct Expansion {
    std::uint32_t flow_label = 0;
    std::uint16_t sport = 0;
    wire::Ipv6Addr da{};   // SRv6 outer DA (unused otherwise)
    wire::Ipv6Addr seg{};  // SRv6 SRH segment 0, zero when the EV has no SRH
    std::uint8_t port = 0;
    std::uint8_t index = 0;
  };
  static constexpr int kFields = 5;  // flow label, sport, outer DA, SRH segment, port
  std::uint32_t match_mask(const Expansion& e, const wire::DecodedFrame& f, int port, std::uint32_t judged) const;
  std::uint32_t judged_fields(const wire::DecodedFrame& f, int port) const;
  std::string value_text(int field, const wire::DecodedFrame& f, int port) const;

  wire::EvFmtMode mode_ = wire::EvFmtMode::kStev;
  std::vector<Expansion> evs_;
};

}  // namespace mrc::harness
