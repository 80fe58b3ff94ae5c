#include "harness/dut/agent_client.hpp"

#include <netinet/tcp.h>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness/testbed/wire/netns_exec.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mrc::harness {
namespace {

namespace ap = mrc::agentproto;
using Clock = std::chrono::steady_clock;

// BYE on the way out must not hold a finished run up for a whole call_timeout.
constexpr std::chrono::milliseconds kByeBound{1000};

int ms_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

std::string errno_text(int e) { return std::strerror(e); }

}  // namespace

std::optional<AgentClock> parse_agent_clock(std::string_view s) {
  if (s == "auto") return AgentClock::kAuto;
  if (s == "real") return AgentClock::kReal;
  if (s == "virtual") return AgentClock::kVirtual;
  return std::nullopt;
}

std::string_view to_string(AgentClock c) {
  switch (c) {
    case AgentClock::kAuto: return "auto";
    case AgentClock::kReal: return "real";
    case AgentClock::kVirtual: return "virtual";
  }
  return "auto";
}

std::string describe_bound(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

AgentClient::AgentClient(std::string host, std::uint16_t port, AgentTimeouts timeouts)
    : host_(std::move(host)), port_(port), timeouts_(timeouts) {}

AgentClient::~AgentClient() { close_fd(); }

std::string AgentClient::address() const {
  const bool v6 = host_.find(':') != std::string::npos;
  return (v6 ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_);
}

void AgentClient::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string AgentClient::fail(std::string why) {
  if (failure_.empty()) failure_ = std::move(why);
  close_fd();
  return failure_;
}

std::string AgentClient::open() {
  if (broken()) return failure_;
  const std::string bound = "connect_timeout " + describe_bound(timeouts_.connect_timeout);
  const Clock::time_point deadline = Clock::now() + timeouts_.connect_timeout;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port_);
  if (int rc = getaddrinfo(host_.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return fail("agent " + address() + ": cannot resolve host: " + gai_strerror(rc));
  }
  std::string last = "no address";
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    int fd = -1;
    if (netns_.empty()) {
      fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
      if (fd < 0) last = errno_text(errno);
    } else {
      fd = wire::socket_in_netns(netns_, a->ai_family, a->ai_socktype | SOCK_NONBLOCK, &last);
      if (fd < 0) last = "in network namespace " + netns_ + ": " + last;
    }
    if (fd < 0) continue;
    // One small request and its reply at a time: Nagle would hold each request back for the ACK of
    // the previous reply.
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      const int n = poll(&p, 1, ms_left(deadline));
      int soerr = 0;
      socklen_t len = sizeof soerr;
      if (n == 0) {
        soerr = ETIMEDOUT;
      } else if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0) {
        soerr = errno;
      }
      rc = soerr == 0 ? 0 : -1;
      errno = soerr;
    }
    if (rc == 0) {
      fd_ = fd;
    } else {
      last = errno == ETIMEDOUT ? "no answer within " + bound : errno_text(errno);
      ::close(fd);
    }
  }
  freeaddrinfo(found);
  if (fd_ < 0) return fail("agent " + address() + ": cannot connect (" + bound + "): " + last);
  return "";
}

std::string AgentClient::send_all(const std::vector<std::uint8_t>& bytes, Clock::time_point deadline,
                                  std::string_view what) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd_, POLLOUT, 0};
      if (poll(&p, 1, ms_left(deadline)) == 0) {
        return fail("agent " + address() + " did not take " + std::string(what) + " within call_timeout " +
                    describe_bound(timeouts_.call_timeout));
      }
      continue;
    }
    return fail("agent " + address() + ": sending " + std::string(what) + " failed: " + errno_text(errno));
  }
  return "";
}

