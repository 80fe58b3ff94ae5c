// Static forwarding tables and the per-hop decision (forwarding.hpp).
#include "harness/testbed/sim/forwarding.hpp"

#include <cstring>
#include <optional>

#include "harness/testbed/sim/address_plan.hpp"

namespace mrc::sim {
namespace {

constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t load_be64(const std::uint8_t* p, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

Route route(RouteAction a, std::uint32_t port = 0) { return Route{a, static_cast<std::uint16_t>(port)}; }

SwitchTable leaf_table(const Topology& t, const NodeInfo& n) {
  const TopologyConfig& c = t.config();
  SwitchTable tb;
  tb.leaf_usid.assign(t.leaves(), route(RouteAction::kNoRoute));
  tb.leaf_usid[n.index] = route(RouteAction::kLocal);
  tb.spine_usid.resize(c.spines);
  for (std::uint32_t s = 0; s < c.spines; ++s) {
    tb.spine_usid[s] = route(RouteAction::kForward, c.hosts_per_leaf + s);
    tb.ecmp_ports.push_back(static_cast<std::uint16_t>(c.hosts_per_leaf + s));
  }
  tb.decap_usid.assign(c.hosts, route(RouteAction::kNoRoute));
  tb.host_ip.assign(c.hosts, route(RouteAction::kEcmp));
  for (std::uint32_t h = 0; h < c.hosts; ++h) {
    if (t.leaf_of_host(h) != n.index) continue;
    const std::uint32_t port = h % c.hosts_per_leaf;
    tb.decap_usid[h] = route(c.sw.srv6_decap_at_leaf ? RouteAction::kDecap : RouteAction::kDeliver, port);
    tb.host_ip[h] = route(RouteAction::kForward, port);
  }
  return tb;
}

SwitchTable spine_table(const Topology& t, const NodeInfo& n) {
  const TopologyConfig& c = t.config();
  SwitchTable tb;
  tb.leaf_usid.resize(t.leaves());
  for (std::uint32_t l = 0; l < t.leaves(); ++l) tb.leaf_usid[l] = route(RouteAction::kForward, l);
  tb.spine_usid.assign(c.spines, route(RouteAction::kNoRoute));
  tb.spine_usid[n.index] = route(RouteAction::kLocal);
  tb.decap_usid.resize(c.hosts);
  tb.host_ip.resize(c.hosts);
  for (std::uint32_t h = 0; h < c.hosts; ++h) {
    tb.decap_usid[h] = route(RouteAction::kForward, t.leaf_of_host(h));
    tb.host_ip[h] = tb.decap_usid[h];
  }
  return tb;
}

Route usid_route(const SwitchTable& tb, std::uint16_t usid) {
  const addr::UsidRef r = addr::decode_usid(usid);
  switch (r.kind) {
    case addr::UsidKind::kLeaf: return r.index < tb.leaf_usid.size() ? tb.leaf_usid[r.index] : Route{};
    case addr::UsidKind::kSpine: return r.index < tb.spine_usid.size() ? tb.spine_usid[r.index] : Route{};
    case addr::UsidKind::kHostDecap: return r.index < tb.decap_usid.size() ? tb.decap_usid[r.index] : Route{};
    default: return Route{};
  }
}

wire::Ipv6Addr read_addr(const std::uint8_t* p) {
  wire::Ipv6Addr a;
  std::memcpy(a.data(), p, 16);
  return a;
}

// True when nothing follows the active uSID (End-of-Carrier after this hop): bytes 6..15 zero.
bool end_of_carrier(const std::uint8_t* da) {
  std::uint64_t a = 0;
  std::uint16_t b = 0;
  std::memcpy(&a, da + 6, 8);
  std::memcpy(&b, da + 14, 2);
  return a == 0 && b == 0;
}

// SRv6 processing on the outer DA (see forwarding.hpp).
ForwardResult forward_srv6(const SwitchContext& sw, std::uint8_t* buf, std::uint16_t& off,
                           std::uint16_t& len, const FrameLayout& l) {
  ForwardResult res;
  res.srv6 = true;
  std::uint8_t* f = buf + off;
  std::uint8_t* da = f + l.l3 + 24;
  for (int iter = 0; iter < 16; ++iter) {
    const std::uint32_t blk = static_cast<std::uint32_t>(load_be64(da, 4));
    const auto plane = addr::plane_of_block(blk, sw.planes);
    if (!plane || *plane != sw.node.plane) {
      res.drop = DropReason::kWrongPlane;
      return res;
    }
    const auto usid = static_cast<std::uint16_t>((da[4] << 8) | da[5]);
    const Route r = usid_route(*sw.table, usid);
    switch (r.action) {
      case RouteAction::kForward:
        res.port = r.port;
        return res;
      case RouteAction::kLocal: {
        if (!end_of_carrier(da)) {
          // uN (RFC 9800 NEXT-CSID, 32-bit block, 16-bit uSIDs): the argument moves up one uSID
          // and the freed tail is zero; the same as wire::usid_shift, on the bytes in place.
          std::memmove(da + 4, da + 6, 10);
          da[14] = 0;
          da[15] = 0;
          ++res.shifts;
          continue;
        }
        if (l.srh != 0 && l.srh + l.srh_len <= len) {
          std::uint8_t* srh = f + l.srh;
          const std::uint8_t sl = srh[3];
          const std::size_t segs = (l.srh_len - wire::kSrhFixedLen) / wire::kSrhSegmentLen;
          if (sl > 0 && sl - 1u < segs) {
            srh[3] = static_cast<std::uint8_t>(sl - 1);  // End: next segment into the DA
            std::memcpy(da, srh + wire::kSrhFixedLen + (sl - 1u) * wire::kSrhSegmentLen, 16);
            ++res.segments;
            continue;
          }
        }
        res.drop = DropReason::kEndsAtSwitch;
        return res;
      }
      case RouteAction::kDecap:
      case RouteAction::kDeliver: {
        // W1 the last hop decapsulates: the inner packet goes to the host (kDecap), or the
        // host decapsulates itself and gets the frame as it is (kDeliver, srv6_decap: host).
        const bool eoc = end_of_carrier(da);
        const bool segs_left = l.srh != 0 && l.srh + 4u <= len && f[l.srh + 3] != 0;
        if (!eoc || segs_left) {
          res.drop = DropReason::kDecapNotLast;
          return res;
        }
        if (l.inner == 0) {
          res.drop = DropReason::kMalformed;
          return res;
        }
        if (r.action == RouteAction::kDeliver) {
          res.port = r.port;
          return res;
        }
        const std::uint16_t l2 = l.l3;
        std::memmove(f + l.inner - l2, f, l2);
        const std::uint16_t cut = static_cast<std::uint16_t>(l.inner - l2);
        off = static_cast<std::uint16_t>(off + cut);
        len = static_cast<std::uint16_t>(len - cut);
        res.decapsulated = true;
        res.port = r.port;
        return res;
      }
      case RouteAction::kEcmp:  // never ECMP for SRv6
      case RouteAction::kNoRoute:
        res.drop = DropReason::kNoRoute;
        return res;
    }
  }
  res.drop = DropReason::kTooManyHops;
  return res;
}

ForwardResult forward_ip(const SwitchContext& sw, const std::uint8_t* f, const FrameLayout& l) {
  ForwardResult res;
  const std::uint8_t* ip = f + l.l3;
  std::optional<std::uint32_t> host;
  if (l.v6) {
    host = addr::host_of_gid(read_addr(ip + 24), sw.hosts);
  } else {
    const auto dst = static_cast<std::uint32_t>(load_be64(ip + 16, 4));
    host = addr::host_of_ipv4(dst, sw.hosts);
  }
  if (!host) {
    res.drop = DropReason::kNoRoute;
    return res;
  }
  const Route r = sw.table->host_ip[*host];
  if (r.action == RouteAction::kForward) {
    res.port = r.port;
    return res;
  }
  if (r.action != RouteAction::kEcmp || sw.table->ecmp_ports.empty()) {
    res.drop = DropReason::kNoRoute;
    return res;
  }
  const std::uint32_t fl = l.v6 ? ((std::uint32_t{ip[1]} & 0x0F) << 16) | (std::uint32_t{ip[2]} << 8) | ip[3] : 0;
  std::uint16_t sport = 0, dport = 0;
  if (l.l4 != 0) {
    sport = static_cast<std::uint16_t>((f[l.l4] << 8) | f[l.l4 + 1]);
    dport = static_cast<std::uint16_t>((f[l.l4 + 2] << 8) | f[l.l4 + 3]);
  }
  const std::uint64_t h = l.v6 ? ecmp_hash(fl, sport, dport, ip + 8, ip + 24, 16)
                               : ecmp_hash(0, sport, dport, ip + 12, ip + 16, 4);
  const auto& m = sw.table->ecmp_ports;
  res.port = m[ecmp_pick(h, static_cast<std::uint32_t>(m.size()))];
  return res;
}

}  // namespace

std::vector<SwitchTable> build_tables(const Topology& topo) {
  std::vector<SwitchTable> out;
  const std::uint32_t switches = topo.node_count() - topo.hosts();
  out.reserve(switches);
  for (std::uint32_t k = 0; k < switches; ++k) {
    const NodeInfo n = topo.node(topo.hosts() + k);
    out.push_back(n.kind == NodeKind::kLeaf ? leaf_table(topo, n) : spine_table(topo, n));
  }
  return out;
}

std::uint64_t ecmp_hash(std::uint32_t flow_label, std::uint16_t sport, std::uint16_t dport,
                        const std::uint8_t* src, const std::uint8_t* dst, unsigned addr_len) {
  std::uint64_t h = mix64(0x6D72632D65636D70ull ^ ((std::uint64_t{flow_label} << 32) |
                                                   (std::uint64_t{sport} << 16) | dport));
  if (addr_len == 16) {
    h = mix64(h ^ load_be64(src, 8));
    h = mix64(h ^ load_be64(src + 8, 8));
    h = mix64(h ^ load_be64(dst, 8));
    h = mix64(h ^ load_be64(dst + 8, 8));
  } else {
    h = mix64(h ^ ((load_be64(src, 4) << 32) | load_be64(dst, 4)));
  }
  return h;
}

const char* to_string(DropReason r) {
  switch (r) {
    case DropReason::kNone: return "none";
    case DropReason::kMalformed: return "malformed";
    case DropReason::kNoRoute: return "no_route";
    case DropReason::kHopLimit: return "hop_limit";
    case DropReason::kWrongPlane: return "wrong_plane";
    case DropReason::kEndsAtSwitch: return "ends_at_switch";
    case DropReason::kDecapNotLast: return "decap_not_last";
    case DropReason::kTooManyHops: return "too_many_usid_steps";
  }
  return "?";
}

ForwardResult forward(const SwitchContext& sw, std::uint8_t* buf, std::uint16_t& off, std::uint16_t& len) {
  FrameLayout l;
  ForwardResult res;
  if (!parse_layout(buf + off, len, l)) {
    res.drop = DropReason::kMalformed;
    return res;
  }
  // Hop limit first: one decrement per switch, on the header the switch forwards on.
  if (!decrement_hop_limit(buf + off, l)) {
    res.drop = DropReason::kHopLimit;
    return res;
  }
  const std::uint8_t* ip = buf + off + l.l3;
  const bool srv6 = l.v6 && ip[24] == 0xfc && ip[25] == 0x00;  // fc00::/16: the uSID blocks
  if (srv6) return forward_srv6(sw, buf, off, len, l);
  return forward_ip(sw, buf + off, l);
}

}  // namespace mrc::sim
