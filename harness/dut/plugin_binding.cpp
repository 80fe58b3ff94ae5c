#include "harness/dut/plugin_binding.hpp"

#include <dlfcn.h>

#include <array>
#include <cstring>
#include <utility>

#include "harness/dut/plugin_abi.hpp"
#include "harness/dut/plane_ports.hpp"
#include "harness/testbed/testbed.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness {

namespace pa = plugin_abi;

constexpr int kPollRounds = 1024;  // 64 records a round: 65,536 completions or events per poll

// The harness writes a plugin's frames straight into the fabric's packet buffer.
static_assert(MRC_DUT_MAX_FRAME == wire::kMaxFrameLen, "the ABI's frame buffer is the fabric's");

std::optional<PluginSpec> parse_plugin_spec(const std::string& spec, std::string* error) {
  constexpr std::string_view kPrefix = "plugin:";
  if (spec.rfind(kPrefix, 0) != 0 || spec.size() == kPrefix.size()) {
    if (error) *error = "'" + spec + "' is not plugin:PATH or plugin:PATH:ARGS";
    return std::nullopt;
  }
  const std::string rest = spec.substr(kPrefix.size());
  const std::size_t colon = rest.find(':');
  PluginSpec out;
  out.path = rest.substr(0, colon);
  if (colon != std::string::npos) out.args = rest.substr(colon + 1);
  if (out.path.empty()) {
    if (error) *error = "'" + spec + "' names no plugin library (plugin:PATH[:ARGS])";
    return std::nullopt;
  }
  return out;
}

struct PluginBinding::Loaded {
  void* handle = nullptr;
  const mrc_dut_plugin* table = nullptr;
  mrc_dut* dut = nullptr;
  ~Loaded() {
    if (table != nullptr && dut != nullptr && table->destroy != nullptr) table->destroy(dut);
    if (handle != nullptr) dlclose(handle);
  }
};

// The fabric's view of the model: the five frame-port calls.
class PluginBinding::Port final : public FramePort {
 public:
  explicit Port(const Loaded& lib) : t_(*lib.table), dut_(lib.dut) {}
  void on_frame(std::uint8_t port, std::span<const std::uint8_t> frame, std::uint64_t now_ns) override {
    t_.frame_in(dut_, port, frame.data(), frame.size(), now_ns);
  }
  void advance(std::uint64_t now_ns) override { t_.advance(dut_, now_ns); }
  bool poll_frame(transport::TxFrame& out) override {
    if (!broken_.empty()) return false;
    std::size_t len = 0;
    std::uint8_t port = 0;
    if (t_.frame_out(dut_, out.bytes.data(), &len, &port) != 1) return false;
    if (len > out.bytes.size()) {
      // A model that overran the fabric's buffer: nothing it holds can be trusted any more. The
      // port stops, and the binding's next call is an ERROR saying so.
      broken_ = "frame_out reported a frame of " + std::to_string(len) + " bytes on port " + std::to_string(port) +
                ", more than MRC_DUT_MAX_FRAME (" + std::to_string(out.bytes.size()) + "): the model overran the buffer";
      return false;
    }
    out.len = static_cast<std::uint16_t>(len);
    out.port = port;
    return true;
  }
  std::uint64_t next_deadline() const override { return broken_.empty() ? t_.next_deadline(dut_) : UINT64_MAX; }
  const std::string& broken() const { return broken_; }
  int set_port_up(std::uint8_t port, bool up) override { return t_.set_port_up(dut_, port, up ? 1 : 0); }

 private:
  const mrc_dut_plugin& t_;
  mrc_dut* dut_;
  std::string broken_;  // why the model can no longer be driven ("" while it can)
};

PluginBinding::PluginBinding(PluginSpec spec) : spec_(std::move(spec)) {}

PluginBinding::~PluginBinding() {
  port_.reset();
  lib_.reset();
}

