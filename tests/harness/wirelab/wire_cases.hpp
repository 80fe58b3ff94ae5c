// The cases that ran on the real-time bridge (`--testbed netns --dut agent:reference`) with the
// verdict the in-process reference gets run after run, which the lab image's test runs
// (tests/tools/image/), and catalog defects that FAIL there. The wire equivalence test runs the
// whole library (wire_equivalence_test.cpp SameVerdictAsInProcess).
//
// Measured on the 2-core machine (full library over netns; README "Test your NIC" has the
// figures): 7 of the 207 cases say UNSUPPORTED before they start (run/wire_fit.hpp says why: an
// impairment window finer than a round trip, an ACK timeout fixed shorter than two, ...), and the
// cases that move tens of thousands of frames make this machine's bridge fall behind real time,
// which stops them as INCONCLUSIVE. Listed here: the control plane (EV profiles, DENIED, events),
// invalid-input injections, endpoint operations and probes, source routing, and the spraying,
// reordering and reliability cases that move few enough frames to stay inside the declared
// budget.
//
// Cases written in units of their ACK timeout (`timing: scales`) run here with the timeout the
// runner raises them to (run/wire_fit.hpp wire_timeout); listed are those that PASSed in two full
// runs in a row. Full runs still end with a FAIL of the clean reference now and then
// (README "Test your NIC": reorder-v-016, reliab-v-101), which wire_equivalence_test.cpp's retries absorb. Disagreements found on the way and fixed:
// an expected answer to an injection crosses the bridge twice and gets the budget twice
// (invalid-i-004, invalid-i-008); injections after a control step wait for its call to return
// (reliab-v-106); the agent hands frames of all ports over in arrival order (reliab-v-014); ports
// the testbed does not cable are taken down (reliab-v-105); expects shorter than the traffic they
// time at the bridge's rate (srcroute-v-010) are UNSUPPORTED; impairment windows finer than a round
// trip were UNSUPPORTED until the cases counted packets in frame times (reliab-v-004 now runs).
#pragma once

#include <array>
#include <utility>

