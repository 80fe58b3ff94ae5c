// libFuzzer target for the agent control protocol (harness/dut/agent-protocol.md).
//
// 1. The input as one frame: decode_message() returns ok or a typed error, never crashes; a frame
//    that decodes re-encodes to exactly the same bytes (the encoding is canonical).
// 2. The input as a byte stream into a Session (first byte: chunk size and whether a valid HELLO
//    goes first): the session never crashes, every byte it writes back is a sequence of
//    well-formed reply frames, it writes at most one reply per request plus one for a broken
//    stream, and nothing follows a closing reply.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "harness/agent/backend.hpp"
#include "harness/agent/session.hpp"
#include "harness/agentproto/codec.hpp"

namespace {

namespace ap = mrc::agentproto;
using mrc::agent::Outcome;

[[noreturn]] void violated(const char* what, std::size_t size) {
  std::fprintf(stderr, "fuzz_agent_protocol: invariant violated: %s (size=%zu)\n", what, size);
  std::abort();
}

// Answers everything without a DUT: success for most calls, a rejection for some, so both reply
// paths run.
class StubBackend final : public mrc::agent::Backend {
 public:
  std::string identity() const override { return "stub"; }
  std::vector<std::string> capabilities() const override { return {"stev"}; }
  std::vector<ap::PortInfo> ports() const override { return {{1, "stub1", {}, true}}; }
  Outcome apply(const ap::ApplyConfig& c, ap::ApplyOk& out) override {
    if (c.qp.count == 0) return Outcome::rejected(22, "no QPs");
    out.qpns.assign(c.qp.count, 0x40);
    return Outcome::success();
  }
  Outcome connect(const ap::PeerInfo&) override { return Outcome::success(); }
  Outcome post_write(const ap::PostWrite& w) override {
    return w.length == 0 ? Outcome::fail(ap::ErrorCode::kBadValue, "empty") : Outcome::success();
  }
  Outcome post_recv(const ap::PostRecv&) override { return Outcome::success(); }
  Outcome poll(const ap::Poll& p, ap::Completions& out) override {
    out.completions.resize(p.max_completions % 4);
    return Outcome::success();
  }
  Outcome set_ev_state(const ap::SetEvState&) override { return Outcome::success(); }
  Outcome port_admin(const ap::PortAdmin& p) override {
    return p.port == 0 ? Outcome::rejected(22, "port 0") : Outcome::success();
  }
  Outcome ep_op(const ap::EpOp&) override { return Outcome::fail(ap::ErrorCode::kUnsupported, "no EP ops"); }
  Outcome read_memory(const ap::ReadMemory& r, ap::MemoryBytes& out) override {
    out.addr = r.addr;
    out.bytes.assign(r.length % 1024, 0);
    return Outcome::success();
  }
  Outcome write_memory(const ap::WriteMemory&) override { return Outcome::success(); }
  Outcome query_state(ap::StateReport& out) override {
    out.counters.push_back({"x", 1});
    return Outcome::success();
  }
  Outcome reset() override { return Outcome::success(); }
  void service(std::uint64_t) override {}
};

void check_replies(std::span<const std::uint8_t> out, std::uint64_t requests, bool eof, std::size_t size) {
  std::size_t pos = 0;
  std::uint64_t replies = 0;
  bool closed = false;
  while (pos < out.size()) {
    if (closed) violated("bytes after a closing reply", size);
    const ap::FrameCheck fc = ap::check_frame(out.subspan(pos));
    if (fc.status != ap::FrameCheck::Status::kFrame) violated("reply bytes are not whole frames", size);
    ap::Message m;
    if (!ap::decode_message(out.subspan(pos, fc.frame_bytes), m).ok()) violated("a reply does not decode", size);
    if (!ap::is_reply(static_cast<std::uint16_t>(ap::type_of(m.body)))) violated("a reply of a request type", size);
    closed = (m.flags & ap::kFlagClosing) != 0;
    ++replies;
    pos += fc.frame_bytes;
  }
  // One reply per request handled, plus one for a stream that broke (bad length, EOF mid-frame).
  if (replies > requests + 1 + (eof ? 1 : 0)) violated("more replies than requests", size);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);

  ap::Message m;
  const ap::Problem p = ap::decode_message(input, m);
  if (ap::to_string(p.code).empty()) violated("error without a name", size);
  if (p.ok()) {
    const std::vector<std::uint8_t> again = ap::encode(m);
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) {
      violated("decoded frame does not re-encode to the same bytes", size);
    }
  }

  if (size == 0) return 0;
  const std::uint8_t control = data[0];
  const std::size_t chunk = 1 + (control & 0x3F);
  const bool hello_first = (control & 0x40) != 0;
  const bool eof = (control & 0x80) != 0;
  StubBackend backend;
  mrc::agent::Session session(backend, {"fuzz", "mrc-dut-agent fuzz", {}});
  std::vector<std::uint8_t> out;
  if (hello_first) {
    session.on_bytes(ap::encode(ap::Message{0, 0, ap::Hello{ap::kProtocolVersion, "fuzz", "fuzzer"}}), out, 0);
    if (!session.authenticated()) violated("a valid HELLO was refused", size);
  }
  const std::span<const std::uint8_t> stream = input.subspan(1);
  for (std::size_t at = 0; at < stream.size(); at += chunk) {
    session.on_bytes(stream.subspan(at, std::min(chunk, stream.size() - at)), out, at);
  }
  if (eof) session.on_eof(out);
  check_replies(out, session.requests(), eof, size);
  if (session.buffered() > ap::kLengthPrefix + ap::kMaxLength) violated("input buffer past one frame", size);
  return 0;
}
