// SimTestbed: the Testbed interface over the discrete-event fabric simulator (harness/testbed/sim).
// Taps: frames a host sends are captured as they go onto its link (TapPoint::kWire, before any
// impairment), frames it receives as they arrive (kArrival, after every impairment), so the
// capture shows what the DUT did and what the DUT saw.
#include "harness/testbed/testbed.hpp"

#include <algorithm>

#include "harness/testbed/sim/address_plan.hpp"
#include "harness/testbed/sim/frame_edit.hpp"
#include "harness/testbed/sim/host_setup.hpp"
#include "harness/testbed/sim/paced_run.hpp"
#include "harness/testbed/sim/path_query.hpp"
#include "harness/testbed/sim/simulator.hpp"
#include "harness/testbed/sim/yaml_loader.hpp"

namespace mrc::harness {
namespace {

bool looks_like_file(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && s.substr(s.size() - 5) == ".yaml");
}

class SimTestbed final : public Testbed {
 public:
  explicit SimTestbed(std::unique_ptr<sim::Simulator> sim) : sim_(std::move(sim)) {}

  std::string name() const override {
    const auto& t = sim_->topology();
    return "sim:" + t.config().name + " (" + std::to_string(t.hosts()) + " hosts, " + std::to_string(t.planes()) +
           " planes, " + std::to_string(t.spines()) + " spines/plane)";
  }
  std::uint32_t planes() const override { return sim_->topology().planes(); }
  std::uint32_t hosts() const override { return sim_->topology().hosts(); }
  HostAddress host_address(int host) const override {
    const auto h = static_cast<std::uint32_t>(host);
    return HostAddress{sim::addr::host_gid(h), sim::addr::host_mac(h), sim::addr::host_ipv4(h)};
  }

  std::string attach_port(int host, FramePort& port) override {
    const sim::SimError e = sim_->attach_port(static_cast<std::uint32_t>(host), port);
    return e == sim::SimError::kOk ? "" : sim::to_string(e);
  }
  void wake(int host) override { sim_->notify(static_cast<std::uint32_t>(host)); }

  std::uint64_t now() const override { return sim_->now(); }
  std::uint64_t clock_now() const override { return paced_ && paced_->active() ? paced_->clock_now() : now(); }
  std::uint64_t wall_now() const override { return paced_ && paced_->active() ? paced_->wall_now() : now(); }
  std::uint64_t quiet_until() const override {
    if ((paced_ && paced_->active()) || sim_->last_run_dispatched()) return now();
    return sim_->next_event_time();
  }
  RunStop run_until(std::uint64_t t_ns) override {
    if (paced_ && paced_->active()) return paced_->run_until(t_ns) ? RunStop::kReached : RunStop::kError;
    sim_->run_until(t_ns);
    return sim_->idle() ? RunStop::kIdle : RunStop::kReached;
  }

  std::string bind_wire(int host, std::unique_ptr<WireHost> wire, BridgeDeclaration declared) override {
    if (host < 0 || static_cast<std::uint32_t>(host) >= sim_->topology().hosts()) {
      return "no host " + std::to_string(host) + " on testbed " + name();
    }
    if (!paced_) paced_ = std::make_unique<sim::PacedRun>(*sim_);
    if (std::string e = paced_->bind(static_cast<std::uint32_t>(host), std::move(wire)); !e.empty()) return e;
    paced_->ask_realtime(declared.fabric_priority, declared.fabric_spin_ns);
    const std::uint64_t slowest = budget_.rate_bps == 0 ? declared.rate_bps
                                  : declared.rate_bps == 0 ? budget_.rate_bps
                                                           : std::min(budget_.rate_bps, declared.rate_bps);
    if (declared.budget.ns >= budget_.ns) budget_ = declared.budget;
    budget_.rate_bps = slowest;  // the golden check paces at the slowest bridge
    bridged_.emplace_back(host, declared);
    return "";
  }
  const BridgeFigures* bridge_figures(int host) override {
    WireHost* w = paced_ ? paced_->host(static_cast<std::uint32_t>(host)) : nullptr;
    return w != nullptr ? &w->figures() : nullptr;
  }
  const BridgeFigures* running_bridge_figures(int host) override {
    WireHost* w = paced_ ? paced_->host(static_cast<std::uint32_t>(host)) : nullptr;
    return w != nullptr ? &w->running_figures() : nullptr;
  }
  TimingBudget timing_budget() const override { return budget_; }
  const LatencyHistogram* pacing_lateness() const override {
    return paced_ && paced_->active() ? &paced_->wake_lateness() : nullptr;
  }
  std::uint64_t pacing_behind_ns() const override { return paced_ && paced_->active() ? paced_->max_behind_ns() : 0; }
  const LatencyHistogram* pacing_pauses() const override {
    return paced_ && paced_->active() ? &paced_->pauses() : nullptr;
  }
  std::string run_error() const override { return paced_ ? paced_->error() : std::string(); }
  void release_fabric() override {
    if (paced_) paced_->release();
  }
  void hold_fabric() override {
    if (paced_) paced_->hold();
  }
  void start_clock() override {
    if (paced_ && paced_->active()) paced_->start_clock();
  }

