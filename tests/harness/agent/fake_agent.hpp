// A scripted stand-in for an agent, for the failures a real agent does not produce on demand: it
// listens on 127.0.0.1 port 0, accepts one connection at a time, decodes each request and sends
// whatever `answer` returns for it. No answer means the request hangs (kStaySilent) or the
// connection is closed under it (kClose). Header-only test support.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness/agent/server.hpp"
#include "harness/agentproto/codec.hpp"

namespace mrc::agent::testing {

class FakeAgent {
 public:
  enum class OnUnanswered { kStaySilent, kClose };
  using Answer = std::function<std::optional<agentproto::Message>(const agentproto::Message&)>;

  explicit FakeAgent(Answer answer, OnUnanswered unanswered = OnUnanswered::kStaySilent)
      : answer_(std::move(answer)), unanswered_(unanswered) {
    std::string err;
    listen_fd_ = open_listener("127.0.0.1:0", &err);
    port_ = local_port(listen_fd_);
    thread_ = std::thread([this] { loop(); });
  }
  ~FakeAgent() {
    stop_ = true;
    thread_.join();
    if (conn_ >= 0) close(conn_);
    close(listen_fd_);
  }
  FakeAgent(const FakeAgent&) = delete;
  FakeAgent& operator=(const FakeAgent&) = delete;

  std::uint16_t port() const { return port_; }

 private:
  // Every wait is a 20 ms poll, so the destructor's stop is seen promptly.
  void loop() {
    std::vector<std::uint8_t> in;
    while (!stop_) {
      pollfd p{conn_ >= 0 ? conn_ : listen_fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      if (conn_ < 0) {
        conn_ = accept(listen_fd_, nullptr, nullptr);
        in.clear();
        continue;
      }
      std::uint8_t buf[4096];
      const ssize_t n = recv(conn_, buf, sizeof buf, 0);
      if (n <= 0) {
        drop();
        continue;
      }
      in.insert(in.end(), buf, buf + n);
      for (;;) {
        const agentproto::FrameCheck fc = agentproto::check_frame(in);
        if (fc.status != agentproto::FrameCheck::Status::kFrame) break;
        agentproto::Message m;
        const bool good = agentproto::decode_message(std::span(in).first(fc.frame_bytes), m).ok();
        in.erase(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(fc.frame_bytes));
        const auto reply = good ? answer_(m) : std::nullopt;
        if (reply) {
          const auto bytes = agentproto::encode(*reply);
          if (::send(conn_, bytes.data(), bytes.size(), MSG_NOSIGNAL) < 0) drop();
        } else if (unanswered_ == OnUnanswered::kClose) {
          drop();
        }
        if (conn_ < 0) break;
      }
    }
  }
  void drop() {
    close(conn_);
    conn_ = -1;
  }

  Answer answer_;
  OnUnanswered unanswered_;
  int listen_fd_ = -1;
  int conn_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace mrc::agent::testing
