#include "harness/agent/server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace mrc::agent {
namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
// Connections that have not authenticated yet, at most: each is gone by hello_timeout.
constexpr long kMaxWaitingForHello = 16;
constexpr std::uint64_t kMaxPollWaitNs = 100'000'000;  // the loop re-checks its deadlines at least every 100 ms
// A backend timer that service() has already been given a turn for and that is still due did not
// move: the backend cannot make progress on it now. The loop then waits this long rather than
// spinning on zero-timeout polls (the old whole-millisecond poll granularity).
constexpr std::uint64_t kStuckTimerWaitNs = 1'000'000;

std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t to_ns(std::chrono::milliseconds ms) {
  return static_cast<std::uint64_t>(ms.count()) * 1'000'000ull;
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::string peer_name(const sockaddr_storage& ss) {
  char host[INET6_ADDRSTRLEN] = "?";
  std::uint16_t port = 0;
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    port = ntohs(a->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace

std::string tighten_timer_slack() {
  // The default slack (50 us) lets the kernel end a sleep that much late to batch wake-ups; the
  // agent's sleeps are the DUT's timers, which the harness times to microseconds.
  if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) != 0) return errno_text("prctl(PR_SET_TIMERSLACK, 1 ns)");
  return {};
}

struct Server::Conn {
  Conn(int fd_, std::string name_, std::unique_ptr<Backend> own_, Backend& shared, const SessionConfig& sc,
       std::uint64_t now)
      : fd(fd_), name(std::move(name_)), own(std::move(own_)), session(own ? *own : shared, sc), opened_ns(now),
        last_request_ns(now) {}
  int fd;
  std::string name;
  std::unique_ptr<Backend> own;  // this connection's own DUT (ServerConfig::session_backend)
  Session session;
  std::vector<std::uint8_t> out;
  std::size_t out_pos = 0;
  std::uint64_t opened_ns;
  std::uint64_t last_request_ns;
  std::uint64_t seen_requests = 0;
  bool read_eof = false;
  bool dead = false;  // socket error: close without flushing
  std::uint64_t linger_until_ns = 0;  // non-zero: half-closed, discarding input until then
  std::string close_reason;
};

int open_listener(const std::string& addr, std::string* error) {
  auto fail = [&](std::string e) {
    if (error != nullptr) *error = "--listen " + addr + ": " + e;
    return -1;
  };
  const std::size_t colon = addr.rfind(':');
  if (colon == std::string::npos) return fail("expected ADDR:PORT");
  std::string host = addr.substr(0, colon);
  unsigned port = 0;
  const std::string port_text = addr.substr(colon + 1);
  const auto r = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (r.ec != std::errc{} || r.ptr != port_text.data() + port_text.size() || port > 65535) {
    return fail("bad port '" + port_text + "'");
  }
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(static_cast<std::uint16_t>(port));
    if (inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &a->sin6_addr) != 1) {
      return fail("bad IPv6 address");
    }
    len = sizeof(sockaddr_in6);
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(static_cast<std::uint16_t>(port));
    if (inet_pton(AF_INET, host.c_str(), &a->sin_addr) != 1) return fail("bad IPv4 address '" + host + "'");
    len = sizeof(sockaddr_in);
  }
  const int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(errno_text("socket"));
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || listen(fd, 16) != 0) {
    const std::string e = errno_text("bind/listen");
    close(fd);
    return fail(e);
  }
  return fd;
}

std::uint16_t local_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return 0;
}

