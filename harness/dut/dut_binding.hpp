// The DUT binding: how the harness drives a device under test, whatever it is (design.md §2,
// anchors G9). One interface, several bindings: `reference` (the in-process reference endpoint as
// a host of the simulated testbed, optionally with named defects), later `agent` (a remote DUT
// behind real interfaces). Every method has a default that answers "unimplemented" with a message
// naming the binding and the method, so a partial binding (ondatra style) runs the cases it can
// and the runner turns the rest into a clear ERROR instead of a crash.
//
// A case run drives a binding in this order: capabilities() -> attach() -> apply() -> connect()
// -> (post_write / post_recv / control calls / polls while the testbed runs) -> ev_table(),
// read_local(), counters() -> reset().
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/verdict/check_context.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::harness {

class Testbed;

// Outcome of a binding call. `err` is the errno the DUT's host API returned (0 when it did not
// get that far); `message` says what happened in words a stranger can act on.
struct DutStatus {
  enum class Code : std::uint8_t {
    kOk,
    kRejected,       // the DUT refused the request (an errno from its API): a DUT behaviour
    kUnimplemented,  // the binding does not offer this operation
    kFailed,         // the binding itself broke (lost connection, bad state): harness ERROR
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

// One EV of the array the harness asks for (explicit mode): the compact EV bits as the host API
// names them (MSB first) and the 1-based egress port (= plane).
struct EvSetup {
  std::vector<std::uint8_t> value;
  std::uint8_t port = 1;
};

// Everything apply() configures, resolved from the case config and the testbed's defaults so a
// binding never needs to know about YAML or testbeds.
struct DutSetup {
  // EV format profile.
  EvFormatMode format_mode = EvFormatMode::kStev;
  std::vector<std::uint32_t> format_widths;
  // EV profile.
  EvMode ev_mode = EvMode::kExplicit;
  std::vector<EvFieldConfig> fields;
  std::vector<EvSetup> evs;        // explicit mode: the array, in index order
  std::uint32_t generate_count = 0;  // generated / auto mode: EVs the DUT draws
  std::uint64_t generate_seed = 1;
  std::uint32_t ev_min_active = 0;
  std::vector<std::uint32_t> denied;  // EV indices set DENIED before traffic
  std::uint32_t ev_event_mask = 0x3;  // states that raise EV events (host-API bits)
  // CC profile (NSCC; absent = CC off) and the network facts it is tuned to (cc_config.hpp:
  // `line_rate_bps`, `fabric_trims`; 0 = unknown, the endpoint's default).
  std::optional<NsccConfig> cc;
  std::uint64_t cc_line_rate_bps = 0;
  bool cc_fabric_trims = true;
  // QPs: `qp.count` QPs with these attributes.
  QpConfig qp;
  std::uint32_t first_psn = 0;  // starting PSN of every QP in both directions
  // One registered buffer per endpoint: `buffer_bytes` at `buffer_va` (a binding that cannot
  // choose the address reports the one it got in DutLocal).
  std::uint64_t buffer_va = 0x1000'0000;
  std::uint64_t buffer_bytes = 64 * 1024;
  bool ipv4 = false;  // UDP-mode EVs over IPv4
  std::uint64_t seed = 1;
};

// What the other side needs to talk to this one (the out-of-band GID/QPN exchange, M4).
struct DutLocal {
  wire::Ipv6Addr gid{};
  wire::MacAddr mac{};
  std::uint32_t ipv4 = 0;  // host order; 0 when not on IPv4
  std::vector<std::uint32_t> qpns;  // index = the case's QP index
  std::uint64_t buffer_va = 0;
  std::uint32_t rkey = 0;
  std::uint8_t mpr_dest = 8;
  std::uint16_t max_wimm_dest = 128;
  std::uint32_t qp_caps = 0;  // qp_cap bits (transport/qp_types.hpp)
  std::uint32_t first_psn = 0;
};

struct WriteRequest {
  std::uint32_t qp = 0;            // the case's QP index
  std::uint64_t wr_id = 0;
  std::uint64_t local_offset = 0;  // into this side's buffer
  std::uint32_t length = 0;
  std::uint64_t remote_addr = 0;   // the peer's virtual address
  std::uint32_t rkey = 0;
  bool with_imm = false;
  std::uint32_t imm = 0;
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
  // Declared features, spelled like the case vocabulary's `requires` (kCapabilityNames).
  virtual std::vector<std::string> capabilities() const { return {}; }

  // Puts the DUT on a testbed host. The reference binding becomes that host's endpoint.
  virtual DutStatus attach(Testbed& testbed, int host);
  // The testbed ports the DUT's traffic uses (taps go there).
  virtual std::vector<PortRef> data_ports() const { return {}; }

  // EV format / EV / CC profiles, QPs (to INIT), the buffer. Fills `local`.
  virtual DutStatus apply(const DutSetup& setup, DutLocal& local);
  // QPs to RTR/RTS towards `remote`.
  virtual DutStatus connect(const DutLocal& remote);

  // Data path. `now_ns` is the testbed's clock at the call.
  virtual DutStatus fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes);
  virtual DutStatus read_local(std::uint64_t offset, std::span<std::uint8_t> out) const;
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
  virtual DutStatus ev_profile_op(const EvProfileOp& op);
  virtual DutStatus cc_profile_op(const CcProfileOp& op);
  virtual DutStatus replace_ev(const ReplaceEvOp& op);
  // Before apply(): what config.device changes (capabilities off, EV event queue depth).
  virtual DutStatus restrict_device(const DeviceConfig& d);

  // After the run.
  virtual std::vector<EvRecord> ev_table() const { return {}; }
  virtual std::vector<std::pair<std::string, double>> counters() const { return {}; }
  virtual DutStatus reset();

 protected:
  DutStatus unimplemented(std::string_view method) const;
};

// "stev" for Capability::kStev and so on.
std::vector<std::string> capability_names(std::span<const Capability> caps);

}  // namespace mrc::harness
