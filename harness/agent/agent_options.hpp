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
  int max_clients = 1;
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

#ifdef MRC_HAVE_VENDOR_BACKEND
// vendor_backend.cpp, compiled only against a vendor MRC SDK (-DMRC_VENDOR_SDK=..., README.md).
std::unique_ptr<Backend> make_vendor_backend(const AgentOptions& opt, std::string* error);
#endif

}  // namespace mrc::agent
