// read_capture() on every link type a tap or tcpdump writes: Ethernet, Linux cooked v1 and v2
// (`tcpdump -i any`) and raw IPv4/IPv6 come back as the Ethernet frames the wire decoder reads;
// any other link type is an error naming the file, the interface and the link type.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "harness/capture/link_layer.hpp"
#include "harness/capture/pcapng.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness {
namespace {

using Frame = std::vector<std::uint8_t>;

std::filesystem::path scratch(const std::string& name) {
  auto dir = std::filesystem::path(MRC_BINARY_DIR) / "test-scratch" / "capture-link";
  std::filesystem::create_directories(dir);
  return dir / name;
}

const std::uint8_t kMac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};

// A RoCEv2 RC ACK (BTH + AETH + ICRC) over IPv4 or IPv6, as Ethernet.
Frame roce_ack(wire::L3Kind l3, std::uint32_t psn) {
  wire::FrameSpec s;
  s.l3 = l3;
  s.ip4.src = 0x0A000001;
  s.ip4.dst = 0x0A000002;
  s.ip6.src[15] = 1;
  s.ip6.dst[15] = 2;
  std::copy(std::begin(kMac), std::end(kMac), s.eth.src.begin());
  s.eth.dst.fill(0x0A);
  s.bth.opcode = wire::opcode::kRcAck;
  s.bth.psn = psn;
  s.has_aeth = true;
  s.aeth = wire::Aeth{0x1F, 1};
  Frame f(wire::kMaxFrameLen);
  const auto r = wire::encode_frame(s, f);
  EXPECT_TRUE(r.ok());
  f.resize(r.length);
  return f;
}

Frame l3_of(const Frame& eth) { return Frame(eth.begin() + 14, eth.end()); }

Frame sll(const Frame& eth) {  // Linux cooked v1: sent by us (4), ARPHRD_ETHER, 6-byte address
  Frame h = {0x00, 0x04, 0x00, 0x01, 0x00, 0x06};
  h.insert(h.end(), std::begin(kMac), std::end(kMac));
  h.insert(h.end(), {0x00, 0x00, eth[12], eth[13]});
  const Frame l3 = l3_of(eth);
  h.insert(h.end(), l3.begin(), l3.end());
  return h;
}

Frame sll2(const Frame& eth) {  // Linux cooked v2: protocol, reserved, ifindex 3, ARPHRD_ETHER
  Frame h = {eth[12], eth[13], 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00, 0x06};
  h.insert(h.end(), std::begin(kMac), std::end(kMac));
  h.insert(h.end(), {0x00, 0x00});
  const Frame l3 = l3_of(eth);
  h.insert(h.end(), l3.begin(), l3.end());
  return h;
}

// What read_capture() must hand back: dst zero, src the cooked address (or zero), same L3.
Frame normalised(const Frame& eth, bool with_mac) {
  Frame f(eth);
  std::fill(f.begin(), f.begin() + 12, 0);
  if (with_mac) std::copy(std::begin(kMac), std::end(kMac), f.begin() + 6);
  return f;
}

std::filesystem::path write(const std::string& name, int linktype, const std::vector<Frame>& packets) {
  Capture cap("if-any");
  std::uint64_t ts = 1'000;
  for (const Frame& p : packets) cap.add(ts++, p);
  const auto path = scratch(name);
  EXPECT_EQ(write_pcapng(path, cap, static_cast<std::uint16_t>(linktype)), "");
  return path;
}

// Classic pcap (tcpdump -w): 24-byte header, 16-byte records, little-endian, microseconds.
std::filesystem::path write_classic(const std::string& name, std::uint32_t linktype, const Frame& packet) {
  auto put32 = [](std::string& s, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  std::string s;
  put32(s, 0xA1B2C3D4);
  put32(s, 0x00040002);  // version 2.4
  put32(s, 0);
  put32(s, 0);
  put32(s, 65535);
  put32(s, linktype);
  put32(s, 7);  // ts seconds
  put32(s, 0);
  put32(s, static_cast<std::uint32_t>(packet.size()));
  put32(s, static_cast<std::uint32_t>(packet.size()));
  s.append(packet.begin(), packet.end());
  const auto path = scratch(name);
  std::ofstream(path, std::ios::binary) << s;
  return path;
}

void expect_decodes(const Capture& got, const std::vector<Frame>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto b = got.bytes(i);
    EXPECT_EQ(Frame(b.begin(), b.end()), want[i]) << what << " packet " << i;
    wire::DecodedFrame d;
    ASSERT_TRUE(wire::decode_frame(b, d).ok()) << what << " packet " << i;
    EXPECT_EQ(d.bth.psn, 100 + i) << what;
    EXPECT_TRUE(d.icrc_ok) << what;
  }
}

