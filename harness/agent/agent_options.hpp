// mrc-dut-agent's command line, and the backend it names. Kept out of main.cpp so both are
// unit-tested.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/agent/backend.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::agent {

struct AgentOptions {
  std::string listen = "127.0.0.1:7411";
  std::string token;                   // --token, --token-file or $MRC_AGENT_TOKEN
  std::string backend = "reference";   // "reference[:defect,...]" or "vendor"
  std::string ifaces;                  // "p1=veth0,p2=veth1"
  bool virtual_clock = false;          // --clock virtual: lockstep, no interfaces
  int max_clients = 1;                 // --clock virtual: 16 (each connection its own DUT)
  std::chrono::milliseconds hello_timeout{5000};
  std::chrono::milliseconds idle_timeout{300000};
  std::optional<wire::MacAddr> mac;
  std::optional<wire::Ipv6Addr> gid;
  std::uint32_t ipv4 = 0;
  bool quiet = false;
  bool help = false;
  bool version = false;
};

// Parses argv[1..]. "" or a message naming the bad option. `env_token` stands in for
// $MRC_AGENT_TOKEN (main passes getenv's value).
std::string parse_agent_options(const std::vector<std::string>& args, const char* env_token, AgentOptions& out);
std::string agent_usage();

// The backend --backend names, on the interfaces --ifaces binds. Null and *error when it cannot
// be built (unknown defect, interface missing, vendor backend not compiled in).
std::unique_ptr<Backend> make_backend(const AgentOptions& opt, std::string* error);
// --clock virtual: one lockstep backend per control connection (LockstepBackend); null and
// *error when the backend cannot be made (a plugin that does not load).
std::unique_ptr<Backend> make_lockstep_backend(const AgentOptions& opt, std::string* error);

#ifdef MRC_HAVE_VENDOR_BACKEND
// vendor_backend.cpp, compiled only against a vendor MRC SDK (-DMRC_VENDOR_SDK=..., README.md).
std::unique_ptr<Backend> make_vendor_backend(const AgentOptions& opt, std::string* error);
#endif

}  // namespace mrc::agent
