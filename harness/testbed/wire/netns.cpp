#include "harness/testbed/wire/netns.hpp"

#include <dirent.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include "harness/testbed/wire/command.hpp"
#include "harness/testbed/wire/netns_exec.hpp"

namespace mrc::harness::wire {
namespace {

constexpr const char* kNetnsDir = "/run/netns";
constexpr std::chrono::milliseconds kVanishWait{3000};  // kernel tears veths down asynchronously

// ---- the signal-time registry -------------------------------------------------------------------
// Fixed storage, no allocation: the handler may only touch memory that is always valid.
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 live
  pid_t owner = 0;            // a forked child inherits the table but must not remove our namespaces
  char path[128] = {};
};
constexpr int kSlots = 64;
Slot g_slots[kSlots];
struct sigaction g_old_int {};
struct sigaction g_old_term {};
std::once_flag g_signal_once;

int register_netns(const std::string& path) {
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
      std::snprintf(g_slots[i].path, sizeof g_slots[i].path, "%s", path.c_str());
      g_slots[i].owner = getpid();
      g_slots[i].state.store(2);
      return i;
    }
  }
  return -1;  // full: the namespace still gets its destructor and stale cleanup
}

void unregister_netns(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].state.store(0);
}

void on_fatal_signal(int sig, siginfo_t* info, void* ctx) {
  // Only async-signal-safe calls: umount2 + unlink is what `ip netns del` does.
  const pid_t self = getpid();
  for (Slot& s : g_slots) {
    int expected = 2;
    if (s.owner == self && s.state.compare_exchange_strong(expected, 0)) {
      umount2(s.path, MNT_DETACH);
      unlink(s.path);
    }
  }
  const struct sigaction& old = sig == SIGINT ? g_old_int : g_old_term;
  if ((old.sa_flags & SA_SIGINFO) != 0 && old.sa_sigaction != nullptr) {
    old.sa_sigaction(sig, info, ctx);
  } else if (old.sa_handler == SIG_IGN) {
    return;
  } else if (old.sa_handler != SIG_DFL && old.sa_handler != nullptr) {
    old.sa_handler(sig);
  } else {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    raise(sig);  // delivered when this handler returns: the default action ends the process
  }
}

// ---- helpers ------------------------------------------------------------------------------------

std::string to_base36(std::uint64_t v, std::size_t min_width) {
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v % 36]);
    v /= 36;
  } while (v != 0);
  while (s.size() < min_width) s.insert(s.begin(), '0');
  return s;
}

std::optional<std::uint64_t> parse_base(std::string_view s, unsigned base) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    unsigned d = 0;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'z') d = static_cast<unsigned>(c - 'a') + 10;
    else return std::nullopt;
    if (d >= base) return std::nullopt;
    v = v * base + d;
  }
  return v;
}

bool process_alive(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

bool link_exists(const std::string& ifname) {
  return access(("/sys/class/net/" + ifname).c_str(), F_OK) == 0;
}

std::vector<std::string> list_dir_with_prefix(const char* dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir);
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    std::string_view n(e->d_name);
    if (n.substr(0, kNamePrefix.size()) == kNamePrefix) out.emplace_back(n);
  }
  closedir(d);
  return out;
}

std::string write_file(const std::string& path, const std::string& value) {
  std::ofstream f(path);
  if (!f) return "cannot open " + path + ": " + std::strerror(errno);
  f << value;
  f.flush();
  if (!f) return "cannot write " + path;
  return {};
}

// Runs `fn` on a helper thread that entered namespace `ns` (the caller's thread stays put).
template <typename F>
std::string in_netns(const std::string& ns, F&& fn) {
  std::string result;
  std::thread t([&] {
    result = enter_netns(ns);
    if (result.empty()) result = fn();
  });
  t.join();
  return result;
}

std::atomic<unsigned> g_counter{0};
std::once_flag g_stale_once;

}  // namespace

std::string silence_ipv6(const std::string& ifname) {
  if (access("/proc/sys/net/ipv6", F_OK) != 0) return {};  // no IPv6 in this kernel: nothing to silence
  const std::string base = "/proc/sys/net/ipv6/conf/" + ifname + "/";
  for (const auto& [key, value] : {std::pair{"accept_dad", "0"}, std::pair{"router_solicitations", "0"},
                                   std::pair{"disable_ipv6", "1"}}) {
    if (std::string e = write_file(base + key, value); !e.empty()) return e;
  }
  return {};
}

// ---- names ----------------------------------------------------------------------------------------

std::string make_netns_name(pid_t pid, unsigned counter) {
  return std::string(kNamePrefix) + std::to_string(pid) + "-" + std::to_string(counter);
}

