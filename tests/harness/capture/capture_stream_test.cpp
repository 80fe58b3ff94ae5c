// capture_stream.hpp's classic pcap: read from a mapping while records are plain, by libpcap from
// the first record that is not. Packet for packet it must be what libpcap itself reads, in every
// usual format, across the hand-over, after a rewind, and with libpcap's own error at the end.
#include "harness/capture/capture_stream.hpp"

#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "tests/harness/capture/capture_test_support.hpp"

namespace mrc::harness {
namespace {

std::filesystem::path scratch(const std::string& name) { return testing::scratch_file("capture_stream", name); }

void put32(std::vector<std::uint8_t>& out, std::uint32_t v, bool big) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (big ? 24 - 8 * i : 8 * i)));
}
void put16(std::vector<std::uint8_t>& out, std::uint16_t v, bool big) {
  out.push_back(static_cast<std::uint8_t>(big ? v >> 8 : v));
  out.push_back(static_cast<std::uint8_t>(big ? v : v >> 8));
}

struct Record {
  std::uint32_t sec;
  std::uint32_t frac;
  std::uint32_t caplen;  // bytes written: caplen, unless `cut`
  std::uint32_t origlen;
  std::size_t cut = ~std::size_t{0};  // write only this many data bytes (a file cut short)
};

// A classic pcap of Ethernet frames (bytes i*7 + record index).
std::filesystem::path write_pcap(const std::string& name, bool nanos, bool big, std::uint32_t snaplen,
                                 const std::vector<Record>& records) {
  std::vector<std::uint8_t> f;
  put32(f, nanos ? 0xA1B23C4Du : 0xA1B2C3D4u, big);
  put16(f, 2, big);
  put16(f, 4, big);
  put32(f, 0, big);
  put32(f, 0, big);
  put32(f, snaplen, big);
  put32(f, 1, big);  // LINKTYPE_ETHERNET
  for (std::size_t r = 0; r < records.size(); ++r) {
    const Record& rec = records[r];
    put32(f, rec.sec, big);
    put32(f, rec.frac, big);
    put32(f, rec.caplen, big);
    put32(f, rec.origlen, big);
    for (std::size_t i = 0; i < std::min<std::size_t>(rec.caplen, rec.cut); ++i) f.push_back(static_cast<std::uint8_t>(i * 7 + r));
  }
  const auto path = scratch(name);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size()));
  return path;
}

struct Seen {
  std::uint64_t ts_ns;
  std::uint32_t origlen;
  std::vector<std::uint8_t> bytes;
  bool operator==(const Seen&) const = default;
};

void PrintTo(const Seen& s, std::ostream* os) {
  *os << "{ts " << s.ts_ns << " ns, origlen " << s.origlen << ", " << s.bytes.size() << " bytes}";
}

