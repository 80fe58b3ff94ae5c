#include "tests/cross/frame_finish.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace mrc::cross {

using namespace mrc::wire;
using nlohmann::json;

namespace {

std::uint16_t be16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] << 8 | p[1]); }
void put16(std::uint8_t* p, std::size_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}

// Where the headers a trimming switch rewrites sit in an encoded frame. Read back from the bytes
// (not the FrameSpec) because the encoder derives the next-header chain and the SRH length.
struct Layout {
  std::size_t ip = 0;
  bool v4 = false;
  std::size_t inner = 0;  // inner IPv6 under SRv6 (W1), 0 when none
  std::size_t udp = 0;
};

Layout locate(const std::vector<std::uint8_t>& f) {
  Layout l;
  l.ip = be16(&f[12]) == kEthTypeVlan ? kEthLen + kVlanTagLen : kEthLen;
  l.v4 = (f[l.ip] >> 4) == 4;
  if (l.v4) {
    l.udp = l.ip + 4u * (f[l.ip] & 0x0F);
    return l;
  }
  std::uint8_t nh = f[l.ip + 6];
  std::size_t off = l.ip + kIpv6Len;
  if (nh == kIpProtoRouting) {
    nh = f[off];
    off += 8u * (f[off + 1] + 1u);
  }
  if (nh == kIpProtoIpv6) {
    l.inner = off;
    off += kIpv6Len;
  }
  l.udp = off;
  return l;
}

// The trimming switch's fix-up (MODEL: W13): every IP length now counts only the bytes left.
void fix_ip_lengths(std::vector<std::uint8_t>& f, const Layout& l) {
  const std::size_t n = f.size();
  if (l.v4) {
    std::uint8_t* h = &f[l.ip];
    put16(h + 2, n - l.ip);
    put16(h + 10, 0);
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i < 4u * (h[0] & 0x0F); i += 2) sum += be16(h + i);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    put16(h + 10, ~sum & 0xFFFF);
    return;
  }
  put16(&f[l.ip + 4], n - l.ip - kIpv6Len);
  if (l.inner != 0) put16(&f[l.inner + 4], n - l.inner - kIpv6Len);
}

}  // namespace

void expect_bth(const Bth& b, json& e) {
  e["bth.opcode"] = b.opcode;
  e["bth.se"] = b.se ? 1 : 0;
  e["bth.m"] = b.mig_req ? 1 : 0;
  e["bth.tver"] = b.tver;
  e["bth.pkey"] = b.pkey;
  e["bth.fecn"] = b.fecn ? 1 : 0;
  e["bth.becn"] = b.becn ? 1 : 0;
  e["bth.dqpn"] = b.dest_qp;
  e["bth.ackreq"] = b.ack_req ? 1 : 0;
  e["bth.psn"] = b.psn;
}

GeneratedFrame finish(const FrameSpec& s, json e, std::size_t trim_keep) {
  GeneratedFrame g;
  g.bytes.resize(kMaxFrameLen);
  const EncodeResult r = encode_frame(s, MutBytes(g.bytes.data(), g.bytes.size()));
  if (!r.ok()) {
    throw std::runtime_error("encode_frame failed: " + std::string(to_string(r.error)) +
                             " for kind " + e.value("_kind", std::string("?")));
  }
  g.bytes.resize(r.length);
  e["bth.padcnt"] = (4 - s.payload.size() % 4) % 4;
  if (trim_keep == 0) {
    e["payload_len"] = s.payload.size();
    const std::uint8_t* t = g.bytes.data() + g.bytes.size() - kIcrcLen;
    e["icrc"] = static_cast<std::uint32_t>(t[0]) | static_cast<std::uint32_t>(t[1]) << 8 |
                static_cast<std::uint32_t>(t[2]) << 16 | static_cast<std::uint32_t>(t[3]) << 24;
    e["icrc_ok"] = 1;
    e["trimmed"] = 0;
  } else {
    const Layout l = locate(g.bytes);
    const std::size_t end = l.udp + kUdpLen + kBthLen + trim_keep;
    if (end >= g.bytes.size()) {
      throw std::runtime_error("trim keeps the whole packet for kind " +
                               e.value("_kind", std::string("?")));
    }
    e["udp.length"] = be16(&g.bytes[l.udp + 4]);
    g.bytes.resize(end);
    fix_ip_lengths(g.bytes, l);
    e["_udp_bytes"] = end - l.udp;
    e["trimmed"] = 1;
  }
  g.expect = std::move(e);
  return g;
}

}  // namespace mrc::cross
