// EV -> path queries and EV builders (path_query.hpp).
#include "harness/testbed/sim/path_query.hpp"

#include <algorithm>
#include <array>

#include "harness/testbed/sim/address_plan.hpp"
#include "harness/testbed/sim/simulator.hpp"
#include "reference/wire/ev_placement.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::sim {

std::uint32_t EvSpec::echo() const { return wire::ev_echo_identity(mode, wire, index); }

bool PathTrace::crosses_link(LinkId l) const {
  return std::any_of(dirs.begin(), dirs.end(), [&](DirId d) { return Topology::link_of(d) == l; });
}

bool PathTrace::crosses_dir(DirId d) const { return std::find(dirs.begin(), dirs.end(), d) != dirs.end(); }

PathTrace trace_frame(const Simulator& sim, std::uint32_t src, std::uint8_t port, wire::Bytes frame) {
  const Topology& topo = sim.topology();
  PathTrace tr;
  std::array<std::uint8_t, wire::kMaxFrameLen> buf{};
  if (src >= topo.hosts() || port < 1 || port > topo.planes() || frame.size() > buf.size()) {
    tr.drop = DropReason::kMalformed;
    return tr;
  }
  std::copy(frame.begin(), frame.end(), buf.begin());
  std::uint16_t off = 0;
  auto len = static_cast<std::uint16_t>(frame.size());
  DirId dir = topo.host_tx_dir(src, port);
  // A packet visits at most leaf, spine, leaf; the bound only guards against a table loop.
  for (int hop = 0; hop < 16; ++hop) {
    tr.dirs.push_back(dir);
    const NodeId to = topo.dir_to(dir);
    if (to < topo.hosts()) {
      tr.delivered = true;
      tr.dst_host = to;
      tr.dst_port = static_cast<std::uint8_t>(topo.dir_to_port(dir));
      return tr;
    }
    const SwitchContext ctx{&sim.tables()[to - topo.hosts()], topo.node(to), topo.hosts(), topo.planes()};
    const ForwardResult r = forward(ctx, buf.data(), off, len);
    tr.decapsulated = tr.decapsulated || r.decapsulated;
    const DirId out = r.drop == DropReason::kNone ? topo.egress_dir(to, r.port) : kNone;
    if (out == kNone) {
      tr.drop = r.drop == DropReason::kNone ? DropReason::kNoRoute : r.drop;
      tr.drop_node = to;
      return tr;
    }
    dir = out;
  }
  tr.drop = DropReason::kTooManyHops;
  return tr;
}

std::size_t ev_frame(std::uint32_t src, std::uint32_t dst, const EvSpec& ev, bool ipv4, wire::MutBytes out,
                     std::uint32_t payload_bytes, std::uint8_t dscp) {
  static constexpr std::array<std::uint8_t, 4096> kPayload{};
  if (payload_bytes > kPayload.size()) return 0;
  wire::FrameSpec spec;
  spec.eth.src = addr::host_mac(src);
  spec.eth.dst = addr::host_mac(dst);
  if (ipv4 && ev.mode == wire::EvFmtMode::kUdp) {
    spec.l3 = wire::L3Kind::kIpv4;
    spec.eth.ethertype = wire::kEthTypeIpv4;
    spec.ip4.src = addr::host_ipv4(src);
    spec.ip4.dst = addr::host_ipv4(dst);
    spec.ip4.dscp = dscp;
    spec.ip4.ecn = wire::kEcnEct0;
  } else {
    spec.ip6.src = addr::host_gid(src);
    spec.ip6.dst = addr::host_gid(dst);
    spec.ip6.dscp = dscp;
    spec.ip6.ecn = wire::kEcnEct0;
  }
  std::array<std::uint8_t, 16> seg{};
  wire::place_ev(spec, ev.mode, ev.wire, ev.index, seg);  // W1, W2
  if (spec.srv6_encap) {
    spec.inner_ip6.dscp = dscp;
    spec.inner_ip6.ecn = wire::kEcnEct0;
  }
  spec.bth.opcode = wire::opcode::kMrcWriteOnly;
  spec.bth.dest_qp = 0x000100;
  spec.bth.ack_req = true;
  spec.has_meth = true;  // W4
  spec.has_reth = true;
  spec.reth.dma_length = payload_bytes;
  spec.payload = wire::Bytes(kPayload.data(), payload_bytes);
  const wire::EncodeResult r = wire::encode_frame(spec, out);
  return r.ok() ? r.length : 0;
}

