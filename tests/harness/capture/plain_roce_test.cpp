// Plain RoCEv2 captures read and decode field-level with per-frame framing detection. The capture
// is built at test time by the cross-validation factory (tests/cross/roce_frames.cpp: RDMA CM MADs
// on UD QP 1, RC WRITE ONLY, the 62-byte RC ACK, READ request and responses, SEND FIRST / LAST IMM
// / ONLY IMM, UDP source port 69), written as a classic pcap under the build tree and read back
// through read_capture. Real captures (../shared/roce-captures, $MRC_REAL_CAPTURES) are decoded too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "harness/capture/pcapng.hpp"
#include "reference/wire/frame.hpp"
#include "tests/cross/cross_frames.hpp"
#include "tests/cross/pcap_writer.hpp"

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Plain RoCEv2 frames decode by their IBA layout: no option is needed to tell them from MRC.
wire::DecodeOptions detecting() { return {}; }

// Writes `count` generated plain RoCEv2 frames to a pcap; returns its path and the side fields.
fs::path write_generated(std::size_t count, std::uint64_t seed, std::vector<json>& expect) {
  const fs::path dir = fs::path(MRC_BINARY_DIR) / "harness_plain_roce";
  fs::create_directories(dir);
  const fs::path path = dir / ("plain_roce_" + std::to_string(seed) + ".pcap");
  cross::FrameFactory factory(cross::Profile::kRoce, seed);
  cross::PcapWriter pcap(path.string());
  for (std::uint32_t i = 0; i < count; ++i) {
    cross::GeneratedFrame f = factory.make(i);
    pcap.record(i * 10u, f.bytes);
    expect.push_back(std::move(f.expect));
  }
  EXPECT_TRUE(pcap.good()) << path;
  return path;
}

