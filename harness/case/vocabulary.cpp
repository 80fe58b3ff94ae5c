#include "harness/case/vocabulary.hpp"

namespace mrc::harness {

std::string_view to_string(Area v) { return enum_name(kAreaNames, v); }
std::string_view to_string(ClauseArea v) { return enum_name(kClauseAreaNames, v); }
std::string_view to_string(Behaviour v) { return enum_name(kBehaviourNames, v); }
std::string_view to_string(Level v) { return enum_name(kLevelNames, v); }
std::string_view to_string(Basis v) { return enum_name(kBasisNames, v); }

std::string_view basis_meaning(Basis v) {
  switch (v) {
    case Basis::kPublished: return "published sources only: host API, standards, the MRC paper";
    case Basis::kSpec: return "in part MRC 1.0 facts two independent spec-derived sources agree on";
    case Basis::kSpecSingle: return "in part MRC 1.0 facts only one spec-derived source gives";
    case Basis::kModel: return "in part the project's own choice where no source fixes it";
  }
  return "";
}
std::string_view to_string(Role v) { return enum_name(kRoleNames, v); }
std::string_view to_string(Capability v) { return enum_name(kCapabilityNames, v); }
std::string_view to_string(EvFormatMode v) { return enum_name(kEvFormatModeNames, v); }
std::string_view to_string(EvMode v) { return enum_name(kEvModeNames, v); }
std::string_view to_string(ImpairKind v) { return enum_name(kImpairKindNames, v); }
std::string_view to_string(ControlOp v) { return enum_name(kControlOpNames, v); }
std::string_view to_string(TimingMetric v) { return enum_name(kTimingMetricNames, v); }

Capability capability_for(EvFormatMode mode) {
  switch (mode) {
    case EvFormatMode::kStev: return Capability::kStev;
    case EvFormatMode::kSrv6: return Capability::kSrv6;
    case EvFormatMode::kUdp: return Capability::kUdpMode;
  }
  return Capability::kStev;
}

}  // namespace mrc::harness
