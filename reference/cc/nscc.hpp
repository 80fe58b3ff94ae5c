// UEC NSCC (network-signal-based congestion control), one instance per QP (MODEL: W14).
//
// NSCC is a sender window algorithm driven by two per-ACK signals, the ECN mark and the queueing
// delay (RTT − base RTT), plus trims and losses. The rules and their UEC defaults are in
// mrc-wire-model.md §4.2; the MRC controller API only fixes the configuration fields (§1.8).
//
// Everything here is deterministic and sans-I/O: time is whatever `now_ns` the caller passes, and
// no call allocates. The endpoint feeds one AckSample per SACK / Transport ACK (W14), a trim per
// NACK TRIMMED / TRIMMED_LASTHOP and a loss per inferred loss or retransmission timeout.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "reference/quirk/quirk_flag.hpp"

namespace mrc::cc {

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------

// The controller API's NSCC configuration (mrc_ctl_cc_nscc_cfg, §1.8), field for field, plus the
// network facts the defaults are derived from. A field left 0 takes its UEC default (W14, §4.2).
struct NsccConfig {
  // --- the API fields -------------------------------------------------------------------------
  std::uint8_t disable_qa = 0;                // non-zero: QuickAdapt off
  std::uint32_t adjust_bytes_threshold = 0;   // bytes; default 8 MTU
  std::uint32_t adjust_period_threshold = 0;  // ns; default 1 base RTT
  std::uint32_t base_rtt = 0;                 // ns; default kReferenceRttNs (12 us)
  float eta = 0;                              // bytes per period; default 0.15 MTU x scaling_a
  float fi = 0;                               // bytes per cwnd acked; default 5 MTU x scaling_a
  float fi_scale = 0;                         // fraction of acked bytes; default 0.25 x scaling_a
  float gamma = 0;                            // default 0.8
  float max_md_jump = 0;                      // smallest MD factor; default 0.5
  std::uint32_t max_cwnd = 0;                 // bytes; default 1.5 BDP
  std::uint8_t qa_gate = 0;                   // default 3
  std::uint32_t qa_threshold = 0;             // ns; default 4 x target (no trimming), else off
  std::uint32_t target_delay = 0;             // ns; default 0.75 x base RTT (trimming), else 1x

  // --- the network (not API fields; they size the defaults) -----------------------------------
  std::uint64_t line_rate_bps = 100'000'000'000ull;  // port line rate, bits per second
  std::uint32_t mtu_bytes = 4096;                    // bytes per full data packet
  bool fabric_trims = true;                          // switches trim instead of dropping (W13)
};

// The UEC reference network every default is scaled against (§4.2).
inline constexpr std::uint64_t kReferenceLineRateBps = 100'000'000'000ull;
inline constexpr std::uint32_t kReferenceRttNs = 12'000;
inline constexpr double kReferenceBdpBytes = 150'000.0;
// htsim's EWMA weight for the averaged queueing delay used by multiplicative decrease.
inline constexpr double kDelayEwmaWeight = 0.0125;
// Delay at or below this counts as "about zero" for fast increase (htsim tolerance).
inline constexpr std::uint32_t kFastIncreaseDelayToleranceNs = 1'000;
// qa_threshold value meaning "delay never triggers QuickAdapt" (the default with trimming).
inline constexpr std::uint32_t kQaThresholdOff = std::numeric_limits<std::uint32_t>::max();

enum class NsccError : std::uint8_t {
  kOk = 0,
  kBadLineRate,    // line_rate_bps == 0
  kBadMtu,         // mtu_bytes == 0
  kBadFactor,      // a float field is negative, NaN or infinite
  kBadGamma,       // gamma > 1 would turn a decrease into a negative window
  kBadMdJump,      // max_md_jump > 1 would make "decrease" grow the window
  kMaxCwndTooSmall,  // max_cwnd (given or derived) below one MTU
  kBadThreshold,   // qa_gate > 31 (MaxWnd / 2^qa_gate must stay meaningful)
};
std::string_view to_string(NsccError e);

// Every parameter resolved to a concrete value, plus the derived quantities. Produced by
// resolve(); the Nscc controller takes only this.
struct NsccParams {
  NsccError error = NsccError::kOk;  // kOk, or why the config was refused (params then hold the
                                     // reference-network defaults so a controller stays sane)
  bool ok() const { return error == NsccError::kOk; }

  bool disable_qa = false;
  std::uint32_t adjust_bytes_threshold = 0;   // bytes
  std::uint32_t adjust_period_threshold = 0;  // ns
  std::uint32_t base_rtt = 0;                 // ns
  double eta = 0;                             // bytes
  double fi = 0;                              // bytes
  double fi_scale = 0;
  double gamma = 0;
  double max_md_jump = 0;
  std::uint32_t max_cwnd = 0;                 // bytes (MaxWnd)
  std::uint8_t qa_gate = 0;
  std::uint32_t qa_threshold = 0;             // ns; kQaThresholdOff = delay never triggers QA
  std::uint32_t target_delay = 0;             // ns

