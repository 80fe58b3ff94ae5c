#include "harness/verdict/field_class.hpp"

#include <algorithm>

namespace mrc::harness {

std::string_view to_string(FieldClass c) {
  switch (c) {
    case FieldClass::kExact: return "exact";
    case FieldClass::kChoice: return "choice";
    case FieldClass::kBounded: return "bounded";
    case FieldClass::kBridged: return "bridged";
  }
  return "exact";
}

void bridged_times(std::span<const std::uint64_t> ts_ns, std::span<const std::uint32_t> bytes, std::uint64_t rate_bps,
                   std::span<std::uint64_t> paced_ns) {
  std::uint64_t free_at = 0;  // when the bridge has sent the frames before this one
  for (std::size_t i = 0; i < ts_ns.size(); ++i) {
    const std::uint64_t at = std::max(ts_ns[i], free_at);
    paced_ns[i] = at;
    // bits / (bit/s) in ns, rounded up: a frame is on the bridge until its last bit is
    const std::uint64_t wire_ns = rate_bps == 0 ? 0 : (std::uint64_t{bytes[i]} * 8'000'000'000ull + rate_bps - 1) / rate_bps;
    free_at = at + wire_ns;
  }
}

}  // namespace mrc::harness
