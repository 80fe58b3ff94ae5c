// Endpoint operations (W10): connectionless EV probes and port-status updates on QP 2.
//
// Requester side (mrc_ctl_ep_batch_send_wait):
//   - build_ep_request() fills the request packet: BTH 0xD8, DestQP 0x2, PSN[15:0] = the request
//     id and PSN[23:16] = 0, the ERTH (op, port_status_mask on an update, the send time's 16-bit
//     timestamp), DSCP = req_tc, sent on the EV under test (req_ev + port).
//   - EpRequestTracker keeps the outstanding request ids. A req_id must be unique among
//     outstanding requests and must not be reused while a response may still be in flight: after
//     its timeout an id lingers for `linger_ns` (default: one more timeout) before it is free
//     again. Late responses for lingering ids are discarded and counted. The table is bounded.
//   - RTT = arrival - send time. No header carries a service time (W14), so adj_svc_time stays 0.
//
// Responder side:
//   - EpResponder answers every request with 0xD9: DestQP 0x2, the request's id in PSN[15:0], the
//     EETH echoing the op and reflecting the ERTH timestamp. It travels in the Control class on
//     the responder's default path (its port 0 = the port the request arrived on), Not-ECT.
//   - A port-status update records the sender's up ports per source GID (PortStatusTable).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "reference/transport/qp_types.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::transport {

// ---- request building ----------------------------------------------------------------------

struct EpRequestSpec {
  wire::EpOp op = wire::EpOp::kEvProbe;
  std::uint16_t req_id = 0;
  std::uint64_t tx_timestamp_ns = 0;   // the send time; its 16-bit timestamp goes in the ERTH
  std::uint32_t port_status = 0;       // port-status update: bit N-1 = local port N up
  TxPath path;                         // the EV (and port) the request travels on
  wire::Ipv6Addr dgid{};               // responder's GID
  wire::MacAddr dmac{};
  std::uint8_t req_tc = wire::DscpConfig{}.control;  // DSCP of the request (API req_tc)
  bool mask_from_bit0 = false;         // W10 port_status_mask: bit N-1 = port N (else bit N)
};

void build_ep_request(const EpRequestSpec& spec, TxPacket& out);

// The request id an endpoint request or response carries: BTH.PSN[15:0] (W10).
inline std::uint16_t ep_request_id(const wire::Bth& bth) { return static_cast<std::uint16_t>(bth.psn & 0xFFFFu); }

// The source GID of a decoded frame: IPv6 SA (inner SA when SRv6-encapsulated), or the
// IPv4-mapped GID ::ffff:a.b.c.d.
wire::Ipv6Addr source_gid(const wire::DecodedFrame& f);

// ---- port status -------------------------------------------------------------------------------

class PortStatusTable {
 public:
  explicit PortStatusTable(std::size_t max_peers = 64);
  // Records `ports` for `gid`. False (nothing stored) when the table is full of other peers.
  bool update(const wire::Ipv6Addr& gid, std::uint32_t ports, std::uint64_t now);
  std::optional<std::uint32_t> ports(const wire::Ipv6Addr& gid) const;
  bool port_up(const wire::Ipv6Addr& gid, std::uint8_t port) const;  // 1-based; false if unknown
  std::size_t size() const { return peers_.size(); }

 private:
  struct Peer {
    wire::Ipv6Addr gid{};
    std::uint32_t ports = 0;
    std::uint64_t updated_ns = 0;
  };
  std::size_t max_peers_;
  std::vector<Peer> peers_;  // reserved at construction
};

// ---- responder side ------------------------------------------------------------------------------

struct EpResponderConfig {
  TxPath default_path;  // the path of every response; port 0 = the port the request arrived on
  std::uint8_t control_dscp = wire::DscpConfig{}.control;  // the Control class (W10, W13)
  std::size_t max_peers = 64;
  bool mask_from_bit0 = false;  // W10 port_status_mask: bit N-1 = port N (else bit N)
};

enum class EpRxOutcome : std::uint8_t {
  kResponded,           // a response is in `out`
  kDroppedBadIcrc,      // not trimmed, bad ICRC
  kDroppedNotRequest,   // not an endpoint request (0xD8 with an ERTH)
  kDroppedBadHeader,    // DestQP not 0x2, or an ERTH op no source names
  kPeerTableFull,       // port-status update not recorded (still answered: see out)
};