// What libpcap reads, with nanosecond timestamps; `error` gets its message when it stops on one.
std::vector<Seen> by_libpcap(const std::filesystem::path& file, std::string& error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* p = pcap_open_offline_with_tstamp_precision(file.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  EXPECT_NE(p, nullptr) << errbuf;
  std::vector<Seen> out;
  if (!p) return out;
  pcap_pkthdr* h = nullptr;
  const u_char* d = nullptr;
  int rc = 0;
  while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
    out.push_back(Seen{static_cast<std::uint64_t>(h->ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(h->ts.tv_usec),
                       h->len, std::vector<std::uint8_t>(d, d + h->caplen)});
  }
  if (rc != PCAP_ERROR_BREAK) error = pcap_geterr(p);
  pcap_close(p);
  return out;
}

std::vector<Seen> by_stream(CaptureStream& s, std::vector<std::uint64_t>* offsets = nullptr) {
  std::vector<Seen> out;
  StreamPacket p;
  while (s.next(p)) {
    out.push_back(Seen{p.ts_ns, p.origlen, std::vector<std::uint8_t>(p.bytes.begin(), p.bytes.end())});
    if (offsets) offsets->push_back(p.offset);
  }
  return out;
}

std::vector<Record> plain_records() {
  return {{1'700'000'000, 123'456, 60, 60}, {1'700'000'001, 999'999, 1514, 1514}, {1'700'000'002, 5, 64, 1000},
          {2'200'000'000u, 7, 100, 100}};  // the last past 2^31 s: libpcap's sign depends on the byte order
}

TEST(ClassicPcap, EveryUsualFormatReadsAsLibpcapReadsIt) {
  for (const bool nanos : {false, true}) {
    for (const bool big : {false, true}) {
      const auto file = write_pcap(std::string("plain-") + (nanos ? "ns" : "us") + (big ? "-be" : "-le") + ".pcap", nanos,
                                   big, 65535, plain_records());
      std::string lib_error;
      const std::vector<Seen> want = by_libpcap(file, lib_error);
      ASSERT_EQ(want.size(), 4u);
      CaptureStream s;
      ASSERT_EQ(s.open(file), "");
      std::vector<std::uint64_t> offsets;
      EXPECT_EQ(by_stream(s, &offsets), want) << file;
      EXPECT_EQ(s.error(), "");
      EXPECT_EQ(offsets, (std::vector<std::uint64_t>{24, 24 + 16 + 60, 24 + 32 + 60 + 1514, 24 + 48 + 60 + 1514 + 64}));
      ASSERT_EQ(s.rewind(), "");
      EXPECT_EQ(by_stream(s), want);
      StreamPacket p;
      ASSERT_EQ(s.fetch(offsets[2], 2, p), "");  // fetch() finds a record by the offset next() gave
      EXPECT_EQ(std::vector<std::uint8_t>(p.bytes.begin(), p.bytes.end()), want[2].bytes);
    }
  }
}

TEST(ClassicPcap, LibpcapTakesOverAtTheFirstRecordThatIsNotPlain) {
  // Record 2 is longer than the snap length of 80: libpcap keeps its first 80 bytes, and from
  // there on reads the file itself; then a record cut short at the end of the file.
  std::vector<Record> records = plain_records();
  records[1].caplen = records[1].origlen = 70;
  records[2].caplen = 200;
  records[2].origlen = 200;
  records.push_back(Record{1'700'000'009, 1, 40, 40});
  records.push_back(Record{1'700'000'010, 2, 50, 50, 20});
  const auto file = write_pcap("over-snaplen.pcap", false, false, 80, records);
  std::string lib_error;
  const std::vector<Seen> want = by_libpcap(file, lib_error);
  ASSERT_EQ(want.size(), 5u);
  EXPECT_EQ(want[2].bytes.size(), 80u);
  EXPECT_NE(lib_error.find("truncated dump file"), std::string::npos) << lib_error;

  CaptureStream s;
  ASSERT_EQ(s.open(file), "");
  for (int pass = 0; pass < 2; ++pass) {  // and again after a rewind, which maps the file again
    EXPECT_EQ(by_stream(s), want) << "pass " << pass;
    EXPECT_NE(s.error().find("over-snaplen.pcap: packet 5: " + lib_error), std::string::npos) << s.error();
    ASSERT_EQ(s.rewind(), "");
  }
}

TEST(ClassicPcap, AFileCutInsideARecordHeaderIsLibpcapsError) {
  std::vector<std::uint8_t> bytes;
  {
    const auto whole = write_pcap("whole.pcap", true, false, 65535, plain_records());
    std::ifstream in(whole, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes.resize(bytes.size() - 100 - 10);  // the last record's header cut after 6 bytes
  const auto file = scratch("cut-header.pcap");
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  std::string lib_error;
  const std::vector<Seen> want = by_libpcap(file, lib_error);
  ASSERT_EQ(want.size(), 3u);
  CaptureStream s;
  ASSERT_EQ(s.open(file), "");
  EXPECT_EQ(by_stream(s), want);
  EXPECT_NE(s.error().find("cut-header.pcap: packet 3: " + lib_error), std::string::npos) << s.error();
}

}  // namespace
}  // namespace mrc::harness
