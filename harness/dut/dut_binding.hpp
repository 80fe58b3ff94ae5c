// The DUT binding: how the harness drives a device under test, whatever it is (design.md §2,
// anchors G9). One interface, several bindings: `reference` (the in-process reference endpoint as
// a host of the simulated testbed, optionally with named defects), later `agent` (a remote DUT
// behind real interfaces). Every method has a default that answers "unimplemented" with a message
// naming the binding and the method, so a partial binding (ondatra style) runs the cases it can
// and the runner turns the rest into a clear ERROR instead of a crash.
//
// A case run drives a binding in this order: status() -> capabilities() -> attach() -> apply() -> connect()
// -> (post_write / post_recv / control calls / polls while the testbed runs) -> ev_table(),
// read_local(), counters() -> reset().
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/dut/dut_setup.hpp"
#include "harness/observe/observations.hpp"
#include "reference/defects.hpp"

namespace mrc::harness {

class Testbed;
class FramePort;
struct HostAddress;

// Outcome of a binding call. `err` is the errno the DUT's host API returned (0 when it did not
// get that far); `message` says what happened in words a stranger can act on.
struct DutStatus {
  enum class Code : std::uint8_t {
    kOk,
    kRejected,       // the DUT refused the request (an errno from its API): a DUT behaviour
    kUnimplemented,  // the binding does not offer this operation
    kFailed,         // the binding itself broke (lost connection, bad state): harness ERROR
    kUnsupported,    // the DUT cannot take part in this case as set up (more planes than ports)
  };
  Code code = Code::kOk;
  int err = 0;
  std::string message;

  bool ok() const { return code == Code::kOk; }
  static DutStatus success() { return {}; }
  static DutStatus rejected(int err, std::string message);
  static DutStatus failed(std::string message);
  static DutStatus unimplemented(std::string_view binding, std::string_view method);
};

struct DutIdentity {
  std::string binding;  // "reference", "agent", ...
  std::string name;     // as given on the command line, e.g. "reference:spray-single-ev"
  std::string version;  // binding / firmware version
  std::string details;  // free text (defects, device model, agent address)
};

// A testbed port the DUT owns.
struct PortRef {
  int host = 0;
  int port = 1;  // 1-based = plane
  bool operator==(const PortRef&) const = default;
};

class DutBinding {
 public:
  virtual ~DutBinding() = default;

  virtual DutIdentity identity() const = 0;
  // Whether the binding reached its DUT and agrees with it (the agent binding: HELLO answered,
  // same protocol version). Asked before capabilities(), so an unreachable DUT is an ERROR naming
  // why, not a run of UNSUPPORTED cases because it declared nothing.
  virtual DutStatus status() const { return DutStatus::success(); }
  // Declared features, spelled like the case vocabulary's `requires` (kCapabilityNames).
  virtual std::vector<std::string> capabilities() const { return {}; }

  // Puts the DUT on a testbed host. The reference binding becomes that host's endpoint.
  virtual DutStatus attach(Testbed& testbed, int host);
  // Instead of attach(): seats the DUT on a fabric this process does not own (the harness across a
  // lockstep connection, harness/agent/lockstep_backend.hpp), which gives it its host's addresses
  // and planes and drives seated_port() itself. A binding that cannot be seated keeps the default.
  virtual DutStatus seat(const HostAddress& addr, std::uint32_t planes);
  // A seated DUT's frame port: null before apply() (or before seat()), and from a binding that
  // cannot be seated. May change at every apply().
  virtual FramePort* seated_port() { return nullptr; }
  // The testbed ports the DUT's traffic uses (taps go there).
  virtual std::vector<PortRef> data_ports() const { return {}; }

  // EV format / EV / CC profiles, QPs (to INIT), the buffer. Fills `local`.
  virtual DutStatus apply(const DutSetup& setup, DutLocal& local);
  // QPs to RTR/RTS towards `remote`.
  virtual DutStatus connect(const DutLocal& remote);

  // Data path. `now_ns` is the testbed's clock at the call.
  virtual DutStatus fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes);
  virtual DutStatus read_local(std::uint64_t offset, std::span<std::uint8_t> out) const;
  // The same bytes in place, for a binding whose buffer is in this process (the reference): the
  // session then makes and checks write data there instead of copying it through fill_local() and
  // read_local(). Empty from any other binding, or for a range outside the buffer. A span from
  // overwrite_local() must have every byte written before the binding is called again; one from
  // view_local() is valid until the binding is called again.
  virtual std::span<std::uint8_t> overwrite_local(std::uint64_t offset, std::size_t len);
  virtual std::span<const std::uint8_t> view_local(std::uint64_t offset, std::size_t len) const;
  virtual DutStatus post_write(const WriteRequest& w, std::uint64_t now_ns);
  virtual DutStatus post_recv(std::uint32_t qp, std::uint64_t wr_id);
  // Appends what arrived since the last call; returns how many.
  virtual std::size_t poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns);
  virtual std::size_t poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns);

  // Control plane.
  virtual DutStatus set_ev_denied(std::uint32_t ev_index, bool denied);
  virtual DutStatus port_admin(std::uint8_t port, bool up);
  // An EV probe (mrc_ctl_ep_batch_send_wait, EV_PROBE) on EV `ev_index`; `tc` is the request's
  // DSCP (req_tc, 0..63). The DUT picks the req_id.
  virtual DutStatus probe_ev(std::uint32_t ev_index, std::uint8_t tc, std::uint64_t now_ns);
  virtual DutStatus port_status_update(std::uint64_t now_ns);
  virtual DutStatus set_profile_online(bool online);
  // Profile operations on the operation slot: EV profile 1 (on EV format profile 0, the case's
  // format) and CC profile 1, never the profiles traffic uses. Each attribute given is sent with
  // its mask bit, as given (cases/README.md "Profile operations").
  virtual DutStatus ev_profile_op(const EvProfileChange& op);
  virtual DutStatus cc_profile_op(const CcProfileChange& op);
  virtual DutStatus replace_ev(const EvReplacement& op);
  // Before apply(): capabilities off, EV event queue depth (the case's config.device).
  virtual DutStatus restrict_device(const DeviceRestriction& d);

  // After the run.
  virtual std::vector<EvRecord> ev_table() const { return {}; }
  virtual std::vector<std::pair<std::string, double>> counters() const { return {}; }
  // The reference endpoint's named defects whose switch this binding's endpoints read since the
  // binding was made (reference/quirk/quirk_flag.hpp), on or off; nullopt from a binding that
  // cannot tell, which is every DUT but the in-process reference. The campaign takes a case's
  // clean run as its run with a defect whose switch that run never read.
  virtual std::optional<ref::DefectSet> defects_read() const { return std::nullopt; }
  virtual DutStatus reset();

 protected:
  DutStatus unimplemented(std::string_view method) const;
};

}  // namespace mrc::harness
