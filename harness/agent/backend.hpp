// What `mrc-dut-agent` drives: a backend is one DUT (the reference endpoint on real interfaces,
// or a vendor NIC through its SDK). The session (session.hpp) turns protocol requests into these
// calls; the server (server.hpp) multiplexes the backend's I/O descriptors with the control
// connections in one poll() loop and calls service() with the agent's clock.
//
// Every call returns an Outcome. kRejected carries the errno the DUT's host API returned (a DUT
// behaviour the harness judges); the other codes are agent-side problems.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/agentproto/messages.hpp"

namespace mrc::agent {

namespace ap = mrc::agentproto;

struct Outcome {
  ap::ErrorCode code = ap::ErrorCode::kNone;
  int err = 0;
  std::string text;

  bool ok() const { return code == ap::ErrorCode::kNone; }
  static Outcome success() { return {}; }
  static Outcome rejected(int err, std::string text) { return {ap::ErrorCode::kRejected, err, std::move(text)}; }
  static Outcome fail(ap::ErrorCode code, std::string text) { return {code, 0, std::move(text)}; }
};

class Backend {
 public:
  virtual ~Backend() = default;

  // Identity for HELLO_OK: "reference:spray-single-ev on p1=veth0,p2=veth1".
  virtual std::string identity() const = 0;
  // Declared features, spelled like the case vocabulary's `requires` names.
  virtual std::vector<std::string> capabilities() const = 0;
  virtual std::vector<ap::PortInfo> ports() const = 0;

  // APPLY_CONFIG replaces any earlier configuration (an implicit RESET first).
  virtual Outcome apply(const ap::ApplyConfig& cfg, ap::ApplyOk& out) = 0;
  virtual Outcome connect(const ap::PeerInfo& peer) = 0;
  virtual Outcome post_write(const ap::PostWrite& w) = 0;
  virtual Outcome post_recv(const ap::PostRecv& r) = 0;
  virtual Outcome poll(const ap::Poll& p, ap::Completions& out) = 0;
  virtual Outcome set_ev_state(const ap::SetEvState& s) = 0;
  virtual Outcome port_admin(const ap::PortAdmin& p) = 0;
  virtual Outcome ep_op(const ap::EpOp& op) = 0;
  virtual Outcome read_memory(const ap::ReadMemory& r, ap::MemoryBytes& out) = 0;
  virtual Outcome write_memory(const ap::WriteMemory& w) = 0;
  virtual Outcome query_state(ap::StateReport& out) = 0;
  virtual Outcome reset() = 0;

  // Version-2 control requests. A backend that does not offer one keeps the default, which
  // answers `unsupported` naming the request.
  virtual Outcome ev_profile_op(const ap::EvProfileOp&) { return unsupported("EV_PROFILE_OP"); }
  virtual Outcome cc_profile_op(const ap::CcProfileOp&) { return unsupported("CC_PROFILE_OP"); }
  virtual Outcome replace_ev(const ap::ReplaceEv&) { return unsupported("REPLACE_EV"); }
  virtual Outcome set_profile_online(const ap::SetProfileOnline&) { return unsupported("SET_PROFILE_ONLINE"); }
  // Before APPLY_CONFIG; holds for every later APPLY_CONFIG until RESET.
  virtual Outcome restrict_device(const ap::RestrictDevice&) { return unsupported("RESTRICT_DEVICE"); }

  // ---- lockstep (version 5, agent-protocol.md §9) ------------------------------------------------
  // REAL: the DUT's frames are on interfaces and its time is the agent's clock. VIRTUAL: the
  // backend takes frames and time only from ATTACH and STEP, and service() is never its clock.
  virtual ap::Clock clock() const { return ap::Clock::kReal; }
  virtual Outcome attach(const ap::Attach&) { return not_lockstep("ATTACH"); }
  virtual Outcome step(const ap::Step&, ap::Frames&) { return not_lockstep("STEP"); }

  // ---- I/O, driven by the server loop ------------------------------------------------------------
  // Descriptors to watch for readability (e.g. pcap selectable fds).
  virtual std::vector<int> io_fds() const { return {}; }
  // Receives what is waiting, runs timers due by `now_ns`, transmits what is queued. Called on
  // every loop turn and right before each request is handled, with a non-decreasing clock.
  virtual void service(std::uint64_t now_ns) = 0;
  // When service() next has timer work (UINT64_MAX: none).
  virtual std::uint64_t next_deadline_ns() const { return UINT64_MAX; }

 protected:
  Outcome unsupported(std::string_view request) const {
    return Outcome::fail(ap::ErrorCode::kUnsupported, std::string(request) + " is not offered by backend " + identity());
  }
  Outcome not_lockstep(std::string_view request) const {
    return Outcome::fail(ap::ErrorCode::kUnsupported,
                         std::string(request) + " is for a lockstep agent (mrc-dut-agent --clock virtual); backend " +
                             identity() + " drives real interfaces in real time");
  }
};

}  // namespace mrc::agent
