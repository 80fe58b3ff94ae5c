// mrc-dut-agent: runs beside a DUT and serves the control protocol (harness/agent/README.md).
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "harness/agent/agent_options.hpp"
#include "harness/agent/server.hpp"

#ifndef MRC_VERSION
#define MRC_VERSION "0.0.0"
#endif

namespace {

std::atomic<mrc::agent::Server*> g_server{nullptr};

void on_stop_signal(int) {
  if (auto* s = g_server.load()) s->stop();  // writes an eventfd: async-signal-safe
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mrc::agent;
  const std::vector<std::string> args(argv + 1, argv + argc);
  AgentOptions opt;
  if (std::string e = parse_agent_options(args, std::getenv("MRC_AGENT_TOKEN"), opt); !e.empty()) {
    std::cerr << "mrc-dut-agent: " << e << "\n";
    return 2;
  }
  if (opt.help) {
    std::cout << agent_usage();
    return 0;
  }
  if (opt.version) {
    std::cout << "mrc-dut-agent " << MRC_VERSION << " (protocol " << mrc::agentproto::kProtocolVersion << ")\n";
    return 0;
  }
  std::string error;
  std::unique_ptr<Backend> backend = make_backend(opt, &error);
  if (!backend) {
    std::cerr << "mrc-dut-agent: " << error << "\n";
    return 2;
  }
  const int fd = open_listener(opt.listen, &error);
  if (fd < 0) {
    std::cerr << "mrc-dut-agent: " << error << "\n";
    return 2;
  }
  ServerConfig sc;
  sc.token = opt.token;
  sc.agent_name = std::string("mrc-dut-agent ") + MRC_VERSION;
  sc.max_clients = opt.max_clients;
  sc.hello_timeout = opt.hello_timeout;
  sc.idle_timeout = opt.idle_timeout;
  if (opt.virtual_clock) {
    sc.session_backend = [opt](std::string* why) { return make_lockstep_backend(opt, why); };
  }
  if (!opt.quiet) sc.log = [](std::string_view line) { std::cerr << "mrc-dut-agent: " << line << std::endl; };
  Server server(sc, *backend, fd);
  if (std::string e = tighten_timer_slack(); !e.empty()) {
    // Not fatal: timers still fire, only up to the default slack (50 us) late.
    std::cerr << "mrc-dut-agent: warning: " << e << "; DUT timers may fire up to 50 us late\n";
  }

  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  g_server.store(&server);

  // One line on stdout a supervisor can wait for (the port is the real one with --listen ...:0).
  const std::string addr = opt.listen.substr(0, opt.listen.rfind(':'));
  std::cout << "mrc-dut-agent: listening on " << addr << ":" << server.port() << " backend "
            << backend->identity() << std::endl;
  error = server.run();
  g_server.store(nullptr);
  if (!error.empty()) {
    std::cerr << "mrc-dut-agent: " << error << "\n";
    return 1;
  }
  const ServerStats& st = server.stats();
  if (!opt.quiet) {
    std::cerr << "mrc-dut-agent: stopped (" << st.accepted << " connections, " << st.requests << " requests, "
              << st.errors_sent << " errors sent)\n";
  }
  return 0;
}