  // Derived (not configurable through the API).
  std::uint64_t line_rate_bps = 0;
  std::uint32_t mtu_bytes = 0;
  bool fabric_trims = false;
  double bdp_bytes = 0;   // line rate x base RTT
  double scaling_a = 0;   // BDP / 150,000
  double scaling_b = 0;   // target / 12 us
  double alpha = 0;       // proportional-increase gain: 4 MTU x scaling_a x scaling_b / target
};

// Fills every 0 field of `cfg` with its UEC default (§4.2) and derives the rest. Never throws;
// on bad input `.error` says why.
NsccParams resolve(const NsccConfig& cfg);

// ---------------------------------------------------------------------------------------------
// Controller
// ---------------------------------------------------------------------------------------------

// One feedback packet's worth of input (W14).
struct AckSample {
  std::uint64_t now_ns = 0;
  std::uint32_t acked_bytes = 0;  // payload bytes newly acknowledged by this feedback
  std::uint32_t rtt_ns = 0;       // RTT of the triggering packet, service time already
                                  // subtracted; 0 = no valid sample (bytes count, no delay rule)
  bool ecn_marked = false;        // SETH m = SKIP_ONCE (W14)
  // CC_STATE rcvd_bytes: the receiver's cumulative payload bytes, mod 2^32. When present, QuickAdapt's
  // achieved bytes come from its deltas; otherwise from the sum of acked_bytes.
  std::optional<std::uint32_t> rcvd_bytes;
  // Bytes in flight when this feedback arrived (for QuickAdapt's "ignore marks on what is in
  // flight"); unset = assume a full cwnd is in flight.
  std::optional<std::uint64_t> inflight_bytes;
};

// Which rule acted. Several can act on one event (e.g. an increase accrues and the batch is
// applied), so a decision is a bit set of these.
enum class NsccRule : std::uint8_t {
  kFairIncrease = 0,       // unmarked, delay >= target: inc += fi x acked
  kProportionalIncrease,   // unmarked, delay < target: inc += alpha x acked x (target - delay)
  kFastIncrease,           // near-zero delay for over a cwnd: cwnd += fi_scale x acked
  kFulfillBytes,           // batch applied because adjust_bytes_threshold was passed
  kFulfillPeriod,          // batch applied because adjust_period_threshold passed (+ eta)
  kMultiplicativeDecrease, // marked, delay >= target, avg delay > target: cwnd *= factor
  kMdHeldOff,              // MD would fire but one already ran within this base RTT
  kMarkBelowTarget,        // marked but delay < target: no change
  kQuickAdapt,             // cwnd set to the achieved bytes of the last epoch
  kQaIgnoredMark,          // a mark ignored because it belongs to the bytes in flight at QA
  kTrimShrink,             // a trim outside QuickAdapt: cwnd -= trimmed bytes
  kLossShrink,             // a loss outside QuickAdapt: cwnd -= lost bytes
  kClampMax,               // cwnd clamped down to max_cwnd
  kClampMin,               // cwnd clamped up to one MTU
  kSuppressedByQuirk,      // a decrease was skipped because of the never_decrease quirk
  kMdAvgBelowTarget,       // marked, delay >= target, but the averaged delay is not above target
  kCount,
};
inline constexpr std::size_t kNsccRuleCount = static_cast<std::size_t>(NsccRule::kCount);
std::string_view to_string(NsccRule r);

struct NsccDecision {
  std::uint32_t rules = 0;       // bit (1 << NsccRule) per rule that acted
  double cwnd_before = 0;        // bytes
  double cwnd_after = 0;         // bytes
  std::uint64_t now_ns = 0;
  bool fired(NsccRule r) const { return (rules >> static_cast<unsigned>(r)) & 1u; }
};

// Conformance quirks: ways to get NSCC wrong on purpose. The endpoint maps its nscc-* defects
// (reference/defects.hpp) onto them. Built implicitly from a bool = never_decrease alone.
struct NsccQuirks {
  quirk::Flag never_decrease = false;   // every decrease (MD, QuickAdapt, trim/loss shrink) is skipped
  quirk::Flag md_below_target = false;  // a mark below target cuts cwnd by max_md_jump (once per base RTT)
  quirk::Flag md_every_mark = false;    // multiplicative decrease on every mark, no once-per-base-RTT hold-off
  quirk::Flag no_quick_adapt = false;   // QuickAdapt never fires, as if disable_qa were set
  quirk::Flag qa_one_mtu = false;       // QuickAdapt sets the window to one MTU, not to the bytes achieved
  quirk::Flag qa_ungated = false;       // QuickAdapt fires whatever the epoch achieved (no qa_gate test)
  quirk::Flag exceed_max_cwnd = false;  // the window starts at and is clamped to 4 x max_cwnd
  NsccQuirks() = default;
  NsccQuirks(bool never_decrease_) : never_decrease(never_decrease_) {}  // NOLINT(google-explicit-constructor)
};

class Nscc {
 public:
  explicit Nscc(const NsccParams& params, NsccQuirks quirks = {});