const PluginBinding::Loaded* PluginBinding::loaded() const {
  if (load_tried_) return lib_.get();
  load_tried_ = true;
  auto lib = std::make_unique<Loaded>();
  lib->handle = dlopen(spec_.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib->handle == nullptr) {
    const char* why = dlerror();
    load_error_ = "cannot load plugin " + spec_.path + ": " + (why ? why : "dlopen failed");
    return nullptr;
  }
  auto entry = reinterpret_cast<mrc_dut_plugin_entry_fn>(dlsym(lib->handle, MRC_DUT_PLUGIN_ENTRY));
  if (entry == nullptr) {
    load_error_ = "plugin " + spec_.path + " exports no " MRC_DUT_PLUGIN_ENTRY "() (see harness/dut/plugin/mrc_dut_plugin.h)";
    return nullptr;
  }
  lib->table = entry();
  if (lib->table == nullptr) {
    load_error_ = "plugin " + spec_.path + ": " MRC_DUT_PLUGIN_ENTRY "() returned no call table";
    return nullptr;
  }
  const mrc_dut_plugin& t = *lib->table;
  if (t.abi_version != MRC_DUT_PLUGIN_ABI_VERSION || t.struct_size < sizeof(mrc_dut_plugin)) {
    load_error_ = "plugin " + spec_.path + " was built for plugin ABI version " + std::to_string(t.abi_version) +
                  " (call table " + std::to_string(t.struct_size) + " bytes); this harness speaks version " +
                  std::to_string(MRC_DUT_PLUGIN_ABI_VERSION) + " (" + std::to_string(sizeof(mrc_dut_plugin)) +
                  " bytes): rebuild it against this harness's mrc_dut_plugin.h";
    return nullptr;
  }
  // The calls every case makes; the rest may be NULL (the cases that need them are an ERROR).
  const std::array<std::pair<const char*, bool>, 9> required{{
      {"create", t.create != nullptr},           {"destroy", t.destroy != nullptr},
      {"attach", t.attach != nullptr},           {"frame_in", t.frame_in != nullptr},
      {"advance", t.advance != nullptr},         {"frame_out", t.frame_out != nullptr},
      {"next_deadline", t.next_deadline != nullptr}, {"set_port_up", t.set_port_up != nullptr},
      {"apply", t.apply != nullptr},
  }};
  for (const auto& [name, present] : required) {
    if (!present) {
      load_error_ = "plugin " + spec_.path + " leaves " + name + "() NULL; every case needs it";
      return nullptr;
    }
  }
  std::array<char, 512> err{};
  lib->dut = t.create(spec_.args.c_str(), err.data(), err.size());
  if (lib->dut == nullptr) {
    err.back() = '\0';
    load_error_ = "plugin " + spec_.path + " refused to create an instance with arguments '" + spec_.args +
                  "': " + (err[0] != '\0' ? err.data() : "no reason given");
    return nullptr;
  }
  lib_ = std::move(lib);
  return lib_.get();
}

DutIdentity PluginBinding::identity() const {
  DutIdentity id;
  id.binding = "plugin";
  id.name = "plugin:" + spec_.path + (spec_.args.empty() ? "" : ":" + spec_.args);
  if (const Loaded* lib = load_tried_ ? lib_.get() : nullptr) {
    const mrc_dut_plugin& t = *lib->table;
    id.version = std::string(t.name ? t.name : "unnamed plugin") + " " + (t.version ? t.version : "");
  }
  id.details = "C plugin ABI version " + std::to_string(MRC_DUT_PLUGIN_ABI_VERSION) + ", virtual time";
  if (!spec_.args.empty()) id.details += "; arguments: " + spec_.args;
  return id;
}

DutStatus PluginBinding::status() const {
  if (loaded() == nullptr) return DutStatus::failed(load_error_);
  if (port_ && !port_->broken().empty()) return DutStatus::failed("plugin " + spec_.path + ": " + port_->broken());
  return DutStatus::success();
}

DutStatus PluginBinding::judge(const char* call, int rc) const {
  if (rc == 0) return DutStatus::success();
  std::array<char, 512> why{};
  if (lib_ && lib_->table->last_error != nullptr) lib_->table->last_error(lib_->dut, why.data(), why.size());
  why.back() = '\0';
  const std::string words = why[0] != '\0' ? std::string(": ") + why.data() : std::string();
  if (rc > 0) return DutStatus::rejected(rc, std::string(call) + " refused with " + std::strerror(rc) + words);
  return DutStatus::failed("plugin " + spec_.path + ": " + call + " failed (" + std::to_string(rc) + ")" + words);
}

DutStatus PluginBinding::broken_model(const char* call) const {
  return DutStatus::failed("plugin " + spec_.path + ": " + call + " not made: " + port_->broken());
}

DutStatus PluginBinding::wake_after(DutStatus st) {
  if (st.ok() && testbed_ != nullptr) testbed_->wake(host_);
  return st;
}

