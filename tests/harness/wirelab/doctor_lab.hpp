// A lab set-up for `mrc-conform doctor` tests, built in the root namespace: plain veth pairs
// (`mrcd-<pid>-<n>a`, the harness's side, and `mrcd-<pid>-<n>b`, the DUT's), mrc-dut-agent started
// on the b ends listening on 127.0.0.1:0, a lab testbed file naming the a ends and a token file.
// Everything is removed by the destructor, whatever the test's outcome; pairs a crashed test left
// behind (their pid is dead) are removed by the next rig. Header-only (the glob takes *_test.cpp).
#pragma once

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/cli/commands.hpp"
#include "tests/harness/wirelab/wirelab_support.hpp"

namespace mrc::wirelab::testing {

inline constexpr const char* kLabToken = "doctor-lab-token";
inline constexpr std::string_view kLabPrefix = "mrcd-";

inline std::filesystem::path built_binary(const std::string& name) {
  return std::filesystem::path(MRC_BINARY_DIR) / "bin" / name;
}

// Removes mrcd-<pid>-* interfaces whose pid is gone (a test killed before its teardown).
inline void remove_stale_lab_links() {
  DIR* d = opendir("/sys/class/net");
  if (d == nullptr) return;
  std::vector<std::string> stale;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (!n.starts_with(kLabPrefix)) continue;
    const pid_t pid = static_cast<pid_t>(std::atoi(n.c_str() + kLabPrefix.size()));
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(n);
  }
  closedir(d);
  for (const auto& n : stale) ip_out({"link", "del", n});
}

class DoctorLab {
 public:
  DoctorLab() {
    remove_stale_lab_links();
    char tmpl[] = "/tmp/mrc-doctor-test-XXXXXX";
    if (mkdtemp(tmpl) != nullptr) dir_ = tmpl;
    std::ofstream(dir_ / "token") << kLabToken << '\n';
  }
  ~DoctorLab() {
    agent_.reset();  // SIGTERM, bounded wait, SIGKILL
    for (const auto& n : links_) ip_out({"link", "del", n});  // deleting one end deletes the pair
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  DoctorLab(const DoctorLab&) = delete;
  DoctorLab& operator=(const DoctorLab&) = delete;

  // "mrcd-<pid>-<n>a" (harness side) or "...b" (agent side); n is 1..9.
  static std::string end(int n, char side) {
    return std::string(kLabPrefix) + std::to_string(getpid()) + "-" + std::to_string(n) + side;
  }

  // A veth pair n, both ends up, IPv6 off (no stray frames), MTU 9000. "" or what failed.
  std::string add_pair(int n) {
    const std::string a = end(n, 'a');
    const std::string b = end(n, 'b');
    const auto r = hw::run_command({hw::ip_binary(), "link", "add", a, "mtu", "9000", "type", "veth", "peer", "name", b,
                                    "mtu", "9000"});
    if (!r.ok()) return r.describe({"ip", "link", "add", a});
    links_.push_back(a);
    for (const auto& n2 : {a, b}) {
      if (std::string e = hw::silence_ipv6(n2); !e.empty()) return e;
      const auto up = hw::run_command({hw::ip_binary(), "link", "set", n2, "up"});
      if (!up.ok()) return up.describe({"ip", "link", "set", n2, "up"});
    }
    return "";
  }

  // mrc-dut-agent on the b ends of `pairs` (port i+1 = pair pairs[i]). "" or what failed.
  std::string start_agent(const std::vector<int>& pairs) {
    std::string ifaces;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      ifaces += (ifaces.empty() ? "p" : ",p") + std::to_string(i + 1) + "=" + end(pairs[i], 'b');
    }
    std::string err;
    agent_ = hw::spawn("", {built_binary("mrc-dut-agent").string(), "--token", kLabToken, "--ifaces", ifaces,
                            "--listen", "127.0.0.1:0", "--quiet"},
                       &err);
    if (!agent_) return err;
    const std::string line = agent_->read_line(std::chrono::milliseconds(10'000), &err);
    const auto at = line.find("127.0.0.1:");
    if (at == std::string::npos) return "the agent did not say where it listens: " + line + err + agent_->drain_output();
    agent_port_ = std::atoi(line.c_str() + at + 10);
    return agent_port_ > 0 ? "" : "no port in: " + line;
  }
  std::string agent_spec() const { return "agent:127.0.0.1:" + std::to_string(agent_port_); }

  // A lab testbed file: lab.ports.p<i+1> = ifnames[i], and `keys` (lines under lab:) before them.
  std::filesystem::path write_lab(const std::vector<std::string>& ifnames, const std::string& keys = "") {
    const std::filesystem::path f = dir_ / "lab.yaml";
    std::ofstream out(f);
    out << "lab:\n  fabric: mini\n" << keys << "  ports:\n";
    for (std::size_t i = 0; i < ifnames.size(); ++i) out << "    p" << i + 1 << ": " << ifnames[i] << '\n';
    return f;
  }
  std::filesystem::path write_file(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  std::filesystem::path token_file() const { return dir_ / "token"; }

  // `mrc-conform doctor` in-process; its stdout and stderr land in out / err.
  int doctor(const std::filesystem::path& lab, const std::string& dut, const std::filesystem::path& token) {
    cli::DoctorCliOptions o;
    o.testbed = lab.string();
    o.dut = dut;
    o.agent_token_file = token.string();
    std::ostringstream so;
    std::ostringstream se;
    const int rc = cli::run_doctor_cli(o, so, se);
    out = so.str();
    err = se.str();
    return rc;
  }
  std::string out;
  std::string err;

 private:
  std::filesystem::path dir_;
  std::vector<std::string> links_;
  std::unique_ptr<hw::ChildProcess> agent_;
  int agent_port_ = 0;
};

}  // namespace mrc::wirelab::testing
