// Endpoint operations (MODEL: M6): connectionless EV probes and port-status updates.
//
// Requester side (mrc_ctl_ep_batch_send_wait, §1.7):
//   - build_ep_request() fills the request packet: BTH 0xC0 MRC_EP_REQ, DestQP 0xFFFFFF, PSN 0,
//     P_Key 0xFFFF, the EP header, DSCP = req_tc, sent on the EV under test (req_ev + port).
//   - EpRequestTracker keeps the outstanding request ids. A req_id must be unique among
//     outstanding requests and must not be reused while a response may still be in flight: after
//     its timeout an id lingers for `linger_ns` (default: one more timeout) before it is free
//     again. Late responses for lingering ids are discarded and counted. The table is bounded.
//   - RTT = arrival - send time; when the response says svc_valid and the service time is not
//     larger than the raw RTT, it is subtracted and reported as adj_svc_time (non-zero = adjusted).
//
// Responder side:
//   - EpResponder answers an EV probe or a port-status update with 0xC1 MRC_EP_RSP: op, req_id
//     and tx_timestamp copied, svc_time_ns = emission - arrival with svc_valid, port_status = the
//     responder's own up ports, rsp_ev_len 0. It is sent on the request's rsp_ev (rsp_fmt_mode,
//     rsp_port, the rsp_ev bytes as the expanded on-wire EV; rsp_port 0 = the arrival port), or on
//     the responder's default path when rsp_ev_len is 0 (its port 0 = the arrival port too). DSCP: the request's DSCP (so the answer
//     travels in the traffic class the prober chose, req_tc), Not-ECT.
//   - A port-status update records the sender's up-port mask per source GID (PortStatusTable).
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
  std::uint64_t tx_timestamp_ns = 0;   // the send time; echoed unchanged
  std::uint32_t port_status = 0;       // port-status update: bit N-1 = local port N up
  TxPath path;                         // the EV (and port) the request travels on
  wire::Ipv6Addr dgid{};               // responder's GID
  wire::MacAddr dmac{};
  std::uint8_t req_tc = wire::kDscpControl;  // DSCP of the request (§1.7 req_tc)
  // Return path the responder must use (A-hist rsp_ev); rsp_ev_len 0 = responder's choice.
  wire::EvFmtMode rsp_fmt_mode = wire::EvFmtMode::kStev;
  std::uint8_t rsp_port = 0;
  std::uint8_t rsp_ev_len = 0;  // 0, 4 or 32
  wire::EvBytes rsp_ev{};
};

// False (and `out` untouched) when rsp_ev_len is not 0, 4 or 32.                    MODEL: M6
bool build_ep_request(const EpRequestSpec& spec, TxPacket& out);

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
  std::uint32_t local_ports_up = 0;  // bit N-1 = local port N up (reported in every response)
  TxPath default_path;               // used when a request carries rsp_ev_len 0; port 0 =
                                     // the port the request arrived on
  bool report_svc_time = true;
  std::size_t max_peers = 64;
};

enum class EpRxOutcome : std::uint8_t {
  kResponded,           // a response is in `out`
  kDroppedBadIcrc,      // not trimmed, bad ICRC
  kDroppedNotRequest,   // not an MRC_EP_REQ with an EP header
  kDroppedBadHeader,    // BTH DestQP/P_Key not the EP values, or rsp_fmt_mode unknown
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

  // A frame with opcode MRC_EP_REQ arrived on `rx_port` at `arrival_ns`; the response leaves at
  // `emit_ns` (>= arrival_ns; equal when the endpoint answers at once). On kResponded and
  // kPeerTableFull `out` holds the response.
  EpRxOutcome on_request(const wire::DecodedFrame& f, std::uint8_t rx_port, std::uint64_t arrival_ns,
                         std::uint64_t emit_ns, TxPacket& out);

  void set_local_ports(std::uint32_t ports) { cfg_.local_ports_up = ports; }
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
  std::uint64_t rtt_ns = 0;           // adjusted for service time when adj_svc_time != 0
  std::uint32_t adj_svc_time = 0;     // ns subtracted; 0 = not adjusted
  std::uint32_t port_status = 0;      // the responder's up ports
  bool timestamp_echoed = false;      // the response echoed our tx_timestamp unchanged
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

  // A response (opcode MRC_EP_RSP) arrived on `rx_port` at `now`. A result when it answers an
  // outstanding request (the id is then free at once).
  std::optional<EpResult> on_response(const wire::EpHdr& rsp, std::uint8_t rx_port, std::uint64_t now);

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
