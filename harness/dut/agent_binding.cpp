// AgentBinding: the handshake, the status of a reply, attach, apply/connect and the data path.
// The control plane and the after-run state are in agent_binding_control.cpp.
#include "harness/dut/agent_binding.hpp"

#include <algorithm>
#include <cerrno>

#include "harness/agentproto/capabilities.hpp"
#include "harness/dut/agent_setup.hpp"
#include "harness/dut/plane_ports.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::harness {
namespace {

namespace ap = mrc::agentproto;

std::string port_list(const std::vector<ap::PortInfo>& ports) {
  std::string s;
  for (const auto& p : ports) s += (s.empty() ? "p" : ", p") + std::to_string(p.port) + "=" + p.name;
  return s.empty() ? "none" : s;
}

template <typename Words>
std::string word_list(const Words& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : ", ") + std::string(w);
  return s;
}

// An agent's own words (its name, its ports' names) as the harness prints them: control bytes
// (escape sequences a terminal would obey) become \xNN.
std::string printable(const std::string& s) {
  std::string out;
  for (const unsigned char c : s) {
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

// Why a HELLO_OK cannot describe a DUT the harness can drive ("" when it can): a capability word
// outside the shared vocabulary would leave every case needing the intended word UNSUPPORTED with
// no hint why, and a DUT without a data port cannot be put on a testbed at all.
std::string hello_problem(const ap::HelloOk& ok, const std::string& agent) {
  std::vector<std::string> unknown;
  for (const auto& c : ok.capabilities) {
    if (!ap::known_capability(c)) unknown.push_back("'" + c + "'");
  }
  if (!unknown.empty()) {
    return agent + " declares " + (unknown.size() == 1 ? "a capability" : "capabilities") +
           " the harness does not know: " + word_list(unknown) + " (known: " + word_list(ap::kCapabilityNames) + ")";
  }
  if (ok.ports.empty()) return agent + " answered HELLO_OK with no ports: the DUT needs at least one data port";
  // Ports are planes 1..32, each once: a port 0, 200 or 1 twice cannot be cabled to a plane, and
  // every later message about ports would be about the wrong one.
  std::vector<bool> seen(ap::limit::kPorts + 1, false);
  for (const ap::PortInfo& p : ok.ports) {
    if (p.port < 1 || p.port > ap::limit::kPorts) {
      return agent + " declares port " + std::to_string(p.port) + " (" + printable(p.name) + "): ports are planes 1.." +
             std::to_string(ap::limit::kPorts);
    }
    if (seen[p.port]) return agent + " declares port " + std::to_string(p.port) + " twice";
    seen[p.port] = true;
  }
  return {};
}

}  // namespace

AgentBinding::AgentBinding(std::string host, std::uint16_t port, std::string token, AgentTimeouts timeouts,
                           AgentClock clock)
    : clock_(clock), token_(std::move(token)), client_(std::move(host), port, timeouts) {
  name_ = "agent:" + client_.address();
}

AgentBinding::~AgentBinding() { client_.close_politely(); }

void AgentBinding::set_wire(AgentWire wire) {
  wire_ = std::move(wire);
  client_.set_netns(wire_.netns);
}

std::string AgentBinding::failure() const {
  if (hello_status_ && !hello_status_->ok()) return hello_status_->message;
  if (lockstep_ && !lockstep_->failure().empty()) return lockstep_->failure();
  return client_.failure();
}

// ---- handshake and replies ------------------------------------------------------------------------

DutStatus AgentBinding::handshake() const {
  if (hello_status_) return *hello_status_;
  const std::string agent = "agent " + client_.address();
  hello_status_ = [&]() -> DutStatus {
    if (std::string e = client_.open(); !e.empty()) return DutStatus::failed(e);
    ap::Message reply;
    if (std::string e = client_.call(ap::Hello{ap::kProtocolVersion, token_, "mrc-conform agent binding"}, reply);
        !e.empty()) {
      return DutStatus::failed(e);
    }
    if (const auto* err = std::get_if<ap::Error>(&reply.body)) {
      if (err->code == ap::ErrorCode::kBadVersion) {
        return DutStatus::failed("protocol version mismatch: the harness speaks version " +
                                 std::to_string(ap::kProtocolVersion) + "; " + agent + " says: " + err->text);
      }
      if (err->code == ap::ErrorCode::kBadToken) {
        return DutStatus::failed(agent + " refused the token (" + err->text +
                                 "); give the agent's --token with --agent-token-file or $MRC_AGENT_TOKEN");
      }
      return DutStatus::failed(agent + " refused HELLO: " + std::string(ap::to_string(err->code)) + ": " + err->text);
    }
    const auto* ok = &std::get<ap::HelloOk>(reply.body);  // the client admits HELLO_OK or ERROR only
    if (ok->version != ap::kProtocolVersion) {
      return DutStatus::failed("protocol version mismatch: the harness speaks version " +
                               std::to_string(ap::kProtocolVersion) + ", " + agent + " answered HELLO_OK with version " +
                               std::to_string(ok->version));
    }
    if (std::string e = hello_problem(*ok, agent); !e.empty()) return DutStatus::failed(e);
    if (clock_ == AgentClock::kVirtual && ok->clock != ap::Clock::kVirtual) {
      return DutStatus::failed("--clock virtual, but " + agent + " (" + ok->agent +
                               ") drives real interfaces in real time: start a lockstep agent (mrc-dut-agent "
                               "--clock virtual --backend ...) or drop --clock virtual");
    }
    if (clock_ == AgentClock::kReal && ok->clock != ap::Clock::kReal) {
      return DutStatus::failed("--clock real, but " + agent + " (" + ok->agent +
                               ") is a lockstep agent (virtual time): drop --clock real, or start it without "
                               "--clock virtual on real interfaces");
    }
    hello_ = *ok;
    hello_.agent = printable(hello_.agent);
    for (ap::PortInfo& p : hello_.ports) p.name = printable(p.name);
    return DutStatus::success();
  }();
  return *hello_status_;
}

DutStatus AgentBinding::request(std::string_view method, ap::Body req, ap::Body* reply) const {
  if (DutStatus st = handshake(); !st.ok()) return DutStatus::failed(std::string(method) + ": " + st.message);
  const std::string what(ap::to_string(ap::type_of(req)));
  if (lockstep_) {
    // The DUT sees this request after every frame and advance the fabric made before it.
    if (!lockstep_->flush()) return DutStatus::failed(std::string(method) + ": " + lockstep_->failure());
    lockstep_->touch();
  }
  ap::Message m;
  // The request crosses a socket, not the fabric: a fabric paced to real time runs meanwhile.
  if (testbed_ != nullptr) testbed_->release_fabric();
  std::string e = client_.call(std::move(req), m);
  if (testbed_ != nullptr) testbed_->hold_fabric();
  if (!e.empty()) return DutStatus::failed(std::string(method) + ": " + e);
  const auto* err = std::get_if<ap::Error>(&m.body);
  if (err == nullptr) {
    if (reply != nullptr) *reply = std::move(m.body);
    return DutStatus::success();
  }
  const std::string text = std::string(method) + ": " + err->text;
  switch (err->code) {
    case ap::ErrorCode::kRejected: return DutStatus::rejected(err->err, text);
    case ap::ErrorCode::kUnsupported:
    case ap::ErrorCode::kUnknownType:
      return DutStatus{DutStatus::Code::kUnimplemented, 0,
                       "agent " + client_.address() + " does not offer " + what + " (" + text + ")"};
    default:
      return DutStatus::failed("agent " + client_.address() + " answered " + what + " with " +
                               std::string(ap::to_string(err->code)) + ": " + text);
  }
}

// ---- identity ---------------------------------------------------------------------------------------

DutIdentity AgentBinding::identity() const {
  DutIdentity id;
  id.binding = "agent";
  id.name = name_;
  const DutStatus st = handshake();
  if (!st.ok()) {
    id.version = "unknown (no handshake)";
    id.details = st.message;
    return id;
  }
  id.version = hello_.agent + ", protocol version " + std::to_string(hello_.version);
  id.details = "agent " + client_.address() + ", ports " + port_list(hello_.ports);
  return id;
}

DutStatus AgentBinding::status() const {
  if (lockstep_ && !lockstep_->failure().empty()) return DutStatus::failed(lockstep_->failure());
  return handshake();
}

std::vector<ap::PortInfo> AgentBinding::agent_ports() const {
  if (!handshake().ok()) return {};
  return hello_.ports;
}

std::vector<std::string> AgentBinding::capabilities() const {
  if (!handshake().ok()) return {};
  return hello_.capabilities;
}

// ---- testbed ----------------------------------------------------------------------------------------

DutStatus AgentBinding::attach(Testbed& testbed, int host) {
  if (DutStatus st = handshake(); !st.ok()) return DutStatus::failed("attach: " + st.message);
  testbed_ = &testbed;
  host_ = host;
  bound_ports_.clear();
  lockstep_.reset();
  if (hello_.clock == ap::Clock::kVirtual) return attach_lockstep(testbed, host);
  if (wire_.ports.empty()) {
    return DutStatus::failed("attach: the agent's ports (" + port_list(hello_.ports) + ") are real interfaces; putting " +
                             "them on host " + std::to_string(host) + " of testbed " + testbed.name() +
                             " needs the real-time bridge: run with --testbed netns, or a lab testbed file whose wire: " +
                             "section names the harness-side interface of each agent port");
  }
  // Every plane of the case's testbed needs an agent port and a harness-side interface.
  std::vector<WirePortBinding> use;
  for (std::uint32_t p = 1; p <= testbed.planes(); ++p) {
    const bool agent_has = std::any_of(hello_.ports.begin(), hello_.ports.end(),
                                       [p](const ap::PortInfo& i) { return i.port == p; });
    const auto w = std::find_if(wire_.ports.begin(), wire_.ports.end(),
                                [p](const WirePortBinding& b) { return b.port == p; });
    if (!agent_has || w == wire_.ports.end()) {
      return DutStatus{DutStatus::Code::kUnsupported, 0,
                       "attach: testbed " + testbed.name() + " has " + std::to_string(testbed.planes()) +
                           " planes but the DUT's wire has no port p" + std::to_string(p) + " (agent ports " +
                           port_list(hello_.ports) + ", " + std::to_string(wire_.ports.size()) + " bridged interfaces)"};
    }
    use.push_back(*w);
  }
  std::string why;
  auto bridge = open_wire_host(use, WireHostOptions{}, &why);
  if (!bridge) return DutStatus::failed("attach: the real-time bridge cannot open the DUT's interfaces: " + why);
  if (std::string e = testbed.bind_wire(host, std::move(bridge), wire_.bridge); !e.empty()) {
    return DutStatus::failed("attach: " + e);
  }
  for (const auto& w : use) bound_ports_.push_back(w.port);
  return DutStatus::success();
}

DutStatus AgentBinding::attach_lockstep(Testbed& testbed, int host) {
  if (DutStatus st = check_testbed_host(testbed, host); !st.ok()) return st;
  if (testbed.planes() < 1 || testbed.planes() > ap::limit::kMaxPlanes) {
    return DutStatus{DutStatus::Code::kUnsupported, 0,
                     "attach: testbed " + testbed.name() + " has " + std::to_string(testbed.planes()) +
                         " planes; a lockstep DUT has 1.." + std::to_string(ap::limit::kMaxPlanes)};
  }
  const HostAddress addr = testbed.host_address(host);
  const ap::Attach a{addr.mac, addr.gid, addr.ipv4, static_cast<std::uint8_t>(testbed.planes())};
  if (DutStatus st = request("attach", a); !st.ok()) return st;
  auto call = [this](ap::Body req, ap::Body& reply) -> std::string {
    ap::Message m;
    if (std::string e = client_.call(std::move(req), m); !e.empty()) return e;
    if (const auto* err = std::get_if<ap::Error>(&m.body)) {
      return "agent " + client_.address() + " answered STEP with " + std::string(ap::to_string(err->code)) + ": " + err->text;
    }
    reply = std::move(m.body);
    return {};
  };
  auto admin = [this](std::uint8_t port, bool up) -> int {
    const DutStatus st = request(up ? "port_up" : "port_down", ap::PortAdmin{port, up});
    return st.ok() ? 0 : (st.err != 0 ? st.err : EIO);
  };
  lockstep_ = std::make_unique<LockstepPort>(call, admin);
  if (std::string why = testbed.attach_port(host, *lockstep_); !why.empty()) {
    lockstep_.reset();
    return DutStatus::failed("attach: testbed refused the lockstep DUT: " + why);
  }
  for (std::uint32_t p = 1; p <= testbed.planes(); ++p) bound_ports_.push_back(static_cast<std::uint8_t>(p));
  return DutStatus::success();
}

DutStatus AgentBinding::wake_after(DutStatus st) {
  if (st.ok() && lockstep_ && testbed_ != nullptr) testbed_->wake(host_);
  return st;
}

std::vector<PortRef> AgentBinding::data_ports() const {
  std::vector<PortRef> out;
  for (std::uint8_t p : bound_ports_) out.push_back(PortRef{host_, p});
  return out;
}

// ---- configuration ------------------------------------------------------------------------------------

DutStatus AgentBinding::apply(const DutSetup& setup, DutLocal& local) {
  ap::Body reply;
  if (DutStatus st = request("apply", to_apply_config(setup), &reply); !st.ok()) return st;
  const auto& ok = std::get<ap::ApplyOk>(reply);
  if (ok.regions.empty()) return DutStatus::failed("apply: agent " + client_.address() + " registered no buffer");
  local = to_dut_local(ok);
  local_ = local;
  control_dscp_ = setup.dscp.control;
  if (testbed_ != nullptr) {
    // The fabric routes to a host by the testbed's address plan; a DUT with other addresses
    // would never see a frame.
    const HostAddress want = testbed_->host_address(host_);
    if (local.gid != want.gid || local.mac != want.mac) {
      return DutStatus::failed("apply: the DUT answered with GID " + format_gid(local.gid) + " and MAC " +
                               format_mac(local.mac) + ", but the fabric routes host " + std::to_string(host_) +
                               " as GID " + format_gid(want.gid) + ", MAC " + format_mac(want.mac) +
                               ": give the DUT these addresses (mrc-dut-agent --gid " + format_gid(want.gid) +
                               " --mac " + format_mac(want.mac) + ")");
    }
  }
  if (testbed_ != nullptr && !lockstep_) {
    // An agent port the case's testbed has no plane for is not cabled in this case: taken down,
    // so the DUT neither counts it up (EP port status) nor sends on it.
    for (const ap::PortInfo& i : hello_.ports) {
      if (std::find(bound_ports_.begin(), bound_ports_.end(), i.port) != bound_ports_.end()) continue;
      if (DutStatus st = port_admin(i.port, false); !st.ok()) {
        return DutStatus::failed("apply: taking down port p" + std::to_string(i.port) + ", which testbed " +
                                 testbed_->name() + " does not cable: " + st.message);
      }
    }
  }
  ever_denied_ = std::set<std::uint32_t>(setup.denied.begin(), setup.denied.end());
  pending_completions_.clear();
  pending_events_.clear();
  return wake_after(DutStatus::success());
}

DutStatus AgentBinding::connect(const DutLocal& remote) { return request("connect", ap::Connect{to_peer_info(remote)}); }

// ---- data path ------------------------------------------------------------------------------------------

DutStatus AgentBinding::fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  for (std::size_t at = 0; at < bytes.size(); at += ap::limit::kMemoryChunk) {
    const auto piece = bytes.subspan(at, std::min(ap::limit::kMemoryChunk, bytes.size() - at));
    ap::WriteMemory w{local_.buffer_va + offset + at, std::vector<std::uint8_t>(piece.begin(), piece.end())};
    if (DutStatus st = request("fill_local", std::move(w)); !st.ok()) return st;
  }
  return DutStatus::success();
}

