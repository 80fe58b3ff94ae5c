// Test support for the agent: an in-memory wire joining two FrameIo ends port to port (so two
// reference backends talk without interfaces or privileges), a blocking protocol client for TCP
// tests, and small builders. Header-only (the test glob takes *_test.cpp only).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/agent/backend.hpp"
#include "harness/agent/frame_io.hpp"
#include "harness/agentproto/codec.hpp"

namespace mrc::agent::testing {

namespace ap = mrc::agentproto;

// Two ends; what one end sends on port N arrives at the other end's port N.
struct MemoryWire {
  std::deque<std::pair<std::uint8_t, std::vector<std::uint8_t>>> to[2];
  std::uint64_t frames = 0;
};

class MemoryFrameIo final : public FrameIo {
 public:
  MemoryFrameIo(MemoryWire& w, int side, std::vector<std::uint8_t> ports) : w_(w), side_(side), ports_(std::move(ports)) {}
  std::vector<ap::PortInfo> ports() const override {
    std::vector<ap::PortInfo> out;
    for (std::uint8_t p : ports_) {
      out.push_back({p, "mem" + std::to_string(side_) + "." + std::to_string(p),
                     {2, 0, 0, 0, static_cast<std::uint8_t>(side_), p}, true});
    }
    return out;
  }
  std::string send(std::uint8_t port, std::span<const std::uint8_t> frame) override {
    w_.to[1 - side_].emplace_back(port, std::vector<std::uint8_t>(frame.begin(), frame.end()));
    ++w_.frames;
    return {};
  }
  int receive(Sink sink, void* ctx, int max_per_port) override {
    int n = 0;
    auto& q = w_.to[side_];
    while (!q.empty() && n < max_per_port * static_cast<int>(ports_.size())) {
      auto f = std::move(q.front());
      q.pop_front();
      sink(ctx, f.first, f.second);
      ++n;
    }
    return n;
  }
  std::vector<int> fds() const override { return {}; }
  std::string error() const override { return {}; }

 private:
  MemoryWire& w_;
  int side_;
  std::vector<std::uint8_t> ports_;
};

// ---- a blocking client over a connected TCP socket ----------------------------------------------

inline int connect_loopback(std::uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

class Client {
 public:
  explicit Client(int fd) : fd_(fd) {}
  ~Client() {
    if (fd_ >= 0) close(fd_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  bool ok() const { return fd_ >= 0; }

  bool send_bytes(const std::vector<std::uint8_t>& b) {
    std::size_t off = 0;
    while (off < b.size()) {
      const ssize_t n = ::send(fd_, b.data() + off, b.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }
  bool send(const ap::Message& m) { return send_bytes(ap::encode(m)); }
  void half_close() { shutdown(fd_, SHUT_WR); }

  // The next frame within `timeout`; nullopt on timeout, EOF or a frame that does not decode
  // (`closed` tells EOF apart).
  std::optional<ap::Message> read(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const ap::FrameCheck fc = ap::check_frame(buf_);
      if (fc.status == ap::FrameCheck::Status::kFrame) {
        ap::Message m;
        const bool good = ap::decode_message(std::span(buf_).first(fc.frame_bytes), m).ok();
        buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(fc.frame_bytes));
        if (!good) return std::nullopt;
        return m;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || closed) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      std::uint8_t tmp[65536];
      const ssize_t n = recv(fd_, tmp, sizeof tmp, 0);
      if (n <= 0) {
        closed = true;
        continue;
      }
      buf_.insert(buf_.end(), tmp, tmp + n);
    }
  }
  // True when the peer closes (EOF or reset) within `timeout` without sending another frame.
  bool closes_within(std::chrono::milliseconds timeout) {
    const auto m = read(timeout);
    return !m && closed;
  }
  // Sends `m` and returns the reply.
  std::optional<ap::Message> call(const ap::Message& m) {
    if (!send(m)) return std::nullopt;
    return read();
  }

  bool closed = false;

 private:
  int fd_;
  std::vector<std::uint8_t> buf_;
};

}  // namespace mrc::agent::testing
