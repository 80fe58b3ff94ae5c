// The byte format of a CC profile's `config` for the "uet-1.0-nscc" algorithm, as the reference
// endpoint reads it: ASCII text "name=value" pairs separated by ',' ';' or whitespace, where
// name is a mrc_ctl_cc_nscc_cfg field (disable_qa, adjust_bytes_threshold,
// adjust_period_threshold, base_rtt, eta, fi, fi_scale, gamma, max_md_jump, max_cwnd, qa_gate,
// qa_threshold, target_delay) or a network fact (line_rate_bps, fabric_trims). Empty config =
// every default (W14: a field left 0 takes its UEC default, §4.2).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "reference/cc/nscc.hpp"

namespace mrc::ref {

// 0, or EINVAL with *why naming the bad pair. `out` keeps what it held for fields not named.
int parse_nscc_config(std::span<const std::uint8_t> config, cc::NsccConfig& out, std::string* why);

}  // namespace mrc::ref
