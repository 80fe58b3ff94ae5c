// The endpoint's counters under stable names (ep.*, req.*, resp.*), summed over the given QPs.
//
// One list, so the in-process reference binding and the DUT agent report the same names and a
// run through either can be compared counter by counter. Not on a hot path (read once per case).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/endpoint.hpp"

namespace mrc::ref {

std::vector<std::pair<std::string_view, std::uint64_t>> endpoint_counters(
    const Endpoint& ep, std::span<const std::uint32_t> qpns);

}  // namespace mrc::ref
