// NSCC configuration: the UEC defaults (mrc-wire-model.md §4.2) for every field left 0 (W14).
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/cc/nscc.hpp"

namespace mrc::cc {
namespace {

// A float field the caller set: it must be a finite, non-negative number.
bool bad_float(float v) { return !std::isfinite(v) || v < 0.0f; }

// Bytes as a u32, saturating (a 1.6 Tb/s x 10 ms network would overflow otherwise).
std::uint32_t saturate_u32(double v) {
  constexpr double kMax = static_cast<double>(std::numeric_limits<std::uint32_t>::max());
  if (!(v > 0.0)) return 0;
  return v >= kMax ? std::numeric_limits<std::uint32_t>::max()
                   : static_cast<std::uint32_t>(std::llround(v));
}

NsccParams refuse(NsccError e) {
  // Hand back the reference network's defaults so a controller built anyway stays sane.
  NsccParams p = resolve(NsccConfig{});
  p.error = e;
  return p;
}

}  // namespace

std::string_view to_string(NsccError e) {
  switch (e) {
    case NsccError::kOk: return "ok";
    case NsccError::kBadLineRate: return "line_rate_bps must be non-zero";
    case NsccError::kBadMtu: return "mtu_bytes must be non-zero";
    case NsccError::kBadFactor: return "eta, fi, fi_scale, gamma and max_md_jump must be finite and >= 0";
    case NsccError::kBadGamma: return "gamma must be <= 1";
    case NsccError::kBadMdJump: return "max_md_jump must be <= 1";
    case NsccError::kMaxCwndTooSmall: return "max_cwnd must be at least one MTU";
    case NsccError::kBadThreshold: return "qa_gate must be <= 31";
  }
  return "unknown NSCC error";
}

NsccParams resolve(const NsccConfig& cfg) {  // W14
  if (cfg.line_rate_bps == 0) return refuse(NsccError::kBadLineRate);
  if (cfg.mtu_bytes == 0) return refuse(NsccError::kBadMtu);
  if (bad_float(cfg.eta) || bad_float(cfg.fi) || bad_float(cfg.fi_scale) || bad_float(cfg.gamma) ||
      bad_float(cfg.max_md_jump)) {
    return refuse(NsccError::kBadFactor);
  }
  if (cfg.gamma > 1.0f) return refuse(NsccError::kBadGamma);
  if (cfg.max_md_jump > 1.0f) return refuse(NsccError::kBadMdJump);
  if (cfg.qa_gate > 31) return refuse(NsccError::kBadThreshold);

  NsccParams p;
  p.line_rate_bps = cfg.line_rate_bps;
  p.mtu_bytes = cfg.mtu_bytes;
  p.fabric_trims = cfg.fabric_trims;
  const double mtu = cfg.mtu_bytes;

  p.base_rtt = cfg.base_rtt != 0 ? cfg.base_rtt : kReferenceRttNs;
  // BDP in bytes = bits/s x ns / (8 x 1e9); one division keeps round numbers exact.
  p.bdp_bytes = static_cast<double>(cfg.line_rate_bps) * p.base_rtt / 8e9;
  p.scaling_a = p.bdp_bytes / kReferenceBdpBytes;

  // Target queueing delay: with trimming the queue is cut short, so congestion shows earlier.
  if (cfg.target_delay != 0) {
    p.target_delay = cfg.target_delay;
  } else {
    const double t = cfg.fabric_trims ? 0.75 * p.base_rtt : 1.0 * p.base_rtt;
    p.target_delay = std::max<std::uint32_t>(1, saturate_u32(t));
  }
  p.scaling_b = static_cast<double>(p.target_delay) / kReferenceRttNs;

  p.max_cwnd = cfg.max_cwnd != 0 ? cfg.max_cwnd : saturate_u32(1.5 * p.bdp_bytes);
  if (p.max_cwnd < cfg.mtu_bytes) return refuse(NsccError::kMaxCwndTooSmall);

  p.fi = cfg.fi != 0.0f ? cfg.fi : 5.0 * mtu * p.scaling_a;
  p.fi_scale = cfg.fi_scale != 0.0f ? cfg.fi_scale : 0.25 * p.scaling_a;
  p.eta = cfg.eta != 0.0f ? cfg.eta : 0.15 * mtu * p.scaling_a;
  p.gamma = cfg.gamma != 0.0f ? cfg.gamma : 0.8;
  p.max_md_jump = cfg.max_md_jump != 0.0f ? cfg.max_md_jump : 0.5;
  p.adjust_bytes_threshold =
      cfg.adjust_bytes_threshold != 0 ? cfg.adjust_bytes_threshold : saturate_u32(8.0 * mtu);
  p.adjust_period_threshold =
      cfg.adjust_period_threshold != 0 ? cfg.adjust_period_threshold : p.base_rtt;
  p.qa_gate = cfg.qa_gate != 0 ? cfg.qa_gate : 3;
  p.disable_qa = cfg.disable_qa != 0;
  if (cfg.qa_threshold != 0) {
    p.qa_threshold = cfg.qa_threshold;
  } else if (cfg.fabric_trims) {
    p.qa_threshold = kQaThresholdOff;  // trims already give the fast signal
  } else {
    p.qa_threshold = saturate_u32(4.0 * p.target_delay);
  }
  // Not an API field: bytes per ns of headroom, so a cwnd of ACKs at zero delay adds
  // 4 MTU x scaling_a x scaling_b.
  p.alpha = 4.0 * mtu * p.scaling_a * p.scaling_b / p.target_delay;
  return p;
}

}  // namespace mrc::cc