  void on_ack(const AckSample& s);
  // A NACK TRIMMED for `bytes` of payload (W7, W14).
  void on_trim(std::uint64_t now_ns, std::uint32_t bytes,
               std::optional<std::uint64_t> inflight_bytes = std::nullopt);
  // A loss (inferred from SACKs, or a retransmission timeout) of `bytes` of payload.
  void on_loss(std::uint64_t now_ns, std::uint32_t bytes,
               std::optional<std::uint64_t> inflight_bytes = std::nullopt);

  // Current window in bytes (floor of the internal value), always in [mtu, max_cwnd].
  std::uint32_t cwnd() const;
  double cwnd_exact() const { return cwnd_; }
  // May a packet of `pkt_bytes` go out with `inflight_bytes` un-ACKed? Always true when nothing is
  // in flight, so a window of one MTU never stalls.
  bool can_send(std::uint64_t inflight_bytes, std::uint32_t pkt_bytes) const;
  // NSCC as modelled runs on feedback only (the adjustment period and QuickAdapt epoch are
  // checked when feedback arrives, as in htsim), so there is no timer: always nullopt. Kept so
  // the endpoint can poll every component alike.
  std::optional<std::uint64_t> next_deadline() const { return std::nullopt; }

  // --- introspection (tests, reports) ---------------------------------------------------------
  const NsccParams& params() const { return p_; }
  bool never_decrease() const { return quirks_.never_decrease; }
  const NsccQuirks& quirks() const { return quirks_; }
  const NsccDecision& last_decision() const { return last_; }
  std::uint64_t fired_count(NsccRule r) const { return counts_[static_cast<std::size_t>(r)]; }
  double avg_delay_ns() const { return avg_delay_; }
  std::uint32_t live_base_rtt_ns() const { return base_rtt_live_; }
  double pending_inc_bytes() const { return inc_bytes_; }
  bool in_fast_increase() const { return fast_increase_; }

 private:
  void begin(std::uint64_t now);
  void finish();
  void note(NsccRule r);
  bool quick_adapt(std::uint64_t now, bool loss_signal, bool marked, double delay,
                   std::optional<std::uint64_t> inflight);
  void increase_unmarked(std::uint32_t acked, double delay);
  void multiplicative_decrease(std::uint64_t now);
  void fulfill_adjustment(std::uint64_t now);
  void on_nack(std::uint64_t now, std::uint32_t bytes, std::optional<std::uint64_t> inflight,
               NsccRule why);
  void decrease_to(double v, NsccRule why);
  void clamp();

  NsccParams p_;
  NsccQuirks quirks_;

  double cwnd_ = 0;               // bytes
  double inc_bytes_ = 0;          // accrued increase (bytes^2), applied as inc / cwnd
  double avg_delay_ = 0;          // ns, EWMA of queueing-delay samples
  std::uint32_t base_rtt_live_ = 0;  // min(configured base RTT, smallest RTT seen)
  bool started_ = false;          // the first event opens the adjustment period and QA epoch

  // Fulfill adjustment batching.
  std::uint64_t adjust_bytes_ = 0;     // acked bytes since the last batch
  std::uint64_t last_adjust_ns_ = 0;   // start of the current adjustment period

  // Multiplicative decrease: at most once per base RTT.
  std::optional<std::uint64_t> last_md_ns_;

  // Fast increase: consecutive clear bytes counted while delay is about zero.
  std::uint64_t fi_clear_bytes_ = 0;
  bool fast_increase_ = false;

  // QuickAdapt epoch accounting.
  std::uint64_t qa_epoch_end_ns_ = 0;
  std::uint64_t qa_achieved_bytes_ = 0;   // received (or acked) bytes in the current epoch
  std::optional<std::uint32_t> last_rcvd_bytes_;
  bool qa_pending_ = false;               // a trim or loss seen since the last QA check
  std::uint64_t qa_ignore_bytes_ = 0;     // bytes in flight when QA last fired
  std::uint64_t qa_ignored_bytes_ = 0;    // bytes fed back since then

  NsccDecision last_;
  NsccDecision cur_;
  std::array<std::uint64_t, kNsccRuleCount> counts_{};
};

}  // namespace mrc::cc
