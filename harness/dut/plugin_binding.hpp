// The `plugin` DUT binding: a software model of an MRC NIC, built as a shared library against the
// C ABI of plugin/mrc_dut_plugin.h, driven as one host of the simulated testbed in its virtual
// time. The fabric's FramePort calls go straight to the plugin's frame-port calls; every control
// call is converted to the ABI's C structs (plugin_abi.hpp) and its int result judged: 0 success,
// a positive errno a refusal by the model's host API (a DUT behaviour), MRC_DUT_BROKEN a broken
// model (a harness ERROR naming the call and the model's own words).
//
// Command-line spelling: `plugin:PATH` or `plugin:PATH:ARGS` (binding_factory.hpp); ARGS go to the
// plugin's create() as they are. The library is loaded at the binding's first call, status(), so
// in an isolated run it is loaded in the case's child process and a crash, an abort or a hang of
// the model is that case's ERROR.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/dut/dut_binding.hpp"
#include "harness/dut/plugin/mrc_dut_plugin.h"
#include "harness/testbed/frame_port.hpp"

namespace mrc::harness {

// "plugin:PATH[:ARGS]" split; nullopt (and *error says why) when it is not one.
struct PluginSpec {
  std::string path;
  std::string args;
};
std::optional<PluginSpec> parse_plugin_spec(const std::string& spec, std::string* error);

class PluginBinding : public DutBinding {
 public:
  explicit PluginBinding(PluginSpec spec);
  ~PluginBinding() override;

  DutIdentity identity() const override;
  // Loads the library, checks its ABI version and makes the instance: an ERROR naming the path
  // and why (dlopen's words, a missing entry point, both ABI versions, create()'s message).
  DutStatus status() const override;
  std::vector<std::string> capabilities() const override;

  DutStatus attach(Testbed& testbed, int host) override;
  DutStatus seat(const HostAddress& addr, std::uint32_t planes) override;
  FramePort* seated_port() override;
  std::vector<PortRef> data_ports() const override;
  DutStatus apply(const DutSetup& setup, DutLocal& local) override;
  DutStatus connect(const DutLocal& remote) override;

  DutStatus fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;
  DutStatus read_local(std::uint64_t offset, std::span<std::uint8_t> out) const override;
  DutStatus post_write(const WriteRequest& w, std::uint64_t now_ns) override;
  DutStatus post_recv(std::uint32_t qp, std::uint64_t wr_id) override;
  std::size_t poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns) override;
  std::size_t poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns) override;

  DutStatus set_ev_denied(std::uint32_t ev_index, bool denied) override;
  DutStatus port_admin(std::uint8_t port, bool up) override;
  DutStatus probe_ev(std::uint32_t ev_index, std::uint8_t tc, std::uint64_t now_ns) override;
  DutStatus port_status_update(std::uint64_t now_ns) override;
  DutStatus set_profile_online(bool online) override;
  DutStatus ev_profile_op(const EvProfileChange& op) override;
  DutStatus cc_profile_op(const CcProfileChange& op) override;
  DutStatus replace_ev(const EvReplacement& op) override;
  DutStatus restrict_device(const DeviceRestriction& d) override;

  std::vector<EvRecord> ev_table() const override;
  std::vector<std::pair<std::string, double>> counters() const override;
  DutStatus reset() override;

 private:
  struct Loaded;
  class Port;

  // Null (and load_error_ set) when the library could not be loaded.
  const Loaded* loaded() const;
  // A call's int result as a DutStatus, naming the call.
  DutStatus judge(const char* call, int rc) const;
  DutStatus wake_after(DutStatus st);
  // The answer to every call once the model broke its frame-port contract (Port::broken()).
  DutStatus broken_model(const char* call) const;
  // What attach() and seat() share: the model learns its host's addresses, the port is made.
  DutStatus attach_host(const HostAddress& addr, std::uint32_t planes);

  PluginSpec spec_;
  mutable std::unique_ptr<Loaded> lib_;
  mutable std::string load_error_;
  mutable bool load_tried_ = false;
  std::unique_ptr<Port> port_;
  Testbed* testbed_ = nullptr;
  int host_ = -1;
  std::uint32_t planes_ = 0;
  bool seated_ = false;
  std::uint8_t control_dscp_ = 46;  // the case's Control class: a port-status update's DSCP
};

}  // namespace mrc::harness
