// `mrc-conform doctor`: a healthy `--testbed netns` set-up (the binary, end to end) and a healthy
// lab set-up come out ok with exit 0; each check broken on purpose in a lab set-up (veth pairs in
// the root namespace, mrc-dut-agent on their far ends, a lab file naming the near ends) gives its
// message and exit 1; bad input is exit 2 with the lab file's own file:line message.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <set>

#include "harness/lab/doctor_checks.hpp"
#include "tests/harness/wirelab/doctor_lab.hpp"

namespace mrc::wirelab::testing {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A lab set-up of `pairs` veth pairs with the agent on the first `agent_ports` of them.
class DoctorLabTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MRC_SKIP_UNLESS_NETNS();
    lab_ = std::make_unique<DoctorLab>();
  }
  void build(int pairs, int agent_ports) {
    std::vector<int> on;
    for (int n = 1; n <= pairs; ++n) {
      ASSERT_EQ(lab_->add_pair(n), "");
      if (n <= agent_ports) on.push_back(n);
    }
    ASSERT_EQ(lab_->start_agent(on), "");
  }
  std::vector<std::string> near_ends(int pairs) const {
    std::vector<std::string> v;
    for (int n = 1; n <= pairs; ++n) v.push_back(DoctorLab::end(n, 'a'));
    return v;
  }
  int doctor(const std::vector<std::string>& lab_ports, const std::string& keys = "") {
    return lab_->doctor(lab_->write_lab(lab_ports, keys), lab_->agent_spec(), lab_->token_file());
  }
  std::unique_ptr<DoctorLab> lab_;
};

TEST_F(DoctorLabTest, HealthyLabIsOk) {
  build(2, 2);
  EXPECT_EQ(doctor(near_ends(2)), 0) << lab_->out << lab_->err;
  const std::string a1 = DoctorLab::end(1, 'a');
  EXPECT_TRUE(has(lab_->out, "ok   interface " + a1 + " (plane 1) exists and is up")) << lab_->out;
  EXPECT_TRUE(has(lab_->out, "ok   MTU of " + a1 + " is 9000")) << lab_->out;
  EXPECT_TRUE(has(lab_->out, "ok   capture opens on " + a1)) << lab_->out;
  // A veth offers no hardware timestamps: the bridge says it uses the kernel's.
  EXPECT_TRUE(has(lab_->out, "ok   nanosecond timestamps on " + a1 + "; receive timestamps: kernel (host), of those offered: "))
      << lab_->out;
  EXPECT_TRUE(has(lab_->out, "token accepted")) << lab_->out;
  EXPECT_TRUE(has(lab_->out, "ok   plane 2: interface " + DoctorLab::end(2, 'a'))) << lab_->out;
  EXPECT_TRUE(has(lab_->out, "ok   plane 1's interface " + a1 + " reaches agent port 1 only")) << lab_->out;
  EXPECT_TRUE(has(lab_->out, "pacing jitter of the bridge: p50 ")) << lab_->out;
  EXPECT_TRUE(has(lab_->out, "; fabric thread: default scheduling, asleep while it waits)")) << lab_->out;
  EXPECT_TRUE(has(lab_->out, "doctor: healthy")) << lab_->out;
  EXPECT_FALSE(has(lab_->out, "FAIL")) << lab_->out;
}

// A lab file that gives the fabric thread a core: the pacing check runs it that way and says so.
TEST_F(DoctorLabTest, AFabricThreadGivenACoreIsNamedInThePacingCheck) {
  build(1, 1);
  EXPECT_EQ(doctor(near_ends(1), "  fabric_priority: 10\n  fabric_spin_us: 20\n"), 0) << lab_->out << lab_->err;
  EXPECT_TRUE(has(lab_->out, "; fabric thread: SCHED_FIFO 10, awake the last 20.0 us of each wait)")) << lab_->out;
}

