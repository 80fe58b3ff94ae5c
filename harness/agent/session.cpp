#include "harness/agent/session.hpp"

#include <type_traits>

namespace mrc::agent {
namespace {

namespace ap = mrc::agentproto;
using ap::ErrorCode;

// Compares without an early exit, so the time taken does not reveal how much of a guess matched.
bool same_secret(std::string_view a, std::string_view b) {
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  for (std::size_t i = 0; i < n; ++i) diff |= static_cast<unsigned>(a[i] ^ b[i]);
  return diff == 0;
}

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

void Session::on_bytes(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out, std::uint64_t now_ns) {
  if (closing_) return;  // nothing more is read once the session decided to close
  in_.insert(in_.end(), in.begin(), in.end());
  std::size_t pos = 0;
  while (!closing_) {
    const std::span<const std::uint8_t> rest(in_.data() + pos, in_.size() - pos);
    const ap::FrameCheck fc = ap::check_frame(rest);
    if (fc.status == ap::FrameCheck::Status::kNeedMore) break;
    if (fc.status == ap::FrameCheck::Status::kBad) {
      // The length field is unusable: no later byte can be trusted to start a frame.
      error(fc.have_header ? fc.header.seq : 0, fc.problem.code, 0, fc.problem.detail, out);
      pos = in_.size();
      break;
    }
    handle_frame(rest.first(fc.frame_bytes), out, now_ns);
    pos += fc.frame_bytes;
  }
  in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(pos));
}

void Session::on_eof(std::vector<std::uint8_t>& out) {
  if (closing_) return;
  if (!in_.empty()) {
    const ap::FrameCheck fc = ap::check_frame(in_);
    error(fc.have_header ? fc.header.seq : 0, ErrorCode::kTruncated, 0,
          "the connection ended " + std::to_string(in_.size()) + " bytes into a frame", out);
    in_.clear();
  }
  closing_ = true;
}

void Session::on_timeout(std::string_view what, std::vector<std::uint8_t>& out) {
  if (closing_) return;
  error(0, ErrorCode::kTimeout, 0, std::string(what) + " expired", out);
}

void Session::handle_frame(std::span<const std::uint8_t> frame, std::vector<std::uint8_t>& out,
                           std::uint64_t now_ns) {
  ++requests_;
  const ap::FrameCheck fc = ap::check_frame(frame);
  const std::uint32_t seq = fc.header.seq;
  // A reply type is refused before its body is read: the agent never parses what it never takes.
  if (ap::is_known_type(fc.header.type) && ap::is_reply(fc.header.type)) {
    return error(seq, ErrorCode::kUnexpectedReply, 0,
                 std::string(ap::to_string(static_cast<ap::MsgType>(fc.header.type))) +
                     " is a reply; the agent only takes requests",
                 out);
  }
  ap::Message m;
  if (const ap::Problem p = ap::decode_message(frame, m); !p.ok()) {
    return error(seq, p.code, 0, p.detail, out);
  }
  if (have_seq_ && m.seq <= last_seq_) {
    return error(m.seq, ErrorCode::kBadSeq, 0,
                 "seq " + std::to_string(m.seq) + " is not greater than the previous " + std::to_string(last_seq_),
                 out);
  }
  have_seq_ = true;
  last_seq_ = m.seq;
  if (!authed_) {
    const auto* hello = std::get_if<ap::Hello>(&m.body);
    if (hello == nullptr) {
      return error(m.seq, ErrorCode::kNotHello, 0,
                   std::string(ap::to_string(ap::type_of(m.body))) + " before HELLO", out);
    }
    if (hello->version != ap::kProtocolVersion) {
      return error(m.seq, ErrorCode::kBadVersion, 0,
                   "client speaks protocol version " + std::to_string(hello->version) +
                       "; this agent speaks version " + std::to_string(ap::kProtocolVersion) + " only",
                   out);
    }
    if (!same_secret(hello->token, cfg_.token)) {
      return error(m.seq, ErrorCode::kBadToken, 0, "wrong token", out);
    }
    if (cfg_.slot_refusal) {
      if (std::string full = cfg_.slot_refusal(); !full.empty()) return error(m.seq, ErrorCode::kTooManyClients, 0, full, out);
    }
    authed_ = true;
    client_ = hello->client;
    ap::HelloOk ok;
    ok.agent = cfg_.agent_name + " " + backend_.identity();
    if (ok.agent.size() > ap::limit::kName) ok.agent.resize(ap::limit::kName);
    ok.capabilities = backend_.capabilities();
    ok.ports = backend_.ports();
    ok.clock = backend_.clock();
    return reply(m.seq, std::move(ok), out);
  }
  if (std::holds_alternative<ap::Hello>(m.body)) {
    return error(m.seq, ErrorCode::kDuplicateHello, 0, "HELLO after the handshake", out);
  }
  backend_.service(now_ns);
  dispatch(m, out);
}

void Session::dispatch(const ap::Message& m, std::vector<std::uint8_t>& out) {
  const std::uint32_t seq = m.seq;
  std::visit(
      Overloaded{
          [&](const ap::ApplyConfig& c) {
            ap::ApplyOk ok;
            const Outcome o = backend_.apply(c, ok);
            outcome(seq, o, std::move(ok), out);
          },
          [&](const ap::Connect& c) { outcome(seq, backend_.connect(c.peer), ap::Ok{}, out); },
          [&](const ap::PostWrite& w) { outcome(seq, backend_.post_write(w), ap::Ok{}, out); },
          [&](const ap::PostRecv& r) { outcome(seq, backend_.post_recv(r), ap::Ok{}, out); },
          [&](const ap::Poll& p) {
            ap::Completions c;
            const Outcome o = backend_.poll(p, c);
            outcome(seq, o, std::move(c), out);
          },
          [&](const ap::SetEvState& s) { outcome(seq, backend_.set_ev_state(s), ap::Ok{}, out); },
          [&](const ap::PortAdmin& p) { outcome(seq, backend_.port_admin(p), ap::Ok{}, out); },
          [&](const ap::EpOp& e) { outcome(seq, backend_.ep_op(e), ap::Ok{}, out); },
          [&](const ap::ReadMemory& r) {
            ap::MemoryBytes b;
            const Outcome o = backend_.read_memory(r, b);
            outcome(seq, o, std::move(b), out);
          },
          [&](const ap::WriteMemory& w) { outcome(seq, backend_.write_memory(w), ap::Ok{}, out); },
          [&](const ap::QueryState&) {
            ap::StateReport s;
            const Outcome o = backend_.query_state(s);
            outcome(seq, o, std::move(s), out);
          },
          [&](const ap::Reset&) { outcome(seq, backend_.reset(), ap::Ok{}, out); },
          [&](const ap::EvProfileOp& o) { outcome(seq, backend_.ev_profile_op(o), ap::Ok{}, out); },
          [&](const ap::CcProfileOp& o) { outcome(seq, backend_.cc_profile_op(o), ap::Ok{}, out); },
          [&](const ap::ReplaceEv& o) { outcome(seq, backend_.replace_ev(o), ap::Ok{}, out); },
          [&](const ap::SetProfileOnline& o) { outcome(seq, backend_.set_profile_online(o), ap::Ok{}, out); },
          [&](const ap::RestrictDevice& d) { outcome(seq, backend_.restrict_device(d), ap::Ok{}, out); },
          [&](const ap::Attach& a) { outcome(seq, backend_.attach(a), ap::Ok{}, out); },
          [&](const ap::Step& st) {
            ap::Frames f;
            const Outcome o = backend_.step(st, f);
            outcome(seq, o, std::move(f), out);
          },
          [&](const ap::Bye&) {
            closing_ = true;  // before the reply, so it carries kFlagClosing
            reply(seq, ap::Ok{}, out);
          },
          // HELLO is handled before dispatch; reply types never get here (refused by type).
          [&](const auto&) { error(seq, ErrorCode::kUnexpectedReply, 0, "not a request", out); },
      },
      m.body);
}

void Session::outcome(std::uint32_t seq, const Outcome& o, ap::Body on_ok, std::vector<std::uint8_t>& out) {
  if (o.ok()) return reply(seq, std::move(on_ok), out);
  error(seq, o.code, o.err, o.text, out);
}

void Session::reply(std::uint32_t seq, ap::Body body, std::vector<std::uint8_t>& out) {
  ap::Message m;
  m.seq = seq;
  m.flags = closing_ ? ap::kFlagClosing : 0;
  m.body = std::move(body);
  if (const ap::Problem p = ap::encode_message(m, out); !p.ok()) {
    // A reply over a protocol limit is an agent-side fault; say so instead of sending nothing.
    error(seq, ErrorCode::kBackendFailure, 0, "reply not encodable: " + p.detail, out);
  }
}

void Session::error(std::uint32_t seq, ErrorCode code, int err, std::string text, std::vector<std::uint8_t>& out) {
  ++errors_;
  const bool fatal = ap::is_fatal(code);
  if (text.size() > ap::limit::kText) text.resize(ap::limit::kText);
  ap::Message m;
  m.seq = seq;
  m.flags = fatal ? ap::kFlagClosing : 0;
  m.body = ap::Error{code, err, std::move(text)};
  ap::encode_message(m, out);  // bounded text: cannot fail
  if (fatal) closing_ = true;
}

}  // namespace mrc::agent
