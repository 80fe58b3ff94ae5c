#include "harness/agent/agent_options.hpp"

#include <arpa/inet.h>

#include <charconv>
#include <fstream>

#include "harness/agent/frame_io.hpp"
#include "harness/agentproto/token_file.hpp"
#include "harness/agent/lockstep_backend.hpp"
#include "harness/agent/reference_backend.hpp"

namespace mrc::agent {
namespace {

template <typename T>
bool parse_number(const std::string& s, T& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

bool parse_mac(const std::string& s, wire::MacAddr& out) {
  if (s.size() != 17) return false;
  for (std::size_t i = 0; i < 6; ++i) {
    if (i > 0 && s[i * 3 - 1] != ':') return false;
    unsigned v = 0;
    const auto r = std::from_chars(s.data() + i * 3, s.data() + i * 3 + 2, v, 16);
    if (r.ec != std::errc{} || r.ptr != s.data() + i * 3 + 2) return false;
    out[i] = static_cast<std::uint8_t>(v);
  }
  return true;
}

}  // namespace

std::string agent_usage() {
  return R"(usage: mrc-dut-agent --token TOKEN --ifaces p1=IF[,p2=IF...] [options]
       mrc-dut-agent --token TOKEN --clock virtual --backend reference[:name,...]|plugin:PATH[:ARGS] [options]

Serves the mrc-conform DUT-agent control protocol (harness/dut/agent-protocol.md) and drives a
DUT on real interfaces, one interface per plane, or (--clock virtual) a DUT with no interfaces
in the harness's virtual time: frames and time come over the control connection (lockstep).

  --listen ADDR:PORT      control address (default 127.0.0.1:7411; [::1]:PORT for IPv6)
  --token TOKEN           shared secret every client must present in HELLO
  --token-file PATH       read the token from a file (first line)
                          (without either, $MRC_AGENT_TOKEN is used; one of them is required)
  --backend NAME          reference[:name,...]    the reference endpoint, optionally with named
                                                  defects and conformant variants (mrc-conform's
                                                  catalogs)
                          vendor                  a vendor NIC through its MRC SDK (only when the
                                                  agent was built with -DMRC_VENDOR_SDK=...)
                          plugin:PATH[:ARGS]      (--clock virtual only) a NIC model built against
                                                  harness/dut/plugin/mrc_dut_plugin.h
  --clock real|virtual    real (default): --ifaces and the wall clock. virtual: lockstep, no
                          interfaces; every control connection gets its own DUT
  --ifaces p1=IF,...      plane/port N is interface IF (ports 1..32)
  --max-clients N         concurrent control connections (default 1; 16 with --clock virtual)
  --hello-timeout-ms MS   a connection must complete HELLO within MS (default 5000)
  --idle-timeout-ms MS    close a connection idle for MS (default 300000)
  --mac XX:XX:XX:XX:XX:XX endpoint MAC (default: the MAC of the lowest port's interface)
  --gid IPV6              endpoint GID (default: fd6d:7263::<mac>)
  --ipv4 A.B.C.D          endpoint IPv4 address (enables RoCEv2 over IPv4 in UDP mode)
  --quiet                 no per-connection log lines on stderr
  --version, --help
)";
}

std::string parse_agent_options(const std::vector<std::string>& args, const char* env_token, AgentOptions& out) {
  std::string token_file;
  bool max_clients_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& v) -> bool {
      if (i + 1 >= args.size()) return false;
      v = args[++i];
      return true;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      out.help = true;
    } else if (a == "--version") {
      out.version = true;
    } else if (a == "--quiet") {
      out.quiet = true;
    } else if (a == "--listen") {
      if (!value(out.listen)) return "--listen needs ADDR:PORT";
    } else if (a == "--token") {
      if (!value(out.token)) return "--token needs a value";
    } else if (a == "--token-file") {
      if (!value(token_file)) return "--token-file needs a path";
    } else if (a == "--backend") {
      if (!value(out.backend)) return "--backend needs a name";
    } else if (a == "--ifaces") {
      if (!value(out.ifaces)) return "--ifaces needs p1=IF,...";
    } else if (a == "--clock") {
      if (!value(v) || (v != "real" && v != "virtual")) return "--clock needs real or virtual";
      out.virtual_clock = v == "virtual";
    } else if (a == "--max-clients") {
      max_clients_given = true;
      if (!value(v) || !parse_number(v, out.max_clients) || out.max_clients < 1 || out.max_clients > 64) {
        return "--max-clients needs a number 1..64";
      }
    } else if (a == "--hello-timeout-ms" || a == "--idle-timeout-ms") {
      std::uint32_t ms = 0;
      if (!value(v) || !parse_number(v, ms) || ms == 0) return a + " needs a positive number of milliseconds";
      (a == "--hello-timeout-ms" ? out.hello_timeout : out.idle_timeout) = std::chrono::milliseconds(ms);
    } else if (a == "--mac") {
      wire::MacAddr m{};
      if (!value(v) || !parse_mac(v, m)) return "--mac needs XX:XX:XX:XX:XX:XX";
      out.mac = m;
    } else if (a == "--gid") {
      wire::Ipv6Addr g{};
      if (!value(v) || inet_pton(AF_INET6, v.c_str(), g.data()) != 1) return "--gid needs an IPv6 address";
      out.gid = g;
    } else if (a == "--ipv4") {
      in_addr x{};
      if (!value(v) || inet_pton(AF_INET, v.c_str(), &x) != 1) return "--ipv4 needs A.B.C.D";
      out.ipv4 = ntohl(x.s_addr);
    } else {
      return "unknown option '" + a + "' (see --help)";
    }
  }
  if (out.help || out.version) return {};
  if (!token_file.empty()) {
    if (std::string why = agentproto::read_token_file(token_file, out.token); !why.empty()) {
      return "--token-file " + token_file + " " + why;
    }
  }
  if (out.token.empty() && env_token != nullptr) out.token = env_token;
  if (out.token.empty()) return "a token is required: --token, --token-file or $MRC_AGENT_TOKEN";
  if (out.token.size() > agentproto::limit::kToken) {
    return "the token is longer than " + std::to_string(agentproto::limit::kToken) + " bytes";
  }
  if (out.virtual_clock) {
    if (!out.ifaces.empty()) return "--ifaces: a --clock virtual agent has no interfaces (its frames come over the connection)";
    if (!max_clients_given) out.max_clients = 16;
    return {};
  }
  if (out.backend.starts_with("plugin:")) return "--backend plugin:... needs --clock virtual (a plugin has no interfaces)";
  if (out.ifaces.empty()) return "--ifaces is required (one interface per plane: p1=IF,p2=IF,...)";
  return {};
}

