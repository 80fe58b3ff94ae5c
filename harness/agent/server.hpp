// The agent's single-threaded event loop: one ppoll() over the listening socket, the control
// connections, the backend's frame descriptors (pcap) and a wake-up eventfd; between events the
// backend is serviced with CLOCK_MONOTONIC so the reference endpoint's timers run in real time.
//
// Every wait is bounded and named: `hello_timeout` (a connection must complete HELLO), and
// `idle_timeout` (a connection that sends no complete request for that long is closed). The poll
// timeout is the nearest of those deadlines and the backend's next timer, to the nanosecond,
// capped at 100 ms; a backend timer that stays due after its service turn is retried every 1 ms
// instead of spun on. With the thread's timer slack at 1 ns (tighten_timer_slack(), called at
// agent start) a DUT timer fires within microseconds of its deadline, not up to 1 ms late.
// A client that does not read its replies is cut off once `max_output_bytes` pile up. A client
// slot (`max_clients`) is held from an accepted HELLO until the session closes (BYE frees it before
// its reply); at most 16 connections may wait to send HELLO, each for `hello_timeout` at most. A session
// that ends is flushed, half-closed (FIN) and drained for up to `linger` before the socket is
// closed, so a client still sending never turns our last ERROR into a connection reset.
#pragma once

#include <poll.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/agent/backend.hpp"
#include "harness/agent/session.hpp"

namespace mrc::agent {

struct ServerConfig {
  std::string token;
  std::string agent_name = "mrc-dut-agent";
  int max_clients = 1;
  std::chrono::milliseconds hello_timeout{5000};
  std::chrono::milliseconds idle_timeout{300000};
  std::size_t max_output_bytes = 8u << 20;
  std::chrono::milliseconds linger{200};
  std::function<void(std::string_view)> log;  // one line per event; empty = silent
  // Set (lockstep, --clock virtual): every connection gets a backend of its own from this, so
  // connections never share a DUT; the server's backend then only names the agent. Null and
  // *error refuse the connection with ERROR backend_failure.
  std::function<std::unique_ptr<Backend>(std::string* error)> session_backend;
};

struct ServerStats {
  std::uint64_t accepted = 0;
  std::uint64_t refused = 0;      // over --max-clients
  std::uint64_t timed_out = 0;    // closed by hello_timeout / idle_timeout
  std::uint64_t closed = 0;       // every connection that ended
  std::uint64_t requests = 0;
  std::uint64_t errors_sent = 0;
};

// "127.0.0.1:7411", "0.0.0.0:0", "[::1]:7411": a listening TCP socket (SO_REUSEADDR,
// non-blocking). -1 and *error on failure.
int open_listener(const std::string& addr, std::string* error);
std::uint16_t local_port(int fd);

// Sets the calling thread's timer slack to 1 ns (prctl PR_SET_TIMERSLACK), so the loop's sleeps
// end when asked. Call it on the thread that runs the server. "" or why not.
std::string tighten_timer_slack();

class Server {
 public:
  // Takes ownership of `listen_fd` (from open_listener). The backend must outlive the server.
  Server(ServerConfig cfg, Backend& backend, int listen_fd);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Loops until stop(). Returns "" or why it could not go on (poll failed).
  std::string run();
  // One turn: wait at most `max_wait` for an event, handle what is ready, service the backend.
  std::string step(std::chrono::milliseconds max_wait);
  // Thread- and async-signal-safe: wakes the loop, which returns from run().
  void stop();

  std::uint16_t port() const { return local_port(listen_fd_); }
  std::size_t clients() const { return conns_.size(); }
  const ServerStats& stats() const { return stats_; }
  std::uint64_t now_ns() const;  // agent clock: CLOCK_MONOTONIC since construction

 private:
  struct Conn;
  void accept_all(std::uint64_t now);
  void read_conn(Conn& c, std::uint64_t now);
  void write_conn(Conn& c);
  void check_deadlines(Conn& c, std::uint64_t now);
  void close_conn(std::size_t i, std::string_view why);
  void logf(const std::string& line) const;

  ServerConfig cfg_;
  Backend& backend_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;
  std::uint64_t origin_ns_ = 0;
  std::atomic<bool> stopping_{false};
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<struct pollfd> pollfds_;
  std::vector<int> io_fds_;
  std::uint64_t last_service_ns_ = 0;   // the clock of the last service() call of a turn
  std::uint64_t last_timer_ = UINT64_MAX;  // the backend's next deadline right after it
  ServerStats stats_;
};

}  // namespace mrc::agent