std::uint32_t be(const std::uint8_t* p, unsigned n) {
  std::uint32_t v = 0;
  for (unsigned i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

// The decoded frame under the side file's field names (tests/cross/cross_frames.hpp).
json observed(const wire::DecodedFrame& d) {
  json o;
  o["udp.sport"] = d.udp.sport;
  o["bth.opcode"] = d.bth.opcode;
  o["bth.se"] = d.bth.se ? 1 : 0;
  o["bth.m"] = d.bth.mig_req ? 1 : 0;
  o["bth.tver"] = d.bth.tver;
  o["bth.pkey"] = d.bth.pkey;
  o["bth.fecn"] = d.bth.fecn ? 1 : 0;
  o["bth.becn"] = d.bth.becn ? 1 : 0;
  o["bth.dqpn"] = d.bth.dest_qp;
  o["bth.ackreq"] = d.bth.ack_req ? 1 : 0;
  o["bth.psn"] = d.bth.psn;
  o["bth.padcnt"] = d.bth.pad_count;
  if (d.has_reth) {
    o["reth.va"] = d.reth.va;
    o["reth.rkey"] = d.reth.rkey;
    o["reth.len"] = d.reth.dma_length;
  }
  if (d.has_immdt) o["immdt"] = d.immdt;
  if (d.has_aeth) {
    o["aeth.syndrome"] = d.aeth.syndrome;
    o["aeth.msn"] = d.aeth.msn;
  }
  if (d.bth.opcode == wire::opcode::kUdSendOnly && d.payload.size() >= 8 + 24) {
    const std::uint8_t* p = d.payload.data();  // DETH, then the MAD header
    o["deth.qkey"] = be(p, 4);
    o["deth.srcqp"] = be(p + 5, 3);
    o["mad.mgmt_class"] = p[8 + 1];
    o["mad.attr_id"] = be(p + 8 + 16, 2);
  }
  o["payload_len"] = d.payload.size();
  o["icrc"] = d.icrc_wire;
  o["icrc_ok"] = d.icrc_ok ? 1 : 0;
  o["trimmed"] = d.trimmed ? 1 : 0;
  return o;
}

json without_private(const json& e) {
  json out = json::object();
  for (const auto& [k, v] : e.items()) {
    if (k.empty() || k[0] != '_') out[k] = v;
  }
  return out;
}

TEST(PlainRoce, GeneratedCaptureDecodesFieldLevel) {
  std::vector<json> expect;
  const fs::path path = write_generated(8 * cross::kRoceKinds, 31, expect);
  Capture cap;
  ASSERT_EQ(read_capture(path, cap), "");
  ASSERT_EQ(cap.size(), expect.size());
  std::set<std::uint8_t> opcodes;
  std::size_t low_sport = 0, cm = 0;
  for (std::size_t i = 0; i < cap.size(); ++i) {
    wire::DecodedFrame d;
    const auto r = wire::decode_frame(cap.bytes(i), d, detecting());
    ASSERT_TRUE(r.ok()) << "frame " << i + 1 << " (" << expect[i]["_kind"] << "): "
                        << wire::to_string(r.error);
    EXPECT_FALSE(d.has_meth) << "frame " << i + 1;  // no MRC header on a plain RC frame
    const json obs = observed(d), exp = without_private(expect[i]);
    for (const auto& [k, v] : exp.items()) {
      EXPECT_EQ(obs.value(k, json()), v) << "frame " << i + 1 << " (" << expect[i]["_kind"]
                                         << ") field " << k;
    }
    for (const auto& [k, v] : obs.items()) {
      EXPECT_TRUE(exp.contains(k)) << "frame " << i + 1 << " (" << expect[i]["_kind"]
                                   << ") decoded a header the frame lacks: " << k << "=" << v;
    }
    if (d.bth.opcode == wire::opcode::kRcAck) {
      EXPECT_EQ(cap.bytes(i).size(), 62u) << "frame " << i + 1;
    }
    opcodes.insert(d.bth.opcode);
    low_sport += d.udp.sport < wire::kRoceV2Port ? 1 : 0;
    cm += obs.value("mad.mgmt_class", 0) == 0x07 ? 1 : 0;
  }
  // The kinds the real captures held: CM MADs, WRITE, ACK, READ, SEND with immediate.
  for (std::uint8_t op :
       {wire::opcode::kUdSendOnly, wire::opcode::kRcWriteOnly, wire::opcode::kRcAck,
        wire::opcode::kRcReadRequest, wire::opcode::kRcReadRespFirst, wire::opcode::kRcReadRespMiddle,
        wire::opcode::kRcReadRespLast, wire::opcode::kRcReadRespOnly, wire::opcode::kRcSendFirst,
        wire::opcode::kRcSendLastImm, wire::opcode::kRcSendOnlyImm}) {
    EXPECT_TRUE(opcodes.count(op)) << "no frame with opcode " << unsigned{op};
  }
  EXPECT_GT(low_sport, 0u);
  EXPECT_GT(cm, 0u);
}

// The real captures (tests/tools/real_captures.py says the same): ../shared/roce-captures beside
// the checkout, plus the folder $MRC_REAL_CAPTURES when set. Set to something that is not a
// folder, the variable is an error: a typo must not turn the check off silently.
std::vector<fs::path> real_capture_files(std::string& error) {
  std::vector<fs::path> folders;
  const fs::path shared = fs::path(MRC_SOURCE_DIR).parent_path() / "shared" / "roce-captures";
  if (fs::is_directory(shared)) folders.push_back(shared);
  if (const char* extra = std::getenv("MRC_REAL_CAPTURES"); extra != nullptr && *extra != '\0') {
    if (!fs::is_directory(extra)) error = std::string("MRC_REAL_CAPTURES=") + extra + " is not a folder";
    folders.emplace_back(extra);
  }
  std::set<fs::path> files;
  for (const fs::path& dir : folders) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const auto ext = entry.path().extension();
      if (ext == ".pcap" || ext == ".pcapng") files.insert(fs::canonical(entry.path()));
    }
  }
  return {files.begin(), files.end()};
}

// Every RoCEv2 frame (UDP 4791) of each real capture decodes field-level with a matching ICRC
// (CM MADs as BTH + DETH + opaque payload). No capture: skipped.
TEST(PlainRoce, RealCapturesDecode) {
  std::string error;
  const std::vector<fs::path> files = real_capture_files(error);
  ASSERT_EQ(error, "");
  if (files.empty()) {
    GTEST_SKIP() << "no .pcap/.pcapng in ../shared/roce-captures nor in $MRC_REAL_CAPTURES: real captures skipped";
  }
  for (const fs::path& f : files) {
    Capture cap;
    ASSERT_EQ(read_capture(f, cap), "");
    std::size_t roce = 0;
    for (std::size_t i = 0; i < cap.size(); ++i) {
      wire::DecodedFrame d;
      const auto r = wire::decode_frame(cap.bytes(i), d, detecting());
      if (r.error == wire::WireError::kNotRoce || r.error == wire::WireError::kNotUdp ||
          r.error == wire::WireError::kBadEthertype) {
        continue;  // ARP, TCP, ... beside the RoCEv2 traffic
      }
      ++roce;
      EXPECT_TRUE(r.ok()) << f << " frame " << i + 1 << ": " << wire::to_string(r.error);
      EXPECT_TRUE(!r.ok() || d.icrc_ok || d.trimmed) << f << " frame " << i + 1 << ": bad ICRC";
    }
    EXPECT_GT(roce, 0u) << f << " holds no RoCEv2 frame";
    std::cout << f << ": " << roce << " RoCEv2 frames decoded\n";
  }
}

}  // namespace
}  // namespace mrc::harness
