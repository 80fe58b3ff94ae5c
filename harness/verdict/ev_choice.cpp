#include "harness/verdict/ev_choice.hpp"

#include <bit>

#include "harness/verdict/check_support.hpp"
#include "reference/wire/ev_placement.hpp"

namespace mrc::harness {
namespace {

// Bit positions of the judged fields, and the vocabulary field each one names in evidence.
enum : int { kFlow = 0, kSport = 1, kDa = 2, kSeg = 3, kPortBit = 4 };
constexpr FieldId kFieldOf[] = {FieldId::kIpFlowLabel, FieldId::kUdpSport, FieldId::kIpDst, FieldId::kSrhSegment0,
                                FieldId::kPort};

wire::Ipv6Addr segment0(const wire::DecodedFrame& f) {
  return f.has_srh && f.srh.segment_count() > 0 ? f.srh.segment(0) : wire::Ipv6Addr{};
}

}  // namespace

EvChoice::EvChoice(wire::EvFmtMode mode, const std::vector<WireEvRecord>& evs) : mode_(mode) {
  evs_.reserve(evs.size());
  wire::FrameSpec spec;
  std::array<std::uint8_t, 16> seg{};
  for (const WireEvRecord& r : evs) {
    wire::place_ev(spec, mode, r.wire, r.index, seg);  // the wire layer's expansion, not a copy of it
    Expansion e;
    e.flow_label = spec.ip6.flow_label;
    e.sport = spec.udp.sport;
    if (mode == wire::EvFmtMode::kSrv6) {  // W1
      e.da = spec.ip6.dst;
      if (spec.has_srh) e.seg = seg;
    }
    e.port = r.port;
    e.index = r.index;
    evs_.push_back(e);
  }
}

bool EvChoice::applies(const wire::DecodedFrame& f) { return !f.has_erth && !f.has_eeth; }

std::uint32_t EvChoice::judged_fields(const wire::DecodedFrame& f, int port) const {
  std::uint32_t m = 0;
  if (mode_ == wire::EvFmtMode::kSrv6) {
    // The path is the outer DA and the SRH segment. The inner flow label and sport carry the
    // sender's own tag of the EV (W2), whose value no requirement fixes: srv6_layout judges that
    // it names one EV consistently.
    m = (1u << kDa) | (1u << kSeg);
  } else {
    m = 1u << kSport;
    if (f.l3 == wire::L3Kind::kIpv6) m |= 1u << kFlow;  // IPv4 (UDP mode) has no flow label
  }
  if (port > 0) m |= 1u << kPortBit;
  return m;
}

std::uint32_t EvChoice::match_mask(const Expansion& e, const wire::DecodedFrame& f, int port,
                                   std::uint32_t judged) const {
  std::uint32_t m = 0;
  if (f.ip6.flow_label == e.flow_label) m |= 1u << kFlow;
  if (f.udp.sport == e.sport) m |= 1u << kSport;
  if (f.ip6.dst == e.da) m |= 1u << kDa;
  if (segment0(f) == e.seg) m |= 1u << kSeg;
  if (port == e.port) m |= 1u << kPortBit;
  return m & judged;
}

EvJudgement EvChoice::judge(const wire::DecodedFrame& f, int port) const {
  EvJudgement j;
  if (evs_.empty() || !applies(f)) return j;
  const std::uint32_t judged = judged_fields(f, port);
  std::uint32_t seen = 0;  // fields some EV expands to
  std::size_t best = 0;    // the EV agreeing with the most fields
  int best_n = -1;
  for (std::size_t i = 0; i < evs_.size(); ++i) {
    const std::uint32_t m = match_mask(evs_[i], f, port, judged);
    if (m == judged) return j;
    seen |= m;
    if (std::popcount(m) > best_n) {
      best_n = std::popcount(m);
      best = i;
    }
  }
  if (const std::uint32_t none = judged & ~seen; none != 0) {
    j.kind = EvJudgement::Kind::kNotAnyEv;
    j.field = kFieldOf[std::countr_zero(none)];
    return j;
  }
  // Every field is some EV's, but no one EV has them all: name one field of the EV agreeing with
  // the most, and the first field it does not explain with an EV that does.
  const std::uint32_t agree = match_mask(evs_[best], f, port, judged);
  const int off = std::countr_zero(judged & ~agree);
  j.kind = EvJudgement::Kind::kMixed;
  j.field = kFieldOf[off];
  j.other = kFieldOf[std::countr_zero(agree == 0 ? judged : agree)];
  j.other_ev = static_cast<std::int16_t>(evs_[best].index);
  for (const Expansion& e : evs_) {
    if (match_mask(e, f, port, judged) & (1u << off)) {
      j.ev = static_cast<std::int16_t>(e.index);
      break;
    }
  }
  return j;
}

std::string EvChoice::value_text(int field, const wire::DecodedFrame& f, int port) const {
  FrameMeta meta;
  meta.port = port;
  const FieldId id = kFieldOf[field];
  const FieldValue v = id == FieldId::kIpDst ? FieldValue{FieldKind::kIpv6, 0, f.ip6.dst}
                       : id == FieldId::kSrhSegment0 && !f.has_srh ? FieldValue{FieldKind::kIpv6, 0, {}}
                                                                     : get_field(id, f, meta);
  if (id == FieldId::kIpFlowLabel || id == FieldId::kUdpSport) return hex(v.u);
  return format_value(id, v);
}

std::string EvChoice::field_name(const EvJudgement& j) const { return std::string(harness::field_name(j.field)); }

std::string EvChoice::describe(const EvJudgement& j, const wire::DecodedFrame& f, int port) const {
  auto bit_of = [](FieldId id) {
    for (int b = 0; b < kFields; ++b) {
      if (kFieldOf[b] == id) return b;
    }
    return 0;
  };
  const std::string name = field_name(j);
  const std::string value = value_text(bit_of(j.field), f, port);
  switch (j.kind) {
    case EvJudgement::Kind::kOk:
      return name + " " + value + " is the expansion of an eligible EV";
    case EvJudgement::Kind::kNotAnyEv:
      return name + " " + value + " is not the expansion of any eligible EV (" + std::to_string(evs_.size()) +
             " eligible)";
    case EvJudgement::Kind::kMixed:
      return name + " " + value + " is EV " + std::to_string(j.ev) + "'s but " +
             std::string(harness::field_name(j.other)) + " " + value_text(bit_of(j.other), f, port) + " is EV " +
             std::to_string(j.other_ev) + "'s: one packet's EV fields come from one EV";
  }
  return name;
}

}  // namespace mrc::harness