Server::Server(ServerConfig cfg, Backend& backend, int listen_fd)
    : cfg_(std::move(cfg)), backend_(backend), listen_fd_(listen_fd), origin_ns_(monotonic_ns()) {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

Server::~Server() {
  for (auto& c : conns_) close(c->fd);
  if (listen_fd_ >= 0) close(listen_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

std::uint64_t Server::now_ns() const { return monotonic_ns() - origin_ns_; }

void Server::stop() {
  stopping_ = true;
  const std::uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!write(wake_fd_, &one, sizeof one);
}

void Server::logf(const std::string& line) const {
  if (cfg_.log) cfg_.log(line);
}

std::string Server::run() {
  while (!stopping_) {
    if (std::string e = step(std::chrono::milliseconds(100)); !e.empty()) return e;
  }
  return {};
}

std::string Server::step(std::chrono::milliseconds max_wait) {
  std::uint64_t now = now_ns();
  // Poll timeout: the nearest named deadline or backend timer, never more than max_wait / 100 ms,
  // to the nanosecond (ppoll), so a timer a few microseconds away is served on time.
  std::uint64_t wait = std::min<std::uint64_t>(to_ns(max_wait), kMaxPollWaitNs);
  const std::uint64_t timer = backend_.next_deadline_ns();
  if (timer != UINT64_MAX) {
    // Due and already serviced without moving: a retry later, not a busy loop.
    const bool stuck = timer <= last_service_ns_ && timer == last_timer_;
    wait = std::min(wait, stuck ? kStuckTimerWaitNs : timer > now ? timer - now : 0);
  }
  for (const auto& c : conns_) {
    const std::uint64_t limit = c->linger_until_ns != 0            ? c->linger_until_ns
                                : c->session.authenticated() ? c->last_request_ns + to_ns(cfg_.idle_timeout)
                                                             : c->opened_ns + to_ns(cfg_.hello_timeout);
    wait = std::min(wait, limit > now ? limit - now : 0);
  }
  std::vector<pollfd>& fds = pollfds_;  // reused: no allocation per loop turn once grown
  fds.clear();
  fds.push_back({wake_fd_, POLLIN, 0});
  fds.push_back({listen_fd_, POLLIN, 0});
  for (const auto& c : conns_) {
    short ev = 0;
    if (!c->read_eof && c->linger_until_ns != 0) ev |= POLLIN;
    if (!c->read_eof && !c->session.closing() && c->out.size() - c->out_pos < cfg_.max_output_bytes) ev |= POLLIN;
    if (c->out_pos < c->out.size()) ev |= POLLOUT;
    fds.push_back({c->fd, ev, 0});
  }
  const std::size_t backend_first = fds.size();
  if (io_fds_.empty()) io_fds_ = backend_.io_fds();  // fixed for the backend's life
  for (int fd : io_fds_) fds.push_back({fd, POLLIN, 0});
  const timespec timeout{static_cast<time_t>(wait / 1'000'000'000ull), static_cast<long>(wait % 1'000'000'000ull)};
  const int n = ppoll(fds.data(), fds.size(), &timeout, nullptr);
  if (n < 0 && errno != EINTR) return errno_text("ppoll");
  now = now_ns();
  if (n > 0 && (fds[0].revents & POLLIN)) {
    std::uint64_t drained = 0;
    (void)!read(wake_fd_, &drained, sizeof drained);
  }
  backend_.service(now);
  if (n > 0 && (fds[1].revents & POLLIN)) accept_all(now);
  const std::size_t polled = backend_first - 2;  // connections that were in this poll set
  for (std::size_t i = 0; i < polled && i < conns_.size(); ++i) {
    Conn& c = *conns_[i];
    const short re = fds[i + 2].revents;
    if (re & (POLLIN | POLLHUP | POLLERR)) read_conn(c, now);
    if ((re & POLLOUT) || c.out_pos < c.out.size()) write_conn(c);
  }
  for (auto& c : conns_) check_deadlines(*c, now);
  // Finish what is done: flushed and closing, dead, or EOF with nothing left to send. A closing
  // session is half-closed first and lingers (discarding input) until the peer's EOF or `linger`.
  for (std::size_t i = conns_.size(); i-- > 0;) {
    Conn& c = *conns_[i];
    const bool flushed = c.out_pos >= c.out.size();
    const std::string why =
        c.close_reason.empty() ? (c.session.closing() ? "session closed" : "peer closed") : c.close_reason;
    if (c.dead || (flushed && c.read_eof)) {
      close_conn(i, why);
    } else if (flushed && c.session.closing()) {
      if (c.linger_until_ns == 0) {
        shutdown(c.fd, SHUT_WR);
        c.linger_until_ns = now + to_ns(cfg_.linger);
      } else if (now >= c.linger_until_ns) {
        close_conn(i, why);
      }
    }
  }
  last_service_ns_ = now_ns();
  backend_.service(last_service_ns_);
  last_timer_ = backend_.next_deadline_ns();
  return {};
}

void Server::accept_all(std::uint64_t now) {
  for (;;) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: drained (other errors: the next turn tries again)
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const std::string name = peer_name(ss);
    // Refused politely: one ERROR (closing), sent best-effort on the fresh socket.
    auto refuse = [&](agentproto::ErrorCode code, std::string text) {
      ++stats_.refused;
      std::vector<std::uint8_t> out;
      agentproto::Message m;
      m.flags = agentproto::kFlagClosing;
      logf("refused " + name + ": " + text);
      m.body = agentproto::Error{code, 0, std::move(text)};
      agentproto::encode_message(m, out);
      (void)!send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      close(fd);
    };
    // Only an authenticated session holds a client slot (checked at its HELLO); connections that
    // have not sent one are bounded apart, so a tokenless client, silent or reconnecting, keeps
    // nobody out.
    const auto waiting = std::count_if(conns_.begin(), conns_.end(), [](const auto& x) { return !x->session.authenticated(); });
    if (waiting >= kMaxWaitingForHello) {
      refuse(agentproto::ErrorCode::kTooManyClients,
             std::to_string(kMaxWaitingForHello) + " connections are already waiting to send HELLO");
      continue;
    }
    std::unique_ptr<Backend> own;
    if (cfg_.session_backend) {
      std::string why;
      own = cfg_.session_backend(&why);
      if (!own) {
        refuse(agentproto::ErrorCode::kBackendFailure, "no DUT for this connection: " + why);
        continue;
      }
    }
    // A session that closes (BYE, a fatal error) gives its slot back at once, before its reply is
    // flushed and its linger ends, so a client reconnecting right after BYE is served.
    auto slot_refusal = [this]() -> std::string {
      const auto held = std::count_if(conns_.begin(), conns_.end(), [](const auto& x) {
        return x->session.authenticated() && !x->session.closing();
      });
      return held >= cfg_.max_clients ? "--max-clients " + std::to_string(cfg_.max_clients) + " reached" : "";
    };
    auto c = std::make_unique<Conn>(fd, name, std::move(own), backend_,
                                    SessionConfig{cfg_.token, cfg_.agent_name, slot_refusal}, now);
    ++stats_.accepted;
    logf("accepted " + c->name);
    conns_.push_back(std::move(c));
  }
}

void Server::read_conn(Conn& c, std::uint64_t now) {
  std::uint8_t buf[kReadChunk];
  if (c.linger_until_ns != 0) {  // half-closed: discard until EOF
    for (int round = 0; round < 16; ++round) {
      const ssize_t got = recv(c.fd, buf, sizeof buf, 0);
      if (got > 0) continue;
      if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) c.read_eof = true;
      break;
    }
    return;
  }
  // Bounded per turn: at most 16 chunks, so one chatty client cannot starve the others.
  for (int round = 0; round < 16 && !c.read_eof && !c.session.closing(); ++round) {
    const ssize_t got = recv(c.fd, buf, sizeof buf, 0);
    if (got > 0) {
      c.session.on_bytes({buf, static_cast<std::size_t>(got)}, c.out, now);
      if (c.session.requests() != c.seen_requests) {
        c.seen_requests = c.session.requests();
        c.last_request_ns = now;
      }
      if (c.out.size() - c.out_pos >= cfg_.max_output_bytes) break;
      continue;
    }
    if (got == 0) {
      c.read_eof = true;
      c.session.on_eof(c.out);
      break;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
    c.dead = true;
    c.close_reason = errno_text("recv");
    break;
  }
}

void Server::write_conn(Conn& c) {
  while (c.out_pos < c.out.size() && !c.dead) {
    const ssize_t n = send(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL);
    if (n > 0) {
      c.out_pos += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
    c.dead = true;
    c.close_reason = errno_text("send");
  }
  if (c.out_pos == c.out.size()) {
    c.out.clear();
    c.out_pos = 0;
  }
}

void Server::check_deadlines(Conn& c, std::uint64_t now) {
  if (c.session.closing() || c.dead) return;
  // Replies are read one at a time by any client that reads them; max_output_bytes waiting means
  // it does not (reading its requests stopped at that mark, so this is where it ends).
  if (c.out.size() - c.out_pos >= cfg_.max_output_bytes) {
    c.dead = true;
    c.close_reason = "client does not read its replies (max_output_bytes)";
    return;
  }
  std::string what;
  if (!c.session.authenticated() && now >= c.opened_ns + to_ns(cfg_.hello_timeout)) {
    what = "hello_timeout=" + std::to_string(cfg_.hello_timeout.count()) + " ms";
  } else if (c.session.authenticated() && now >= c.last_request_ns + to_ns(cfg_.idle_timeout)) {
    what = "idle_timeout=" + std::to_string(cfg_.idle_timeout.count()) + " ms";
  }
  if (what.empty()) return;
  ++stats_.timed_out;
  c.session.on_timeout(what, c.out);
  c.close_reason = what;
  write_conn(c);
}

void Server::close_conn(std::size_t i, std::string_view why) {
  Conn& c = *conns_[i];
  stats_.requests += c.session.requests();
  stats_.errors_sent += c.session.errors();
  ++stats_.closed;
  logf("closed " + c.name + ": " + std::string(why));
  close(c.fd);
  conns_.erase(conns_.begin() + static_cast<std::ptrdiff_t>(i));
}

}  // namespace mrc::agent