  std::string add_tap(std::string name, int host, int port, bool from_host) override {
    const auto& t = sim_->topology();
    if (host < 0 || static_cast<std::uint32_t>(host) >= t.hosts() || port < 1 ||
        static_cast<std::uint32_t>(port) > t.planes()) {
      return "no host " + std::to_string(host) + " port " + std::to_string(port);
    }
    sim::TapSpec spec;
    const auto h = static_cast<std::uint32_t>(host);
    const auto p = static_cast<std::uint32_t>(port);
    spec.dir = from_host ? t.host_tx_dir(h, p) : t.host_rx_dir(h, p);
    spec.point = from_host ? sim::TapPoint::kWire : sim::TapPoint::kArrival;
    spec.name = name;
    const sim::TapId id = sim_->add_tap(spec);
    if (id == sim::kNone) return "the simulator refused tap " + name;
    taps_.push_back(TapInfo{id, std::move(name), host, port, from_host});
    return "";
  }

  std::vector<TapCapture> take_taps() override {
    std::vector<TapCapture> out;
    for (const TapInfo& t : taps_) {
      TapCapture c;
      c.name = t.name;
      c.host = t.host;
      c.port = t.port;
      c.from_dut = t.from_host;
      c.capture = sim_->take_capture(t.id);
      c.capture.set_tap(t.name);
      out.push_back(std::move(c));
    }
    return out;
  }

  std::string inject_to(int host, int port, std::span<const std::uint8_t> frame, std::uint64_t at_ns) override {
    const sim::SimError e = sim_->inject_to(static_cast<std::uint32_t>(host), static_cast<std::uint8_t>(port),
                                            wire::Bytes(frame.data(), frame.size()), at_ns);
    return e == sim::SimError::kOk ? "" : sim::to_string(e);
  }

  void set_impairment_hook(ImpairmentHook hook) override {
    hook_ = std::move(hook);
    if (!hook_) {
      sim_->set_impairment_hook(nullptr);
      return;
    }
    sim_->set_impairment_hook([this](std::uint64_t now, sim::DirId dir, wire::MutBytes frame, std::uint16_t& len) {
      return on_packet(now, dir, frame, len);
    });
  }

  std::string schedule_fault(const FaultRequest& f) override {
    const auto& t = sim_->topology();
    sim::SimError e = sim::SimError::kOk;
    using K = FaultRequest::Kind;
    switch (f.kind) {
      case K::kLinkDown:
      case K::kLinkUp:
      case K::kBlackhole: {
        const auto l = t.find_link(f.target);
        if (!l) return "no link named '" + f.target + "'";
        if (f.kind == K::kLinkDown) e = sim_->link_down(*l, f.at_ns);
        if (f.kind == K::kLinkUp) e = sim_->link_up(*l, f.at_ns);
        if (f.kind == K::kBlackhole) e = sim_->blackhole(*l, f.at_ns, true);
        break;
      }
      case K::kSwitchDown:
      case K::kSwitchUp: {
        const auto n = t.find_switch(f.target);
        if (!n) return "no switch named '" + f.target + "'";
        e = f.kind == K::kSwitchDown ? sim_->switch_down(*n, f.at_ns) : sim_->switch_up(*n, f.at_ns);
        break;
      }
      case K::kPortDown:
      case K::kPortUp:
        e = sim_->port_admin(static_cast<std::uint32_t>(f.host), static_cast<std::uint8_t>(f.port),
                             f.kind == K::kPortUp, f.at_ns);
        break;
    }
    return e == sim::SimError::kOk ? "" : sim::to_string(e);
  }

  std::vector<FaultEvent> faults() const override {
    std::vector<FaultEvent> out;
    for (const sim::FaultRecord& r : sim_->fault_log()) {
      if (r.per_packet) continue;  // per-packet impairments are reported per rule by the runner
      FaultEvent f;
      f.at_ns = r.at_ns;
      f.kind = sim::to_string(r.kind);
      f.target = sim_->fault_target(r);
      f.plane = static_cast<int>(r.plane);
      out.push_back(std::move(f));
    }
    return out;
  }

