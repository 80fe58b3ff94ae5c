// The case's `impair` steps on the testbed: per-packet rules behind the impairment hook (their
// `select.link` resolved to testbed links) and scheduled faults (link down/up, black-hole of a
// link or of the DUT's link on a plane, switch down, DUT port down).
// Also what follows a traffic step that left late: its impairment rules and held injections.
#include <algorithm>

#include "harness/dut/profile_setup.hpp"
#include "harness/run/session_state.hpp"

namespace mrc::run {
namespace {
namespace stim = harness::stim;
using harness::Verdict;

std::string port_name(int port) { return "p" + std::to_string(port); }
std::string fault_kind_name(harness::ImpairKind k) { return std::string(harness::to_string(k)); }

// From inside the fabric (the impairment hook), as the DUT's packet starts onto its first link
// (`start_ns`; the fabric may have computed that start before its own clock's present): the
// testbed takes an injection at any time not before its own (the paced fabric's thread holds it
// already).
void send_triggered(SessionState& s, std::size_t k, std::uint64_t start_ns) {
  if (k >= s.triggered_injects.size()) return;
  SessionState::TriggeredInject& t = s.triggered_injects[k];
  const std::uint64_t at = std::max(start_ns + t.delay_ns, s.tb->now());
  if (std::string e = s.tb->inject_to(kDutHost, t.port, t.frame, at); !e.empty()) {
    t.error = "inject on port " + std::to_string(t.port) + ": " + e;
    return;
  }
  t.sent_at = at;
}
}  // namespace

bool setup_impairments(SessionState& s) {
  const harness::Case& c = s.c;
  std::vector<std::pair<std::size_t, const harness::ImpairStep*>> steps;
  std::vector<std::pair<std::size_t, const harness::ImpairSelect*>> triggers;
  for (std::size_t i = 0; i < c.stimulus.size(); ++i) {
    if (const auto* st = std::get_if<harness::ImpairStep>(&c.stimulus[i].body)) steps.emplace_back(i, st);
    const auto* in = std::get_if<harness::InjectStep>(&c.stimulus[i].body);
    if (in && in->after_packet) triggers.emplace_back(i, &*in->after_packet);
  }
  if (steps.empty() && triggers.empty()) return true;
  std::unordered_map<std::uint32_t, std::uint32_t> echo_to_index;
  for (const auto& e : s.dut_evs) echo_to_index.emplace(e.echo, e.index);
  s.impair = std::make_unique<stim::ImpairmentProgram>(steps, harness::wire_mode(s.setups.dut.format_mode),
                                                        std::move(echo_to_index), s.o.seed);
  s.impair->set_dscp(harness::wire_dscp(s.setups.dut.dscp));  // W13 what the run's endpoints send
  // Their frames are built with the other injections (case_session.cpp), in this order.
  for (const auto& [step, select] : triggers) s.impair->add_trigger(*select, step, kDutHost);
  const auto& rules = s.impair->rules();
  for (std::size_t r = 0; r < rules.size(); ++r) {
    if (rules[r].select.link.empty()) continue;
    const harness::LinkRef l = s.tb->find_link(rules[r].select.link);
    if (l.id == UINT32_MAX) {
      return s.fail(Verdict::kError, "stimulus[" + std::to_string(rules[r].step) + "]: no link named '" +
                                          rules[r].select.link + "' in " + s.tb->name());
    }
    s.impair->bind_link(r, l.id);
  }
  for (const stim::FaultPlan& f : s.impair->faults()) {
    ScheduledFault sf;
    sf.step = f.step;
    sf.kind = fault_kind_name(f.kind);
    sf.req.at_ns = f.at_ns;
    const std::string where = "stimulus[" + std::to_string(f.step) + "]: ";
    switch (f.kind) {
      case harness::ImpairKind::kLinkDown:
      case harness::ImpairKind::kLinkUp:
      case harness::ImpairKind::kBlackhole: {
        sf.req.kind = f.kind == harness::ImpairKind::kLinkDown ? harness::FaultRequest::Kind::kLinkDown
                      : f.kind == harness::ImpairKind::kLinkUp ? harness::FaultRequest::Kind::kLinkUp
                                                               : harness::FaultRequest::Kind::kBlackhole;
        sf.link = !f.link.empty() ? s.tb->find_link(f.link)
                                  : s.tb->host_link(kDutHost, static_cast<int>(f.plane.value_or(0)));
        if (sf.link.id == UINT32_MAX) {
          return s.fail(Verdict::kError, where + "no link '" + f.link + "' (plane " +
                                              std::to_string(f.plane.value_or(0)) + ") in " + s.tb->name());
        }
        sf.req.target = sf.link.name;
        break;
      }
      case harness::ImpairKind::kSwitchDown:
        sf.req.kind = harness::FaultRequest::Kind::kSwitchDown;
        sf.req.target = f.target_switch;
        if (!s.tb->switch_exists(f.target_switch)) {
          return s.fail(Verdict::kError, where + "no switch named '" + f.target_switch + "' in " + s.tb->name());
        }
        break;
      case harness::ImpairKind::kPortDown:
        sf.req.kind = harness::FaultRequest::Kind::kPortDown;
        sf.req.host = kDutHost;
        sf.req.port = static_cast<int>(f.port.value_or(1));
        sf.req.target = "dut." + port_name(sf.req.port);
        break;
      default:
        continue;
    }
    if (std::string e = s.tb->schedule_fault(sf.req); !e.empty()) return s.fail(Verdict::kError, where + e);
    s.faults.push_back(sf);
  }
  auto* prog = s.impair.get();
  SessionState* session = &s;
  s.tb->set_impairment_hook([prog, session](const harness::LinkPacket& p) {
    const stim::Decision d = prog->decide(
        stim::PacketInfo{p.now_ns, p.link, p.plane, p.from_host_port, p.bytes, p.len, p.from_host_port ? p.host : -1});
    for (const std::size_t k : prog->fired()) send_triggered(*session, k, p.now_ns);
    harness::ImpairAction a;
    using DK = stim::Decision::Kind;
    using AK = harness::ImpairAction::Kind;
    switch (d.kind) {
      case DK::kPass: a.kind = AK::kPass; break;
      case DK::kDrop: a.kind = AK::kDrop; break;
      case DK::kTrim: a.kind = AK::kTrim; break;
      case DK::kDuplicate: a.kind = AK::kDuplicate; break;
      case DK::kDelay: a.kind = AK::kDelay; break;
      case DK::kCorrupt: a.kind = AK::kCorrupt; break;
      case DK::kMarkCe: a.kind = AK::kMarkCe; break;  // ECT -> CE in place; the ICRC does not cover ECN
    }
    a.trim_bytes = d.trim_bytes;
    a.copies = d.copies;
    a.delay_ns = d.delay_ns;
    a.offset = d.offset;
    a.xor_mask = d.xor_mask;
    return a;
  });
  return true;
}

// Injections the case times after the traffic step (an ACK while a PSN is outstanding, a
// port-status update mid-transfer) meant that long after the traffic began: they follow it, as
// impairment rules do. Those not sent yet move; the rest of the queue is sorted again.
std::size_t follow_late_traffic(std::vector<SessionState::HeldInject>& held, std::size_t sent, std::uint64_t start_ns,
                                std::uint64_t late_ns) {
  std::size_t moved = 0;
  for (std::size_t i = sent; i < held.size(); ++i) {
    SessionState::HeldInject& h = held[i];
    if (h.followed || h.scheduled_ns <= start_ns) continue;
    h.at_ns += late_ns;
    h.followed = true;
    ++moved;
  }
  if (moved > 0) {
    std::stable_sort(held.begin() + static_cast<std::ptrdiff_t>(std::min(sent, held.size())), held.end(),
                     [](const auto& a, const auto& b) { return a.at_ns < b.at_ns; });
  }
  return moved;
}

bool send_held_inject(SessionState& s, const SessionState::HeldInject& h) {
  const std::uint64_t now = std::max(h.at_ns, s.tb->now());
  if (std::string e = s.tb->inject_to(kDutHost, h.port, h.frame, now); !e.empty()) {
    return s.fail(Verdict::kError, "stimulus[" + std::to_string(h.step) + "]: inject on port " + std::to_string(h.port) + ": " + e);
  }
  if (now > h.scheduled_ns) s.result.ctx.late_steps.emplace_back(h.scheduled_ns, now);
  return true;
}

void traffic_left_late(SessionState& s, std::uint64_t start_ns, std::uint64_t took) {
  s.result.ctx.late_steps.emplace_back(start_ns, took);
  const std::string late = " ns moved with it: its first write returned " + std::to_string(took - start_ns) +
                           " ns late (a post to the DUT takes real time)";
  if (const std::size_t moved = follow_late_traffic(s.held_injects, s.held_sent, start_ns, took - start_ns); moved > 0) {
    s.result.notes.push_back(std::to_string(moved) + " injection(s) timed after the traffic step at " +
                             std::to_string(start_ns) + late);
  }
  if (!s.impair) return;
  if (const std::size_t moved = s.impair->follow_late_traffic(start_ns, took - start_ns); moved > 0) {
    s.result.notes.push_back(std::to_string(moved) + " impairment rule(s) timed from the traffic step at " +
                             std::to_string(start_ns) + late);
  }
}

}  // namespace mrc::run
