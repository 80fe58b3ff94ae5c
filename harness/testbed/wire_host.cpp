// The paced clock and the bridge's latency histogram (wire_host.hpp).
#include "harness/testbed/wire_host.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace mrc::harness {
namespace {

std::int64_t clock_ns(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

std::uint64_t monotonic_ns() { return static_cast<std::uint64_t>(clock_ns(CLOCK_MONOTONIC)); }
std::uint64_t realtime_ns() { return static_cast<std::uint64_t>(clock_ns(CLOCK_REALTIME)); }

std::string format_gid(const ::mrc::wire::Ipv6Addr& gid) {
  char buf[INET6_ADDRSTRLEN] = {};
  return inet_ntop(AF_INET6, gid.data(), buf, sizeof buf) != nullptr ? buf : "?";
}

std::string format_mac(const ::mrc::wire::MacAddr& mac) {
  char buf[18] = {};
  std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
  return buf;
}

std::uint64_t PacedClock::now() const {
  const std::int64_t t = clock_ns(CLOCK_MONOTONIC) - mono_minus_testbed_ns;
  return t < 0 ? 0 : static_cast<std::uint64_t>(t);
}

std::int64_t PacedClock::realtime_minus_testbed() const {
  // Read the two clocks back to back; the pair's error is the few ns between the reads.
  const std::int64_t rt = clock_ns(CLOCK_REALTIME);
  const std::int64_t mono = clock_ns(CLOCK_MONOTONIC);
  return rt - (mono - mono_minus_testbed_ns);
}

void LatencyHistogram::add(std::uint64_t ns) {
  ++count_;
  max_ = std::max(max_, ns);
  const std::uint64_t b = ns / kBucketNs;
  if (b >= kBuckets) {
    ++overflow_;
  } else {
    ++buckets_[b];
  }
}

std::uint64_t LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  const double want = std::clamp(q, 0.0, 1.0) * static_cast<double>(count_);
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < kBuckets; ++b) {
    seen += buckets_[b];
    if (static_cast<double>(seen) >= want && seen > 0) return std::min<std::uint64_t>((b + 1) * kBucketNs, max_);
  }
  return max_;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  for (std::size_t b = 0; b < kBuckets; ++b) buckets_[b] += o.buckets_[b];
  overflow_ += o.overflow_;
  count_ += o.count_;
  max_ = std::max(max_, o.max_);
}

}  // namespace mrc::harness
