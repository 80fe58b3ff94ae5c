#include "harness/dut/agent_wire_text.hpp"

#include <charconv>
#include <cstdint>

namespace mrc::harness {
namespace {

constexpr std::string_view kSeparators = "%;,:=";
constexpr char kHex[] = "0123456789ABCDEF";

std::string escape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (kSeparators.find(c) == std::string_view::npos) {
      out += c;
    } else {
      const auto u = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    }
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_digit(s[i + 1]);
    const int lo = hex_digit(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

bool parse_u64(std::string_view s, std::uint64_t& v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc{} && end == s.data() + s.size();
}

}  // namespace

std::string encode_agent_wire(const AgentWire& w) {
  std::string ports;
  for (const WirePortBinding& p : w.ports) {
    ports += (ports.empty() ? "" : ",") + std::to_string(p.port) + ":" + escape(p.ifname);
  }
  return "netns=" + escape(w.netns) + ";ports=" + ports + ";budget_ns=" + std::to_string(w.bridge.budget.ns) +
         ";rate_bps=" + std::to_string(w.bridge.rate_bps) + ";rtt_ns=" + std::to_string(w.bridge.rtt_ns) +
         ";budget_source=" + escape(w.bridge.budget.source);
}

std::optional<AgentWire> decode_agent_wire(std::string_view text, std::string* error) {
  auto fail = [&](std::string m) -> std::optional<AgentWire> {
    if (error != nullptr) *error = "wire '" + std::string(text) + "': " + std::move(m);
    return std::nullopt;
  };
  AgentWire w;
  unsigned seen = 0;  // one bit per key, in kKeys order
  static constexpr std::string_view kKeys[] = {"netns", "ports", "budget_ns", "rate_bps", "rtt_ns", "budget_source"};
  while (!text.empty() || seen == 0) {
    const std::size_t semi = text.find(';');
    const std::string_view item = text.substr(0, semi);
    text = semi == std::string_view::npos ? std::string_view() : text.substr(semi + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) return fail("'" + std::string(item) + "' is not KEY=VALUE");
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    unsigned k = 0;
    while (k < std::size(kKeys) && kKeys[k] != key) ++k;
    if (k == std::size(kKeys)) return fail("unknown key '" + std::string(key) + "'");
    if (seen & (1u << k)) return fail(std::string(key) + " given twice");
    seen |= 1u << k;
    std::uint64_t n = 0;
    if (key == "netns" || key == "budget_source") {
      auto v = unescape(value);
      if (!v) return fail(std::string(key) + ": bad %-escape");
      (key == "netns" ? w.netns : w.bridge.budget.source) = std::move(*v);
    } else if (key == "ports") {
      std::string_view rest = value;
      while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view one = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        const std::size_t colon = one.find(':');
        std::uint64_t port = 0;
        auto name = colon == std::string_view::npos ? std::nullopt : unescape(one.substr(colon + 1));
        if (!name || name->empty() || !parse_u64(one.substr(0, colon), port) || port < 1 || port > 255) {
          return fail("ports: '" + std::string(one) + "' is not PORT:IFNAME");
        }
        w.ports.push_back(WirePortBinding{static_cast<std::uint8_t>(port), std::move(*name)});
      }
    } else if (!parse_u64(value, n)) {
      return fail(std::string(key) + ": '" + std::string(value) + "' is not a whole number");
    } else {
      (key == "budget_ns" ? w.bridge.budget.ns : key == "rate_bps" ? w.bridge.rate_bps : w.bridge.rtt_ns) = n;
    }
  }
  if (seen != (1u << std::size(kKeys)) - 1) {
    return fail("every key must be given: netns, ports, budget_ns, rate_bps, rtt_ns, budget_source");
  }
  return w;
}

}  // namespace mrc::harness