TEST(CaptureLinkTypes, CookedAndRawCapturesReadAsEthernet) {
  const Frame v4 = roce_ack(wire::L3Kind::kIpv4, 100);
  const Frame v6 = roce_ack(wire::L3Kind::kIpv6, 101);
  Capture got;

  ASSERT_EQ(read_capture(write("eth.pcapng", kLinkEthernet, {v4, v6}), got), "");
  expect_decodes(got, {v4, v6}, "Ethernet");  // unchanged, MACs included

  ASSERT_EQ(read_capture(write("sll.pcapng", kLinkLinuxSll, {sll(v4), sll(v6)}), got), "");
  expect_decodes(got, {normalised(v4, true), normalised(v6, true)}, "SLL");

  ASSERT_EQ(read_capture(write("sll2.pcapng", kLinkLinuxSll2, {sll2(v4), sll2(v6)}), got), "");
  expect_decodes(got, {normalised(v4, true), normalised(v6, true)}, "SLL2");

  ASSERT_EQ(read_capture(write("raw.pcapng", kLinkRaw, {l3_of(v4), l3_of(v6)}), got), "");
  expect_decodes(got, {normalised(v4, false), normalised(v6, false)}, "raw IP");

  ASSERT_EQ(read_capture(write("ipv4.pcapng", kLinkIpv4, {l3_of(v4)}), got), "");
  expect_decodes(got, {normalised(v4, false)}, "raw IPv4");

  ASSERT_EQ(read_capture(write("ipv6.pcapng", kLinkIpv6, {l3_of(roce_ack(wire::L3Kind::kIpv6, 100))}), got), "");
  expect_decodes(got, {normalised(roce_ack(wire::L3Kind::kIpv6, 100), false)}, "raw IPv6");

  // Classic pcap files (tcpdump -i any -w) go the same way.
  ASSERT_EQ(read_capture(write_classic("sll.pcap", kLinkLinuxSll, sll(v4)), got), "");
  expect_decodes(got, {normalised(v4, true)}, "classic SLL");
}

TEST(CaptureLinkTypes, WithoutNormalisingACookedFrameIsGarbage) {
  // What the reader used to do: an SLL packet read as Ethernet does not decode.
  const Frame v4 = roce_ack(wire::L3Kind::kIpv4, 100);
  const Frame cooked = sll(v4);
  wire::DecodedFrame d;
  EXPECT_FALSE(wire::decode_frame(cooked, d).ok());
  Frame eth;
  ASSERT_EQ(to_ethernet(kLinkLinuxSll, cooked, eth), "");
  EXPECT_TRUE(wire::decode_frame(eth, d).ok());
}

TEST(CaptureLinkTypes, TruncatedPacketKeepsItsWireLength) {
  Frame v4 = roce_ack(wire::L3Kind::kIpv4, 100);
  Capture cap("t");
  const Frame cooked = sll2(v4);
  cap.add(1, std::span<const std::uint8_t>(cooked.data(), 40), static_cast<std::uint32_t>(cooked.size()));
  const auto path = scratch("sll2-cut.pcapng");
  ASSERT_EQ(write_pcapng(path, cap, kLinkLinuxSll2), "");
  Capture got;
  ASSERT_EQ(read_capture(path, got), "");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.bytes(0).size(), 40u - kSll2HeaderLen + 14);
  EXPECT_EQ(got.packet(0).origlen, v4.size());
  EXPECT_EQ(got.integrity().truncated, 1u);
}

TEST(CaptureLinkTypes, OtherLinkTypesAreRefusedByName) {
  const Frame v4 = roce_ack(wire::L3Kind::kIpv4, 100);
  const auto path = write("wifi.pcapng", 105, {v4});  // IEEE 802.11
  Capture got;
  const std::string e = read_capture(path, got);
  EXPECT_NE(e.find(path.string()), std::string::npos) << e;
  EXPECT_NE(e.find("interface 0"), std::string::npos) << e;
  EXPECT_NE(e.find("link type 105"), std::string::npos) << e;
  EXPECT_NE(e.find("not supported"), std::string::npos) << e;
  EXPECT_TRUE(got.empty());
  EXPECT_NE(read_capture(write_classic("user0.pcap", 147, v4), got).find("link type 147"), std::string::npos);
}

TEST(CaptureLinkTypes, PacketShorterThanItsCookedHeaderIsAnError) {
  const Frame stub = {0x00, 0x04, 0x00, 0x01, 0x00, 0x06, 0x02};
  const auto path = write("sll-short.pcapng", kLinkLinuxSll, {sll(roce_ack(wire::L3Kind::kIpv4, 100)), stub});
  Capture got;
  const std::string e = read_capture(path, got);
  EXPECT_NE(e.find("packet 1"), std::string::npos) << e;
  EXPECT_NE(e.find("16-byte Linux cooked (SLL) header"), std::string::npos) << e;
}

TEST(CaptureLinkTypes, RawPacketWithAnotherIpVersionDoesNotDecode) {
  Frame bad = l3_of(roce_ack(wire::L3Kind::kIpv4, 100));
  bad[0] = static_cast<std::uint8_t>(0x50 | (bad[0] & 0x0F));
  Capture got;
  ASSERT_EQ(read_capture(write("raw-v5.pcapng", kLinkRaw, {bad}), got), "");
  wire::DecodedFrame d;
  EXPECT_EQ(wire::decode_frame(got.bytes(0), d).error, wire::WireError::kBadEthertype);
}

}  // namespace
}  // namespace mrc::harness
