#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>

#include "harness/dut/binding_factory.hpp"
#include "harness/dut/profile_setup.hpp"
#include "harness/dut/reference_binding.hpp"
#include "harness/testbed/testbed.hpp"
#include "reference/endpoint.hpp"

namespace mrc::harness {
namespace {

std::unique_ptr<Testbed> mini(std::uint64_t seed = 1) {
  std::string why;
  auto tb = make_sim_testbed(TestbedRequest::named("mini"), seed, &why);
  EXPECT_TRUE(tb) << why;
  return tb;
}

DutSetup setup_for(const Testbed& tb, int src, int dst) {
  DutSetup s;
  use_default_evs(s, tb.default_evs(wire::EvFmtMode::kStev, src, dst));
  s.format_mode = ap::FormatMode::kStev;
  s.ev_min_active = 1;
  s.cc = ap::NsccParams{};
  s.buffer_bytes = 1 << 20;
  return s;
}

// Two reference bindings on the mini testbed, connected.
struct Pair {
  std::unique_ptr<Testbed> tb = mini();
  ReferenceBinding a;
  ReferenceBinding b;
  DutLocal la, lb;
  Pair(ref::DefectSet defects = {}) : a(defects) {
    EXPECT_TRUE(a.attach(*tb, 0).ok());
    EXPECT_TRUE(b.attach(*tb, 1).ok());
    auto sa = setup_for(*tb, 0, 1);
    auto sb = setup_for(*tb, 1, 0);
    sb.seed = 2;
    const DutStatus st_a = a.apply(sa, la);
    EXPECT_TRUE(st_a.ok()) << st_a.message;
    EXPECT_TRUE(b.apply(sb, lb).ok());
    EXPECT_TRUE(a.connect(lb).ok());
    EXPECT_TRUE(b.connect(la).ok());
  }
};

TEST(ReferenceBinding, BindingSpecsAndTheirErrors) {
  std::string why;
  auto plain = make_binding("reference", &why);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->identity().name, "reference");
  auto two = make_binding("reference:spray-single-ev,no-trim-nack", &why);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->identity().name, "reference:spray-single-ev,no-trim-nack");
  EXPECT_FALSE(make_binding("reference:spray-singel-ev", &why));
  EXPECT_NE(why.find("unknown defect or variant 'spray-singel-ev'"), std::string::npos);
  EXPECT_NE(why.find("use-denied-ev"), std::string::npos);  // lists the valid names
  EXPECT_NE(why.find("timers-slow"), std::string::npos);    // the variants too
  // An empty list after the colon, or an empty name, is a typo (it used to run the plain reference).
  for (const char* typo : {"reference:", "reference:spray-single-ev,", "reference:,no-trim-nack", "reference-random:"}) {
    why.clear();
    EXPECT_FALSE(make_binding(typo, &why)) << typo;
    EXPECT_NE(why.find("an empty defect or variant name"), std::string::npos) << typo << ": " << why;
  }
  EXPECT_FALSE(make_binding("vendorx", &why));
  EXPECT_NE(why.find("unknown DUT binding 'vendorx'"), std::string::npos);
  auto random = make_binding("reference-random:no-trim-nack", &why);
  ASSERT_TRUE(random);
  EXPECT_EQ(random->identity().name, "reference-random:no-trim-nack");
  EXPECT_EQ(make_binding("reference-random", &why)->identity().name, "reference-random");
  // Conformant variants by name, beside defects, in catalog order whatever order they are given.
  EXPECT_EQ(make_binding("reference:random-ev", &why)->identity().name, "reference-random");
  auto mixed = make_binding("reference:sack-eager,no-trim-nack,reverse-rotation", &why);
  ASSERT_TRUE(mixed) << why;
  EXPECT_EQ(mixed->identity().name, "reference:no-trim-nack,reverse-rotation,sack-eager");
  EXPECT_NE(mixed->identity().details.find("conformant variants: reverse-rotation,sack-eager"), std::string::npos);
  // Two answers to one choice are refused, naming the second.
  EXPECT_FALSE(make_binding("reference:sack-eager,sack-lazy", &why));
  EXPECT_NE(why.find("variant 'sack-lazy' makes a choice another variant in the list already makes"),
            std::string::npos)
      << why;
  EXPECT_FALSE(make_binding("reference-random:reverse-rotation", &why));
  EXPECT_NE(why.find("reference-random already chooses EVs at random"), std::string::npos) << why;
}