  LinkRef find_link(std::string_view name) const override {
    const auto l = sim_->topology().find_link(name);
    return l ? link_ref(*l) : LinkRef{UINT32_MAX, std::string(name), 0, -1};
  }
  LinkRef host_link(int host, int port) const override {
    const auto& t = sim_->topology();
    if (host < 0 || static_cast<std::uint32_t>(host) >= t.hosts() || port < 1 ||
        static_cast<std::uint32_t>(port) > t.planes()) {
      return LinkRef{UINT32_MAX, "", 0, -1};
    }
    return link_ref(t.host_link(static_cast<std::uint32_t>(host), static_cast<std::uint32_t>(port)));
  }
  bool switch_exists(std::string_view name) const override { return sim_->topology().find_switch(name).has_value(); }

  Path path_of(int src, int port, std::span<const std::uint8_t> frame) const override {
    const sim::PathTrace tr = sim::trace_frame(*sim_, static_cast<std::uint32_t>(src), static_cast<std::uint8_t>(port),
                                               wire::Bytes(frame.data(), frame.size()));
    Path p;
    p.delivered = tr.delivered;
    const auto& t = sim_->topology();
    for (sim::DirId d : tr.dirs) {
      p.links.push_back(link_ref(sim::Topology::link_of(d)));
      const sim::NodeId to = t.dir_to(d);
      if (t.node(to).kind != sim::NodeKind::kHost) p.switches.push_back(t.node_name(to));
    }
    return p;
  }

  NetworkFacts network_facts(int src, int dst, std::uint32_t mtu_bytes) const override {
    const auto& t = sim_->topology();
    NetworkFacts f;
    f.base_rtt_ns = sim::base_rtt_ns(*sim_, static_cast<std::uint32_t>(src), static_cast<std::uint32_t>(dst), mtu_bytes);
    // A QP sprays over every plane: its window covers the NIC's aggregate rate.
    f.line_rate_bps = t.config().host_link.rate_mbps * 1'000'000ull * t.planes();
    f.fabric_trims = t.config().sw.trim;
    // A bridged end forwards fewer frames per second than the fabric's links carry and adds its
    // crossings to every round trip: congestion control must see that bottleneck.
    for (const auto& [host, d] : bridged_) {
      if (host != src && host != dst) continue;
      if (d.rate_bps != 0) f.line_rate_bps = std::min(f.line_rate_bps, d.rate_bps);
      f.base_rtt_ns += d.rtt_ns;
    }
    return f;
  }

  DefaultEvs default_evs(wire::EvFmtMode mode, int src, int dst, bool srv6_srh) const override {
    DefaultEvs d;
    const auto s = static_cast<std::uint32_t>(src);
    const auto t = static_cast<std::uint32_t>(dst);
    const auto& topo = sim_->topology();
    const std::uint32_t count = topo.planes() * topo.spines() * 2;
    std::vector<sim::EvSpec> evs;
    std::size_t bytes = 0;
    // Identity profiles: one EV field per format field with a full mask, so the EV value the
    // controller names is the on-wire bytes.
    switch (mode) {
      case wire::EvFmtMode::kStev:
        evs = sim::stev_evs_covering_all_spines(*sim_, s, t, count);
        d.format_widths = {16, 16};
        bytes = 4;
        break;
      case wire::EvFmtMode::kUdp:
        evs = sim::udp_evs_covering_all_spines(*sim_, s, t, count);
        d.format_widths = {16};
        bytes = 2;
        break;
      case wire::EvFmtMode::kSrv6:
        evs = sim::srv6_evs(topo, s, t, srv6_srh);
        d.format_widths = {32, 16, 16, 16, 16, 16, 16};
        if (srv6_srh) d.format_widths.insert(d.format_widths.end(), {32, 16, 16, 16, 16, 16, 16});
        bytes = srv6_srh ? 32 : 16;
        break;
    }
    for (std::uint32_t w : d.format_widths) {
      const std::uint32_t mask = w == 32 ? 0xFFFFFFFFu : ((1u << w) - 1u);
      d.fields.push_back(ev::EvField{w, 0, 0, mask, mask});
    }
    for (const sim::EvSpec& e : evs) {
      d.evs.emplace_back(std::vector<std::uint8_t>(e.wire.begin(), e.wire.begin() + bytes), e.port);
    }
    return d;
  }

 private:
  struct TapInfo {
    sim::TapId id;
    std::string name;
    int host;
    int port;
    bool from_host;
  };

  LinkRef link_ref(sim::LinkId l) const {
    const auto& t = sim_->topology();
    const sim::LinkInfo info = t.link(l);
    const int host = info.host_link ? static_cast<int>(t.node(info.lower).index) : -1;
    return LinkRef{l, t.link_name(l), static_cast<int>(info.plane), host};
  }

