// Impairment programs: the case's `impair` steps turned into (a) per-packet rules the testbed's
// impairment hook asks for every packet (drop, trim, reorder, duplicate, corrupt, delay, and a
// black-hole by EV), selected by EV, plane, PSN range, time window, probability and link, and
// (b) scheduled faults (link down/up, switch down, port down, link black-hole).
//
// Where a rule applies: on the named `select.link` when there is one (both directions), else at
// a packet's first hop (the link leaving the sending host), so a rule acts once per packet.
// `psn_range` and `rtx` pick RDMA WRITE data packets only (a feedback PSN is an acknowledgement,
// not the packet's own number); `opcode` any packet with that BTH opcode. A trim rule only cuts
// trimmable data (DSCP_TRIMMABLE or DSCP_TRIMMABLE_RETX as configured, W13) longer than its size.
// Reorder holds back every (depth+1)-th selected packet by delay_ns (default: depth x 1 us), so
// `depth` later packets overtake it. Random choices come from a per-rule splitmix64 stream seeded
// from the case seed: the same seed gives the same impairments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "harness/case/case_model.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::harness::stim {

// A packet as the impairment hook hands it over.
struct PacketInfo {
  std::uint64_t now_ns = 0;
  std::uint32_t link = 0;  // testbed link id
  int plane = 0;           // 1-based
  bool first_hop = false;  // the packet is leaving its sending host on this link
  const std::uint8_t* bytes = nullptr;
  std::uint16_t len = 0;
  int from_host = -1;      // at a first hop: the sending host
};

struct Decision {
  // kMarkCe: the packet passes with CE set in its ECN-capable IP headers (the caller edits it).
  enum class Kind : std::uint8_t { kPass, kDrop, kTrim, kDuplicate, kDelay, kCorrupt, kMarkCe };
  Kind kind = Kind::kPass;
  std::uint32_t trim_bytes = 0;
  std::uint32_t copies = 0;
  std::uint64_t delay_ns = 0;
  std::uint32_t offset = 0;
  std::uint8_t xor_mask = 0xFF;
  int rule = -1;  // which rule decided (index into rules()), -1 for pass
};

// A fault to schedule on the testbed. Link faults name a link (`link`) or, with `plane`, the
// DUT's host link on that plane; the runner resolves both.
struct FaultPlan {
  ImpairKind kind = ImpairKind::kLinkDown;
  std::uint64_t at_ns = 0;
  std::string link;              // select.link
  std::optional<std::uint32_t> plane;  // select.plane
  std::string target_switch;     // switch_down
  std::optional<std::uint32_t> port;   // port_down
  std::size_t step = 0;          // index of the impair step in the case's stimulus
};

// One per-packet rule (for reports: what it selects).
struct RuleInfo {
  ImpairKind kind = ImpairKind::kDrop;
  std::uint64_t at_ns = 0;
  ImpairSelect select;
  std::size_t step = 0;
};

class ImpairmentProgram {
 public:
  // `steps`: the case's impair steps with their stimulus indices. `ev_echo_to_index` maps the EV
  // identity a frame carries (wire::ev_echo_value) to its EV index; `mode` is the EV format.
  ImpairmentProgram(const std::vector<std::pair<std::size_t, const ImpairStep*>>& steps, wire::EvFmtMode mode,
                    std::unordered_map<std::uint32_t, std::uint32_t> ev_echo_to_index, std::uint64_t seed);

  // The runner resolves each rule's `select.link` name to a testbed link id (rules whose link is
  // unknown never fire; the runner reports the bad name as a case error first).
  void bind_link(std::size_t rule, std::uint32_t link_id);
  // W13 the DSCP values the run's fabric and endpoints are configured with (the case's
  // config.dscp): a trim rule cuts only data in DSCP_TRIMMABLE or DSCP_TRIMMABLE_RETX. The
  // rewrite to DSCP_TRIMMED is the testbed's (it knows the last hop). Default: W13's values.
  void set_dscp(const wire::DscpConfig& dscp) { dscp_config_ = dscp; }

  Decision decide(const PacketInfo& p);

  // A traffic step that started at `start_ns` had its first write return `late_ns` after that (an
  // external DUT's post takes real time on a real-time testbed; nothing is late on virtual time).
  // Rules timed from that step follow it, once each: a time at the step's start stays (the traffic
  // starts with the call, its first packets may leave during it) and a window from there closes
  // `late_ns` later; a time into the traffic (after the start) moves by `late_ns`. Without this a
  // window meant for the first packets closes before they leave, and the case judges a DUT that
  // was never impaired. Returns how many rules moved.
  std::size_t follow_late_traffic(std::uint64_t start_ns, std::uint64_t late_ns);

  // An injection timed by the DUT's own packet (InjectStep::after_packet): it fires once, on the
  // first packet `host` sends that `select` picks at its first hop, whatever rule then acts on
  // that packet. Returns its index (trigger_select(), trigger_fired_at()).
  std::size_t add_trigger(const ImpairSelect& select, std::size_t step, int host);
  std::size_t trigger_count() const { return triggers_.size(); }
  // Its selection as it stands (follow_late_traffic() may have moved its window).
  const ImpairSelect& trigger_select(std::size_t i) const { return triggers_[i].rule.info.select; }
  std::size_t trigger_step(std::size_t i) const { return triggers_[i].rule.info.step; }
  // The time of the packet that fired it; UINT64_MAX: never fired.
  std::uint64_t trigger_fired_at(std::size_t i) const { return triggers_[i].fired_at; }
  // The triggers the last decide() fired (their indices).
  const std::vector<std::size_t>& fired() const { return fired_; }

  const std::vector<RuleInfo>& rules() const { return rules_; }
  const std::vector<FaultPlan>& faults() const { return faults_; }
  // Packets each rule acted on.
  const std::vector<std::uint64_t>& hits() const { return hits_; }

 private:
  struct Rule {
    RuleInfo info;
    ImpairParams params;
    std::optional<std::uint32_t> link_id;
    std::uint64_t rng = 0;
    std::uint64_t matched = 0;  // reorder: selected packets seen
    bool followed = false;      // moved by follow_late_traffic() already
  };
  bool selects(Rule& r, const PacketInfo& p, bool& decoded);
  double uniform(Rule& r);

  std::vector<Rule> rule_state_;
  std::vector<RuleInfo> rules_;
  std::vector<FaultPlan> faults_;
  std::vector<std::uint64_t> hits_;
  struct Trigger {
    Rule rule;  // its selection, matched as a rule's (its kind is never read: a trigger decides nothing)
    std::uint64_t fired_at = UINT64_MAX;
  };
  std::vector<Trigger> triggers_;
  std::vector<std::size_t> fired_;   // capacity: one per trigger (no allocation per packet)
  int trigger_host_ = -1;
  wire::EvFmtMode mode_;
  std::unordered_map<std::uint32_t, std::uint32_t> ev_index_;
  wire::DscpConfig dscp_config_;
  // Scratch of the current packet's decode (filled on first need; no allocation per packet).
  wire::DecodedFrame scratch_;
  bool is_data_ = false;
  bool has_bth_ = false;
  std::uint32_t psn_ = 0;
  std::uint8_t opcode_ = 0;
  bool rtx_ = false;
  std::optional<std::uint32_t> ev_;
  std::uint8_t dscp_ = 0;
};

}  // namespace mrc::harness::stim