PathTrace path_of(const Simulator& sim, std::uint32_t src, std::uint32_t dst, const EvSpec& ev, bool ipv4) {
  std::array<std::uint8_t, wire::kMaxFrameLen> buf{};
  // W13 the trace follows data as the endpoints send it: in the fabric's configured DSCP_TRIMMABLE.
  const std::size_t n = ev_frame(src, dst, ev, ipv4, buf, 16, sim.topology().config().sw.dscp.trimmable);
  if (n == 0) {
    PathTrace tr;
    tr.drop = DropReason::kMalformed;
    return tr;
  }
  return trace_frame(sim, src, ev.port, wire::Bytes(buf.data(), n));
}

std::vector<std::size_t> evs_crossing(const Simulator& sim, std::uint32_t src, std::uint32_t dst,
                                      std::span<const EvSpec> evs, LinkId l, bool ipv4) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < evs.size(); ++i) {
    if (path_of(sim, src, dst, evs[i], ipv4).crosses_link(l)) out.push_back(i);
  }
  return out;
}

std::vector<std::uint32_t> affected_evs(const Simulator& sim, std::uint32_t src, std::uint32_t dst,
                                        std::span<const EvSpec> evs, LinkId l, bool ipv4) {
  std::vector<std::uint32_t> out;
  for (const std::size_t i : evs_crossing(sim, src, dst, evs, l, ipv4)) out.push_back(evs[i].echo());
  return out;
}

std::vector<EvSpec> srv6_evs(const Topology& topo, std::uint32_t src, std::uint32_t dst, bool with_srh) {
  std::vector<EvSpec> out;
  if (src >= topo.hosts() || dst >= topo.hosts()) return out;
  const std::uint16_t leaf = addr::leaf_usid(topo.leaf_of_host(dst));
  const std::uint16_t decap = addr::host_decap_usid(dst);
  for (std::uint32_t s = 0; s < topo.spines(); ++s) {
    for (std::uint32_t p = 1; p <= topo.planes(); ++p) {
      EvSpec e;
      e.mode = wire::EvFmtMode::kSrv6;
      e.port = static_cast<std::uint8_t>(p);
      e.spine = s;
      e.index = static_cast<std::uint8_t>(out.size());
      const std::uint16_t spine = addr::spine_usid(s);
      if (with_srh) {
        const std::array<std::uint16_t, 1> first{spine};
        const std::array<std::uint16_t, 2> second{leaf, decap};
        const wire::Ipv6Addr a = addr::container(p, first);
        const wire::Ipv6Addr b = addr::container(p, second);
        std::copy(a.begin(), a.end(), e.wire.begin());
        std::copy(b.begin(), b.end(), e.wire.begin() + 16);
      } else {
        const std::array<std::uint16_t, 3> all{spine, leaf, decap};
        const wire::Ipv6Addr a = addr::container(p, all);
        std::copy(a.begin(), a.end(), e.wire.begin());
      }
      out.push_back(e);
    }
  }
  return out;
}

