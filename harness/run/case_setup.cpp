#include "harness/run/case_setup.hpp"

#include "reference/ev/controller.hpp"

namespace mrc::run {
namespace {

using harness::DutSetup;
using harness::EvFormatMode;
using harness::EvMode;

void use_defaults(DutSetup& s, const harness::Testbed::DefaultEvs& d) {
  s.format_widths = d.format_widths;
  s.ev_mode = EvMode::kExplicit;
  s.fields = d.fields;
  s.evs.clear();
  for (const auto& [value, port] : d.evs) s.evs.push_back(harness::EvSetup{value, port});
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
    s.evs.push_back(harness::EvSetup{std::vector<std::uint8_t>(e.val.begin(), e.val.begin() + bytes), e.port});
  }
}

}  // namespace

CaseSetups make_setups(const harness::Case& c, const harness::Testbed& tb, int dut_host, int peer_host,
                       std::uint64_t buffer_bytes, std::uint64_t seed) {
  CaseSetups out;
  DutSetup s;
  const harness::CaseConfig& cfg = c.config;
  s.format_mode = cfg.ev_format ? cfg.ev_format->mode : EvFormatMode::kStev;
  s.qp = cfg.qp;
  s.cc = cfg.cc_profile.value_or(harness::NsccConfig{});
  // NSCC is tuned to the network (MODEL: M12): the testbed's unloaded RTT unless the case sets one.
  const harness::Testbed::NetworkFacts net = tb.network_facts(dut_host, peer_host, cfg.qp.mtu);
  if (s.cc->base_rtt == 0) s.cc->base_rtt = static_cast<std::uint32_t>(net.base_rtt_ns);
  s.cc_line_rate_bps = net.line_rate_bps;
  s.cc_fabric_trims = net.fabric_trims;
  s.first_psn = cfg.qp.first_psn;
  s.buffer_bytes = buffer_bytes;
  s.ipv4 = c.requires_cap(harness::Capability::kIpv4);
  s.seed = seed;

  // SRv6 with a format wider than one 128-bit container asks for the SRH segment too (M1).
  std::uint32_t format_bits = 0;
  if (cfg.ev_format) {
    for (std::uint32_t w : cfg.ev_format->widths) format_bits += w;
  }
  const bool srh = s.format_mode == EvFormatMode::kSrv6 && format_bits > 128;
  if (!cfg.ev_profile) {
    use_defaults(s, tb.default_evs(s.format_mode, dut_host, peer_host, srh));
    if (s.evs.empty()) {
      out.error = "the testbed has no default " + std::string(harness::to_string(s.format_mode)) + " EVs";
      return out;
    }
  } else {
    const harness::EvProfileConfig& p = *cfg.ev_profile;
    if (cfg.ev_format) s.format_widths = cfg.ev_format->widths;
    s.ev_mode = p.mode;
    s.fields = p.fields;
    s.ev_min_active = p.ev_min_active;
    s.denied = p.denied;
    s.ev_event_mask = p.event_mask;
    switch (p.mode) {
      case EvMode::kExplicit:
        if (!p.evs.empty()) {
          for (const auto& e : p.evs) s.evs.push_back(harness::EvSetup{e.value, e.port});
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
      s.format_widths = tb.default_evs(EvFormatMode::kStev, dut_host, peer_host).format_widths;
    }
  }
  if (s.ev_min_active == 0) s.ev_min_active = 1;

  out.dut = s;
  out.peer = s;
  out.peer.denied.clear();
  out.peer.seed = seed ^ 0x5EEDFEEDull;
  if (s.format_mode == EvFormatMode::kSrv6) {
    // SRv6 EVs are source routes: the peer's own direction needs its own paths (MODEL: M1).
    use_defaults(out.peer, tb.default_evs(EvFormatMode::kSrv6, peer_host, dut_host, srh));
    out.peer.ev_min_active = 1;
  }
  return out;
}

}  // namespace mrc::run
