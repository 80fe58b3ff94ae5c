// Test support: two reference Endpoints joined port-to-port by a small virtual-time link model
// with optional impairments (drop / reorder / duplicate / trim), plus helpers that bring up EV,
// CC profiles and a connected QP pair. Test-only code: it allocates per frame and that is fine.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "reference/endpoint.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::ref::testing {

struct PairOptions {
  std::uint64_t seed = 7;
  wire::EvFmtMode fmt = wire::EvFmtMode::kStev;
  bool srh = false;                   // SRv6: EVs with a second container (single-segment SRH)
  bool full_usid = false;             // SRv6: every uSID slot of the DA in use (the last one fixed 0xF6F6)
  bool auto_ev = false;               // EV profile in AUTO mode (the endpoint's own UDP EVs)
  bool ipv4 = false;                  // IPv4 endpoints (10.0.0.1/2, IPv4-mapped GIDs); UDP EVs
  std::uint32_t ev_count = 32;        // EVs per profile (generated, ports cycle 1..num_ports)
  std::uint32_t ev_min_active = 1;
  std::uint8_t num_ports = 8;
  enum ibv_mtu mtu = IBV_MTU_1024;
  bool nscc = true;
  std::string nscc_config = "base_rtt=12000";
  std::uint8_t mpr = 8;
  std::uint8_t mpr_dest = 8;
  std::uint16_t max_wimm = 128;
  std::uint16_t max_wimm_dest = 128;
  std::uint8_t timeout = 8;
  transport::RetryAttr retry{7, 25};
  std::uint32_t cap_a = 0;  // qp_cap bits of A's QP (also told to B as A's peer caps)
  std::uint32_t cap_b = 0;
  DefectSet defects_a;      // the requester side under test
  DefectSet defects_b;
  VariantSet variants;      // both endpoints
  bool random_spray = false;  // both endpoints (EndpointConfig::random_spray)
  ev::HealthParams health;  // both endpoints
  wire::DscpConfig dscp;    // both endpoints: the traffic classes' DSCP values (W13)
};

// Link model: each direction of each port serializes at `gbps` and adds `prop_ns`.
struct LinkParams {
  std::uint64_t prop_ns = 1000;
  double gbps = 100.0;
};

// Per-frame impairments (probabilities). Trims apply to trimmable data (`dscp`'s trimmable or
// trimmable_retx: 10 or 12 by default) only, and re-mark it `dscp.trimmed`.
struct Impairment {
  double drop = 0;
  double reorder = 0;
  std::uint64_t reorder_extra_ns = 6000;
  double duplicate = 0;
  double trim = 0;
  std::size_t trim_bytes = wire::kTrimLength;  // what a trim keeps of the frame
  wire::DscpConfig dscp;  // the fabric's traffic classes (W13)
  double ecn = 0;          // data frames (IPv6) marked ECN-CE on the way
  bool data_only = false;  // drop/reorder/duplicate only data frames
};

// What happened on the wire, for symptom checks.
struct TapRecord {
  int from = 0;  // 0 = A, 1 = B
  std::uint8_t port = 0;
  std::uint64_t t = 0;
  std::vector<std::uint8_t> bytes;
  bool filtered = false;  // the test's filter dropped it right after it left the sender
};

class Fabric {
 public:
  Fabric(Endpoint& a, Endpoint& b, LinkParams link = {}, Impairment imp = {}, std::uint64_t seed = 1)
      : ep_{&a, &b}, link_(link), imp_(imp), rng_(seed) {}

  // Frames sent by endpoint `from`; returning false drops the frame (test-specific impairment).
  std::function<bool(int from, transport::TxFrame& f, std::uint64_t now)> filter;
  bool record = false;  // keep every emitted frame in `taps` (captured at the sender, before `filter`)
  std::vector<TapRecord> taps;

  // Runs until done() or the virtual clock passes limit_ns; true when done() held.
  bool run_until(const std::function<bool()>& done, std::uint64_t limit_ns);
  // Runs for `ns` more virtual nanoseconds (or until idle).
  void run_for(std::uint64_t ns);

  std::uint64_t now() const { return now_; }
  std::uint64_t dropped = 0, trimmed = 0, duplicated = 0, reordered = 0, delivered = 0;
  std::uint64_t sent[2] = {0, 0};

 private:
  struct InFlight {
    std::uint64_t arrive;
    std::uint64_t seq;
    int to;
    std::uint8_t port;
    std::vector<std::uint8_t> bytes;
    bool operator>(const InFlight& o) const {
      return arrive != o.arrive ? arrive > o.arrive : seq > o.seq;
    }
  };
  bool step(std::uint64_t limit_ns);
  void schedule(int from, transport::TxFrame& f);
  bool chance(double p) { return p > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  Endpoint* ep_[2];
  LinkParams link_;
  Impairment imp_;
  std::mt19937_64 rng_;
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>> q_;
  std::uint64_t busy_[2][33] = {};
  std::uint64_t now_ = 0;
  std::uint64_t seq_ = 0;
  transport::TxFrame tx_;
};

// Endpoint config for side `side` (0 = A, 1 = B): GID fd00::1 / fd00::2, MACs 02:..:01/02.
EndpointConfig endpoint_config(const PairOptions& o, int side);

// Brings up EV format profile 0, EV profile 0 (generated, o.ev_count EVs) and CC profile 0 on
// `ep`. Returns "" or what failed.
std::string setup_profiles(Endpoint& ep, const PairOptions& o);

// A connected QP pair: A's QP writes into B's QP. Profiles must be set up.
struct QpPair {
  std::uint32_t qpn_a = 0;
  std::uint32_t qpn_b = 0;
};
std::string connect(Endpoint& a, Endpoint& b, const PairOptions& o, QpPair& out);

// Everything above in one go.
struct Pair {
  explicit Pair(const PairOptions& o = {}, LinkParams link = {}, Impairment imp = {});
  PairOptions opt;
  std::unique_ptr<Endpoint> a;
  std::unique_ptr<Endpoint> b;
  std::unique_ptr<Fabric> fabric;
  QpPair qp;
  std::string error;  // non-empty when bring-up failed
};

// Decodes a tapped frame (MRC framing, ICRC verified).
bool decode(const TapRecord& r, wire::DecodedFrame& f);
bool is_data(const wire::DecodedFrame& f);  // RC WRITE opcodes

}  // namespace mrc::ref::testing
