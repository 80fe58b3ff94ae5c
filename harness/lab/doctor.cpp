// `mrc-conform doctor`: opens the testbed the way `run` does (open_wire_testbed: the namespace and
// agent of --testbed netns, or the lab file's interfaces and the user's agent), then runs the
// checks of doctor_checks.hpp in order. Problems with the request itself (options, the lab file)
// are bad input and nothing runs; problems of the set-up are findings.
#include "harness/lab/doctor.hpp"

#include <algorithm>

#include "harness/dut/binding_factory.hpp"
#include "harness/lab/doctor_checks.hpp"
#include "harness/lab/spelling_hints.hpp"
#include "harness/lab/wire_testbed.hpp"

namespace mrc::run {
namespace doctor {

void Findings::add(DoctorFinding f) {
  out_.push_back(std::move(f));
  if (cb_) cb_(out_.back());
}

}  // namespace doctor

namespace {

// Check 5 on the agent binding; true when the handshake succeeded.
bool check_agent(const harness::AgentBinding& agent, doctor::Findings& f) {
  const harness::DutStatus st = agent.status();
  if (st.ok()) {
    const harness::DutIdentity id = agent.identity();
    f.ok(id.name + " answers (" + id.version + "), token accepted");
    return true;
  }
  // The binding's message names the bound that expired, the version or the token and what to do
  // about the last two; an agent nobody reached needs a hint of its own.
  const bool unreachable = st.message.find("cannot connect") != std::string::npos;
  f.fail(st.message, unreachable ? "start mrc-dut-agent beside the DUT listening on that address (--listen), or "
                                   "correct --dut"
                                 : std::string());
  return false;
}

}  // namespace

std::string format_finding(const DoctorFinding& f) {
  static constexpr const char* kTag[] = {"ok   ", "WARN ", "FAIL ", "skip "};
  std::string s = kTag[static_cast<int>(f.level)] + f.what;
  if (!f.advice.empty()) s += ": " + f.advice;
  return s;
}

bool DoctorOutcome::healthy() const {
  return !bad_input && std::none_of(findings.begin(), findings.end(),
                                    [](const DoctorFinding& f) { return f.level == DoctorFinding::Level::kFail; });
}

DoctorOutcome run_doctor(const DoctorRequest& r, const std::function<void(const DoctorFinding&)>& on_finding) {
  DoctorOutcome out;
  auto bad = [&out](std::string why) {
    out.bad_input = true;
    out.error = std::move(why);
    return out;
  };
  const bool netns = r.testbed == "netns";
  std::string dut = r.dut;
  if (netns && dut.empty()) dut = "agent:reference";
  if (netns && !started_agent_backend(dut)) {
    return bad("doctor --testbed netns starts its own agent (--dut agent:reference[:defect,...]); for an agent you "
               "started, write a lab testbed file naming its interfaces and give --testbed FILE --dut " + dut);
  }
  if (!netns) {
    if (!dut.starts_with("agent:")) {
      return bad("doctor --testbed " + r.testbed + " checks the agent beside the DUT: give --dut agent:HOST:PORT");
    }
    std::string why;
    if (!harness::valid_binding_spec(dut, &why, harness::BindingOptions{r.agent_token, {}, {}, "--dut"})) {
      return bad(with_binding_hint(why));
    }
  }

  doctor::Findings f(out.findings, on_finding);
  WireTestbedRequest wr{r.testbed, dut, r.agent_token};
  wr.agent_binary = r.agent_binary;
  std::string why;
  const auto wire = open_wire_testbed(wr, &why);
  if (!wire) {
    if (!netns) return bad(why);  // the lab file's own file:line message
    f.fail(why, "");
    return out;
  }
  f.ok("testbed: " + wire->describe());
  const std::vector<harness::WirePortBinding>& ports = wire->dut().wire.ports;

  std::vector<doctor::OpenPort> open = doctor::check_interfaces(ports, netns ? std::string() : r.testbed, f);

  auto binding = harness::make_binding(wire->dut().spec, &why,
                                       harness::BindingOptions{wire->token(), r.agent_timeouts, wire->dut().wire, "--dut"});
  const auto* agent = dynamic_cast<const harness::AgentBinding*>(binding.get());
  if (agent == nullptr) {
    f.fail("cannot make the agent binding for " + wire->dut().spec + ": " + why, "report this as a harness bug");
  } else if (check_agent(*agent, f)) {
    doctor::check_planes(ports, agent->agent_ports(), f);
    doctor::check_port_map(*agent, open, r.probe_wait, f);
  } else {
    f.skip("planes and port map", "they need the agent");
  }
  binding.reset();  // BYE: the agent is not needed for the pacing run

  // The bridge opens captures of its own: close doctor's first.
  std::vector<harness::WirePortBinding> capturable;
  for (const doctor::OpenPort& p : open) capturable.push_back(harness::WirePortBinding{p.plane, p.ifname});
  open.clear();
  doctor::check_pacing(wire->fabric(), capturable, wire->dut().wire.bridge, r.pacing_run, f);
  return out;
}

}  // namespace mrc::run
