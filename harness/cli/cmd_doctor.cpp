// `mrc-conform doctor`: what is wrong with a real-wire set-up, one line per finding
// (harness/lab/doctor.hpp has the checks), printed as each is made so a slow wait shows where it is.
#include <ostream>

#include "harness/cli/commands.hpp"
#include "harness/cli/run_inputs.hpp"
#include "harness/lab/doctor.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {

int run_doctor_cli(const DoctorCliOptions& o, std::ostream& out, std::ostream& err) {
  run::DoctorRequest r;
  r.testbed = o.testbed;
  r.dut = o.dut;
  r.agent_binary = o.agent_binary;
  if (!resolve_agent_token(o.agent_token_file, r.agent_token, err)) return run::kExitBadInput;
  const run::DoctorOutcome result =
      run::run_doctor(r, [&out](const run::DoctorFinding& f) { out << run::format_finding(f) << std::endl; });
  if (result.bad_input) {
    err << "error: " << result.error << '\n';
    return run::kExitBadInput;
  }
  std::size_t fails = 0;
  std::size_t warnings = 0;
  for (const run::DoctorFinding& f : result.findings) {
    fails += f.level == run::DoctorFinding::Level::kFail;
    warnings += f.level == run::DoctorFinding::Level::kWarn;
  }
  if (fails == 0) {
    out << "doctor: healthy" << (warnings ? " (" + std::to_string(warnings) + " warning(s) above)" : std::string()) << '\n';
    return run::kExitPass;
  }
  out << "doctor: " << fails << " problem(s); fix the FAIL lines above and run doctor again\n";
  return run::kExitFail;
}

}  // namespace mrc::cli
