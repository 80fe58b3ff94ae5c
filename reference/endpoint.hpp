// The reference MRC endpoint: a sans-I/O state machine (design.md §4).
//
// Feed it frames (on_frame) and time (advance); pull frames (poll_frame), completions and EV
// events out. It owns no sockets, clocks or threads: the endpoint's notion of "now" is the largest
// time any call handed it, so the same inputs always give the same frames. Drivers: the fabric
// simulator (harness/testbed/sim), the real-wire driver, the DUT bindings and the tests.
//
// Inside: an ev::Controller (EV format/EV/CC profiles), a transport::MemoryTable, and per QP a
// transport::Requester (created at RTS) and a transport::Responder (created at RTR), plus the EP
// operations (probes, port-status updates; W10). Received frames are routed by opcode: data to
// the QP's responder, SACK / NACK / Transport ACK to its requester, endpoint requests (0xD8) to the
// endpoint responder, responses (0xD9) to the request tracker. Outgoing frames get their
// Ethernet/IP/UDP (and SRv6) headers from the EV they travel on (wire::place_ev, W1/W2),
// the egress port from the EV's port, and their ICRC from wire::encode_frame. A down port sends and receives nothing.
//
// Errors are errno values as the host API reports them (EINVAL, EOPNOTSUPP, ENOMEM, EBUSY, ...).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "reference/cc/nscc.hpp"
#include "reference/defects.hpp"
#include "reference/ev/controller.hpp"
#include "reference/transport/ep_ops.hpp"
#include "reference/transport/memory.hpp"
#include "reference/transport/qp_types.hpp"
#include "reference/transport/requester.hpp"
#include "reference/transport/responder.hpp"
#include "reference/variants.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::ref {

// Device capability bits (mrc_device_attr caps).
namespace dev_cap {
inline constexpr std::uint32_t kTrimNack = 1u << 0;
inline constexpr std::uint32_t kDynamicMpr = 1u << 1;
inline constexpr std::uint32_t kSvcTime = 1u << 2;
inline constexpr std::uint32_t kAll = kTrimNack | kDynamicMpr | kSvcTime;
}  // namespace dev_cap

// What the device reports (mrc_query_device shape).
struct DeviceAttr {
  std::uint32_t caps = dev_cap::kAll;
  std::uint8_t protocol_versions = transport::kProtocolVersion1;  // bitmap
  std::uint8_t max_mpr = 255;         // units of 128 PSNs
  std::uint8_t mpr_resolution = 1;    // mpr / mpr_dest must be a multiple of this
  std::uint16_t max_wimm = 1024;      // requester
  std::uint16_t max_wimm_dest = 1024; // responder
  std::uint32_t max_qp = 1024;
  std::uint32_t max_qp_wr = 16384;
};

struct EndpointConfig {
  std::uint64_t seed = 1;
  DefectSet defects;
  VariantSet variants;        // conformant policy variants (variants.hpp); none = the reference
  bool random_spray = false;  // same as the random-ev variant (kept for existing callers)
  std::uint8_t num_ports = 8;
  wire::MacAddr mac{};
  wire::Ipv6Addr gid{};
  bool ipv4 = false;        // UDP-mode EVs go out over IPv4 (STEV and SRv6 need IPv6)
  std::uint32_t ipv4_addr = 0;
  ev::DeviceLimits limits;  // EV/CC profile limits and optional caps
  DeviceAttr device;        // QP-level caps and limits
  ev::HealthParams health;  // EV state machine timing (MODEL: W11); ev_min_active comes from the profile
  std::uint64_t probe_timeout_ns = 50'000;  // a reliability probe not answered by then failed (MODEL: W9)
  wire::DscpConfig dscp;    // W13 the traffic classes' DSCP values (MODEL: W13 defaults)
  std::size_t control_queue_depth = 4096;   // feedback / EP packets waiting for poll_frame
};

// One EP request of ep_send (mrc_ctl_ep_batch_send_wait request shape, §1.7).
struct EpRequest {
  std::uint16_t req_id = 0;  // unique among outstanding requests (EBUSY otherwise)
  wire::Ipv6Addr dgid{};
  wire::MacAddr dmac{};
  wire::EvFmtMode ev_fmt_mode = wire::EvFmtMode::kStev;
  wire::EvBytes req_ev{};       // the EV under test, on-wire (expanded) bytes
  std::uint8_t req_port = 0;    // 1-based egress port of req_ev
  std::uint8_t srv6_ev_index = 0;
  std::uint32_t port_status = 0;  // PORT_STATUS_UPDATE: 0 = this endpoint's up ports
};

// One EP response, or a timeout (status ETIMEDOUT) for a request nobody answered in time.
struct EpResponse {
  int status = 0;  // 0 or ETIMEDOUT
  std::uint16_t req_id = 0;
  wire::EpOp op = wire::EpOp::kEvProbe;
  std::uint8_t port = 0;           // arrival port
  std::uint64_t rtt_ns = 0;
  // The API's service-time adjustment: always 0, since no MRC 1.0 header carries a service time
  // (W14). Kept so the result has the API's shape.
  std::uint32_t adj_svc_time = 0;
};