TEST(ReferenceBinding, DeclaresTheCaseVocabularysCapabilities) {
  ReferenceBinding b;
  const auto caps = b.capabilities();
  for (const char* c : {"trim_nack", "srv6", "stev", "udp_mode", "ev_probe", "ev_generated"}) {
    EXPECT_NE(std::find(caps.begin(), caps.end(), c), caps.end()) << c;
  }
  EXPECT_EQ(std::find(caps.begin(), caps.end(), "explicit_range"), caps.end());
}

// A binding that implements nothing but its identity: every call is a clear "unimplemented".
class EmptyBinding : public DutBinding {
 public:
  DutIdentity identity() const override { return DutIdentity{"empty", "empty", "0", ""}; }
};

TEST(DutBinding, UnimplementedDefaultsSayWhoAndWhat) {
  EmptyBinding b;
  DutLocal l;
  const DutStatus st = b.apply(DutSetup{}, l);
  EXPECT_EQ(st.code, DutStatus::Code::kUnimplemented);
  EXPECT_EQ(st.message, "ERROR: DUT binding 'empty' does not implement apply()");
  EXPECT_EQ(b.post_write(WriteRequest{}, 0).code, DutStatus::Code::kUnimplemented);
  EXPECT_EQ(b.set_ev_denied(0, true).code, DutStatus::Code::kUnimplemented);
  EXPECT_EQ(b.reset().code, DutStatus::Code::kUnimplemented);
  std::vector<CompletionRecord> c;
  EXPECT_EQ(b.poll_completions(c, 0), 0u);
  EXPECT_TRUE(b.capabilities().empty());
  // No buffer in this process: the session copies through fill_local() / read_local() instead.
  EXPECT_TRUE(b.overwrite_local(0, 16).empty());
  EXPECT_TRUE(b.view_local(0, 16).empty());
}

TEST(ReferenceBinding, AWriteCrossesTheTestbedAndItsBytesArrive) {
  Pair p;
  ASSERT_EQ(p.la.qpns.size(), 1u);
  EXPECT_EQ(p.la.buffer_va, 0x10000000u);
  EXPECT_EQ(p.a.data_ports().size(), 8u);
  std::vector<std::uint8_t> src(64 * 1024);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 7);
  ASSERT_TRUE(p.a.fill_local(0, src).ok());
  WriteRequest w;
  w.wr_id = 77;
  w.length = static_cast<std::uint32_t>(src.size());
  w.remote_addr = p.lb.buffer_va + 4096;
  w.rkey = p.lb.rkey;
  ASSERT_TRUE(p.a.post_write(w, 0).ok());
  std::vector<CompletionRecord> done;
  for (std::uint64_t t = 1000; t < 2'000'000 && done.empty(); t += 1000) {
    p.tb->run_until(t);
    p.a.poll_completions(done, t);
  }
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].wr_id, 77u);
  EXPECT_EQ(done[0].status, 0);
  std::vector<std::uint8_t> dst(src.size());
  ASSERT_TRUE(p.b.read_local(4096, dst).ok());
  EXPECT_EQ(dst, src);
  EXPECT_FALSE(p.b.read_local((1 << 20) - 10, dst).ok());  // past the buffer: an error, not a crash
  // The same bytes in place, and nothing for a range past the buffer.
  const std::span<const std::uint8_t> view = p.b.view_local(4096, src.size());
  EXPECT_TRUE(std::equal(view.begin(), view.end(), src.begin(), src.end()));
  EXPECT_TRUE(p.b.view_local((1 << 20) - 10, 64).empty());
  EXPECT_TRUE(p.a.overwrite_local((1 << 20) - 10, 64).empty());
  const std::span<std::uint8_t> in_place = p.a.overwrite_local(100, 3);
  ASSERT_EQ(in_place.size(), 3u);
  std::fill(in_place.begin(), in_place.end(), 0x5A);
  std::vector<std::uint8_t> back(5);
  ASSERT_TRUE(p.a.read_local(99, back).ok());
  EXPECT_EQ(back, (std::vector<std::uint8_t>{static_cast<std::uint8_t>(99 * 7), 0x5A, 0x5A, 0x5A,
                                             static_cast<std::uint8_t>(103 * 7)}));
  const auto counters = p.a.counters();
  const auto it = std::find_if(counters.begin(), counters.end(), [](const auto& c) { return c.first == "req.data_packets"; });
  ASSERT_NE(it, counters.end());
  EXPECT_GE(it->second, 16.0);
}