std::unique_ptr<Backend> make_lockstep_backend(const AgentOptions& opt, std::string* error) {
  auto b = std::make_unique<LockstepBackend>(opt.backend);
  if (std::string why = b->open(); !why.empty()) {
    if (error != nullptr) *error = "--backend " + opt.backend + ": " + why;
    return nullptr;
  }
  return b;
}

std::unique_ptr<Backend> make_backend(const AgentOptions& opt, std::string* error) {
  if (opt.virtual_clock) return make_lockstep_backend(opt, error);
  auto fail = [&](std::string e) -> std::unique_ptr<Backend> {
    if (error != nullptr) *error = std::move(e);
    return nullptr;
  };
  const std::string kind = opt.backend.substr(0, opt.backend.find(':'));
  if (kind == "vendor") {
#if defined(MRC_HAVE_VENDOR_BACKEND)
    return make_vendor_backend(opt, error);
#elif defined(MRC_VENDOR_SDK_DIR)
    return fail("--backend vendor: a vendor MRC SDK was found at " MRC_VENDOR_SDK_DIR
                ", but harness/agent/vendor_backend.cpp does not exist yet "
                "(harness/agent/README.md, 'Vendor backend', lists the calls it has to make)");
#else
    return fail("--backend vendor: not available: this mrc-dut-agent was built without a vendor MRC SDK. "
                "Configure with -DMRC_VENDOR_SDK=/path/to/sdk (see harness/agent/README.md)");
#endif
  }
  if (kind != "reference") return fail("--backend '" + opt.backend + "': expected reference[:defect-or-variant,...] or vendor");
  ReferenceOptions ro;
  if (opt.backend.size() > kind.size()) {
    std::string why;
    const auto policy = harness::parse_reference_policy(std::string_view(opt.backend).substr(kind.size() + 1), &why);
    if (!policy) return fail("--backend " + opt.backend + ": " + why);
    ro.policy = *policy;
  }
  ro.mac = opt.mac;
  ro.gid = opt.gid;
  ro.ipv4 = opt.ipv4;
  std::string e;
  const std::vector<IfaceBinding> ifaces = parse_ifaces(opt.ifaces, &e);
  if (ifaces.empty()) return fail(e);
  auto io = open_pcap_io(ifaces, &e);
  if (!io) return fail("--ifaces: " + e);
  return std::make_unique<ReferenceBackend>(std::move(ro), std::move(io));
}

}  // namespace mrc::agent
