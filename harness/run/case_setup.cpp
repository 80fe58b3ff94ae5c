#include "harness/run/case_setup.hpp"

#include "harness/dut/profile_setup.hpp"
#include "reference/ev/controller.hpp"
#include "reference/transport/qp_types.hpp"

namespace mrc::run {
namespace {

namespace ap = mrc::agentproto;
using harness::DutSetup;
using harness::EvFormatMode;
using harness::EvMode;

wire::EvFmtMode wire_mode_of(EvFormatMode m) {
  switch (m) {
    case EvFormatMode::kStev: return wire::EvFmtMode::kStev;
    case EvFormatMode::kSrv6: return wire::EvFmtMode::kSrv6;
    case EvFormatMode::kUdp: return wire::EvFmtMode::kUdp;
  }
  return wire::EvFmtMode::kStev;
}

// Explicit EVs drawn by the harness (README "config": `explicit` with `generate`).
void draw_evs(DutSetup& s, const harness::EvGenerateConfig& g, std::uint32_t planes) {
  std::vector<ev::EvField> fields;
  std::uint32_t bits = 0;
  for (const auto& f : s.fields) {
    fields.push_back(ev::EvField{f.width, f.init, f.min, f.max, f.mask});
    bits += static_cast<std::uint32_t>(__builtin_popcount(f.mask));
  }
  std::vector<ev::EvEntry> drawn;
  const std::uint32_t mask = planes >= 32 ? 0xFFFFFFFFu : ((1u << planes) - 1u);
  ev::generate_evs(fields, g.count, g.seed, mask, drawn);
  const std::size_t bytes = std::max<std::size_t>(1, (bits + 7) / 8);
  s.evs.clear();
  for (const auto& e : drawn) {
    s.evs.push_back(ap::EvValue{std::vector<std::uint8_t>(e.val.begin(), e.val.begin() + bytes), e.port});
  }
}

}  // namespace

CaseSetups make_setups(const harness::Case& c, const harness::Testbed& tb, int dut_host, int peer_host,
                       std::uint64_t buffer_bytes, std::uint64_t seed) {
  CaseSetups out;
  DutSetup s;
  const harness::CaseConfig& cfg = c.config;
  const EvFormatMode mode = cfg.ev_format ? cfg.ev_format->mode : EvFormatMode::kStev;
  const wire::EvFmtMode wmode = wire_mode_of(mode);
  s.format_mode = harness::format_mode_of(wmode);
  s.qp = qp_params(cfg.qp);
  s.cc = nscc_params(cfg.cc_profile.value_or(harness::NsccConfig{}));
  // NSCC is tuned to the network (W14): the testbed's unloaded RTT unless the case sets one.
  const harness::Testbed::NetworkFacts net = tb.network_facts(dut_host, peer_host, cfg.qp.mtu);
  if (s.cc->base_rtt == 0) s.cc->base_rtt = static_cast<std::uint32_t>(net.base_rtt_ns);
  s.cc_line_rate_bps = net.line_rate_bps;
  s.cc_fabric_trims = net.fabric_trims;
  s.buffer_bytes = buffer_bytes;
  s.ipv4 = c.requires_cap(harness::Capability::kIpv4);
  s.seed = seed;
  // W13 both endpoints (and the fabric, case_session.cpp) use the case's DSCP values.
  s.dscp = harness::dscp_values(dscp_config(cfg.dscp));

  // SRv6 with a format wider than one 128-bit container asks for the SRH segment too (W1).
  std::uint32_t format_bits = 0;
  if (cfg.ev_format) {
    for (std::uint32_t w : cfg.ev_format->widths) format_bits += w;
  }
  const bool srh = mode == EvFormatMode::kSrv6 && format_bits > 128;
  if (!cfg.ev_profile) {
    harness::use_default_evs(s, tb.default_evs(wmode, dut_host, peer_host, srh));
    if (s.evs.empty()) {
      out.error = "the testbed has no default " + std::string(harness::to_string(mode)) + " EVs";
      return out;
    }
  } else {
    const harness::EvProfileConfig& p = *cfg.ev_profile;
    if (cfg.ev_format) s.format_widths = cfg.ev_format->widths;
    s.ev_mode = ev_mode_of(p.mode);
    s.fields = ev_fields(p.fields);
    s.ev_min_active = p.ev_min_active;
    s.denied = p.denied;
    s.ev_event_mask = p.event_mask;
    switch (p.mode) {
      case EvMode::kExplicit:
        if (!p.evs.empty()) {
          for (const auto& e : p.evs) s.evs.push_back(ap::EvValue{e.value, e.port});
        } else if (p.generate) {
          draw_evs(s, *p.generate, tb.planes());
        }
        break;
      case EvMode::kGenerated:
      case EvMode::kAuto:
        s.generate_count = p.generate ? p.generate->count : tb.planes() * 4;
        s.generate_seed = p.generate ? p.generate->seed : seed;
        break;
    }
    if (!cfg.ev_format && p.mode != EvMode::kAuto) {
      // Fields but no format: the testbed's default format for STEV.
      s.format_widths = tb.default_evs(wire::EvFmtMode::kStev, dut_host, peer_host).format_widths;
    }
  }
  if (s.ev_min_active == 0) s.ev_min_active = 1;

  out.dut = s;
  out.peer = s;
  out.peer.denied.clear();
  out.peer.seed = seed ^ 0x5EEDFEEDull;
  if (mode == EvFormatMode::kSrv6) {
    // SRv6 EVs are source routes: the peer's own direction needs its own paths (W1).
    harness::use_default_evs(out.peer, tb.default_evs(wire::EvFmtMode::kSrv6, peer_host, dut_host, srh));
    out.peer.ev_min_active = 1;
  }
  return out;
}

}  // namespace mrc::run
