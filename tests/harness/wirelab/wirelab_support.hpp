// Test support for the real-wire tests (label `wirelab`): privilege checks that skip with a clear
// message, `ip` queries, opening a pcap port inside a namespace, and an in-process agent whose
// server thread lives in the namespace while its control socket listens on our loopback.
// Header-only (the test glob takes *_test.cpp only).
#pragma once

#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "harness/agent/reference_backend.hpp"
#include "harness/agent/server.hpp"
#include "harness/testbed/wire/command.hpp"
#include "harness/testbed/wire/netns.hpp"
#include "harness/testbed/wire/netns_exec.hpp"
#include "harness/testbed/wire/pcap_port.hpp"
#include "harness/testbed/wire/tx_ring.hpp"

namespace mrc::wirelab::testing {

namespace hw = mrc::harness::wire;
namespace ag = mrc::agent;
namespace ap = mrc::agentproto;

#define MRC_SKIP_UNLESS_NETNS()                                                              \
  do {                                                                                       \
    if (const std::string why = ::mrc::harness::wire::netns_unavailable_reason(); !why.empty()) \
      GTEST_SKIP() << "needs root / CAP_NET_ADMIN + CAP_SYS_ADMIN for network namespaces: " << why; \
  } while (0)

inline std::string ip_out(std::vector<std::string> args) {
  args.insert(args.begin(), hw::ip_binary());
  return hw::run_command(args).output;
}

inline bool netns_listed(const std::string& name) {
  const std::string out = ip_out({"netns", "list"});
  // Lines are "<name>" or "<name> (id: N)".
  std::size_t pos = 0;
  while ((pos = out.find(name, pos)) != std::string::npos) {
    const bool start = pos == 0 || out[pos - 1] == '\n';
    const std::size_t end = pos + name.size();
    const bool stop = end == out.size() || out[end] == '\n' || out[end] == ' ';
    if (start && stop) return true;
    pos = end;
  }
  return false;
}

inline bool link_present(const std::string& ifname) { return access(("/sys/class/net/" + ifname).c_str(), F_OK) == 0; }

inline std::uint64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

// A broadcast frame of a local experimental EtherType (no stack takes it) numbered in its payload.
inline std::vector<std::uint8_t> numbered(std::uint32_t n, std::size_t len = 128) {
  std::vector<std::uint8_t> f(len, 0);
  for (std::size_t i = 0; i < 6; ++i) f[i] = 0xFF;
  f[6] = 0x02;
  f[12] = 0x88;
  f[13] = 0xB5;
  std::memcpy(f.data() + 14, &n, sizeof n);
  return f;
}

// A transmit ring on the namespace's end of plane 1's pair (frames of up to 4 KiB), opened inside
// it: the DUT's side sending bursts at the bridge.
inline std::unique_ptr<hw::TxRing> tx_ring_in(const hw::Netns& ns, std::string* err) {
  std::unique_ptr<hw::TxRing> tx;
  std::thread([&] {
    if (std::string e = hw::enter_netns(ns.name()); !e.empty()) {
      *err = e;
      return;
    }
    tx = hw::TxRing::open(ns.planes()[0].ns_if, 256, 4096, err);
  }).join();
  return tx;
}

// A pcap port opened inside namespace `ns` (its socket belongs there for its whole life).
inline std::unique_ptr<hw::PcapPort> open_port_in(const std::string& ns, const std::string& ifname,
                                                  hw::PcapPortOptions opt, std::string* error) {
  std::unique_ptr<hw::PcapPort> port;
  std::thread t([&] {
    if (std::string e = hw::enter_netns(ns); !e.empty()) {
      *error = e;
      return;
    }
    port = hw::PcapPort::open(ifname, opt, error);
  });
  t.join();
  return port;
}

// The agent in-process: the listening socket is made here (our namespace, 127.0.0.1:0), then a
// thread enters `ns`, opens the pcap ports on the namespace's interfaces, builds the reference
// backend and runs the server loop until the destructor stops it.
class InNetnsAgent {
 public:
  InNetnsAgent(const hw::Netns& ns, std::string token) {
    std::string err;
    const int fd = ag::open_listener("127.0.0.1:0", &err);
    EXPECT_GE(fd, 0) << err;
    port_ = ag::local_port(fd);
    std::vector<ag::IfaceBinding> ifaces;
    for (const auto& p : ns.planes()) ifaces.push_back({static_cast<std::uint8_t>(p.plane), p.ns_if});
    std::promise<std::string> ready;
    auto started = ready.get_future();
    thread_ = std::thread([this, name = ns.name(), ifaces, fd, token, &ready] {
      std::string e = hw::enter_netns(name);
      std::unique_ptr<ag::FrameIo> io;
      if (e.empty()) io = ag::open_pcap_io(ifaces, &e);
      if (!io) {
        close(fd);
        ready.set_value(e.empty() ? "no frame I/O" : e);
        return;
      }
      backend_ = std::make_unique<ag::ReferenceBackend>(ag::ReferenceOptions{}, std::move(io));
      ag::ServerConfig cfg;
      cfg.token = token;
      server_ = std::make_unique<ag::Server>(cfg, *backend_, fd);
      ready.set_value({});
      server_->run();
    });
    error_ = started.get();
    if (!error_.empty()) thread_.join();
  }
  ~InNetnsAgent() {
    if (thread_.joinable()) {
      server_->stop();
      thread_.join();
    }
  }
  const std::string& error() const { return error_; }
  std::uint16_t port() const { return port_; }

 private:
  std::thread thread_;
  std::unique_ptr<ag::ReferenceBackend> backend_;
  std::unique_ptr<ag::Server> server_;
  std::uint16_t port_ = 0;
  std::string error_;
};

}  // namespace mrc::wirelab::testing