namespace {

// Searches candidate EVs (candidate(k) for k = 0, 1, ...) and keeps count of them spread over
// every (plane, spine) pair their paths reach, plane-major within each round.
template <typename Candidate>
std::vector<EvSpec> covering(const Simulator& sim, std::uint32_t src, std::uint32_t dst, std::uint32_t count,
                             bool ipv4, std::uint64_t max_candidates, Candidate candidate) {
  const Topology& topo = sim.topology();
  std::vector<EvSpec> out;
  if (src >= topo.hosts() || dst >= topo.hosts() || count == 0) return out;
  const std::uint32_t planes = topo.planes();
  const std::uint32_t slots = topo.spines() + 1;  // last slot: paths that cross no spine
  const std::uint32_t pairs = planes * topo.spines();
  const std::uint32_t need = (count + pairs - 1) / pairs;
  std::vector<std::vector<EvSpec>> buckets(std::size_t{planes} * slots);
  std::uint32_t full = 0;  // spine buckets holding `need`
  std::uint64_t spineless = 0;
  const std::uint64_t limit = std::min<std::uint64_t>(max_candidates, 64ull * pairs * need + 4096);
  for (std::uint64_t k = 0; k < limit && full < pairs; ++k) {
    EvSpec e = candidate(k);
    const PathTrace tr = path_of(sim, src, dst, e, ipv4);
    if (!tr.delivered || tr.dst_host != dst) continue;
    e.spine = kNone;
    for (const DirId d : tr.dirs) {
      const LinkInfo li = topo.link(Topology::link_of(d));
      if (!li.host_link) e.spine = topo.node(li.upper).index;
    }
    const std::uint32_t slot = e.spine == kNone ? topo.spines() : e.spine;
    auto& b = buckets[std::size_t{e.port - 1u} * slots + slot];
    if (slot == topo.spines()) {
      if (b.size() < (count + planes - 1) / planes) b.push_back(e);
      if (++spineless >= 64ull * count + 1024) break;  // src and dst share a leaf
      continue;
    }
    if (b.size() < need) {
      b.push_back(e);
      if (b.size() == need) ++full;
    }
  }
  for (std::uint32_t round = 0; out.size() < count; ++round) {
    const std::size_t before = out.size();
    for (std::uint32_t s = 0; s < slots && out.size() < count; ++s) {
      for (std::uint32_t p = 0; p < planes && out.size() < count; ++p) {
        const auto& b = buckets[std::size_t{p} * slots + s];
        if (round < b.size()) out.push_back(b[round]);
      }
    }
    if (out.size() == before) break;
  }
  // Fewer distinct EVs than asked: repeat them (duplicate EVs are allowed in an EV array).
  for (std::size_t i = 0; !out.empty() && out.size() < count; ++i) out.push_back(out[i]);
  for (std::size_t i = 0; i < out.size(); ++i) out[i].index = static_cast<std::uint8_t>(i);
  return out;
}

}  // namespace

std::vector<EvSpec> stev_evs_covering_all_spines(const Simulator& sim, std::uint32_t src, std::uint32_t dst,
                                                 std::uint32_t count) {
  const std::uint32_t planes = sim.topology().planes();
  // Candidate k has its own value (distinct for k < 65536), so echo identities never collide.
  return covering(sim, src, dst, count, false, 65536, [planes](std::uint64_t k) {
    const auto j = static_cast<std::uint32_t>(k);
    // W2 V = flow label (bits 31..16) | UDP sport (bits 15..0); sports stay in 0xC000..
    const std::uint32_t v = (((j + 1) & 0xFFFFu) << 16) | (0xC000u | (j & 0x3FFFu));
    EvSpec e;
    e.mode = wire::EvFmtMode::kStev;
    e.port = static_cast<std::uint8_t>(1 + k % planes);
    e.wire[0] = static_cast<std::uint8_t>(v >> 24);
    e.wire[1] = static_cast<std::uint8_t>(v >> 16);
    e.wire[2] = static_cast<std::uint8_t>(v >> 8);
    e.wire[3] = static_cast<std::uint8_t>(v);
    return e;
  });
}

std::vector<EvSpec> udp_evs_covering_all_spines(const Simulator& sim, std::uint32_t src, std::uint32_t dst,
                                                std::uint32_t count, bool ipv4) {
  const std::uint32_t planes = sim.topology().planes();
  return covering(sim, src, dst, count, ipv4, 16384, [planes](std::uint64_t k) {
    const auto j = static_cast<std::uint32_t>(k);
    const std::uint16_t sport = static_cast<std::uint16_t>(0xC000u | (j & 0x3FFFu));  // W2
    EvSpec e;
    e.mode = wire::EvFmtMode::kUdp;
    e.port = static_cast<std::uint8_t>(1 + k % planes);
    e.wire[0] = static_cast<std::uint8_t>(sport >> 8);
    e.wire[1] = static_cast<std::uint8_t>(sport);
    return e;
  });
}

}  // namespace mrc::sim