TEST_F(DoctorLabTest, MissingInterface) {
  build(2, 2);
  const std::string ghost = DoctorLab::end(9, 'a');
  EXPECT_EQ(doctor({DoctorLab::end(1, 'a'), ghost}), 1) << lab_->out << lab_->err;
  EXPECT_TRUE(has(lab_->out, "FAIL interface " + ghost + " (plane 2) does not exist: create it, or correct lab.ports.p2"))
      << lab_->out;
  EXPECT_TRUE(has(lab_->out, "doctor: ")) << lab_->out;
}

TEST_F(DoctorLabTest, InterfaceDown) {
  build(2, 2);
  const std::string a1 = DoctorLab::end(1, 'a');
  ASSERT_TRUE(hw::run_command({hw::ip_binary(), "link", "set", a1, "down"}).ok());
  EXPECT_EQ(doctor(near_ends(2)), 1) << lab_->out << lab_->err;
  EXPECT_TRUE(has(lab_->out, "FAIL interface " + a1 + " (plane 1) is down: ip link set " + a1 + " up")) << lab_->out;
}

TEST_F(DoctorLabTest, MtuTooSmall) {
  build(2, 2);
  const std::string a2 = DoctorLab::end(2, 'a');
  ASSERT_TRUE(hw::run_command({hw::ip_binary(), "link", "set", a2, "mtu", "1500"}).ok());
  EXPECT_EQ(doctor(near_ends(2)), 1) << lab_->out << lab_->err;
  const std::string need = std::to_string(run::doctor::needed_mtu());
  EXPECT_TRUE(has(lab_->out, "FAIL MTU of " + a2 + " is 1500, below the " + need +
                                 " the suite's largest frame needs: ip link set " + a2 + " mtu " + need))
      << lab_->out;
}

TEST_F(DoctorLabTest, AgentUnreachable) {
  ASSERT_EQ(lab_->add_pair(1), "");
  // A port bound but not listening: a connect is refused, and nobody else can take the port.
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  const std::string addr = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  const int rc = lab_->doctor(lab_->write_lab(near_ends(1)), "agent:" + addr, lab_->token_file());
  close(fd);
  EXPECT_EQ(rc, 1) << lab_->out << lab_->err;
  EXPECT_TRUE(has(lab_->out, "FAIL agent " + addr + ": cannot connect (connect_timeout 5 s)")) << lab_->out;
  EXPECT_TRUE(has(lab_->out, "start mrc-dut-agent beside the DUT")) << lab_->out;
  EXPECT_TRUE(has(lab_->out, "skip planes and port map")) << lab_->out;
}

TEST_F(DoctorLabTest, WrongToken) {
  build(1, 1);
  const auto wrong = lab_->write_file("wrong-token", "not-the-token\n");
  EXPECT_EQ(lab_->doctor(lab_->write_lab(near_ends(1)), lab_->agent_spec(), wrong), 1) << lab_->out << lab_->err;
  // agent:127.0.0.1:PORT -> "agent 127.0.0.1:PORT refused the token"
  EXPECT_TRUE(has(lab_->out, "FAIL agent " + lab_->agent_spec().substr(6) + " refused the token")) << lab_->out;
}

TEST_F(DoctorLabTest, SwappedPortMap) {
  build(2, 2);
  const std::string a1 = DoctorLab::end(1, 'a');
  const std::string a2 = DoctorLab::end(2, 'a');
  EXPECT_EQ(doctor({a2, a1}), 1) << lab_->out << lab_->err;
  EXPECT_TRUE(has(lab_->out, "FAIL plane 1's interface " + a2 + " reaches agent port 2: name " + a2 +
                                 " as lab.ports.p2 in the lab file"))
      << lab_->out;
  EXPECT_TRUE(has(lab_->out, "FAIL plane 2's interface " + a1 + " reaches agent port 1")) << lab_->out;
}

