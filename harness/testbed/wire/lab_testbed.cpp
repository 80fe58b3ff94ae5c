#include "harness/testbed/wire/lab_testbed.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <net/if.h>

namespace mrc::harness::wire {
namespace {

constexpr std::uint64_t kMaxBudgetUs = 1'000'000;  // a budget of a second would judge nothing
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

std::string where(const std::filesystem::path& f, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return f.string() + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}


// `KEY: {p1: IFNAME, ...}` into `into`; false with *error "FILE:LINE:COL: KEY.pN: what" ("" when the
// node itself is not a non-empty map).
bool parse_ports(const std::filesystem::path& path, const YAML::Node& v, const std::string& key,
                 std::vector<WirePortBinding>& into, std::string* error) {
  if (!v.IsMap() || v.size() == 0) return false;
  for (const auto& p : v) {
    const std::string name = p.first.as<std::string>();
    const std::string pat = where(path, p.first) + key + "." + name + ": ";
    unsigned n = 0;
    const auto [end, err] = std::from_chars(name.data() + (name.empty() ? 0 : 1), name.data() + name.size(), n);
    if (name.size() < 2 || name[0] != 'p' || err != std::errc{} || end != name.data() + name.size() || n < 1 || n > 32) {
      *error = pat + "a port is p1 .. p32";
      return false;
    }
    if (!p.second.IsScalar() || p.second.Scalar().empty() || p.second.Scalar().size() >= IFNAMSIZ) {
      *error = pat + "expected an interface name (at most " + std::to_string(IFNAMSIZ - 1) + " characters)";
      return false;
    }
    if (std::any_of(into.begin(), into.end(), [n](const WirePortBinding& b) { return b.port == n; })) {
      *error = pat + "port given twice";
      return false;
    }
    into.push_back(WirePortBinding{static_cast<std::uint8_t>(n), p.second.Scalar()});
  }
  return true;
}

}  // namespace

bool looks_like_lab_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) > kMaxFileBytes) return false;
  try {
    const YAML::Node root = YAML::LoadFile(path.string());
    return root.IsMap() && root["lab"];
  } catch (const YAML::Exception&) {
    return false;
  }
}

std::optional<LabTestbed> load_lab_testbed(const std::filesystem::path& path, std::string* error) {
  auto fail = [&](std::string m) -> std::optional<LabTestbed> {
    if (error != nullptr) *error = std::move(m);
    return std::nullopt;
  };
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return fail(path.string() + ": no such lab testbed file");
  if (std::filesystem::file_size(path, ec) > kMaxFileBytes) return fail(path.string() + ": larger than 1 MiB");
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.string());
  } catch (const YAML::Exception& e) {
    return fail(path.string() + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                ": " + e.msg);
  }
  const YAML::Node lab = root.IsMap() ? root["lab"] : YAML::Node();
  if (!lab || !lab.IsMap()) return fail(path.string() + ":1:1: lab: expected a map with fabric, ports");
  LabTestbed out;
  for (const auto& kv : lab) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    const std::string at = where(path, kv.first) + "lab." + key + ": ";
    if (key == "fabric") {
      if (!v.IsScalar() || v.Scalar().empty()) return fail(at + "expected a preset name or a fabric YAML file");
      out.fabric = v.Scalar();
      if (out.fabric.find('/') != std::string::npos || out.fabric.ends_with(".yaml")) {
        const std::filesystem::path f(out.fabric);
        if (f.is_relative()) out.fabric = (path.parent_path() / f).string();
      }
    } else if (key == "timing_budget_us") {
      std::uint64_t us = 0;
      const std::string s = v.IsScalar() ? v.Scalar() : std::string();
      const auto [end, err] = std::from_chars(s.data(), s.data() + s.size(), us);
      if (s.empty() || err != std::errc{} || end != s.data() + s.size() || us > kMaxBudgetUs) {
        return fail(at + "expected microseconds, 0 .. " + std::to_string(kMaxBudgetUs));
      }
      out.budget_ns = us * 1000;
    } else if (key == "rate_gbps") {
      double g = 0;
      const std::string s = v.IsScalar() ? v.Scalar() : std::string();
      char* end = nullptr;
      g = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0' || !(g >= 0.001 && g <= 1600)) return fail(at + "expected Gb/s, 0.001 .. 1600");
      out.rate_gbps = g;
    } else if (key == "fabric_priority") {
      int p = -1;
      const std::string s = v.IsScalar() ? v.Scalar() : std::string();
      const auto [end, err] = std::from_chars(s.data(), s.data() + s.size(), p);
      if (s.empty() || err != std::errc{} || end != s.data() + s.size() || p < 0 || p > 99) {
        return fail(at + "expected a SCHED_FIFO priority, 0 .. 99 (0: default scheduling)");
      }
      out.fabric_priority = p;
    } else if (key == "fabric_spin_us") {
      std::uint64_t us = 0;
      const std::string s = v.IsScalar() ? v.Scalar() : std::string();
      const auto [end, err] = std::from_chars(s.data(), s.data() + s.size(), us);
      if (s.empty() || err != std::errc{} || end != s.data() + s.size() || us > 1000) {
        return fail(at + "expected microseconds, 0 .. 1000");
      }
      out.fabric_spin_ns = us * 1000;
    } else if (key == "ports" || key == "peer_ports") {
      std::string why;
      if (!parse_ports(path, v, "lab." + key, key == "ports" ? out.ports : out.peer_ports, &why)) {
        return fail(why.empty() ? at + "expected a map p1: IFNAME, p2: IFNAME, ..." : why);
      }
    } else {
      return fail(at + "unknown key (known: fabric, timing_budget_us, rate_gbps, fabric_priority, fabric_spin_us, ports, peer_ports)");
    }
  }
  if (out.ports.empty()) return fail(path.string() + ":1:1: lab.ports: missing (the interface of each DUT port)");
  for (auto* ports : {&out.ports, &out.peer_ports}) {
    std::sort(ports->begin(), ports->end(), [](const auto& a, const auto& b) { return a.port < b.port; });
  }
  return out;
}

}  // namespace mrc::harness::wire
