// Network namespaces with veth pairs, one pair per plane: the real-wire testbed in a box.
//
// A Netns is a fresh namespace (named `mrcc-<pid>-<counter>`) and N veth pairs; one end of each
// pair stays in the caller's namespace (the harness side), the other is moved into the namespace
// (the DUT/agent side). Every interface gets the MTU asked for, IPv6 switched off before it comes
// up (no DAD, no router solicitations, no MLD: the kernel puts no stray frames on the wire), and
// is brought up. Everything is done with `ip` (command.hpp: no shell, bounded waits) plus direct
// sysctl writes.
//
// Cleanup, three ways: the destructor removes what it created; install_signal_cleanup() makes
// SIGINT/SIGTERM remove live namespaces before the process dies; cleanup_stale() (run once per
// process before the first namespace is made, and callable by hand) removes `mrcc-*` namespaces
// and veths whose creating process is gone (the pid is in the name), e.g. after a SIGKILL. Only
// names with our prefix and a dead owner are touched.
#pragma once

#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mrc::harness::wire {

inline constexpr std::string_view kNamePrefix = "mrcc-";
inline constexpr std::uint32_t kMaxPlanes = 32;

struct VethPlane {
  int plane = 1;                       // 1-based
  std::string host_if;                 // in the caller's namespace
  std::string ns_if;                   // inside the namespace
  std::array<std::uint8_t, 6> host_mac{};
  std::array<std::uint8_t, 6> ns_mac{};
};

struct NetnsOptions {
  std::uint32_t planes = 2;  // 1..kMaxPlanes
  std::uint32_t mtu = 9000;  // every veth end
  std::chrono::milliseconds command_timeout{5000};  // each `ip` call
};

class Netns {
 public:
  // Null (and *error set) on failure; whatever was half built is removed again.
  static std::unique_ptr<Netns> create(const NetnsOptions& opt, std::string* error);
  ~Netns();
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;

  const std::string& name() const { return name_; }
  std::string path() const;  // /run/netns/<name>, for setns()
  const std::vector<VethPlane>& planes() const { return planes_; }

  // Removes the veths and the namespace. Idempotent; "" or what failed.
  std::string remove();

 private:
  Netns(std::string name, NetnsOptions opt) : name_(std::move(name)), opt_(opt) {}
  std::string build();

  std::string name_;
  NetnsOptions opt_;
  std::vector<VethPlane> planes_;
  bool created_ = false;
  int registry_slot_ = -1;
};

// Names. Namespaces: "mrcc-<pid>-<counter>" (decimal). Interfaces must fit IFNAMSIZ (15
// characters), so they use base 36: "mrcc-<pid36>-<counter36, 2 chars><h|n><plane36>".
std::string make_netns_name(pid_t pid, unsigned counter);
std::string make_veth_name(pid_t pid, unsigned counter, char side, int plane);
// The creating pid encoded in a name of either form; nullopt when it is not one of ours.
std::optional<pid_t> owner_pid(std::string_view name);

// Removes our namespaces and veths whose owner process no longer exists. Returns the names
// removed; problems (a removal that failed) are appended to *error when given.
std::vector<std::string> cleanup_stale(std::string* error = nullptr);

// "" when this process can create namespaces and veths, otherwise why not (not root, no
// CAP_NET_ADMIN / CAP_SYS_ADMIN, no `ip`).
std::string netns_unavailable_reason();

// SIGINT/SIGTERM remove the namespaces still alive in this process (unmount + unlink of
// /run/netns/<name>, as `ip netns del` does; the veths inside go with it), then the previous
// handler runs, or the signal's default action. Idempotent.
void install_signal_cleanup();

// Names of the namespaces (`ip netns list`) and root-namespace interfaces that carry our prefix.
std::vector<std::string> list_our_netns();
std::vector<std::string> list_our_links();

// IPv6 off (and DAD / router solicitations off, for kernels that ignore disable_ipv6 on some
// paths) for one interface in the calling thread's namespace, so the kernel puts no frame of its
// own on it. "" or what failed.
std::string silence_ipv6(const std::string& ifname);

// Reads an interface's MAC in the calling thread's namespace (SIOCGIFHWADDR).
std::optional<std::array<std::uint8_t, 6>> read_mac(const std::string& ifname);

}  // namespace mrc::harness::wire