TEST_F(DoctorLabTest, FewerAgentPortsThanPlanes) {
  build(3, 2);
  EXPECT_EQ(doctor(near_ends(3)), 1) << lab_->out << lab_->err;
  EXPECT_TRUE(has(lab_->out, "FAIL plane 3 (interface " + DoctorLab::end(3, 'a') + ") has no agent port (the agent's ports: p1=" +
                                 DoctorLab::end(1, 'b') + ", p2=" + DoctorLab::end(2, 'b') + ")"))
      << lab_->out;
  EXPECT_TRUE(has(lab_->out, "FAIL plane 3's interface " + DoctorLab::end(3, 'a') + " reaches no agent port within probe_wait"))
      << lab_->out;
  EXPECT_TRUE(has(lab_->out, "ok   plane 2's interface " + DoctorLab::end(2, 'a') + " reaches agent port 2 only")) << lab_->out;
}

// The binary end to end: it makes the namespace, starts agent:reference in it, checks everything
// and removes what it made.
TEST(Doctor, HealthyNetnsExitsZeroAndLeavesNothing) {
  MRC_SKIP_UNLESS_NETNS();
  const auto before = hw::list_our_netns();
  const auto r = hw::run_command({built_binary("mrc-conform").string(), "doctor", "--testbed", "netns"},
                                 std::chrono::milliseconds(60'000));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "doctor: healthy")) << r.output;
  std::istringstream lines(r.output);
  int probes = 0;
  for (std::string line; std::getline(lines, line);) {
    // Everything ok; only the jitter may warn on a loaded machine.
    EXPECT_TRUE(line.starts_with("ok   ") || line.starts_with("WARN pacing jitter") || line.starts_with("doctor: "))
        << line;
    probes += has(line, "reaches agent port");
  }
  EXPECT_EQ(probes, 8) << r.output;  // --testbed netns: 8 planes
  // What doctor made is gone: no namespace of ours whose creator has exited.
  const std::set<std::string> had(before.begin(), before.end());
  for (const auto& n : hw::list_our_netns()) {
    if (had.count(n) != 0) continue;
    const auto owner = hw::owner_pid(n);
    EXPECT_FALSE(owner && kill(*owner, 0) != 0) << "left behind: " << n;
  }
}

// Bad input needs no privileges: exit 2, nothing checked.
TEST(Doctor, BadInputIsExitTwo) {
  DoctorLab lab;
  const auto broken = lab.write_file("broken.yaml", "lab:\n  ports:\n    p1: [unclosed\n");
  EXPECT_EQ(lab.doctor(broken, "agent:127.0.0.1:7411", lab.token_file()), 2);
  EXPECT_TRUE(has(lab.err, broken.string() + ":")) << lab.err;
  EXPECT_TRUE(lab.out.empty()) << lab.out;
  const auto bad_key = lab.write_file("badkey.yaml", "lab:\n  fabric: mini\n  portz: {}\n");
  EXPECT_EQ(lab.doctor(bad_key, "agent:127.0.0.1:7411", lab.token_file()), 2);
  EXPECT_TRUE(has(lab.err, bad_key.string() + ":3:3: lab.portz: unknown key")) << lab.err;
  const auto good = lab.write_lab({"eth0"});
  EXPECT_EQ(lab.doctor(good, "", lab.token_file()), 2);
  EXPECT_TRUE(has(lab.err, "give --dut agent:HOST:PORT")) << lab.err;
  EXPECT_EQ(lab.doctor(good, "agent:127.0.0.1:7411", lab.token_file().string() + ".missing"), 2);
  EXPECT_TRUE(has(lab.err, "cannot be read")) << lab.err;
  EXPECT_EQ(lab.doctor("netns", "agent:127.0.0.1:7411", lab.token_file()), 2);
  EXPECT_TRUE(has(lab.err, "starts its own agent")) << lab.err;
  const auto r = hw::run_command({built_binary("mrc-conform").string(), "doctor", "--no-such-option"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

}  // namespace
}  // namespace mrc::wirelab::testing
