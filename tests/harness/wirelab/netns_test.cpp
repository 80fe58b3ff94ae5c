// netns/veth helpers: namespaces and veth pairs come and go without leftovers (checked with `ip
// netns list` and the interface list), also when the creating process is SIGKILLed (stale
// cleanup) or gets SIGTERM (signal cleanup); the kernel emits nothing on the silenced veths;
// processes and sockets land inside the namespace.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <fstream>

#include "tests/harness/wirelab/wirelab_support.hpp"

namespace mrc::wirelab::testing {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> links_of(pid_t pid) {
  std::vector<std::string> out;
  for (const auto& l : hw::list_our_links()) {
    if (hw::owner_pid(l) == pid) out.push_back(l);
  }
  return out;
}

// A forked child that creates a namespace, reports its name on a pipe and waits for a signal.
// The guard SIGKILLs and reaps it on every path out of the test, so no child outlives a failure.
struct NetnsChild {
  pid_t pid = -1;
  std::string name;  // "mrcc-..." or "ERROR ..."
  bool reaped = false;
  int status = 0;

  NetnsChild() {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid = fork();
    if (pid == 0) {
      close(fds[0]);
      std::string err;
      auto ns = hw::Netns::create({2, 1500}, &err);  // also installs the signal cleanup
      const std::string msg = ns ? ns->name() + "\n" : "ERROR " + err + "\n";
      (void)!write(fds[1], msg.data(), msg.size());
      if (!ns) _exit(1);
      for (;;) pause();  // until a signal
    }
    close(fds[1]);
    char c;
    while (pid > 0 && read(fds[0], &c, 1) == 1 && c != '\n') name += c;
    close(fds[0]);
  }
  int signal_and_reap(int sig) {
    kill(pid, sig);
    waitpid(pid, &status, 0);
    reaped = true;
    return status;
  }
  ~NetnsChild() {
    if (pid > 0 && !reaped) signal_and_reap(SIGKILL);
  }
};

TEST(WireNames, FitInterfaceNamesAndEncodeTheOwner) {
  for (pid_t pid : {1, 4242, 4194304}) {
    for (unsigned counter : {0u, 35u, 1295u, 5000u}) {
      for (int plane : {1, 9, 32}) {
        const std::string h = hw::make_veth_name(pid, counter, 'h', plane);
        EXPECT_LE(h.size(), 15u) << h;
        EXPECT_EQ(h.rfind("mrcc-", 0), 0u) << h;
        EXPECT_EQ(hw::owner_pid(h), pid) << h;
      }
      EXPECT_EQ(hw::owner_pid(hw::make_netns_name(pid, counter)), pid);
    }
  }
  EXPECT_FALSE(hw::owner_pid("eth0"));
  EXPECT_FALSE(hw::owner_pid("mrcc-"));
  EXPECT_FALSE(hw::owner_pid("mrcc-abc"));
  EXPECT_FALSE(hw::owner_pid("mrcc-x!-1"));
  EXPECT_FALSE(hw::owner_pid("docker0"));
}

TEST(WireNetns, CreatesAndRemovesEverything) {
  MRC_SKIP_UNLESS_NETNS();
  std::string name;
  std::vector<hw::VethPlane> planes;
  {
    std::string err;
    auto ns = hw::Netns::create({3, 9000}, &err);
    ASSERT_NE(ns, nullptr) << err;
    name = ns->name();
    planes = ns->planes();
    EXPECT_TRUE(netns_listed(name));
    ASSERT_EQ(planes.size(), 3u);
    for (const auto& p : planes) {
      EXPECT_TRUE(link_present(p.host_if)) << p.host_if;
      EXPECT_FALSE(link_present(p.ns_if)) << p.ns_if << " must live only inside the namespace";
      std::ifstream mtu("/sys/class/net/" + p.host_if + "/mtu");
      int m = 0;
      mtu >> m;
      EXPECT_EQ(m, 9000);
      EXPECT_NE(ip_out({"link", "show", p.host_if}).find("UP"), std::string::npos);
      const std::string inside = ip_out({"-n", name, "link", "show", p.ns_if});
      EXPECT_NE(inside.find("mtu 9000"), std::string::npos) << inside;
      EXPECT_NE(inside.find("UP"), std::string::npos) << inside;
      EXPECT_NE(p.host_mac, p.ns_mac);
      std::ifstream v6("/proc/sys/net/ipv6/conf/" + p.host_if + "/disable_ipv6");
      int off = 0;
      if (v6 >> off) {
        EXPECT_EQ(off, 1);
      }
    }
  }
  EXPECT_FALSE(netns_listed(name)) << ip_out({"netns", "list"});
  for (const auto& p : planes) EXPECT_FALSE(link_present(p.host_if)) << p.host_if;
  EXPECT_TRUE(links_of(getpid()).empty());
}

TEST(WireNetns, RejectsBadOptions) {
  std::string err;
  EXPECT_EQ(hw::Netns::create({0, 9000}, &err), nullptr);
  EXPECT_NE(err.find("planes"), std::string::npos);
  EXPECT_EQ(hw::Netns::create({2, 10}, &err), nullptr);
  EXPECT_NE(err.find("mtu"), std::string::npos);
}

TEST(WireNetns, KernelPutsNoStrayFramesOnTheVeths) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({1, 1500}, &err);
  ASSERT_NE(ns, nullptr) << err;
  hw::PcapPortOptions both;
  both.inbound_only = false;  // whatever crosses the link, either way
  auto port = hw::PcapPort::open(ns->planes()[0].host_if, both, &err);
  ASSERT_NE(port, nullptr) << err;
  harness::Capture cap;
  // Router solicitations go out within 1 s of link-up, DAD and MLD sooner: 1.5 s covers them.
  const auto end = std::chrono::steady_clock::now() + 1500ms;
  while (std::chrono::steady_clock::now() < end) {
    port->receive_into(cap, 64);
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(cap.size(), 0u) << "the kernel sent " << cap.size() << " frames on a silenced veth";
}

// A child creates a namespace and is SIGKILLed: nothing of ours ran, so the namespace stays until
// cleanup_stale() (what the next process start runs) removes it.
TEST(WireNetns, StaleCleanupAfterSigkill) {
  MRC_SKIP_UNLESS_NETNS();
  NetnsChild child;
  ASSERT_GT(child.pid, 0);
  const std::string line = child.name;
  ASSERT_EQ(line.rfind("mrcc-", 0), 0u) << line;
  EXPECT_TRUE(netns_listed(line));
  EXPECT_EQ(links_of(child.pid).size(), 2u);
  const int status = child.signal_and_reap(SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_TRUE(netns_listed(line)) << "nothing ran at SIGKILL: the namespace is stale now";

  std::string err;
  const auto removed = hw::cleanup_stale(&err);
  EXPECT_EQ(err, "");
  EXPECT_NE(std::find(removed.begin(), removed.end(), line), removed.end());
  EXPECT_FALSE(netns_listed(line)) << ip_out({"netns", "list"});
  EXPECT_TRUE(links_of(child.pid).empty());
  // Live owners are never touched: our own namespaces survive a cleanup.
  auto mine = hw::Netns::create({1, 1500}, &err);
  ASSERT_NE(mine, nullptr) << err;
  hw::cleanup_stale(nullptr);
  EXPECT_TRUE(netns_listed(mine->name()));
}

TEST(WireNetns, SigtermRemovesLiveNamespaces) {
  MRC_SKIP_UNLESS_NETNS();
  NetnsChild child;
  ASSERT_GT(child.pid, 0);
  const std::string line = child.name;
  ASSERT_EQ(line.rfind("mrcc-", 0), 0u) << line;
  ASSERT_TRUE(netns_listed(line));
  const int status = child.signal_and_reap(SIGTERM);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "the default action still ends the process";
  EXPECT_FALSE(netns_listed(line)) << "the handler removed the namespace";
  // The veths go with the namespace (the kernel takes them down asynchronously).
  for (int i = 0; i < 300 && !links_of(child.pid).empty(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(links_of(child.pid).empty());
}

TEST(WireNetns, ProcessesAndSocketsLandInside) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({2, 1500}, &err);
  ASSERT_NE(ns, nullptr) << err;
  auto child = hw::spawn(ns->name(), {hw::ip_binary(), "-o", "link", "show"}, &err);
  ASSERT_NE(child, nullptr) << err;
  std::string out;
  for (int i = 0; i < 200 && child->running(); ++i) std::this_thread::sleep_for(5ms);
  out = child->drain_output();
  EXPECT_NE(out.find(ns->planes()[0].ns_if), std::string::npos) << out;
  EXPECT_NE(out.find(ns->planes()[1].ns_if), std::string::npos) << out;
  EXPECT_EQ(out.find(ns->planes()[0].host_if), std::string::npos) << out;

  // A listener inside is unreachable from our loopback, reachable from a socket made inside.
  const int srv = hw::socket_in_netns(ns->name(), AF_INET, SOCK_STREAM, &err);
  ASSERT_GE(srv, 0) << err;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(srv, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(srv, 1), 0);
  const std::uint16_t port = ag::local_port(srv);
  a.sin_port = htons(port);
  const int outside = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_NE(connect(outside, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  close(outside);
  const int inside = hw::socket_in_netns(ns->name(), AF_INET, SOCK_STREAM, &err);
  ASSERT_GE(inside, 0) << err;
  EXPECT_EQ(connect(inside, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  close(inside);
  close(srv);
  EXPECT_NE(hw::enter_netns("mrcc-does-not-exist").find("open /run/netns/mrcc-does-not-exist"), std::string::npos);
}

TEST(WireCommand, BoundedAndNoShell) {
  const auto r = hw::run_command({"/bin/sh", "-c", "sleep 5"}, 200ms);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  const auto echo = hw::run_command({"/bin/echo", "a;b", "$HOME"});
  EXPECT_TRUE(echo.ok());
  EXPECT_EQ(echo.output, "a;b $HOME\n");  // arguments are passed verbatim, never through a shell
  const auto missing = hw::run_command({"/no/such/binary"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.describe({"/no/such/binary"}).find("exit 127"), std::string::npos);
}

}  // namespace
}  // namespace mrc::wirelab::testing
