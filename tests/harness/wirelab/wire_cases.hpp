// The cases that run on the real-time bridge today (`--testbed netns --dut agent:reference`) with
// the verdict the in-process reference gets, and catalog defects that FAIL there.
//
// Measured on the 2-core machine (full library over netns, in-process verdicts for comparison):
// the control plane (EV profiles, DENIED, events), invalid-input injections and the failover and
// reliability cases that move few frames agree. The rest does not run on this wire yet: cases
// that move thousands of frames at fabric speed (spraying statistics, reordering, most of
// reliability) offer the bridge more than it forwards, and once an EV fails the DUT's 50 us probe
// timeout (MODEL M7) is shorter than the bridge's round trip under load, so the EV never recovers
// and its probes flood the bridge; golden cases pin timestamps the bridge moves. README "Test
// your NIC" and harness/README.md ("Real-time bridge") say the same.
#pragma once

#include <array>
#include <utility>

namespace mrc::wirelab::testing {

inline constexpr std::array kWireCases = {
    // EV control: profile states, limits, DENIED, events
    "evctl-i-101", "evctl-i-102", "evctl-o-001", "evctl-o-002", "evctl-o-103", "evctl-o-104", "evctl-o-105",
    "evctl-o-106", "evctl-v-001", "evctl-v-002", "evctl-v-004", "evctl-v-005", "evctl-v-006", "evctl-v-007",
    "evctl-v-009", "evctl-v-108", "evctl-v-109",
    // invalid input: forbidden opcodes, bad keys, ICRC, truncation, P_Key, QPN, ghost ACKs
    "invalid-i-002", "invalid-i-003", "invalid-i-004", "invalid-i-005", "invalid-i-006", "invalid-i-007",
    "invalid-i-008", "invalid-i-011", "invalid-i-012", "invalid-i-014", "invalid-i-101", "invalid-i-102",
    "invalid-i-103", "invalid-i-104",
    // failover and reliability with few frames
    "failover-v-012", "failover-v-015", "failover-v-017", "failover-v-018", "reliab-v-002", "reliab-v-008",
    "reliab-v-009",
    // source routing
    "srcroute-i-002", "srcroute-v-001", "srcroute-v-003", "srcroute-v-005",
};

// Catalog defects (reference/defects.hpp) with a listed case that catches them in-process
// (tests/harness/cli/case_defect_pairs_test.cpp): each must FAIL on the wire as well.
// Not listed, because they PASS on the wire although their case catches them in-process (to be
// understood): honour-ghost-ack (invalid-i-104), accept-truncated (invalid-i-008).
inline constexpr std::array<std::pair<const char*, const char*>, 12> kWireDefects = {{
    {"use-denied-ev", "evctl-v-001"},
    {"accept-invalid-profile", "evctl-i-101"},
    {"ignore-count-limits", "evctl-i-102"},
    {"bad-profile-transition", "evctl-o-103"},
    {"online-unpopulated", "evctl-o-104"},
    {"modify-online-without-cap", "evctl-o-105"},
    {"events-ignore-mask", "evctl-v-108"},
    {"imprecise-drop-count", "evctl-v-109"},
    {"accept-bad-rkey", "invalid-i-101"},
    {"accept-wrong-pkey", "invalid-i-102"},
    {"accept-bad-icrc", "invalid-i-103"},
    {"accept-wrong-qpn", "invalid-i-012"},
}};

}  // namespace mrc::wirelab::testing