// The call `name` of the table, or the binding's "unimplemented" answer when the plugin left it NULL.
#define MRC_PLUGIN_CALL(name, ...)                                                        \
  do {                                                                                    \
    const Loaded* lib = loaded();                                                         \
    if (lib == nullptr) return DutStatus::failed(load_error_);                            \
    if (port_ && !port_->broken().empty()) return broken_model(#name);                    \
    if (lib->table->name == nullptr) return unimplemented(#name);                         \
    return judge(#name, lib->table->name(lib->dut __VA_OPT__(, ) __VA_ARGS__));           \
  } while (false)

std::vector<std::string> PluginBinding::capabilities() const {
  const Loaded* lib = loaded();
  if (lib == nullptr || lib->table->capabilities == nullptr) return {};
  std::array<char, 1024> buf{};
  if (lib->table->capabilities(lib->dut, buf.data(), buf.size()) != 0) return {};
  buf.back() = '\0';
  return pa::split_words(buf.data());
}

DutStatus PluginBinding::attach_host(const HostAddress& addr, std::uint32_t planes) {
  const Loaded* lib = loaded();
  if (lib == nullptr) return DutStatus::failed(load_error_);
  planes_ = planes;
  mrc_dut_host h{};
  std::copy(addr.mac.begin(), addr.mac.end(), h.mac);
  std::copy(addr.gid.begin(), addr.gid.end(), h.gid);
  h.ipv4 = addr.ipv4;
  h.planes = planes_;
  if (DutStatus st = judge("attach", lib->table->attach(lib->dut, &h)); !st.ok()) return st;
  port_ = std::make_unique<Port>(*lib);
  return DutStatus::success();
}

DutStatus PluginBinding::attach(Testbed& testbed, int host) {
  if (DutStatus st = check_testbed_host(testbed, host); !st.ok()) return st;
  seated_ = false;
  testbed_ = &testbed;
  host_ = host;
  if (DutStatus st = attach_host(testbed.host_address(host), testbed.planes()); !st.ok()) return st;
  if (std::string why = testbed.attach_port(host, *port_); !why.empty()) {
    return DutStatus::failed("testbed refused the plugin: " + why);
  }
  return DutStatus::success();
}

DutStatus PluginBinding::seat(const HostAddress& addr, std::uint32_t planes) {
  testbed_ = nullptr;
  host_ = -1;
  if (DutStatus st = attach_host(addr, planes); !st.ok()) return st;
  seated_ = true;
  return DutStatus::success();
}

FramePort* PluginBinding::seated_port() { return seated_ ? port_.get() : nullptr; }

std::vector<PortRef> PluginBinding::data_ports() const { return plane_ports(host_, planes_); }

DutStatus PluginBinding::apply(const DutSetup& setup, DutLocal& local) {
  const Loaded* lib = loaded();
  if (lib == nullptr) return DutStatus::failed(load_error_);
  if (testbed_ == nullptr && !seated_) return DutStatus::failed("apply() before attach()");
  control_dscp_ = setup.dscp.control;
  const pa::CSetup c(setup);
  std::vector<std::uint32_t> qpns(std::max<std::uint32_t>(setup.qp.count, 1));
  mrc_dut_local out{};
  out.qpns = qpns.data();
  out.qpns_capacity = qpns.size();
  if (DutStatus st = judge("apply", lib->table->apply(lib->dut, &c.c, &out)); !st.ok()) return st;
  if (out.qpns_count > out.qpns_capacity) {
    return DutStatus::failed("plugin " + spec_.path + ": apply() reported " + std::to_string(out.qpns_count) +
                             " QPNs, more than the " + std::to_string(out.qpns_capacity) + " it was given room for");
  }
  local = pa::from_c(out);
  return wake_after(DutStatus::success());
}

DutStatus PluginBinding::connect(const DutLocal& remote) {
  const pa::CLocal c(remote);
  MRC_PLUGIN_CALL(connect, &c.c);
}

DutStatus PluginBinding::fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  MRC_PLUGIN_CALL(write_memory, offset, bytes.data(), bytes.size());
}

DutStatus PluginBinding::read_local(std::uint64_t offset, std::span<std::uint8_t> out) const {
  MRC_PLUGIN_CALL(read_memory, offset, out.data(), out.size());
}

DutStatus PluginBinding::post_write(const WriteRequest& w, std::uint64_t now_ns) {
  const mrc_dut_write c = pa::to_c(w);
  const DutStatus st = [&]() -> DutStatus { MRC_PLUGIN_CALL(post_write, &c, now_ns); }();
  return wake_after(st);
}

DutStatus PluginBinding::post_recv(std::uint32_t qp, std::uint64_t wr_id) { MRC_PLUGIN_CALL(post_recv, qp, wr_id); }

std::size_t PluginBinding::poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns) {
  const Loaded* lib = loaded();
  if (lib == nullptr || lib->table->poll_completions == nullptr) return 0;
  std::array<mrc_dut_completion, 64> buf{};
  std::size_t total = 0;
  // Bounded, so a plugin that always reports a full buffer cannot hang the case: the rest wait for
  // the next poll.
  for (int round = 0; round < kPollRounds; ++round) {
    const std::size_t n = std::min(lib->table->poll_completions(lib->dut, buf.data(), buf.size(), now_ns), buf.size());
    for (std::size_t i = 0; i < n; ++i) {
      const mrc_dut_completion& c = buf[i];
      out.push_back(CompletionRecord{now_ns, c.wr_id, c.status, c.is_send != 0, c.has_imm != 0, c.imm, c.byte_len});
    }
    total += n;
    if (n < buf.size()) break;
  }
  return total;
}

std::size_t PluginBinding::poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns) {
  const Loaded* lib = loaded();
  if (lib == nullptr || lib->table->poll_ev_events == nullptr) return 0;
  std::array<mrc_dut_ev_event, 64> buf{};
  std::size_t total = 0;
  // Bounded, so a plugin that always reports a full buffer cannot hang the case: the rest wait for
  // the next poll.
  for (int round = 0; round < kPollRounds; ++round) {
    const std::size_t n = std::min(lib->table->poll_ev_events(lib->dut, buf.data(), buf.size(), now_ns), buf.size());
    for (std::size_t i = 0; i < n; ++i) {
      const mrc_dut_ev_event& e = buf[i];
      out.push_back(EvEventRecord{now_ns, e.ev_index, e.port, e.state, e.drop_count});
    }
    total += n;
    if (n < buf.size()) break;
  }
  return total;
}