std::string make_veth_name(pid_t pid, unsigned counter, char side, int plane) {
  return std::string(kNamePrefix) + to_base36(static_cast<std::uint64_t>(pid), 1) + "-" +
         to_base36(counter % (36 * 36), 2) + side + to_base36(static_cast<std::uint64_t>(plane) % 36, 1);
}

std::optional<pid_t> owner_pid(std::string_view name) {
  if (name.substr(0, kNamePrefix.size()) != kNamePrefix) return std::nullopt;
  name.remove_prefix(kNamePrefix.size());
  const std::size_t dash = name.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const std::string_view head = name.substr(0, dash);
  const std::string_view tail = name.substr(dash + 1);
  std::optional<std::uint64_t> pid;
  if (tail.size() == 4 && (tail[2] == 'h' || tail[2] == 'n') && parse_base(tail.substr(0, 2), 36) &&
      parse_base(tail.substr(3), 36)) {
    pid = parse_base(head, 36);  // veth form
  } else if (parse_base(tail, 10)) {
    pid = parse_base(head, 10);  // namespace form
  }
  if (!pid || *pid == 0 || *pid > 0x7FFFFFFF) return std::nullopt;
  return static_cast<pid_t>(*pid);
}

// ---- queries ----------------------------------------------------------------------------------------

std::vector<std::string> list_our_netns() { return list_dir_with_prefix(kNetnsDir); }
std::vector<std::string> list_our_links() { return list_dir_with_prefix("/sys/class/net"); }

std::optional<std::array<std::uint8_t, 6>> read_mac(const std::string& ifname) {
  // SIOCGIFHWADDR on a socket this thread creates answers for the thread's namespace; /sys would
  // show the namespace /sys was mounted in, whatever the thread entered.
  if (ifname.size() >= IFNAMSIZ) return std::nullopt;
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  ifreq req{};
  std::memcpy(req.ifr_name, ifname.c_str(), ifname.size());
  const int rc = ioctl(fd, SIOCGIFHWADDR, &req);
  close(fd);
  if (rc != 0) return std::nullopt;
  std::array<std::uint8_t, 6> mac{};
  std::memcpy(mac.data(), req.ifr_hwaddr.sa_data, mac.size());
  return mac;
}

std::string netns_unavailable_reason() {
  if (access(ip_binary().c_str(), X_OK) != 0 && ip_binary() != "ip") return "iproute2 `ip` not found";
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    const auto caps = parse_base(std::string_view(line).substr(line.find_first_not_of(" \t", 7)), 16);
    if (!caps) break;
    const bool net_admin = (*caps >> 12) & 1;
    const bool sys_admin = (*caps >> 21) & 1;
    if (!net_admin) return "CAP_NET_ADMIN missing (run as root or grant the capability)";
    if (!sys_admin) return "CAP_SYS_ADMIN missing (needed for network namespaces)";
    return {};
  }
  return geteuid() == 0 ? std::string{} : "not root and capabilities unreadable";
}

void install_signal_cleanup() {
  std::call_once(g_signal_once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
  });
}

std::vector<std::string> cleanup_stale(std::string* error) {
  std::vector<std::string> removed;
  auto note = [&](const std::string& e) {
    if (error == nullptr) return;
    if (!error->empty()) *error += "; ";
    *error += e;
  };
  for (const std::string& ns : list_our_netns()) {
    const auto pid = owner_pid(ns);
    if (!pid || process_alive(*pid)) continue;
    const std::vector<std::string> argv{ip_binary(), "netns", "del", ns};
    const CommandResult r = run_command(argv);
    if (r.ok()) removed.push_back(ns);
    else note(r.describe(argv));
  }
  const auto deadline = std::chrono::steady_clock::now() + kVanishWait;
  for (const std::string& link : list_our_links()) {
    const auto pid = owner_pid(link);
    if (!pid || process_alive(*pid)) continue;
    // Its namespace may just have been deleted: give the kernel a moment to take the pair down.
    while (link_exists(link) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!link_exists(link)) {
      removed.push_back(link);
      continue;
    }
    const std::vector<std::string> argv{ip_binary(), "link", "del", link};
    const CommandResult r = run_command(argv);
    if (r.ok() || !link_exists(link)) removed.push_back(link);
    else note(r.describe(argv));
  }
  return removed;
}

// ---- Netns ----------------------------------------------------------------------------------------

std::string Netns::path() const { return std::string(kNetnsDir) + "/" + name_; }