std::string AgentClient::read_frame(ap::Message& out, Clock::time_point deadline, std::string_view what) {
  for (;;) {
    const ap::FrameCheck fc = ap::check_frame(in_);
    if (fc.status == ap::FrameCheck::Status::kBad) {
      return fail("agent " + address() + " answered " + std::string(what) + " with an unframeable reply: " +
                  fc.problem.detail);
    }
    if (fc.status == ap::FrameCheck::Status::kFrame) {
      const ap::Problem p = ap::decode_message(std::span(in_).first(fc.frame_bytes), out);
      in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(fc.frame_bytes));
      if (!p.ok()) {
        return fail("agent " + address() + " answered " + std::string(what) + " with a malformed reply (" +
                    std::string(ap::to_string(p.code)) + ": " + p.detail + ")");
      }
      return "";
    }
    pollfd p{fd_, POLLIN, 0};
    const int n = poll(&p, 1, ms_left(deadline));
    if (n == 0) {
      return fail("agent " + address() + " did not answer " + std::string(what) + " within call_timeout " +
                  describe_bound(timeouts_.call_timeout));
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("agent " + address() + ": waiting for " + std::string(what) + " failed: " + errno_text(errno));
    }
    std::uint8_t buf[65536];
    const ssize_t got = ::recv(fd_, buf, sizeof buf, 0);
    if (got == 0) return fail("agent " + address() + " closed the connection during " + std::string(what));
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return fail("agent " + address() + ": reading the reply to " + std::string(what) + " failed: " + errno_text(errno));
    }
    in_.insert(in_.end(), buf, buf + got);
  }
}

std::string AgentClient::call(ap::Body request, ap::Message& reply) {
  if (broken()) return failure_;
  const std::string what(ap::to_string(ap::type_of(request)));
  if (fd_ < 0) return fail("agent " + address() + ": " + what + " without a connection");
  ap::Message m;
  m.seq = ++seq_;
  m.body = std::move(request);
  std::vector<std::uint8_t> bytes;
  if (const ap::Problem p = ap::encode_message(m, bytes); !p.ok()) {
    // The request breaks a protocol limit: the harness's problem, and the connection is intact.
    return "cannot send " + what + " to agent " + address() + ": " + p.detail;
  }
  const Clock::time_point deadline = Clock::now() + timeouts_.call_timeout;
  if (std::string e = send_all(bytes, deadline, what); !e.empty()) return e;
  if (std::string e = read_frame(reply, deadline, what); !e.empty()) return e;
  if (const auto* e = std::get_if<ap::Error>(&reply.body); e != nullptr && reply.seq == 0 && reply.seq != m.seq) {
    // Not an answer but the agent speaking first: it refuses this connection (e.g. too many clients).
    std::string why = "agent " + address() + " refused the connection at " + what + ": " +
                      std::string(ap::to_string(e->code)) + ": " + e->text;
    if (e->code == ap::ErrorCode::kTooManyClients) {
      why += " (earlier connections are still open: a case whose binding call hung keeps its connection until "
             "its process ends; run with --isolate, the default for agent bindings, or restart the agent)";
    }
    return fail(std::move(why));
  }
  if (reply.seq != m.seq) {
    return fail("agent " + address() + " answered " + what + " (seq " + std::to_string(m.seq) + ") with seq " +
                std::to_string(reply.seq));
  }
  const ap::MsgType got = ap::type_of(reply.body);
  if (got != ap::MsgType::kError && got != ap::reply_type_of(ap::type_of(m.body))) {
    return fail("agent " + address() + " answered " + what + " with " + std::string(ap::to_string(got)));
  }
  if ((reply.flags & ap::kFlagClosing) != 0) {
    // This reply stands; nothing after it will be answered.
    std::string why = "agent " + address() + " closed the connection after " + what;
    if (const auto* e = std::get_if<ap::Error>(&reply.body)) why += " (" + std::string(ap::to_string(e->code)) + ": " + e->text + ")";
    fail(std::move(why));
  }
  return "";
}

void AgentClient::close_politely() {
  if (fd_ < 0 || broken()) return close_fd();
  const AgentTimeouts keep = timeouts_;
  timeouts_.call_timeout = std::min(timeouts_.call_timeout, kByeBound);
  ap::Message reply;
  call(ap::Bye{}, reply);
  timeouts_ = keep;
  close_fd();
}

}  // namespace mrc::harness
