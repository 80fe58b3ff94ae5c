// The `field` check: frames picked by simple predicates (opcode, direction, port, any frame
// field) must have `field` equal to a value, in a set, or in a range. For source-route and
// placement cases: SRH segments_left == 1, flow label == the EV's high bits, DSCP values.
// Without a `direction` in the selection only the frames the DUT sends are judged.
#include "harness/case/field_match.hpp"
#include "harness/verdict/check_support.hpp"
#include "harness/verdict/checks.hpp"
#include "harness/verdict/field_access.hpp"
#include "harness/verdict/frame_cursor.hpp"

namespace mrc::harness {
namespace {

struct Selector {
  FieldId id;
  const MatchValue* value;
};

std::string describe(const FieldCheck& spec) {
  struct V {
    std::string operator()(const FieldCheck::Equals& e) const { return to_string(e.value); }
    std::string operator()(const FieldCheck::In& in) const {
      std::string s = "one of {";
      for (std::size_t i = 0; i < in.values.size(); ++i) s += (i ? ", " : "") + to_string(in.values[i]);
      return s + "}";
    }
    std::string operator()(const FieldCheck::Range& r) const {
      return "in [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]";
    }
  };
  return std::visit(V{}, spec.predicate);
}

bool satisfies(const FieldCheck& spec, const FieldValue& v) {
  if (const auto* e = std::get_if<FieldCheck::Equals>(&spec.predicate)) return matches(v, e->value);
  if (const auto* in = std::get_if<FieldCheck::In>(&spec.predicate)) {
    for (const auto& x : in->values) {
      if (matches(v, x)) return true;
    }
    return false;
  }
  const auto& r = std::get<FieldCheck::Range>(spec.predicate);
  return v.kind == FieldKind::kUInt && v.u >= r.lo && v.u <= r.hi;
}

}  // namespace

CheckResult run_field(const FieldCheck& spec, const CheckContext& ctx) {
  CheckResult r = make_result("field", "field/" + spec.field);
  const auto target = field_id(spec.field);
  if (!target) {
    conclude(r, Verdict::kError, "unknown frame field '" + spec.field + "'");
    return r;
  }
  std::vector<Selector> sel;
  bool any_direction = false;
  for (const FieldMatch& m : spec.select) {
    const auto id = field_id(m.field);
    if (!id) {
      conclude(r, Verdict::kError, "unknown frame field '" + m.field + "' in select");
      return r;
    }
    any_direction |= *id == FieldId::kDirection;
    sel.push_back(Selector{*id, &m.value});
  }
  const auto taps = select_taps(ctx, any_direction ? TapSide::kAll : TapSide::kFromDut);
  if (integrity_gate(ctx, taps, any_direction ? "the selected frames" : "frames from the DUT", r)) return r;

  const std::string expected = describe(spec);
  Findings findings(r);
  std::size_t judged = 0;
  std::size_t malformed = 0;
  FrameMeta meta;
  meta.mode = ev_mode(ctx.dut);
  meta.dut = &ctx.dut;
  for (auto ti : taps) {
    const TapCapture& tap = ctx.taps[ti];
    meta.from_dut = tap.from_dut;
    meta.port = tap.port;
    FrameCursor cur(tap);
    while (cur.next()) {
      meta.ts_ns = cur.ts_ns();
      meta.caplen = static_cast<std::uint32_t>(cur.bytes().size());
      bool picked = true;
      for (const Selector& s : sel) {
        if (!matches(get_field(s.id, cur.frame(), meta), *s.value)) {
          picked = false;
          break;
        }
      }
      if (!picked) continue;
      ++judged;
      const FieldValue v = get_field(*target, cur.frame(), meta);
      if (satisfies(spec, v)) continue;
      if (!findings.want_more()) {
        findings.count_only();
        continue;
      }
      Evidence e;
      e.pcap = pcap_of(tap);
      e.packet_index = static_cast<std::int64_t>(cur.index());
      e.ts_ns = cur.ts_ns();
      e.field = spec.field;
      e.expected = expected;
      e.observed = format_value(*target, v);
      const std::string_view df = display_field(*target, cur.frame().l3 == wire::L3Kind::kIpv4);
      e.display_filter = v.present() ? frame_filter(cur.index(), df, e.observed) : frame_filter(cur.index());
      findings.add(std::move(e));
    }
    malformed += cur.malformed();
  }
  r.metrics["judged"] = static_cast<double>(judged);
  r.metrics["violations"] = static_cast<double>(findings.count());
  r.metrics["malformed_frames"] = static_cast<double>(malformed);
  if (findings.count() > 0) {
    const Evidence& e = r.evidence.front();
    conclude(r, Verdict::kFail, spec.field + " must be " + expected + ": " + std::to_string(findings.count()) + " of " +
                                    std::to_string(judged) + " selected frames differ; first: " + e.observed + " (" +
                                    e.pcap + " packet " + std::to_string(e.packet_index) + ")");
    return r;
  }
  if (judged < spec.min_count) {
    conclude(r, Verdict::kFail, "at least " + std::to_string(spec.min_count) + " frame(s) matching the selection expected, " +
                                    std::to_string(judged) + " observed");
    return r;
  }
  if (judged == 0) {
    conclude(r, Verdict::kInconclusive, "no frame matched the selection: nothing to judge");
    return r;
  }
  conclude(r, Verdict::kPass, spec.field + " is " + expected + " in all " + std::to_string(judged) + " selected frames");
  return r;
}

}  // namespace mrc::harness