std::unique_ptr<Netns> Netns::create(const NetnsOptions& opt, std::string* error) {
  auto fail = [&](std::string e) -> std::unique_ptr<Netns> {
    if (error != nullptr) *error = std::move(e);
    return nullptr;
  };
  if (opt.planes < 1 || opt.planes > kMaxPlanes) {
    return fail("planes must be 1.." + std::to_string(kMaxPlanes));
  }
  if (opt.mtu < 68 || opt.mtu > 65535) return fail("mtu must be 68..65535");
  if (std::string why = netns_unavailable_reason(); !why.empty()) return fail(why);
  std::call_once(g_stale_once, [] { cleanup_stale(nullptr); });
  install_signal_cleanup();
  const unsigned counter = g_counter.fetch_add(1) % (36 * 36);
  std::unique_ptr<Netns> ns(new Netns(make_netns_name(getpid(), counter), opt));
  for (std::uint32_t p = 1; p <= opt.planes; ++p) {
    VethPlane v;
    v.plane = static_cast<int>(p);
    v.host_if = make_veth_name(getpid(), counter, 'h', v.plane);
    v.ns_if = make_veth_name(getpid(), counter, 'n', v.plane);
    ns->planes_.push_back(std::move(v));
  }
  if (std::string e = ns->build(); !e.empty()) {
    ns->remove();
    return fail(e);
  }
  return ns;
}

std::string Netns::build() {
  const auto t = opt_.command_timeout;
  auto ip = [&](std::vector<std::string> args) -> std::string {
    args.insert(args.begin(), ip_binary());
    const CommandResult r = run_command(args, t);
    return r.ok() ? std::string{} : r.describe(args);
  };
  if (std::string e = ip({"netns", "add", name_}); !e.empty()) return e;
  created_ = true;
  registry_slot_ = register_netns(path());
  const std::string mtu = std::to_string(opt_.mtu);
  // New interfaces in the namespace inherit `default`: IPv6 off before any of them exists.
  if (std::string e = in_netns(name_, [] {
        std::string r = silence_ipv6("default");
        if (r.empty()) r = silence_ipv6("all");
        return r;
      });
      !e.empty()) {
    return "namespace sysctl: " + e;
  }
  if (std::string e = ip({"-n", name_, "link", "set", "lo", "up"}); !e.empty()) return e;
  for (VethPlane& v : planes_) {
    // The peer is created straight inside the namespace: it never exists in ours.
    if (std::string e = ip({"link", "add", v.host_if, "mtu", mtu, "type", "veth", "peer", "name", v.ns_if,
                            "mtu", mtu, "netns", name_});
        !e.empty()) {
      return e;
    }
    if (std::string e = silence_ipv6(v.host_if); !e.empty()) return "sysctl " + v.host_if + ": " + e;
    if (std::string e = in_netns(name_, [&] { return silence_ipv6(v.ns_if); }); !e.empty()) {
      return "sysctl " + v.ns_if + ": " + e;
    }
    if (std::string e = ip({"link", "set", v.host_if, "up"}); !e.empty()) return e;
    if (std::string e = ip({"-n", name_, "link", "set", v.ns_if, "up"}); !e.empty()) return e;
    const auto host_mac = read_mac(v.host_if);
    std::optional<std::array<std::uint8_t, 6>> ns_mac;
    in_netns(name_, [&] {
      ns_mac = read_mac(v.ns_if);
      return std::string{};
    });
    if (!host_mac || !ns_mac) return "cannot read the MACs of " + v.host_if + " / " + v.ns_if;
    v.host_mac = *host_mac;
    v.ns_mac = *ns_mac;
  }
  return {};
}

std::string Netns::remove() {
  std::string problems;
  if (created_) {
    const std::vector<std::string> argv{ip_binary(), "netns", "del", name_};
    const CommandResult r = run_command(argv, opt_.command_timeout);
    // Already gone (e.g. removed by the signal handler) counts as removed.
    if (!r.ok() && access(path().c_str(), F_OK) == 0) problems = r.describe(argv);
    created_ = false;
    unregister_netns(registry_slot_);
    registry_slot_ = -1;
  }
  // Deleting the namespace destroys the inner ends and with them the pairs, asynchronously.
  const auto deadline = std::chrono::steady_clock::now() + kVanishWait;
  for (const VethPlane& v : planes_) {
    while (link_exists(v.host_if) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!link_exists(v.host_if)) continue;
    const std::vector<std::string> argv{ip_binary(), "link", "del", v.host_if};
    const CommandResult r = run_command(argv, opt_.command_timeout);
    if (!r.ok() && link_exists(v.host_if)) {
      if (!problems.empty()) problems += "; ";
      problems += r.describe(argv);
    }
  }
  return problems;
}

Netns::~Netns() { remove(); }

}  // namespace mrc::harness::wire