struct EndpointStats {
  std::uint64_t frames_tx = 0;
  std::uint64_t frames_rx = 0;
  std::uint64_t data_tx = 0;
  std::uint64_t feedback_tx = 0;
  std::uint64_t ep_tx = 0;           // probes, port-status updates and EP responses
  std::uint64_t tx_port_down = 0;    // frames not emitted: egress port down
  std::uint64_t tx_no_path = 0;      // frames not emitted: no EV / bad EV index / encode error
  std::uint64_t rx_port_down = 0;
  std::uint64_t rx_decode_error = 0;
  std::uint64_t rx_not_for_us = 0;   // destination GID / IPv4 address not ours
  std::uint64_t rx_unknown_qp = 0;
  std::uint64_t rx_bad_icrc = 0;     // feedback / EP frames with a bad ICRC
  std::uint64_t control_queue_full = 0;
  std::uint64_t probes_sent = 0;
  std::uint64_t probes_ok = 0;
  std::uint64_t probes_failed = 0;
  std::uint64_t probes_skipped = 0;  // due, but the EP request table was full (tried next interval)
  std::array<std::uint64_t, 33> tx_per_port{};  // index = 1-based port
  std::array<std::uint64_t, 33> rx_per_port{};
};

class Endpoint {
 public:
  explicit Endpoint(const EndpointConfig& cfg);
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  // ---- data plane --------------------------------------------------------------------------
  void on_frame(std::uint8_t port /*1-based*/, wire::Bytes frame, std::uint64_t now_ns);
  bool poll_frame(transport::TxFrame& out);  // next frame to send, with its egress port
  std::uint64_t next_deadline() const;       // UINT64_MAX when nothing is scheduled
  void advance(std::uint64_t now_ns);        // run timers due at or before now
  bool poll_completion(transport::Completion& out);
  bool poll_ev_event(ev::EvEvent& out);

  // ---- control plane (host-API shapes) -------------------------------------------------------
  ev::Controller& controller() { return controller_; }
  const ev::Controller& controller() const { return controller_; }
  const DeviceAttr& device() const { return cfg_.device; }
  int create_qp(const transport::QpInitAttr& attr, std::uint32_t& qpn_out);
  // RESET->INIT->RTR->RTS with the attributes qp_attr lists per transition; any -> ERR / RESET
  // with STATE alone; RTR/RTS -> same state with STATE | MPR_DEST re-advertises mpr_dest on a QP
  // with qp_cap::kDynamicMpr. Anything else: EINVAL.
  int modify_qp(std::uint32_t qpn, const transport::QpAttr& attr, std::uint32_t attr_mask);
  int query_qp(std::uint32_t qpn, transport::QpAttr& out) const;
  int destroy_qp(std::uint32_t qpn);
  // addr 0 = the endpoint picks the virtual address. The endpoint owns the bytes (zero-filled).
  int reg_mr(std::uint64_t addr, std::size_t length, int access, transport::MemoryRegion& out);
  std::span<std::uint8_t> mr_bytes(std::uint32_t lkey);  // empty for an unknown key
  // [offset, offset + len) of a region (empty for an unknown key or a range outside it): to read,
  // or to write whole (a page the span covers is not zeroed first: transport/memory.hpp).
  std::span<const std::uint8_t> mr_view(std::uint32_t lkey, std::uint64_t offset, std::size_t len) const;
  std::span<std::uint8_t> mr_overwrite(std::uint32_t lkey, std::uint64_t offset, std::size_t len);
  int post_send(std::uint32_t qpn, const transport::SendWr& wr);
  int post_recv(std::uint32_t qpn, std::uint64_t wr_id);
  int modify_port(std::uint8_t port, bool up);  // admin state; a down port sends/receives nothing
  bool port_up(std::uint8_t port) const;

  // Endpoint operations (mrc_ctl_ep_batch_send_wait, W10), sans-I/O: the requests leave through
  // poll_frame at the endpoint's current time; each answer (or an ETIMEDOUT after
  // rsp_timeout_ns) comes out of poll_ep_response. `req_tc` is the DSCP of the requests.
  // EINVAL: bad port / op / empty batch; EBUSY: a req_id is outstanding (nothing is sent);
  // ENOSPC: too many outstanding requests. EOPNOTSUPP: probes without the EP_OP_EV_PROBE cap.
  int ep_send(std::uint8_t req_tc, wire::EpOp op, std::span<const EpRequest> reqs,
              std::uint64_t rsp_timeout_ns);
  // A req_id for the next ep_send request that no request which may still draw a response uses
  // (outstanding, or timed out and lingering; §1.7). nullopt when the request table is full.
  std::optional<std::uint16_t> next_ep_req_id();
  bool poll_ep_response(EpResponse& out);