struct EpResponderStats {
  std::uint64_t probes = 0;
  std::uint64_t port_updates = 0;
  std::uint64_t responses = 0;
  std::uint64_t dropped = 0;
  std::uint64_t table_full = 0;
};

class EpResponder {
 public:
  explicit EpResponder(const EpResponderConfig& cfg);

  // A frame with opcode 0xD8 arrived on `rx_port` at `arrival_ns`. On kResponded and
  // kPeerTableFull `out` holds the response.
  EpRxOutcome on_request(const wire::DecodedFrame& f, std::uint8_t rx_port, std::uint64_t arrival_ns,
                         TxPacket& out);
  const PortStatusTable& peers() const { return peers_; }
  const EpResponderStats& stats() const { return stats_; }

 private:
  EpResponderConfig cfg_;
  PortStatusTable peers_;
  EpResponderStats stats_;
};

// ---- requester side: request ids and RTT -----------------------------------------------------

struct EpResult {
  std::uint16_t req_id = 0;
  wire::EpOp op = wire::EpOp::kEvProbe;
  std::uint8_t port = 0;              // 1-based port the response arrived on
  std::uint64_t rtt_ns = 0;           // arrival - send time (no service time on the wire, W14)
  bool timestamp_echoed = false;      // the EETH reflected our ERTH timestamp unchanged
};

struct EpTrackerStats {
  std::uint64_t started = 0;
  std::uint64_t answered = 0;
  std::uint64_t timed_out = 0;
  std::uint64_t late = 0;       // response for a timed-out (lingering) id
  std::uint64_t unknown = 0;    // response for an id never sent or already answered
};

class EpRequestTracker {
 public:
  static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

  struct Config {
    std::size_t capacity = 256;   // outstanding + lingering ids
    std::uint64_t linger_ns = 0;  // after a timeout; 0 = the request's own timeout
  };
  explicit EpRequestTracker(const Config& cfg);

  enum class Status : std::uint8_t { kOk, kIdBusy, kFull };
  // Registers request `req_id` sent at `now`, answered by `now + timeout_ns` or timed out.
  Status begin(std::uint16_t req_id, wire::EpOp op, std::uint64_t now, std::uint64_t timeout_ns);
  // An id that begin() would accept, starting after the last one handed out; nullopt when full.
  std::optional<std::uint16_t> next_free_id();
  // The id next_free_id() handed out last (0xFFFF before the first).
  std::uint16_t last_issued_id() const { return static_cast<std::uint16_t>(next_id_ - 1u); }

  // A response (opcode 0xD9, its id in PSN[15:0]) arrived on `rx_port` at `now`. A result when
  // it answers an outstanding request (the id is then free at once).
  std::optional<EpResult> on_response(std::uint16_t req_id, const wire::Eeth& rsp, std::uint8_t rx_port,
                                      std::uint64_t now);

  // Times out due requests (-> lingering) and frees ids whose linger ended. Returns the number
  // of requests that timed out now.
  std::size_t advance(std::uint64_t now);
  std::uint64_t next_deadline() const;
  std::size_t outstanding() const;
  bool busy(std::uint16_t req_id) const;
  const EpTrackerStats& stats() const { return stats_; }

 private:
  enum class State : std::uint8_t { kOutstanding, kLingering };
  struct Entry {
    std::uint16_t req_id = 0;
    wire::EpOp op = wire::EpOp::kEvProbe;
    State state = State::kOutstanding;
    std::uint64_t sent_ns = 0;
    std::uint64_t deadline_ns = 0;  // response timeout, then end of linger
    std::uint64_t linger_ns = 0;
  };
  Entry* find(std::uint16_t req_id);
  const Entry* find(std::uint16_t req_id) const;
  void erase(Entry* e);

  Config cfg_;
  std::vector<Entry> entries_;  // reserved at construction, unordered
  std::uint16_t next_id_ = 0;
  EpTrackerStats stats_;
};

}  // namespace mrc::transport