DutStatus PluginBinding::set_ev_denied(std::uint32_t ev_index, bool denied) {
  MRC_PLUGIN_CALL(set_ev_denied, ev_index, denied ? 1 : 0);
}

DutStatus PluginBinding::port_admin(std::uint8_t port, bool up) {
  const DutStatus st = [&]() -> DutStatus { MRC_PLUGIN_CALL(set_port_up, port, up ? 1 : 0); }();
  return wake_after(st);
}

DutStatus PluginBinding::probe_ev(std::uint32_t ev_index, std::uint8_t tc, std::uint64_t now_ns) {
  const DutStatus st = [&]() -> DutStatus { MRC_PLUGIN_CALL(ep_op, MRC_DUT_EP_EV_PROBE, ev_index, tc, now_ns); }();
  return wake_after(st);
}

DutStatus PluginBinding::port_status_update(std::uint64_t now_ns) {
  const DutStatus st = [&]() -> DutStatus {
    MRC_PLUGIN_CALL(ep_op, MRC_DUT_EP_PORT_STATUS_UPDATE, 0u, control_dscp_, now_ns);
  }();
  return wake_after(st);
}

DutStatus PluginBinding::set_profile_online(bool online) { MRC_PLUGIN_CALL(set_profile_online, online ? 1 : 0); }

DutStatus PluginBinding::ev_profile_op(const EvProfileChange& op) {
  const pa::CEvProfileOp c(op);
  MRC_PLUGIN_CALL(ev_profile_op, &c.c);
}

DutStatus PluginBinding::cc_profile_op(const CcProfileChange& op) {
  if (std::string why = pa::CCcProfileOp::refused(op); !why.empty()) return DutStatus::failed(why);
  const pa::CCcProfileOp c(op);
  MRC_PLUGIN_CALL(cc_profile_op, &c.c);
}

DutStatus PluginBinding::replace_ev(const EvReplacement& op) {
  const pa::CReplaceEv c(op);
  MRC_PLUGIN_CALL(replace_ev, &c.c);
}

DutStatus PluginBinding::restrict_device(const DeviceRestriction& d) {
  const std::string caps = pa::join_words(d.caps_off);
  MRC_PLUGIN_CALL(restrict_device, caps.c_str(), d.event_queue_depth);
}

std::vector<EvRecord> PluginBinding::ev_table() const {
  std::vector<EvRecord> out;
  const Loaded* lib = loaded();
  if (lib == nullptr || lib->table->ev_table == nullptr) return out;
  std::vector<mrc_dut_ev_record> buf(4096);
  const std::size_t n = std::min(lib->table->ev_table(lib->dut, buf.data(), buf.size()), buf.size());
  for (std::size_t i = 0; i < n; ++i) {
    const mrc_dut_ev_record& e = buf[i];
    out.push_back(EvRecord{e.index, e.port, e.echo, e.state, e.denied != 0});
  }
  return out;
}

std::vector<std::pair<std::string, double>> PluginBinding::counters() const {
  std::vector<std::pair<std::string, double>> out;
  const Loaded* lib = loaded();
  if (lib == nullptr || lib->table->counters == nullptr) return out;
  std::vector<mrc_dut_counter> buf(256);
  const std::size_t n = std::min(lib->table->counters(lib->dut, buf.data(), buf.size()), buf.size());
  for (std::size_t i = 0; i < n; ++i) {
    out.emplace_back(std::string(buf[i].name, strnlen(buf[i].name, MRC_DUT_NAME_LEN)), buf[i].value);
  }
  return out;
}

DutStatus PluginBinding::reset() {
  testbed_ = nullptr;
  host_ = -1;
  seated_ = false;
  const DutStatus st = [&]() -> DutStatus { MRC_PLUGIN_CALL(reset); }();
  // The testbed that held the port is gone with the case: nothing drives it any more.
  port_.reset();
  return st;
}

#undef MRC_PLUGIN_CALL

}  // namespace mrc::harness