DutStatus AgentBinding::read_local(std::uint64_t offset, std::span<std::uint8_t> out) const {
  for (std::size_t at = 0; at < out.size(); at += ap::limit::kMemoryChunk) {
    const std::size_t n = std::min(ap::limit::kMemoryChunk, out.size() - at);
    ap::Body reply;
    const ap::ReadMemory r{local_.buffer_va + offset + at, static_cast<std::uint32_t>(n)};
    if (DutStatus st = request("read_local", r, &reply); !st.ok()) return st;
    const auto& mem = std::get<ap::MemoryBytes>(reply);
    if (mem.bytes.size() != n) {
      return DutStatus::failed("read_local: agent " + client_.address() + " returned " + std::to_string(mem.bytes.size()) +
                               " bytes for " + std::to_string(n));
    }
    std::copy(mem.bytes.begin(), mem.bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
  }
  return DutStatus::success();
}

DutStatus AgentBinding::post_write(const WriteRequest& w, std::uint64_t) {
  return wake_after(request(
      "post_write", ap::PostWrite{w.qp, w.wr_id, 0, w.local_offset, w.length, w.remote_addr, w.rkey, w.with_imm, w.imm}));
}

DutStatus AgentBinding::post_recv(std::uint32_t qp, std::uint64_t wr_id) {
  return request("post_recv", ap::PostRecv{qp, wr_id});
}

void AgentBinding::poll_once(std::uint64_t now_ns) {
  // The agent's clock is not the testbed's: records carry the harness time of the poll, as the
  // in-process binding's do, and how long before its reply the agent stamped each (age_ns, on the
  // agent's clock alone): the runner dates them back by that much from its clock after the reply,
  // so a completion is not seen as late as the poll that fetched it. A failure is kept by the
  // client; the next status call reports it.
  ap::Body reply;
  const ap::Poll p{static_cast<std::uint32_t>(ap::limit::kPollItems), static_cast<std::uint32_t>(ap::limit::kPollItems)};
  if (!request("poll", p, &reply).ok()) return;
  const auto& c = std::get<ap::Completions>(reply);
  auto age = [&c](std::uint64_t stamped) { return c.now_ns > stamped ? c.now_ns - stamped : 0; };
  for (const auto& x : c.completions) {
    pending_completions_.push_back(CompletionRecord{now_ns, x.wr_id, static_cast<int>(x.status), x.is_send, x.has_imm,
                                                    x.imm, x.byte_len, age(x.at_ns)});
  }
  for (const auto& e : c.events) {
    EvEventRecord r;
    r.at_ns = now_ns;
    r.age_ns = age(e.at_ns);
    r.ev_index = e.ev_index;
    r.port = e.port;
    r.state = e.state;
    r.drop_count = e.drop_count;
    pending_events_.push_back(r);
  }
}

std::size_t AgentBinding::poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns) {
  if (pending_completions_.empty()) poll_once(now_ns);
  const std::size_t n = pending_completions_.size();
  out.insert(out.end(), pending_completions_.begin(), pending_completions_.end());
  pending_completions_.clear();
  return n;
}

std::size_t AgentBinding::poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns) {
  if (pending_events_.empty()) poll_once(now_ns);
  const std::size_t n = pending_events_.size();
  out.insert(out.end(), pending_events_.begin(), pending_events_.end());
  pending_events_.clear();
  return n;
}

}  // namespace mrc::harness