  // ---- introspection for the harness ---------------------------------------------------------
  std::uint64_t now() const { return now_; }
  const EndpointConfig& config() const { return cfg_; }
  const EndpointStats& stats() const { return stats_; }
  std::vector<std::uint32_t> qp_numbers() const;
  transport::QpState qp_state(std::uint32_t qpn) const;  // kReset for an unknown QP
  const transport::Requester* requester(std::uint32_t qpn) const;  // null before RTS
  const transport::Responder* responder(std::uint32_t qpn) const;  // null before RTR
  // Data frames emitted per EV index of the QP's EV profile (new + retransmitted).
  std::span<const std::uint64_t> tx_per_ev(std::uint32_t qpn) const;
  // The QP's view of each EV (GOOD / ASSUMED_BAD / DENIED); empty before RTS.
  std::vector<ev::EvState> ev_states(std::uint32_t qpn) const;
  std::uint32_t cwnd(std::uint32_t qpn) const;  // bytes; 0 without NSCC or before RTS
  // The defects whose switch this endpoint has read since it was made, whether or not they are
  // on: a run that never read one would have gone the same with it on (reference/quirk/).
  DefectSet defects_read() const { return DefectSet::read_in(*reads_); }

 private:
  struct Qp;
  struct EpPending;
  struct HealthProbe;
  struct ControlQueue;
  class Sink;

  Qp* find_qp(std::uint32_t qpn);
  const Qp* find_qp(std::uint32_t qpn) const;
  int to_init(Qp& qp, const transport::QpAttr& a, std::uint32_t mask);
  int to_rtr(Qp& qp, const transport::QpAttr& a, std::uint32_t mask);
  int to_rts(Qp& qp, const transport::QpAttr& a, std::uint32_t mask);
  void to_reset(Qp& qp);
  void to_error(Qp& qp);
  void check_qp_error(Qp& qp);
  void sync_profile(Qp& qp);
  void pump_health(Qp& qp);
  void send_health_probes(Qp& qp);
  void send_refresh_probe(Qp& qp);
  void expire_ep(std::uint64_t now);

  void rx_data(const wire::DecodedFrame& f, std::uint8_t port);
  void rx_truncated(std::uint8_t port);
  void rx_feedback(const wire::DecodedFrame& f, std::uint8_t port);
  void rx_ep_request(const wire::DecodedFrame& f, std::uint8_t port);
  void rx_ep_response(const wire::DecodedFrame& f, std::uint8_t port);
  void rx_probe(const wire::DecodedFrame& f, std::uint8_t port);
  void on_probe_answer(Qp& qp, const wire::Seth& seth);
  void on_refresh_answer(Qp& qp, const wire::Seth& seth);

  void push_control(const transport::TxPacket& pkt);
  bool emit(const transport::TxPacket& pkt, transport::TxFrame& out);
  bool resolve_path(const transport::TxPacket& pkt, Qp* qp, wire::EvFmtMode& mode,
                    wire::EvBytes& ev, std::uint8_t& port, std::uint8_t& index);
  std::uint32_t local_ports_up() const;
  std::optional<std::uint64_t> mr_va(std::uint32_t lkey, std::uint64_t offset) const;  // the region's VA + offset

  EndpointConfig cfg_;
  // On the heap: the layers' quirk flags point at it (defects_read()). Every defect switch is read
  // through defects_, never through cfg_.defects.
  std::unique_ptr<quirk::ReadLog> reads_;
  DefectReads defects_;
  ev::Controller controller_;
  transport::MemoryTable memory_;
  std::vector<std::unique_ptr<Qp>> qps_;
  std::uint32_t qpn_base_ = 0;
  std::uint32_t rr_qp_ = 0;  // round-robin cursor over QPs for data
  std::uint64_t now_ = 0;
  std::vector<bool> port_up_;  // index = 1-based port

  std::unique_ptr<ControlQueue> control_;
  transport::EpResponder ep_responder_;
  transport::EpRequestTracker ep_tracker_;
  std::vector<EpPending> ep_pending_;
  std::vector<HealthProbe> health_probes_;  // W9 reliability probes of ASSUMED_BAD EVs, unanswered
  std::vector<EpResponse> ep_results_;
  std::size_t ep_results_head_ = 0;
  std::vector<transport::Completion> cq_;  // endpoint-level completions (posts to an ERR QP)
  std::size_t cq_head_ = 0;

  wire::DecodedFrame rx_;  // scratch for on_frame
  EndpointStats stats_;
};

// Maps a defect set onto the layer quirk structs (so transport/ev never see the facade).
transport::RequesterQuirks requester_quirks(const DefectReads& d);
transport::ResponderQuirks responder_quirks(const DefectReads& d);
cc::NsccQuirks nscc_quirks(const DefectReads& d);
ev::HealthQuirks health_quirks(const DefectReads& d);
ev::SelectorQuirks selector_quirks(const DefectReads& d);
ev::ControllerQuirks controller_quirks(const DefectReads& d);

// Hands a QP's queued EV state changes to the controller (profile-wide state and EV events) and
// empties the QP's buffer; changes the buffer dropped are counted into the next event.
void forward_health_events(ev::EvHealth& h, ev::Controller& c, ev::ProfileId profile);

}  // namespace mrc::ref