  sim::Impairment on_packet(std::uint64_t now, sim::DirId dir, wire::MutBytes frame, std::uint16_t& len) {
    const auto& t = sim_->topology();
    const sim::LinkId l = sim::Topology::link_of(dir);
    const sim::LinkInfo info = t.link(l);
    LinkPacket p;
    p.now_ns = now;
    p.link = l;
    p.plane = static_cast<int>(info.plane);
    p.host = info.host_link ? static_cast<int>(t.node(info.lower).index) : -1;
    p.toward_host = info.host_link && !sim::Topology::upward(dir);
    p.from_host_port = info.host_link && sim::Topology::upward(dir);
    p.bytes = frame.data();
    p.len = len;
    const ImpairAction a = hook_(p);
    sim::Impairment out;
    using K = ImpairAction::Kind;
    switch (a.kind) {
      case K::kPass: break;
      case K::kDrop: out.action = sim::Impairment::Action::kDrop; break;
      case K::kTrim:
        out.action = sim::Impairment::Action::kTrim;
        out.trim_bytes = a.trim_bytes;
        break;
      case K::kDuplicate:
        out.action = sim::Impairment::Action::kDuplicate;
        out.copies = std::clamp<std::uint32_t>(a.copies, 1, 16);
        break;
      case K::kDelay:
        out.action = sim::Impairment::Action::kDelay;
        out.delay_ns = a.delay_ns;
        break;
      case K::kCorrupt:  // the program chose the byte: flip it here, the frame goes on
        if (a.offset < len) frame[a.offset] ^= a.xor_mask;
        break;
      case K::kMarkCe: {  // as a congested switch would (the frame goes on, marked)
        sim::FrameLayout layout;
        if (sim::parse_layout(frame.data(), len, layout)) sim::mark_ce_all(frame.data(), len, layout);
        break;
      }
    }
    return out;
  }

  std::unique_ptr<sim::Simulator> sim_;
  std::unique_ptr<sim::PacedRun> paced_;  // set once a host is bound to real interfaces
  TimingBudget budget_;
  std::vector<std::pair<int, BridgeDeclaration>> bridged_;
  std::vector<TapInfo> taps_;
  ImpairmentHook hook_;
};

}  // namespace

std::vector<std::string> testbed_preset_names() { return sim::preset_names(); }

std::unique_ptr<Testbed> make_sim_testbed(const TestbedRequest& spec, std::uint64_t seed, std::string* error) {
  auto fail = [&](std::string m) -> std::unique_ptr<Testbed> {
    if (error) *error = std::move(m);
    return nullptr;
  };
  std::string preset = spec.preset;
  if (preset.empty() && spec.file.empty()) preset = "mini";
  std::optional<sim::TopologyConfig> cfg;
  if (!spec.file.empty() || looks_like_file(preset)) {
    const std::filesystem::path f = spec.file.empty() ? std::filesystem::path(preset) : spec.file;
    sim::TestbedLoad loaded = sim::load_testbed_file(f);
    if (!loaded.ok()) return fail(loaded.describe());
    cfg = std::move(loaded.config);
    preset = f.string();
  } else {
    cfg = sim::preset(preset);
    if (!cfg) {
      std::string names;
      for (const auto& n : sim::preset_names()) names += (names.empty() ? "" : ", ") + n;
      return fail("unknown testbed preset '" + preset + "' (known: " + names + ")");
    }
  }
  if (spec.planes) cfg->planes = *spec.planes;
  if (spec.hosts) cfg->hosts = *spec.hosts;
  if (spec.link_gbps) cfg->host_link.rate_mbps = cfg->fabric_link.rate_mbps = std::uint64_t{*spec.link_gbps} * 1000;
  if (spec.mtu) cfg->host_link.mtu = cfg->fabric_link.mtu = *spec.mtu;
  if (spec.trim_bytes) cfg->sw.trim_bytes = *spec.trim_bytes;
  if (spec.dscp) cfg->sw.dscp = *spec.dscp;
  for (const auto& [k, v] : spec.overrides) {
    if (std::string e = sim::apply_override(*cfg, k, v); !e.empty()) return fail("testbed override " + e);
  }
  cfg->seed = seed;
  if (cfg->hosts < 2) return fail("testbed needs at least 2 hosts (the DUT and the harness's peer)");
  std::string why;
  auto s = sim::Simulator::create(*cfg, &why);
  if (!s) return fail("testbed '" + preset + "': " + why);
  return std::make_unique<SimTestbed>(std::move(s));
}

}  // namespace mrc::harness
