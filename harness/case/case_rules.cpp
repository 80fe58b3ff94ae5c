#include <algorithm>
#include <set>

#include "harness/case/case_loader.hpp"
#include "harness/case/case_parts.hpp"
#include "harness/case/frame_fields.hpp"
#include "harness/case/limits.hpp"

namespace mrc::harness::detail {
namespace {

bool is_tag(std::string_view t) {
  if (t.empty()) return false;
  return std::all_of(t.begin(), t.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// Where a key of list item `index` of top-level list `list` was written; falls back to the item.
SourceLoc item_key_loc(const YAML::Node& root, std::string_view list, std::size_t index, std::string_view key) {
  const auto l = find_key(root, list);
  if (!l) return {};
  const YAML::Node item = nth(*l, index);
  // A step is `- kind: {body}`: look into the body.
  if (item.IsMap() && item.size() == 1 && item.begin()->second.IsMap()) {
    const YAML::Node body = item.begin()->second;
    if (find_key(body, key)) return key_loc(body, key);
    if (const auto f = find_key(body, "frame"); f && find_key(*f, key)) return key_loc(*f, key);
    if (const auto s = find_key(body, "select"); s && find_key(*s, key)) return key_loc(*s, key);
  }
  return find_key(item, key) ? key_loc(item, key) : loc_of(item);
}

// A port or plane the case names past the testbed's plane count.
struct PortOver {
  std::uint32_t port = 0;
  SourceLoc at;
  std::string path;
};

struct Refs {
  const Case& c;
  std::size_t ev_count;  // 0 = unknown
  std::optional<std::uint32_t> planes;
  std::vector<PortOver>* over;  // collected, reported once at testbed.planes (report_ports_over)
};

void check_ev_index(const Refs& r, std::uint32_t ev, SourceLoc at, const std::string& path, Validator& v) {
  if (r.ev_count > 0 && ev >= r.ev_count) {
    v.error(at, path, "EV index " + std::to_string(ev) + " is out of range (the case has " + std::to_string(r.ev_count) + " EVs)");
  }
}

void check_port(const Refs& r, std::uint32_t port, SourceLoc at, const std::string& path, Validator&) {
  if (r.planes && port > *r.planes) r.over->push_back(PortOver{port, at, path});
}

// One error for every port past the plane count, at its cause (testbed.planes), naming the
// first use and the highest port: a plane count one too low is one line, not one per EV.
void report_ports_over(const YAML::Node& root, const Refs& r, Validator& v) {
  if (r.over->empty()) return;
  const PortOver& first = r.over->front();
  std::uint32_t highest = 0;
  for (const PortOver& o : *r.over) highest = std::max(highest, o.port);
  const auto tb = find_key(root, "testbed");
  const SourceLoc at = tb && find_key(*tb, "planes") ? key_loc(*tb, "planes") : first.at;
  std::string msg = "the testbed has " + std::to_string(*r.planes) + " planes, but the case names port/plane " +
                    std::to_string(first.port) + " at " + first.path + " (line " + std::to_string(first.at.line) + ")";
  if (r.over->size() > 1) msg += " and " + std::to_string(r.over->size() - 1) + " more up to " + std::to_string(highest);
  v.error(at, "testbed.planes", msg + ": give planes: " + std::to_string(highest) + " or more, or name lower ports");
}

void check_step_refs(const YAML::Node& root, const Refs& r, Validator& v) {
  const auto& steps = r.c.stimulus;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string path = index_path("stimulus", i) + "." + std::string(steps[i].kind());
    auto at = [&](std::string_view key) { return item_key_loc(root, "stimulus", i, key); };
    const StepBody& b = steps[i].body;
    if (const auto* t = std::get_if<TrafficStep>(&b)) {
      if (t->qp >= r.c.config.qp.count) {
        v.error(at("qp"), path + ".qp", "QP index " + std::to_string(t->qp) + " but config.qp.count is " +
                                            std::to_string(r.c.config.qp.count));
      }
    } else if (const auto* in = std::get_if<InjectStep>(&b)) {
      if (in->frame.ev) check_ev_index(r, *in->frame.ev, at("ev"), path + ".frame.ev", v);
      // Without QPs (config.qp.count 0: connectionless endpoint operations only) a frame has no
      // default destination QP; endpoint frames go to DestQP 0x2 (W10).
      const bool ep_frame = in->frame.opcode == opcode_by_name("ep_req") || in->frame.opcode == opcode_by_name("ep_rsp");
      if (r.c.config.qp.count == 0 && !ep_frame && !in->frame.dqpn) {
        v.error(at("opcode"), path + ".frame", "config.qp.count is 0, so a non-endpoint frame needs an explicit 'dqpn'");
      }
      check_port(r, in->port, at("port"), path + ".port", v);
      if (in->after_packet) {
        for (std::uint32_t ev : in->after_packet->evs) check_ev_index(r, ev, at("after_packet"), path + ".after_packet.ev", v);
        // An expect is timed from the step before it; this one's time is the DUT's to set.
        if (i + 1 < steps.size() && std::holds_alternative<ExpectStep>(steps[i + 1].body)) {
          v.error(item_key_loc(root, "stimulus", i + 1, "expect"), index_path("stimulus", i + 1) + ".expect",
                  "an expect cannot follow an inject timed by 'after_packet': its time is known only when the DUT sends that packet");
        }
      }
    } else if (const auto* e = std::get_if<ExpectStep>(&b)) {
      if (e->port) check_port(r, *e->port, at("port"), path + ".port", v);
    } else if (const auto* im = std::get_if<ImpairStep>(&b)) {
      for (auto ev : im->select.evs) check_ev_index(r, ev, at("ev"), path + ".select.ev", v);
      if (im->select.plane) check_port(r, *im->select.plane, at("plane"), path + ".select.plane", v);
      if (im->params.port) check_port(r, *im->params.port, at("params"), path + ".params.port", v);
    } else if (const auto* ctl = std::get_if<ControlStep>(&b)) {
      if (ctl->ev) check_ev_index(r, *ctl->ev, at("ev"), path + ".ev", v);
      if (ctl->port) check_port(r, *ctl->port, at("port"), path + ".port", v);
    }
  }
}

// The capabilities a case's own content implies; each must be listed in `requires`, so a DUT
// without it gets UNSUPPORTED rather than FAIL.
void check_requires(const YAML::Node& root, const Case& c, Validator& v) {
  struct Need {
    Capability cap;
    std::string why;
  };
  std::vector<Need> needs;
  if (c.config.ev_format) {
    needs.push_back({capability_for(c.config.ev_format->mode),
                     "config.ev_format.mode is " + std::string(to_string(c.config.ev_format->mode))});
  }
  if (c.config.ev_profile) {
    if (c.config.ev_profile->mode == EvMode::kGenerated) needs.push_back({Capability::kEvGenerated, "config.ev_profile.mode is generated"});
    if (c.config.ev_profile->mode == EvMode::kAuto) needs.push_back({Capability::kEvAuto, "config.ev_profile.mode is auto"});
  }
  if (std::find(c.config.qp.caps.begin(), c.config.qp.caps.end(), QpCap::kDynamicMpr) != c.config.qp.caps.end()) {
    needs.push_back({Capability::kDynamicMpr, "config.qp.caps has dynamic_mpr"});
  }
  for (const auto& s : c.stimulus) {
    if (const auto* ctl = std::get_if<ControlStep>(&s.body)) {
      if (ctl->op == ControlOp::kProbeEv) needs.push_back({Capability::kEvProbe, "a control step sends an EV probe"});
      if (ctl->op == ControlOp::kPortStatusUpdate) needs.push_back({Capability::kPortStatus, "a control step sends a port-status update"});
    }
  }
  const SourceLoc at = find_key(root, "requires") ? key_loc(root, "requires") : loc_of(root);
  std::set<Capability> reported;
  for (const auto& n : needs) {
    if (c.requires_cap(n.cap) || !reported.insert(n.cap).second) continue;
    v.error(at, "requires", "missing '" + std::string(to_string(n.cap)) + "': " + n.why);
  }
  // A capability the case turns off cannot also be one it needs.
  for (Capability cap : c.config.device.caps_off) {
    if (c.requires_cap(cap)) {
      v.error(at, "requires", "'" + std::string(to_string(cap)) + "' is required but config.device.caps_off turns it off");
    }
  }
}

void check_levels(const YAML::Node& root, const Case& c, const ClauseIndex& clauses, Validator& v) {
  const auto list = find_key(root, "clauses");
  std::optional<Level> strongest;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < c.clauses.size(); ++i) {
    const std::string& id = c.clauses[i];
    const YAML::Node n = list ? nth(*list, i) : YAML::Node(YAML::NodeType::Undefined);
    const SourceLoc at = loc_of(n).line ? loc_of(n) : key_loc(root, "clauses");
    const std::string path = index_path("clauses", i);
    if (!seen.insert(id).second) {
      v.error(at, path, "clause '" + id + "' listed twice");
      continue;
    }
    const Clause* cl = clauses.find(id);
    if (!cl) {
      v.error(at, path, "unknown clause id '" + id + "'" + did_you_mean(clauses.suggest(id)) + " (not in " +
                            (clauses.file().empty() ? std::string("the clause index") : clauses.file().filename().string()) + ")");
      continue;
    }
    if (!strongest || cl->level < *strongest) strongest = cl->level;
  }
  // A case's level is the strongest of its clauses: labelling a MUST case SHOULD would let an
  // expectation file turn a MUST check off (design.md §4).
  if (strongest && c.level != *strongest && read_enum<Level>(root, "level", kLevelNames)) {
    v.error(loc_of(*find_key(root, "level")), "level",
            "level " + std::string(to_string(c.level)) + " does not match the strongest level of its clauses (" +
                std::string(to_string(*strongest)) + ")");
  }
}

void check_checks(const YAML::Node& root, const Case& c, Validator& v) {
  for (std::size_t i = 0; i < c.checks.size(); ++i) {
    const auto& ch = c.checks[i];
    for (std::size_t j = 0; j < ch.clauses.size(); ++j) {
      if (std::find(c.clauses.begin(), c.clauses.end(), ch.clauses[j]) == c.clauses.end()) {
        v.error(item_key_loc(root, "checks", i, "clauses"), index_path("checks", i) + ".clauses",
                "clause '" + ch.clauses[j] + "' is not one of the case's clauses");
      }
    }
    if (const auto* d = std::get_if<DistributionCheck>(&ch.params); d && d->qp && *d->qp >= c.config.qp.count) {
      v.error(item_key_loc(root, "checks", i, "qp"), index_path("checks", i) + ".qp",
              "QP index " + std::to_string(*d->qp) + " but config.qp.count is " + std::to_string(c.config.qp.count));
    }
  }
  // A run that sent nothing passes every "never does X" check; valid-behaviour cases with traffic
  // must prove they exercised the DUT.
  const bool traffic = std::any_of(c.stimulus.begin(), c.stimulus.end(),
                                   [](const StimulusStep& s) { return std::holds_alternative<TrafficStep>(s.body); });
  const bool control = std::any_of(c.checks.begin(), c.checks.end(),
                                   [](const Check& k) { return std::holds_alternative<PositiveControlCheck>(k.params); });
  if (c.behaviour == Behaviour::kValid && traffic && !control && !c.checks.empty()) {
    v.error(key_loc(root, "checks"), "checks",
            "a valid-behaviour case with traffic needs a positive_control check (proof the DUT was exercised)");
  }
}

// What a case's stimulus may move in total (limits.hpp): a run keeps every packet it captures, so
// the schema's per-step bounds alone let one case take gigabytes. The error sits at the step that
// crosses the limit.
void check_case_budget(const Case& c, Validator& v) {
  std::uint64_t writes = 0;
  std::uint64_t bytes = 0;
  std::uint64_t injects = 0;
  bool writes_over = false, bytes_over = false, injects_over = false;
  for (std::size_t i = 0; i < c.stimulus.size(); ++i) {
    const StimulusStep& step = c.stimulus[i];
    const std::string path = index_path("stimulus", i);
    if (const auto* t = std::get_if<TrafficStep>(&step.body)) {
      writes += t->writes;
      // writes <= 10^7 and size <= 2^31 per step: the product and the sum fit in 64 bits.
      bytes += static_cast<std::uint64_t>(t->writes) * t->size;
      if (writes > limits::kMaxCaseWrites && !writes_over) {
        writes_over = true;
        v.error(step.loc, path + ".traffic.writes",
                "the case's traffic programs add up to " + std::to_string(writes) + " writes, over " +
                    std::to_string(limits::kMaxCaseWrites) + " (kMaxCaseWrites, harness/case/limits.hpp)");
      }
      if (bytes > limits::kMaxCaseTrafficBytes && !bytes_over) {
        bytes_over = true;
        v.error(step.loc, path + ".traffic",
                "the case's traffic programs move " + std::to_string(bytes) + " bytes (writes x size), over " +
                    std::to_string(limits::kMaxCaseTrafficBytes) + " (kMaxCaseTrafficBytes, harness/case/limits.hpp)");
      }
    } else if (std::holds_alternative<InjectStep>(step.body)) {
      if (++injects > limits::kMaxCaseInjects && !injects_over) {
        injects_over = true;
        v.error(step.loc, path + ".inject",
                "more than " + std::to_string(limits::kMaxCaseInjects) +
                    " inject steps in one case (kMaxCaseInjects, harness/case/limits.hpp)");
      }
    }
  }
}

}  // namespace

void check_case_rules(const YAML::Node& root, const Case& c, const std::filesystem::path& file,
                      const ClauseIndex& clauses, Validator& v) {
  if (const auto idn = find_key(root, "id"); idn && idn->IsScalar() && !c.id.empty()) {
    const SourceLoc at = loc_of(*idn);
    const auto id = parse_case_id(c.id);
    if (!id) {
      v.error(at, "id", "case id '" + c.id + "' must be <area>-<v|i|o>-<nnn> with area one of spray, reorder, "
                        "failover, srcroute, evctl, reliab, invalid (e.g. spray-v-001)");
    } else {
      if (file.stem().string() != c.id) {
        v.error(at, "id", "id '" + c.id + "' does not match the file name '" + file.filename().string() +
                              "' (expected " + c.id + ".yaml)");
      }
      const std::string folder = file.parent_path().filename().string();
      const auto folder_area = parse_enum<Area>(kAreaNames, folder);
      if (folder_area && *folder_area != id->area) {
        v.error(at, "id", "case of area '" + std::string(to_string(id->area)) + "' is in folder '" + folder +
                              "/' (expected cases/" + std::string(to_string(id->area)) + "/)");
      }
      if (find_key(root, "behaviour") && read_enum<Behaviour>(root, "behaviour", kBehaviourNames) &&
          c.behaviour != id->behaviour) {
        v.error(loc_of(*find_key(root, "behaviour")), "behaviour",
                "behaviour '" + std::string(to_string(c.behaviour)) + "' does not agree with the id letter '" +
                    std::string(1, behaviour_letter(id->behaviour)) + "' (" + std::string(to_string(id->behaviour)) + ")");
      }
    }
  }
  check_levels(root, c, clauses, v);
  for (std::size_t i = 0; i < c.tags.size(); ++i) {
    if (!is_tag(c.tags[i])) {
      const auto t = find_key(root, "tags");
      const YAML::Node n = t ? nth(*t, i) : YAML::Node(YAML::NodeType::Undefined);
      v.error(loc_of(n).line ? loc_of(n) : key_loc(root, "tags"), index_path("tags", i),
              "tag '" + c.tags[i] + "' must be lower-case letters, digits, '-' or '_'");
    }
  }
  check_requires(root, c, v);
  std::size_t ev_count = c.config.ev_profile ? c.config.ev_profile->ev_count() : 0;
  std::vector<PortOver> over;
  Refs refs{c, ev_count, c.testbed.planes, &over};
  check_step_refs(root, refs, v);
  if (c.config.ev_profile && c.testbed.planes) {
    const auto evs = find_key(*find_key(*find_key(root, "config"), "ev_profile"), "evs");
    for (std::size_t i = 0; i < c.config.ev_profile->evs.size(); ++i) {
      const YAML::Node n = evs ? nth(*evs, i) : YAML::Node(YAML::NodeType::Undefined);
      check_port(refs, c.config.ev_profile->evs[i].port, key_loc(n, "port"),
                 index_path("config.ev_profile.evs", i) + ".port", v);
    }
  }
  report_ports_over(root, refs, v);
  check_checks(root, c, v);
  check_case_budget(c, v);
}

}  // namespace mrc::harness::detail
