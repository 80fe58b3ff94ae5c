// Evidence files: one pcapng, one interface per tap (write_multi_pcapng), read back interface by
// interface (read_capture_file), and read by libpcap as a third-party check.
#include <gtest/gtest.h>
#include <pcap/pcap.h>
#include <sys/resource.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "harness/capture/pcapng.hpp"
#include "harness/capture/pcapng_bytes.hpp"

#include "tests/harness/capture/capture_test_support.hpp"

namespace mrc::harness {
namespace {

std::filesystem::path scratch(const std::string& name) { return testing::scratch_file("capture-multi", name); }

// Packets of `len` bytes whose first byte says the tap and the second the packet.
Capture tap_capture(const std::string& name, std::uint8_t tag, const std::vector<std::uint64_t>& ts,
                    std::size_t len = 200) {
  Capture c(name);
  std::vector<std::uint8_t> b(len);
  for (std::size_t i = 0; i < ts.size(); ++i) {
    for (std::size_t k = 0; k < len; ++k) b[k] = static_cast<std::uint8_t>(k * 7 + i);
    b[0] = tag;
    b[1] = static_cast<std::uint8_t>(i);
    c.add(ts[i], b);
  }
  return c;
}

void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

struct TwoTaps {
  Capture rx = tap_capture("dut.p1.rx", 0xA0, {100, 300, 300, 500});
  Capture tx = tap_capture("dut.p1.tx", 0xB0, {50, 300, 400});
  std::vector<PcapngInterface> ifaces() const {
    return {{&rx, "dut.p1.rx", "host 0 (DUT) port 1, receive", false},
            {&tx, "dut.p1.tx", "host 0 (DUT) port 1, transmit", true}};
  }
};

TEST(MultiPcapng, MergeIsByTimestampAndTiesKeepInterfaceOrder) {
  const TwoTaps t;
  const auto ifaces = t.ifaces();
  const auto order = merge_order(ifaces);
  // 50 tx0, 100 rx0, 300 rx1, 300 rx2, 300 tx1, 400 tx2, 500 rx3
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> want{{1, 0}, {0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {0, 3}};
  EXPECT_EQ(order, want);
}

TEST(MultiPcapng, EveryInterfaceReadsBackByNameWithItsFramePositions) {
  const TwoTaps t;
  const auto path = scratch("two.pcapng");
  ASSERT_EQ(write_multi_pcapng(path, t.ifaces(), kFullSnaplen), "");
  std::vector<ReadInterface> back;
  ASSERT_EQ(read_capture_file(path, back), "");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, "dut.p1.rx");
  EXPECT_EQ(back[1].name, "dut.p1.tx");
  EXPECT_EQ(back[0].file_index, (std::vector<std::uint32_t>{1, 2, 3, 6}));
  EXPECT_EQ(back[1].file_index, (std::vector<std::uint32_t>{0, 4, 5}));
  for (std::size_t f = 0; f < 2; ++f) {
    const Capture& want = f == 0 ? t.rx : t.tx;
    ASSERT_EQ(back[f].capture.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(back[f].capture.packet(i).ts_ns, want.packet(i).ts_ns);
      EXPECT_TRUE(std::ranges::equal(back[f].capture.bytes(i), want.bytes(i))) << f << "/" << i;
    }
  }
  EXPECT_EQ(write_multi_pcapng(scratch("two-again.pcapng"), t.ifaces(), kFullSnaplen), "");
  EXPECT_EQ(multi_pcapng_bytes(t.ifaces(), kFullSnaplen), multi_pcapng_bytes(TwoTaps{}.ifaces(), kFullSnaplen));
}

// A real-time bridge's frames carry when they crossed the DUT's port (CapturedPacket::port): the
// evidence keeps it as each packet's comment, which Wireshark shows and the reader takes back, so
// a replayed bundle judges absent windows as the run did. Frames without one (the simulator's)
// are written as before, byte for byte.
TEST(MultiPcapng, APacketsPortTimeTravelsAsItsCommentAndReadsBack) {
  const TwoTaps plain;
  TwoTaps timed;
  timed.tx = Capture("dut.p1.tx");
  const std::vector<std::uint8_t> frame(80, 0x5A);
  timed.tx.add(50, frame, 0, PortTime{1'764'680'000'123'456'789ull, 0});
  timed.rx = Capture("dut.p1.rx");
  timed.rx.add(40, frame, 0, PortTime{1'764'680'000'123'000'000ull, 31'250});
  timed.tx.add(60, frame);  // not timed: no comment
  timed.tx.add(70, frame, 0, PortTime{1'764'680'000'124'000'000ull, 0, 2'201'000});  // entered 2.2 ms late
  const std::string bytes = multi_pcapng_bytes(timed.ifaces(), kFullSnaplen);
  EXPECT_NE(bytes.find("mrc.port_ns=1764680000123456789"), std::string::npos);
  EXPECT_NE(bytes.find("mrc.port_ns=1764680000123000000+31250"), std::string::npos);
  EXPECT_NE(bytes.find("mrc.port_ns=1764680000124000000 entry_ns=2201000"), std::string::npos);
  std::vector<ReadInterface> back;
  ASSERT_EQ(read_pcapng_bytes("timed.pcapng", bytes, back), "");
  ASSERT_EQ(back.size(), 2u);
  ASSERT_EQ(back[1].capture.size(), 3u);
  EXPECT_EQ(back[1].capture.packet(0).port, (PortTime{1'764'680'000'123'456'789ull, 0}));
  EXPECT_FALSE(back[1].capture.packet(1).port.known());
  EXPECT_EQ(back[1].capture.packet(2).port, (PortTime{1'764'680'000'124'000'000ull, 0, 2'201'000}));
  ASSERT_EQ(back[0].capture.size(), 1u);
  EXPECT_EQ(back[0].capture.packet(0).port, (PortTime{1'764'680'000'123'000'000ull, 31'250}));
  EXPECT_EQ(multi_pcapng_bytes(plain.ifaces(), kFullSnaplen).find("mrc.port_ns"), std::string::npos);
  // libpcap reads the commented file as any other.
  const auto path = scratch("timed.pcapng");
  write_bytes(path, bytes);
  char err[PCAP_ERRBUF_SIZE] = {};
  pcap_t* pc = pcap_open_offline(path.c_str(), err);
  ASSERT_NE(pc, nullptr) << err;
  int n = 0;
  pcap_pkthdr* h = nullptr;
  const u_char* d = nullptr;
  while (pcap_next_ex(pc, &h, &d) == 1) ++n;
  pcap_close(pc);
  EXPECT_EQ(n, 4);
}

// A comment that is not a port time as the writer spells it ("N", "N+S", "N entry_ns=E", decimal,
// each part in range) is no port time: the frame reads back untimed, its neighbours keep theirs,
// and the file reads without error (another tool's comment, or a hand-edited one).
TEST(MultiPcapng, AMalformedPortTimeCommentReadsAsNoPortTime) {
  TwoTaps timed;
  timed.tx = Capture("dut.p1.tx");
  const std::vector<std::uint8_t> frame(80, 0x5A);
  timed.tx.add(50, frame, 0, PortTime{1'764'680'000'123'456'789ull, 0});
  timed.tx.add(70, frame, 0, PortTime{1'764'680'000'124'000'000ull, 0, 2'201'000});
  const std::string good = multi_pcapng_bytes(timed.ifaces(), kFullSnaplen);
  const std::string value = "1764680000124000000 entry_ns=2201000";
  const std::size_t at = good.find(value);
  ASSERT_NE(at, std::string::npos);
  // Each the same length as `value`, so only the comment's text changes.
  for (const std::string bad : {"1764680000124000000 entry_ns=22x1000",   // not a digit
                                "17646800 entry_ns=999999999999999999",   // entry past 32 bits
                                "1764680000124000000 entry_ns=       ",   // no entry digits
                                "1764680000124000000 entri_ns=2201000",   // not the key
                                "entry_ns=2201000 1764680000124000000",   // no port time first
                                "1764680000124000000+entry_ns=2201000"}) {  // an empty span
    ASSERT_EQ(bad.size(), value.size());
    std::string bytes = good;
    bytes.replace(at, value.size(), bad);
    std::vector<ReadInterface> back;
    ASSERT_EQ(read_pcapng_bytes("bad-comment.pcapng", bytes, back), "") << bad;
    ASSERT_EQ(back.size(), 2u) << bad;
    ASSERT_EQ(back[1].capture.size(), 2u) << bad;
    EXPECT_EQ(back[1].capture.packet(0).port, (PortTime{1'764'680'000'123'456'789ull, 0})) << bad;
    EXPECT_FALSE(back[1].capture.packet(1).port.known()) << bad;
    EXPECT_EQ(back[1].capture.packet(1).ts_ns, 70u) << bad;
  }
}

TEST(MultiPcapng, LibpcapReadsEveryFrameInFileOrder) {
  const TwoTaps t;
  const auto path = scratch("libpcap.pcapng");
  ASSERT_EQ(write_multi_pcapng(path, t.ifaces(), kFullSnaplen), "");
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* p = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  ASSERT_NE(p, nullptr) << errbuf;
  std::vector<int> tags;
  pcap_pkthdr* h = nullptr;
  const u_char* d = nullptr;
  while (pcap_next_ex(p, &h, &d) == 1) tags.push_back(d[0] << 8 | d[1]);
  pcap_close(p);
  EXPECT_EQ(tags, (std::vector<int>{0xB000, 0xA000, 0xA001, 0xA002, 0xB001, 0xB002, 0xA003}));
}

TEST(MultiPcapng, SnapLengthCutsFramesAndKeepsTheirWireLength) {
  const Capture big = tap_capture("dut.p2.tx", 0xC0, {10, 20}, 1000);
  const std::vector<PcapngInterface> ifaces{{&big, "dut.p2.tx", "", true}};
  const auto path = scratch("snap.pcapng");
  ASSERT_EQ(write_multi_pcapng(path, ifaces, 366), "");
  std::vector<ReadInterface> back;
  ASSERT_EQ(read_capture_file(path, back), "");
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(back[0].capture.size(), 2u);
  EXPECT_EQ(back[0].capture.packet(0).caplen, 366u);
  EXPECT_EQ(back[0].capture.packet(0).origlen, 1000u);
  EXPECT_TRUE(std::ranges::equal(back[0].capture.bytes(1), big.bytes(1).first(366)));
  EXPECT_LT(std::filesystem::file_size(path), 2 * 1000u);
}

TEST(MultiPcapng, ReadCaptureOfSeveralInterfacesNamesThem) {
  const TwoTaps t;
  const auto path = scratch("several.pcapng");
  ASSERT_EQ(write_multi_pcapng(path, t.ifaces(), kFullSnaplen), "");
  Capture one;
  const std::string e = read_capture(path, one);
  EXPECT_NE(e.find("2 interfaces (dut.p1.rx, dut.p1.tx)"), std::string::npos) << e;
  EXPECT_NE(e.find("--iface"), std::string::npos) << e;
}

TEST(MultiPcapng, UnknownLinkTypeNamesTheInterface) {
  const TwoTaps t;
  std::string bytes = multi_pcapng_bytes(t.ifaces(), kFullSnaplen);
  // The second IDB's link type (offset: SHB 28 bytes, first IDB's length at 28 + 4).
  const std::size_t idb1 = 28;
  const std::uint32_t len1 = static_cast<std::uint8_t>(bytes[idb1 + 4]) | static_cast<std::uint8_t>(bytes[idb1 + 5]) << 8;
  bytes[idb1 + len1 + 8] = 105;  // IEEE 802.11
  const auto path = scratch("wifi-iface.pcapng");
  write_bytes(path, bytes);
  std::vector<ReadInterface> back;
  const std::string e = read_capture_file(path, back);
  EXPECT_NE(e.find("wifi-iface.pcapng: interface 1 (dut.p1.tx): link type 105 is not supported"), std::string::npos) << e;
}

TEST(MultiPcapng, TruncatedPacketBlockNamesThePacket) {
  const TwoTaps t;
  std::string bytes = multi_pcapng_bytes(t.ifaces(), kFullSnaplen);
  bytes.resize(bytes.size() - 30);  // into the 7th packet block
  const auto path = scratch("cut.pcapng");
  write_bytes(path, bytes);
  std::vector<ReadInterface> back;
  const std::string e = read_capture_file(path, back);
  EXPECT_NE(e.find("cut.pcapng: packet 6"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
}

TEST(MultiPcapng, FailedWriteLeavesNoPartialFile) {
  const TwoTaps t;
  const auto path = scratch("full-disk.pcapng");
  std::filesystem::remove(path);
  // A file size limit stands in for a full disk: write() fails part way (EFBIG) once the limit
  // is reached, after some bytes were written.
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto prev = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 100;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string e = write_multi_pcapng(path, t.ifaces(), kFullSnaplen);
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, prev);
  EXPECT_NE(e.find("full-disk.pcapng: "), std::string::npos) << e;
  EXPECT_NE(e.find(std::strerror(EFBIG)), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(MultiPcapng, FrameFilterIsRetargetedKeepingItsFieldPart) {
  EXPECT_EQ(retarget_frame_filter("frame.number == 3 && mrc.bth.psn == 7", 41), "frame.number == 42 && mrc.bth.psn == 7");
  EXPECT_EQ(retarget_frame_filter("frame.number == 3", 0), "frame.number == 1");
  EXPECT_EQ(retarget_frame_filter("", 9), "frame.number == 10");
  EXPECT_EQ(retarget_frame_filter("mrc.bth.psn == 7", 9), "frame.number == 10 && mrc.bth.psn == 7");
}

}  // namespace
}  // namespace mrc::harness