TEST(ReferenceBinding, ControlPlaneCallsReportTheHostApisErrors) {
  Pair p;
  const auto table = p.a.ev_table();
  ASSERT_FALSE(table.empty());
  EXPECT_TRUE(p.a.set_ev_denied(3, true).ok());
  EXPECT_TRUE(p.a.ev_table()[3].denied);
  EXPECT_TRUE(p.a.set_ev_denied(3, false).ok());
  EXPECT_TRUE(p.a.ev_table()[3].denied);  // "was denied during the run" stays visible
  const DutStatus bad = p.a.set_ev_denied(1000, true);
  EXPECT_EQ(bad.code, DutStatus::Code::kRejected);
  EXPECT_EQ(bad.err, ENOENT);
  EXPECT_TRUE(p.a.port_admin(2, false).ok());
  EXPECT_FALSE(p.a.endpoint()->port_up(2));
  EXPECT_EQ(p.a.port_admin(40, false).err, EINVAL);
  EXPECT_TRUE(p.a.probe_ev(0, 46, 0).ok());
  // The profile is in use by a QP: taking it offline is refused (EBUSY).
  EXPECT_EQ(p.a.set_profile_online(false).err, EBUSY);
  EXPECT_TRUE(p.a.reset().ok());
  EXPECT_EQ(p.a.endpoint(), nullptr);
}

TEST(ReferenceBinding, EchoIdentitiesMatchTheWireModel) {
  Pair p;
  const auto table = p.a.ev_table();
  std::string why;
  const auto expected = expected_ev_array(setup_for(*p.tb, 0, 1), 8, &why);
  ASSERT_EQ(expected.size(), table.size()) << why;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const std::uint32_t v = (std::uint32_t{expected[i].wire[0]} << 24) | (std::uint32_t{expected[i].wire[1]} << 16) |
                            (std::uint32_t{expected[i].wire[2]} << 8) | expected[i].wire[3];
    EXPECT_EQ(table[i].echo, v);  // W2 STEV value V
    EXPECT_EQ(table[i].port, expected[i].port);
  }
}

TEST(ReferenceBinding, ApplyBeforeAttachAndBadSetupsAreErrors) {
  ReferenceBinding b;
  DutLocal l;
  EXPECT_EQ(b.apply(DutSetup{}, l).code, DutStatus::Code::kFailed);
  auto tb = mini();
  ASSERT_TRUE(b.attach(*tb, 0).ok());
  EXPECT_FALSE(b.attach(*tb, 9).ok());
  DutSetup s = setup_for(*tb, 0, 1);
  s.format_widths = {40};  // wider than STEV's 32 bits
  const DutStatus st = b.apply(s, l);
  EXPECT_EQ(st.code, DutStatus::Code::kRejected);
  EXPECT_TRUE(st.err == EINVAL || st.err == E2BIG) << st.message;  // the controller's own errno
  EXPECT_NE(st.message.find("EV format profile"), std::string::npos) << st.message;
}

}  // namespace
}  // namespace mrc::harness
