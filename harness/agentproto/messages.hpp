// The DUT-agent control protocol, version 5 (spec: harness/dut/agent-protocol.md): the messages
// the harness and `mrc-dut-agent` exchange over one TCP connection, as typed data.
//
// Every message is one frame: u32 length (big-endian, counts everything after itself) + u16 type
// + u16 flags + u32 seq + body. Requests go harness -> agent and carry a strictly increasing seq;
// every request gets exactly one reply (same seq) -> either its own reply type or ERROR. Numbers
// are big-endian; strings are u16-length-prefixed UTF-8; lists are u32-count-prefixed. Every
// string, list and blob has a limit (namespace `limit`): the decoder rejects a message that breaks
// one and the encoder refuses to produce one, so both sides agree on what is well formed.
//
// This library is std-only on purpose: the protocol must be implementable by a vendor agent that
// links nothing of ours, and the spec is the contract, not these structs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "harness/agentproto/lockstep_messages.hpp"

namespace mrc::agentproto {

// 3: endpoint operations and probes on the MRC 1.0 wire (W9, W10); a version-2 peer speaks the
// older wire model and is refused at HELLO. 4: APPLY_CONFIG carries the six traffic classes' DSCP
// values (W13), a layout change, so a version-3 peer is refused at HELLO too. 5: lockstep (ATTACH,
// STEP, FRAMES) and HELLO_OK's clock, a layout change again.
inline constexpr std::uint16_t kProtocolVersion = 5;
inline constexpr std::uint16_t kDefaultPort = 7411;

inline constexpr std::size_t kLengthPrefix = 4;      // the u32 length field itself
inline constexpr std::size_t kHeaderLen = 12;        // length + type + flags + seq
inline constexpr std::uint32_t kMinLength = 8;       // type + flags + seq, empty body
inline constexpr std::uint32_t kMaxLength = 1u << 20;  // 1 MiB: the largest value of `length`

// Flag bits. Requests carry none; a reply may carry kFlagClosing ("the agent closes the
// connection after this message").
inline constexpr std::uint16_t kFlagClosing = 1u << 0;

// Per-field limits (bytes for strings and blobs, entries for lists).
namespace limit {
inline constexpr std::size_t kToken = 256;
inline constexpr std::size_t kName = 128;          // client / agent / interface / counter names
inline constexpr std::size_t kText = 1024;         // ERROR text
inline constexpr std::size_t kCapabilities = 64;
inline constexpr std::size_t kPorts = 32;          // one per plane, 1-based port 1..32
inline constexpr std::size_t kFormatWidths = 64;
inline constexpr std::size_t kEvFields = 64;
inline constexpr std::size_t kEvBytes = 32;        // an EV value / its expanded wire bytes
inline constexpr std::size_t kEvs = 4096;          // explicit EV array, denied list, EV table
inline constexpr std::size_t kQps = 64;
inline constexpr std::size_t kRegions = 16;
inline constexpr std::uint64_t kRegionBytes = 64ull << 20;  // one registered region
inline constexpr std::size_t kMemoryChunk = 512 * 1024;     // READ/WRITE_MEMORY payload
inline constexpr std::size_t kPollItems = 4096;    // completions or EV events in one reply
inline constexpr std::size_t kCounters = 256;
inline constexpr std::size_t kAlgorithm = 64;      // CC algorithm name
inline constexpr std::size_t kCcConfig = 64;       // CC_PROFILE_OP config entries
inline constexpr std::uint8_t kMaxDscp = 63;       // EP_OP tc: a 6-bit DSCP
}  // namespace limit

enum class MsgType : std::uint16_t {
  // requests (harness -> agent)
  kHello = 0x0001,
  kApplyConfig = 0x0002,
  kConnect = 0x0003,
  kPostWrite = 0x0004,
  kPostRecv = 0x0005,
  kPoll = 0x0006,
  kSetEvState = 0x0007,
  kPortAdmin = 0x0008,
  kEpOp = 0x0009,
  kReadMemory = 0x000A,
  kWriteMemory = 0x000B,
  kQueryState = 0x000C,
  kReset = 0x000D,
  kBye = 0x000E,
  kEvProfileOp = 0x000F,      // version 2
  kCcProfileOp = 0x0010,      // version 2
  kReplaceEv = 0x0011,        // version 2
  kSetProfileOnline = 0x0012, // version 2
  kRestrictDevice = 0x0013,   // version 2
  kAttach = 0x0014,           // version 5, lockstep
  kStep = 0x0015,             // version 5, lockstep
  // replies (agent -> harness): the top bit is set
  kHelloOk = 0x8001,
  kApplyOk = 0x8002,
  kOk = 0x8003,
  kCompletions = 0x8006,
  kMemory = 0x800A,
  kState = 0x800C,
  kFrames = 0x8015,  // version 5, lockstep
  kError = 0x80FF,
};
inline constexpr bool is_reply(std::uint16_t type) { return (type & 0x8000u) != 0; }
bool is_known_type(std::uint16_t type);
std::string_view to_string(MsgType t);
// The reply type that answers `request` when it succeeds (ERROR answers any request).
MsgType reply_type_of(MsgType request);

// ERROR codes. "Fatal" codes close the connection after the ERROR (kFlagClosing set): the stream
// can no longer be framed, the peer failed authentication, or it stopped talking.
enum class ErrorCode : std::uint16_t {
  kNone = 0,
  kFrameTooShort = 1,     // length < 8 (zero-length and header-only garbage)            fatal
  kFrameTooLarge = 2,     // length > kMaxLength                                          fatal
  kTruncated = 3,         // the stream ended inside a frame                               fatal
  kUnknownType = 4,       // type is not one this version defines
  kBadFlags = 5,          // reserved flag bits set
  kTruncatedBody = 6,     // the body ends before its last field
  kTrailingBytes = 7,     // bytes left after the last field
  kFieldTooLong = 8,      // a string, list or blob over its limit
  kBadValue = 9,          // an enum or bool out of range, a count that cannot fit, ...
  kBadVersion = 10,       // HELLO with a version the agent does not speak                 fatal
  kBadToken = 11,         // HELLO with the wrong shared token                             fatal
  kNotHello = 12,         // anything but HELLO before the handshake
  kDuplicateHello = 13,   // HELLO after the handshake
  kBadSeq = 14,           // seq not greater than the previous request's
  kUnexpectedReply = 15,  // a reply type sent to the agent
  kNotApplied = 16,       // out of configuration order: needs APPLY_CONFIG (or CONNECT) first,
                          // or (RESTRICT_DEVICE) must come before it
  kRejected = 17,         // the DUT refused (errno in `err`): a DUT behaviour, not a harness fault
  kUnsupported = 18,      // the backend does not offer this operation
  kBackendFailure = 19,   // the backend itself broke (interface gone, ...)
  kTimeout = 20,          // a named wait expired (hello_timeout, idle_timeout)           fatal
  kTooManyClients = 21,   // --max-clients reached                                         fatal
  kLimit = 22,            // a value over an agent limit (memory range, region size)
};
std::string_view to_string(ErrorCode c);
bool is_fatal(ErrorCode c);

using Gid = std::array<std::uint8_t, 16>;
using Mac = std::array<std::uint8_t, 6>;

// ---- handshake ------------------------------------------------------------------------------

struct Hello {
  std::uint16_t version = kProtocolVersion;
  std::string token;   // the shared secret given to the agent with --token
  std::string client;  // free text, e.g. "mrc-conform 0.1.0"
  bool operator==(const Hello&) const = default;
};

struct PortInfo {
  std::uint8_t port = 1;  // 1-based = plane
  std::string name;       // interface name on the agent's host
  Mac mac{};
  bool up = true;         // admin state
  bool operator==(const PortInfo&) const = default;
};

struct HelloOk {
  std::uint16_t version = kProtocolVersion;
  std::string agent;                       // identity: "mrc-dut-agent 0.1.0 reference:spray-single-ev"
  std::vector<std::string> capabilities;   // spelled like the case vocabulary's `requires`
  std::vector<PortInfo> ports;
  Clock clock = Clock::kReal;              // v5
  bool operator==(const HelloOk&) const = default;
};

// ---- configuration --------------------------------------------------------------------------

enum class FormatMode : std::uint8_t { kStev = 0, kSrv6 = 1, kUdp = 2 };
enum class EvMode : std::uint8_t { kAuto = 0, kExplicit = 1, kGenerated = 2 };

struct EvField {  // one EV-profile field (mrc-wire-model.md §1.5)
  std::uint32_t width = 0, init = 0, min = 0, max = 0, mask = 0;
  bool operator==(const EvField&) const = default;
};

struct EvValue {  // one explicit EV: compact bits MSB first and its 1-based egress port
  std::vector<std::uint8_t> value;  // <= limit::kEvBytes
  std::uint8_t port = 1;
  bool operator==(const EvValue&) const = default;
};

struct NsccParams {  // mrc_ctl_cc_nscc_cfg field for field; 0 = the UEC default (W14)
  std::string algorithm = "uet-1.0-nscc";
  bool disable_qa = false;
  std::uint32_t adjust_bytes_threshold = 0;
  std::uint32_t adjust_period_threshold = 0;
  std::uint32_t base_rtt = 0;
  double eta = 0, fi = 0, fi_scale = 0, gamma = 0, max_md_jump = 0;
  std::uint32_t max_cwnd = 0;
  std::uint8_t qa_gate = 0;
  std::uint32_t qa_threshold = 0;
  std::uint32_t target_delay = 0;
  bool operator==(const NsccParams&) const = default;
};

struct QpParams {  // mrc_qp_attr values every QP of the session gets
  std::uint32_t count = 1;
  std::uint32_t mtu = 4096;        // path MTU bytes: 256..4096
  std::uint8_t mpr = 8;            // units of 128 PSNs
  std::uint8_t mpr_dest = 8;
  std::uint16_t max_wimm = 128;
  std::uint16_t max_wimm_dest = 128;
  std::uint8_t timeout = 8;        // 1.024 us x 2^timeout
  std::uint8_t retry_linear = 7;
  std::uint8_t retry_exp = 25;
  std::uint32_t caps = 0;          // qp_cap bits (reference/transport/qp_types.hpp values)
  std::uint32_t first_psn = 0;     // starting PSN in both directions
  bool operator==(const QpParams&) const = default;
};

struct RegionRequest {  // memory the agent registers for remote WRITEs
  std::uint64_t addr = 0;    // virtual address the peer names in RETH; 0 = agent's choice
  std::uint64_t length = 0;  // <= limit::kRegionBytes
  bool operator==(const RegionRequest&) const = default;
};

// What one side must know about the other (the out-of-band GID/QPN exchange; W18, and the
// peer's mpr_dest / max_wimm_dest learned out of band, W12/W16).
struct PeerInfo {
  Gid gid{};
  Mac mac{};
  std::uint32_t ipv4 = 0;              // host order; 0 when not on IPv4
  std::vector<std::uint32_t> qpns;     // index = QP index of the session
  std::uint8_t mpr_dest = 8;
  std::uint16_t max_wimm_dest = 128;
  std::uint32_t qp_caps = 0;
  std::uint32_t first_psn = 0;
  bool operator==(const PeerInfo&) const = default;
};

// The six traffic classes' DSCP values the DUT is configured with (W13: configuration, not
// fixed; each 0..63). The defaults are the reference's (mrc-wire-model.md W13); the harness always
// sends all six.
struct DscpValues {
  std::uint8_t trimmable = 10;
  std::uint8_t trimmable_retx = 12;
  std::uint8_t no_trim = 8;
  std::uint8_t trimmed = 11;
  std::uint8_t trimmed_lasthop = 13;
  std::uint8_t control = 46;
  bool operator==(const DscpValues&) const = default;
};

struct ApplyConfig {
  FormatMode format_mode = FormatMode::kStev;
  std::vector<std::uint32_t> format_widths;
  EvMode ev_mode = EvMode::kExplicit;
  std::vector<EvField> fields;
  std::vector<EvValue> evs;          // explicit mode: the array in index order
  std::uint32_t generate_count = 0;  // generated / auto mode
  std::uint64_t generate_seed = 1;
  std::uint32_t ev_min_active = 0;
  std::uint32_t ev_event_mask = 0x3;  // EV states that raise EV events (host-API bits); v2
  std::vector<std::uint32_t> denied;  // EV indices set DENIED before traffic
  std::optional<NsccParams> cc;       // absent: CC off
  // The network facts NSCC is tuned to (W14; 0 = unknown, the DUT's default); v2.
  std::uint64_t cc_line_rate_bps = 0;
  bool cc_fabric_trims = true;
  QpParams qp;
  bool ipv4 = false;
  std::uint64_t seed = 1;
  std::vector<RegionRequest> regions;
  std::optional<PeerInfo> peer;       // present: connect (RTR/RTS) in the same step
  DscpValues dscp;                    // v4
  bool operator==(const ApplyConfig&) const = default;
};

struct RegionInfo {
  std::uint64_t addr = 0;
  std::uint64_t length = 0;
  std::uint32_t lkey = 0;
  std::uint32_t rkey = 0;
  bool operator==(const RegionInfo&) const = default;
};

struct ApplyOk {  // the agent's side of the exchange
  Gid gid{};
  Mac mac{};
  std::uint32_t ipv4 = 0;
  std::vector<std::uint32_t> qpns;
  std::vector<RegionInfo> regions;
  std::uint8_t mpr_dest = 8;
  std::uint16_t max_wimm_dest = 128;
  std::uint32_t qp_caps = 0;
  std::uint32_t first_psn = 0;
  bool operator==(const ApplyOk&) const = default;
};

struct Connect {
  PeerInfo peer;
  bool operator==(const Connect&) const = default;
};

struct Ok {
  bool operator==(const Ok&) const = default;
};

// ---- data path ------------------------------------------------------------------------------

struct PostWrite {
  std::uint32_t qp = 0;            // QP index
  std::uint64_t wr_id = 0;
  std::uint32_t region = 0;        // index into APPLY_CONFIG.regions
  std::uint64_t local_offset = 0;  // into that region
  std::uint32_t length = 0;
  std::uint64_t remote_addr = 0;
  std::uint32_t rkey = 0;
  bool with_imm = false;
  std::uint32_t imm = 0;
  bool operator==(const PostWrite&) const = default;
};

struct PostRecv {
  std::uint32_t qp = 0;
  std::uint64_t wr_id = 0;
  bool operator==(const PostRecv&) const = default;
};

struct Poll {
  std::uint32_t max_completions = 256;  // <= limit::kPollItems
  std::uint32_t max_events = 256;       // <= limit::kPollItems
  bool operator==(const Poll&) const = default;
};

struct CompletionInfo {
  std::uint64_t at_ns = 0;   // agent clock (CLOCK_MONOTONIC since the agent started)
  std::uint64_t wr_id = 0;
  std::uint32_t qp = 0;      // QP index
  std::uint16_t status = 0;  // ibv_wc_status value
  bool is_send = true;
  bool has_imm = false;
  std::uint32_t imm = 0;
  std::uint32_t byte_len = 0;
  bool operator==(const CompletionInfo&) const = default;
};

struct EvEventInfo {
  std::uint64_t at_ns = 0;
  std::uint32_t ev_index = 0;
  std::uint8_t port = 0;
  std::uint32_t state = 0;  // GOOD 1<<0, ASSUMED_BAD 1<<1, DENIED 1<<2
  std::uint32_t drop_count = 0;
  bool operator==(const EvEventInfo&) const = default;
};

struct Completions {  // POLL's reply: completions and EV events since the last POLL
  std::uint64_t now_ns = 0;
  std::vector<CompletionInfo> completions;
  std::vector<EvEventInfo> events;
  bool more = false;  // more were waiting than `max` allowed
  bool operator==(const Completions&) const = default;
};

// ---- control plane ----------------------------------------------------------------------------

struct SetEvState {
  std::uint32_t index = 0;
  bool denied = true;  // false clears DENIED
  bool operator==(const SetEvState&) const = default;
};

struct PortAdmin {
  std::uint8_t port = 1;
  bool up = true;
  bool operator==(const PortAdmin&) const = default;
};

// The host API's operation numbers (EV_PROBE = 0); the wire carries them as ERTH.op (W10).
enum class EpOpKind : std::uint8_t { kProbeEv = 0, kPortStatusUpdate = 1 };

struct EpOp {
  EpOpKind op = EpOpKind::kProbeEv;
  std::uint32_t ev_index = 0;  // the EV probed / the EV the update leaves on
  std::uint8_t tc = 0;         // the request's DSCP (API req_tc), 0..limit::kMaxDscp; v2
  bool operator==(const EpOp&) const = default;
};

// ---- profile operations and device restriction (version 2) -------------------------------------
// Profile operations act on the operation slot (EV profile 1 on EV format profile 0, CC profile 1;
// never the profiles traffic uses). Each attribute present is sent with its attribute-mask bit,
// exactly as given: refusing invalid profiles is the DUT's job, and the cases test it. The harness
// (harness/dut/dut_setup.hpp) uses these structs as its own control-plane payloads.

enum class ProfileStateSetting : std::uint8_t { kInit = 0, kOffline = 1, kOnline = 2 };

struct EvProfileOp {
  std::optional<ProfileStateSetting> state;
  std::optional<EvMode> mode;
  std::optional<std::vector<EvField>> fields;  // <= limit::kEvFields
  std::optional<std::uint32_t> count;
  std::optional<std::uint32_t> min_active;
  std::optional<std::uint32_t> event_mask;     // host-API state bits
  std::optional<std::uint64_t> seed;           // generated EVs
  bool operator==(const EvProfileOp&) const = default;
};

struct CcProfileOp {
  std::optional<ProfileStateSetting> state;
  std::optional<std::string> algorithm;                     // <= limit::kAlgorithm
  std::vector<std::pair<std::string, std::string>> config;  // algorithm config, name = value
  bool operator==(const CcProfileOp&) const = default;
};

// Each of `evs` replaces one copy (or all copies) of `from`; no `from` = an UNPOPULATED slot.
struct ReplaceEv {
  std::optional<EvValue> from;
  std::vector<EvValue> evs;  // <= limit::kEvs
  bool all_copies = false;
  bool operator==(const ReplaceEv&) const = default;
};

// EV profile 0 (the one traffic uses) ONLINE or OFFLINE.
struct SetProfileOnline {
  bool online = true;
  bool operator==(const SetProfileOnline&) const = default;
};

// Before APPLY_CONFIG: capabilities the DUT must turn off (named like HELLO_OK's capabilities)
// and the depth of its EV event queue (0 = its own). Holds until RESET.
struct RestrictDevice {
  std::vector<std::string> caps_off;  // <= limit::kCapabilities
  std::uint32_t event_queue_depth = 0;
  bool operator==(const RestrictDevice&) const = default;
};

struct ReadMemory {
  std::uint64_t addr = 0;    // virtual address inside a registered region
  std::uint32_t length = 0;  // <= limit::kMemoryChunk
  bool operator==(const ReadMemory&) const = default;
};

struct MemoryBytes {
  std::uint64_t addr = 0;
  std::vector<std::uint8_t> bytes;
  bool operator==(const MemoryBytes&) const = default;
};

struct WriteMemory {
  std::uint64_t addr = 0;
  std::vector<std::uint8_t> bytes;  // <= limit::kMemoryChunk
  bool operator==(const WriteMemory&) const = default;
};

struct QueryState {
  bool operator==(const QueryState&) const = default;
};

struct EvStateInfo {
  std::uint32_t index = 0;
  std::uint8_t port = 0;
  std::vector<std::uint8_t> value;  // compact EV bits
  std::vector<std::uint8_t> wire;   // expanded bytes as placed on the wire
  std::uint32_t echo = 0;           // the identity a receiver echoes (STEV V, UDP sport, SRv6 index)
  std::uint32_t state = 0;
  bool denied = false;
  bool operator==(const EvStateInfo&) const = default;
};

struct Counter {
  std::string name;
  double value = 0;
  bool operator==(const Counter&) const = default;
};

struct StateReport {
  std::uint64_t now_ns = 0;
  std::vector<EvStateInfo> evs;
  std::vector<Counter> counters;
  bool operator==(const StateReport&) const = default;
};

struct Reset {
  bool operator==(const Reset&) const = default;
};
struct Bye {
  bool operator==(const Bye&) const = default;
};

struct Error {
  ErrorCode code = ErrorCode::kNone;
  std::int32_t err = 0;  // errno from the DUT API for kRejected, else 0
  std::string text;      // <= limit::kText
  bool operator==(const Error&) const = default;
};

using Body = std::variant<Hello, HelloOk, ApplyConfig, ApplyOk, Connect, Ok, PostWrite, PostRecv, Poll,
                          Completions, SetEvState, PortAdmin, EpOp, ReadMemory, MemoryBytes,
                          WriteMemory, QueryState, StateReport, Reset, Bye, Error, EvProfileOp, CcProfileOp,
                          ReplaceEv, SetProfileOnline, RestrictDevice, Attach, Step, Frames>;

MsgType type_of(const Body& b);

struct Message {
  std::uint16_t flags = 0;
  std::uint32_t seq = 0;
  Body body;
  bool operator==(const Message&) const = default;
};

}  // namespace mrc::agentproto
