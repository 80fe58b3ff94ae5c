// Body layouts of the data-path and control-plane messages, and the type dispatch. Field order
// here IS the wire layout (harness/dut/agent-protocol.md §4).
#include "harness/agentproto/body_codec.hpp"

#include <string>
#include <type_traits>

namespace mrc::agentproto::detail {
namespace {

// The setup bodies live in body_codec_setup.cpp; name them here so the overloads below do not
// hide them.
using detail::get;
using detail::put;

// ---- data path ------------------------------------------------------------------------------------

void put(Writer& w, const PostWrite& m) {
  w.u32(m.qp);
  w.u64(m.wr_id);
  w.u32(m.region);
  w.u64(m.local_offset);
  w.u32(m.length);
  w.u64(m.remote_addr);
  w.u32(m.rkey);
  w.boolean(m.with_imm);
  w.u32(m.imm);
}
void get(Reader& r, PostWrite& m) {
  m.qp = r.u32("PostWrite.qp");
  m.wr_id = r.u64("PostWrite.wr_id");
  m.region = r.u32("PostWrite.region");
  m.local_offset = r.u64("PostWrite.local_offset");
  m.length = r.u32("PostWrite.length");
  m.remote_addr = r.u64("PostWrite.remote_addr");
  m.rkey = r.u32("PostWrite.rkey");
  m.with_imm = r.boolean("PostWrite.with_imm");
  m.imm = r.u32("PostWrite.imm");
}

void put(Writer& w, const PostRecv& m) {
  w.u32(m.qp);
  w.u64(m.wr_id);
}
void get(Reader& r, PostRecv& m) {
  m.qp = r.u32("PostRecv.qp");
  m.wr_id = r.u64("PostRecv.wr_id");
}

void put(Writer& w, const Poll& m) {
  w.u32(m.max_completions);
  w.u32(m.max_events);
}
void get(Reader& r, Poll& m) {
  m.max_completions = r.u32("Poll.max_completions");
  m.max_events = r.u32("Poll.max_events");
  if (m.max_completions > limit::kPollItems || m.max_events > limit::kPollItems) {
    r.fail(ErrorCode::kFieldTooLong, "Poll.max", "exceeds the limit of " + std::to_string(limit::kPollItems));
  }
}

void put(Writer& w, const Completions& m) {
  w.u64(m.now_ns);
  if (w.count(m.completions.size(), limit::kPollItems, "Completions.completions")) {
    for (const auto& c : m.completions) {
      w.u64(c.at_ns);
      w.u64(c.wr_id);
      w.u32(c.qp);
      w.u16(c.status);
      w.boolean(c.is_send);
      w.boolean(c.has_imm);
      w.u32(c.imm);
      w.u32(c.byte_len);
    }
  }
  if (w.count(m.events.size(), limit::kPollItems, "Completions.events")) {
    for (const auto& e : m.events) {
      w.u64(e.at_ns);
      w.u32(e.ev_index);
      w.u8(e.port);
      w.u32(e.state);
      w.u32(e.drop_count);
    }
  }
  w.boolean(m.more);
}
void get(Reader& r, Completions& m) {
  m.now_ns = r.u64("Completions.now_ns");
  m.completions.resize(r.count(limit::kPollItems, 32, "Completions.completions"));
  for (auto& c : m.completions) {
    c.at_ns = r.u64("Completions.completions[].at_ns");
    c.wr_id = r.u64("Completions.completions[].wr_id");
    c.qp = r.u32("Completions.completions[].qp");
    c.status = r.u16("Completions.completions[].status");
    c.is_send = r.boolean("Completions.completions[].is_send");
    c.has_imm = r.boolean("Completions.completions[].has_imm");
    c.imm = r.u32("Completions.completions[].imm");
    c.byte_len = r.u32("Completions.completions[].byte_len");
  }
  m.events.resize(r.count(limit::kPollItems, 21, "Completions.events"));
  for (auto& e : m.events) {
    e.at_ns = r.u64("Completions.events[].at_ns");
    e.ev_index = r.u32("Completions.events[].ev_index");
    e.port = r.u8("Completions.events[].port");
    e.state = r.u32("Completions.events[].state");
    e.drop_count = r.u32("Completions.events[].drop_count");
  }
  m.more = r.boolean("Completions.more");
}

// ---- control plane ----------------------------------------------------------------------------------

void put(Writer& w, const SetEvState& m) {
  w.u32(m.index);
  w.boolean(m.denied);
}
void get(Reader& r, SetEvState& m) {
  m.index = r.u32("SetEvState.index");
  m.denied = r.boolean("SetEvState.denied");
}

void put(Writer& w, const PortAdmin& m) {
  w.u8(m.port);
  w.boolean(m.up);
}
void get(Reader& r, PortAdmin& m) {
  m.port = r.u8("PortAdmin.port");
  m.up = r.boolean("PortAdmin.up");
}

void put(Writer& w, const EpOp& m) {
  w.u8(static_cast<std::uint8_t>(m.op));
  w.u32(m.ev_index);
  if (m.tc > limit::kMaxDscp) w.fail(ErrorCode::kBadValue, "EpOp.tc", "DSCP " + std::to_string(m.tc) + " is over 63");
  w.u8(m.tc);
}
void get(Reader& r, EpOp& m) {
  m.op = get_enum<EpOpKind>(r, 1, "EpOp.op");
  m.ev_index = r.u32("EpOp.ev_index");
  m.tc = r.u8("EpOp.tc");
  if (m.tc > limit::kMaxDscp) r.fail(ErrorCode::kBadValue, "EpOp.tc", "DSCP " + std::to_string(m.tc) + " is over 63");
}

void put(Writer& w, const ReadMemory& m) {
  w.u64(m.addr);
  if (m.length > limit::kMemoryChunk) {
    w.fail(ErrorCode::kFieldTooLong, "ReadMemory.length",
           std::to_string(m.length) + " exceeds the limit of " + std::to_string(limit::kMemoryChunk));
  }
  w.u32(m.length);
}
void get(Reader& r, ReadMemory& m) {
  m.addr = r.u64("ReadMemory.addr");
  m.length = r.u32("ReadMemory.length");
  if (m.length > limit::kMemoryChunk) {
    r.fail(ErrorCode::kFieldTooLong, "ReadMemory.length",
           std::to_string(m.length) + " exceeds the limit of " + std::to_string(limit::kMemoryChunk));
  }
}

void put(Writer& w, const MemoryBytes& m) {
  w.u64(m.addr);
  w.blob32(m.bytes, limit::kMemoryChunk, "MemoryBytes.bytes");
}
void get(Reader& r, MemoryBytes& m) {
  m.addr = r.u64("MemoryBytes.addr");
  r.blob32(m.bytes, limit::kMemoryChunk, "MemoryBytes.bytes");
}

void put(Writer& w, const WriteMemory& m) {
  w.u64(m.addr);
  w.blob32(m.bytes, limit::kMemoryChunk, "WriteMemory.bytes");
}
void get(Reader& r, WriteMemory& m) {
  m.addr = r.u64("WriteMemory.addr");
  r.blob32(m.bytes, limit::kMemoryChunk, "WriteMemory.bytes");
}

void put(Writer& w, const StateReport& m) {
  w.u64(m.now_ns);
  if (w.count(m.evs.size(), limit::kEvs, "StateReport.evs")) {
    for (const auto& e : m.evs) {
      w.u32(e.index);
      w.u8(e.port);
      w.blob8(e.value, limit::kEvBytes, "StateReport.evs[].value");
      w.blob8(e.wire, limit::kEvBytes, "StateReport.evs[].wire");
      w.u32(e.echo);
      w.u32(e.state);
      w.boolean(e.denied);
    }
  }
  if (w.count(m.counters.size(), limit::kCounters, "StateReport.counters")) {
    for (const auto& c : m.counters) {
      w.str(c.name, limit::kName, "StateReport.counters[].name");
      w.f64(c.value);
    }
  }
}
void get(Reader& r, StateReport& m) {
  m.now_ns = r.u64("StateReport.now_ns");
  m.evs.resize(r.count(limit::kEvs, 16, "StateReport.evs"));
  for (auto& e : m.evs) {
    e.index = r.u32("StateReport.evs[].index");
    e.port = r.u8("StateReport.evs[].port");
    r.blob8(e.value, limit::kEvBytes, "StateReport.evs[].value");
    r.blob8(e.wire, limit::kEvBytes, "StateReport.evs[].wire");
    e.echo = r.u32("StateReport.evs[].echo");
    e.state = r.u32("StateReport.evs[].state");
    e.denied = r.boolean("StateReport.evs[].denied");
  }
  m.counters.resize(r.count(limit::kCounters, 10, "StateReport.counters"));
  for (auto& c : m.counters) {
    r.str(c.name, limit::kName, "StateReport.counters[].name");
    c.value = r.f64("StateReport.counters[].value");
  }
}

void put(Writer& w, const Error& m) {
  w.u16(static_cast<std::uint16_t>(m.code));
  w.i32(m.err);
  w.str(m.text, limit::kText, "Error.text");
}
void get(Reader& r, Error& m) {
  m.code = static_cast<ErrorCode>(r.u16("Error.code"));
  m.err = r.i32("Error.err");
  r.str(m.text, limit::kText, "Error.text");
}

// Empty bodies.
void put(Writer&, const Ok&) {}
void get(Reader&, Ok&) {}
void put(Writer&, const QueryState&) {}
void get(Reader&, QueryState&) {}
void put(Writer&, const Reset&) {}
void get(Reader&, Reset&) {}
void put(Writer&, const Bye&) {}
void get(Reader&, Bye&) {}

template <typename T>
void get_as(Reader& r, Body& out) {
  get(r, out.emplace<T>());
}

}  // namespace

void put_body(Writer& w, const Body& b) {
  std::visit([&w](const auto& m) { put(w, m); }, b);
}

void get_body(Reader& r, MsgType type, Body& out) {
  switch (type) {
    case MsgType::kHello: return get_as<Hello>(r, out);
    case MsgType::kApplyConfig: return get_as<ApplyConfig>(r, out);
    case MsgType::kConnect: return get_as<Connect>(r, out);
    case MsgType::kPostWrite: return get_as<PostWrite>(r, out);
    case MsgType::kPostRecv: return get_as<PostRecv>(r, out);
    case MsgType::kPoll: return get_as<Poll>(r, out);
    case MsgType::kSetEvState: return get_as<SetEvState>(r, out);
    case MsgType::kPortAdmin: return get_as<PortAdmin>(r, out);
    case MsgType::kEpOp: return get_as<EpOp>(r, out);
    case MsgType::kReadMemory: return get_as<ReadMemory>(r, out);
    case MsgType::kWriteMemory: return get_as<WriteMemory>(r, out);
    case MsgType::kQueryState: return get_as<QueryState>(r, out);
    case MsgType::kReset: return get_as<Reset>(r, out);
    case MsgType::kBye: return get_as<Bye>(r, out);
    case MsgType::kEvProfileOp: return get_as<EvProfileOp>(r, out);
    case MsgType::kCcProfileOp: return get_as<CcProfileOp>(r, out);
    case MsgType::kReplaceEv: return get_as<ReplaceEv>(r, out);
    case MsgType::kSetProfileOnline: return get_as<SetProfileOnline>(r, out);
    case MsgType::kRestrictDevice: return get_as<RestrictDevice>(r, out);
    case MsgType::kAttach: return get_as<Attach>(r, out);
    case MsgType::kStep: return get_as<Step>(r, out);
    case MsgType::kFrames: return get_as<Frames>(r, out);
    case MsgType::kHelloOk: return get_as<HelloOk>(r, out);
    case MsgType::kApplyOk: return get_as<ApplyOk>(r, out);
    case MsgType::kOk: return get_as<Ok>(r, out);
    case MsgType::kCompletions: return get_as<Completions>(r, out);
    case MsgType::kMemory: return get_as<MemoryBytes>(r, out);
    case MsgType::kState: return get_as<StateReport>(r, out);
    case MsgType::kError: return get_as<Error>(r, out);
  }
  r.fail(ErrorCode::kUnknownType, "type", "not defined in this protocol version");
}

}  // namespace mrc::agentproto::detail
