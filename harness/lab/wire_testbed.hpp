// A run on real interfaces (`--testbed netns`, or a lab testbed file): what it holds for its whole
// length, made before the first case and removed after the last.
//
// `--testbed netns`: a fresh network namespace with one veth pair per plane (testbed/wire/netns.hpp);
// the DUT's ends are in the namespace, the harness's ends are bridged into the simulated fabric
// (testbed/wire_host.hpp). With `--dut agent:reference[:defect,...]` mrc-dut-agent is started inside
// the namespace on the DUT's ends, with the fabric's addresses for the DUT host and a fresh token,
// listening on the namespace's loopback.
// Everything is removed when the WireTestbed goes away, after a SIGINT/SIGTERM (netns.hpp's signal
// cleanup) and, after a crash, by the stale cleanup at the next start.
//
// A lab testbed file (testbed/wire/lab_testbed.hpp) names the harness-side interfaces of a DUT's
// ports instead; the agent is the user's.
//
// The peer (testbed host 1) may be on the wire too, for interop of two implementations: with
// `--peer agent:reference[:defect,...]` a second namespace and agent are made the same way (with
// the fabric's addresses of host 1); with a lab file `--peer agent:HOST:PORT` takes the file's
// `peer_ports`. Both agents share the run's token.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/dut/agent_binding.hpp"

namespace mrc::run {

struct WireTestbedRequest {
  std::string testbed;       // "netns" or a lab testbed file
  std::string dut;           // netns: agent:reference[:defects]; lab file: agent:HOST:PORT
  std::string agent_token;   // for a user's agent
  std::string peer = {};     // an agent spelling puts the peer on the wire as well; else unused
  std::uint32_t planes = 8;  // veth pairs (--testbed netns): the most planes a case may use
  std::uint64_t budget_ns = 0;  // 0: the default budget of the bridge
  double rate_gbps = 0;         // 0: the default forwarding rate of the bridge
  std::filesystem::path agent_binary = {};  // empty: mrc-dut-agent beside this executable
};

// One implementation on the wire: the spec its binding is made from (agent:HOST:PORT) and how its
// ports reach the fabric.
struct WireSide {
  std::string spec;
  harness::AgentWire wire;
};

class WireTestbed {
 public:
  ~WireTestbed();
  WireTestbed(const WireTestbed&) = delete;
  WireTestbed& operator=(const WireTestbed&) = delete;

  // The DUT's side, the peer's when it is on the wire too, and the token of their agents.
  const WireSide& dut() const { return dut_; }
  const std::optional<WireSide>& peer() const { return peer_; }
  const std::string& token() const { return token_; }
  // The fabric for cases that name no testbed ("mini", or the lab file's fabric).
  const std::string& fabric() const { return fabric_; }

  // One line for the report and the progress output.
  std::string describe() const;

  friend std::unique_ptr<WireTestbed> open_wire_testbed(const WireTestbedRequest& r, std::string* error);

 private:
  WireTestbed();
  // The namespace, the agent process and the token folder (wire_testbed.cpp). Not named here:
  // a header that declares mrc::harness::wire would shadow mrc::wire for every file including it.
  struct Held;
  std::unique_ptr<Held> held_;
  WireSide dut_;
  std::optional<WireSide> peer_;
  std::string token_;
  std::string fabric_ = "mini";
  std::string what_;
};

// The backend of an agent `--testbed netns` starts itself: "agent:reference[:defects]" ->
// "reference[:defects]"; nullopt for any other spelling (agent:HOST:PORT, an in-process binding).
std::optional<std::string> started_agent_backend(std::string_view spec);

// True for the testbed values that mean real interfaces.
bool is_wire_testbed(const std::string& testbed);
// The simulated fabric a testbed value runs cases on: the lab file's fabric, mini for netns, the
// value itself otherwise (a lab file that does not read gives mini; opening it says why).
std::string fabric_of_testbed(const std::string& testbed);

// The default timing budget of the real-time bridge on veth (see bench/bridge_bench.cpp).
inline constexpr std::uint64_t kDefaultBridgeBudgetNs = 500'000;
// What the bridge declares by default (bench/bridge_bench.cpp measures it on veth): it forwards
// each frame with a system call on each side, tens of thousands of frames a second on a small
// machine (Gb/s of 4 KiB frames), and adds tens of microseconds to a round trip. Congestion
// control on both ends gets these as line rate and base RTT, so neither offers the bridge more
// than it forwards.
inline constexpr double kDefaultBridgeRateGbps = 1.0;
inline constexpr std::uint64_t kDefaultBridgeRttNs = 50'000;
// How long past its stimulus a case may run on a wire testbed (the simulated fabric's default is
// 100 ms): traffic the fabric moves in microseconds takes the bridge milliseconds.
inline constexpr std::uint64_t kWireVirtualLimitNs = 2'000'000'000;

// Null and *error (one actionable line) when it cannot be made; whatever was made is removed.
std::unique_ptr<WireTestbed> open_wire_testbed(const WireTestbedRequest& r, std::string* error);

}  // namespace mrc::run