namespace mrc::wirelab::testing {

inline constexpr std::array kWireCases = {
    // EV control: profile states, limits, DENIED, events
    "evctl-i-101", "evctl-i-102", "evctl-o-001", "evctl-o-002", "evctl-o-103", "evctl-o-104", "evctl-o-105",
    "evctl-o-106", "evctl-v-002", "evctl-v-004", "evctl-v-009",
    // invalid input: forbidden opcodes, bad keys, ICRC, truncation, P_Key, QPN, ghost ACKs
    "invalid-i-002", "invalid-i-003", "invalid-i-005", "invalid-i-006", "invalid-i-008", "invalid-i-009",
    "invalid-i-010", "invalid-i-012", "invalid-i-014", "invalid-i-101", "invalid-i-102", "invalid-i-103",
    "invalid-i-104",
    // reliability, endpoint operations, NSCC
    "reliab-v-101", "reliab-v-102", "reliab-v-107", "reliab-v-109", "reliab-v-150",
    // ... and the ones that prove the wire fixes: frames of all ports in arrival order (014), ports
    // the testbed does not cable taken down (105), an injection waiting for the control call (106)
    "reliab-v-014", "reliab-v-105", "reliab-v-106",
    // failover: probes of an EV on its own path (control-driven)
    // (reliab-v-104 is not listed: across an agent its probes are answered one before the next, so
    // req_id_not_reused has nothing to judge there)
    "failover-v-011", "reliab-v-103", "srcroute-v-015", "srcroute-v-016",
    // reordering
    "reorder-v-010", "reorder-v-013", "reorder-v-019",
    // spraying statistics
    "spray-v-002", "spray-v-003", "spray-v-004", "spray-v-021",
    // source routing
    "srcroute-i-002", "srcroute-i-003", "srcroute-v-001", "srcroute-v-003", "srcroute-v-004", "srcroute-v-005",
    "srcroute-v-014", "srcroute-v-018",
    // `timing: scales` cases the runner gives a longer ACK timeout here (2 x the 500 us budget:
    // config.qp.timeout 10), failover timing among them: EV control, failover, retry limits,
    // PSN wrap, spraying around a black hole, a source-routed hold-down
    "evctl-v-005", "evctl-v-107", "evctl-v-108", "failover-v-010", "failover-v-015",
    "failover-v-017", "failover-v-018", "failover-v-020", "reliab-v-019", "reliab-v-024", "reliab-v-025",
    "spray-v-012", "spray-v-013", "srcroute-v-021",
    // PASSing in two full runs in a row since the paced fabric pauses its clock instead of running
    // a gap at once, makes its first writes' data before the clock starts, and moves impairment
    // windows with late traffic (2026-11-30): EV control, invalid input, retransmission, trimming,
    // reordering, spraying, source routing, failover
    "evctl-v-003", "invalid-i-001", "invalid-i-004", "invalid-i-007", "invalid-i-011", "invalid-i-105",
    "invalid-i-106", "invalid-i-107", "invalid-i-108", "reliab-v-001", "reliab-v-016", "reliab-v-018", "reliab-v-023",
    "reliab-v-027", "reliab-v-108", "reliab-v-110", "reliab-v-111", "reliab-v-112", "reliab-v-156", "reliab-v-157",
    "reorder-o-001", "reorder-v-012", "reorder-v-014", "reorder-v-018", "reorder-v-022",
    "reorder-v-023", "reorder-v-024", "spray-v-014", "spray-v-016", "spray-v-022", "spray-v-024", "spray-v-025",
    "spray-v-030", "srcroute-i-001", "srcroute-v-008", "srcroute-v-011", "srcroute-v-013",
    "srcroute-v-017", "srcroute-v-019", "srcroute-v-020", "srcroute-v-022", "failover-v-012", 
    "failover-v-024", "failover-v-025",
    // PASSing in three full runs in a row since goldens compare times as the field class `bridged`
    // (from their message's first packet, paced at the bridge's rate), an absent frame's window
    // opens once the control call returned and its frames crossed, feedback may echo any copy of
    // its trigger within twice the budget, QuickAdapt's epoch widens by the budget, and failure
    // detection gets a T of at least one packet per EV at the bridge's rate (2026-11-30): goldens,
    // failover timing, spraying statistics, reordering, source routing
    "spray-v-005", "spray-v-018", "spray-v-020", "srcroute-v-002", "srcroute-v-006", "srcroute-v-007",
    "failover-v-002", "failover-v-013", "failover-v-014", "evctl-v-001", "reliab-v-007", "reliab-v-017",
    "reliab-v-020", "reliab-v-154", "reliab-v-160",
    "reorder-v-007", "reorder-v-015",
    "reorder-v-026", "reorder-v-027", "spray-v-001", "spray-v-006", "spray-v-007", "spray-v-008", "spray-v-010",
    "spray-v-015", "spray-v-019", "spray-v-023", "spray-v-032", "srcroute-v-012", "srcroute-v-023",
    // PASSing in two full runs in a row since times that count packets are written in frame times
    // F, evaluated at the bridge's rate (2026-12-01): early losses, trims and a deny that were
    // UNSUPPORTED here (windows finer than a round trip) or had nothing to judge, and cases that
    // PASSed both runs without being listed before
    "evctl-v-006", "invalid-i-015", "reliab-v-004", "reliab-v-005", "reliab-v-006", "reliab-v-011", "reliab-v-012",
    "reliab-v-013", "reliab-v-015", "reliab-v-021", "reliab-v-151", "reorder-v-002", "reorder-v-017", "spray-o-001",
    "spray-v-009", "spray-v-017", "spray-v-027", "spray-v-028",
    // PASSing in two full runs in a row since absent windows open after the measured crossings and
    // injections follow late traffic (2026-12-01), among them reordering cases INCONCLUSIVE before
    "failover-v-001", "invalid-i-013", "reorder-v-003", "reorder-v-004", "reorder-v-006", "reorder-v-009",
    "reorder-v-016", "reorder-v-020", "reorder-v-025", "srcroute-v-009", "srcroute-v-010",
    // UNSUPPORTED before (a loss window of 30 us), its loss and ghost ACK now in frame times
    "invalid-i-109",
    // PASSing in two full runs in a row (2026-12-01, fourth session): reordering held in F whose
    // sack_exact now judges by arrival order across the bridge, absent windows a control call no
    // longer leaves empty, a retransmission case and early losses of a PSN range
    "failover-v-007", "failover-v-021", "reliab-v-010", "reorder-v-001", "reorder-v-005", "reorder-v-008",
    "reorder-v-011", "spray-v-029",
    // PASSing in four full runs in a row since failed EVs are timed from the DUT's first data on
    // them after the fault (failover timing across the bridge: a conformant DUT with two or three
    // packets in flight first used some dead EVs 2 T after the fault), a WIMM limit reached, and
    // evctl-v-008 since its allow and expect window count frame times (5 of 5 runs)
    "failover-v-005", "failover-v-022", "reliab-v-008", "evctl-v-008",
    // PASSing in five full runs of six (2026-12-02; in the sixth the DUT's event queue lost no
    // event, nothing to judge): an EV event queue's exact drop count
    "evctl-v-109",
    // (Not listed since 2026-12-01, fourth session: reliab-v-159. Across the bridge the reference's
    // window did not come down after the trim, and the achieved bytes, widened by the budget, allow
    // the whole window before it, so a QuickAdapt cut cannot be told from none: INCONCLUSIVE there,
    // naming it. Its PASS there had judged nothing.)
    // (Not listed since a check says INCONCLUSIVE where it judged nothing (2026-12-01): reorder-o-002,
    // reorder-v-021 and reliab-v-009, whose window limit never
    // binds under the DUT's congestion control at 1 Gb/s; evctl-v-007, whose absent window of
    // 300 us after a deny closes before the call's return and the budget let it open.)
    // (reorder-v-001, -005, -011 hold packets for F: held as many packets long as in the simulator,
    // the reordering is real on the wire, and they PASS there since sack_exact judges by arrival
    // order on the answered PSN's port.)
};

// Catalog defects (reference/defects.hpp) with a case that catches them in-process (the campaign's
// killers, `mrc-conform campaign --relevant-only`): each must FAIL on the wire as well. The list is
// every defect whose killing case FAILed it in at least two of three netns runs (2026-11-30; a
// check of the DUT's own bytes FAILs there even when the bridge ran late, case_result.cpp). The
// rest of the catalog on the wire, and why, is in the README's "Test your NIC".
inline constexpr std::array<std::pair<const char*, const char*>, 36> kWireDefects = {{
    {"accept-invalid-profile", "evctl-i-101"},
    {"ignore-count-limits", "evctl-i-102"},
    {"bad-profile-transition", "evctl-o-103"},
    {"online-unpopulated", "evctl-o-104"},
    {"modify-online-without-cap", "evctl-o-105"},
    {"accept-bad-rkey", "invalid-i-101"},
    {"accept-wrong-pkey", "invalid-i-102"},
    {"accept-bad-icrc", "invalid-i-103"},
    {"accept-wrong-qpn", "invalid-i-012"},
    {"probe-needs-qp", "reliab-v-101"},
    {"probe-reqid-mangled", "reliab-v-102"},
    {"probe-ignores-tc", "reliab-v-103"},
    {"place-trimmed-stub", "reorder-v-019"},
    {"slow-timeout", "reliab-v-023"},
    {"no-reth-middle", "spray-v-018"},
    {"no-ce-sack", "reliab-v-016"},
    {"accept-out-of-window", "reorder-o-001"},
    {"no-ts-reflect", "reliab-v-027"},
    {"answer-read", "invalid-i-001"},
    {"last-reth-len-mtu", "spray-v-024"},
    {"region-end-off-by-one", "invalid-i-105"},
    {"region-end-exclusive", "reorder-v-024"},
    {"ev-scatter-16", "spray-v-025"},
    {"rkey-index-only", "invalid-i-107"},
    {"qpn-low-16", "invalid-i-108"},
    {"pkey-full-compare", "reliab-v-156"},
    {"port-status-down-port-up", "reliab-v-105"},
    {"no-flow-label-ev", "evctl-v-009"},
    {"srv6-tag-constant", "srcroute-v-017"},
    {"pdcid-zero", "reliab-v-112"},
    {"dscp-hardcoded", "spray-v-030"},
    {"retry-one-extra", "reliab-v-007"},
    {"keep-failed-ev", "failover-v-015"},
    {"feedback-data-class", "spray-v-029"},  // its early losses a PSN range (2026-12-01)
    // Its silence after the truncated frame is judged on each frame's own crossing of the DUT's
    // port (2026-12-02): the answer left the DUT 234 us after the truncated frame reached it. Not
    // listed for a day before: the window opened after the run's largest crossings, up to the
    // 500 us budget, and on a noisy VM the answer came before it (5 of 5 runs of a CI's ctest).
    {"accept-truncated", "invalid-i-008"},
    {"honour-ghost-ack", "invalid-i-015"},   // its ghost SACK sent as the lost PSN leaves (2026-12-01)
}};

}  // namespace mrc::wirelab::testing
