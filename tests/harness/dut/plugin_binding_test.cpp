#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>

#include "harness/dut/binding_factory.hpp"
#include "harness/dut/plugin_abi.hpp"
#include "harness/dut/plugin_binding.hpp"
#include "harness/dut/profile_setup.hpp"
#include "harness/dut/reference_binding.hpp"
#include "harness/dut/reference_dut.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::harness {
namespace {

namespace pa = plugin_abi;

TEST(PluginSpec, SplitsPathAndArguments) {
  std::string why;
  auto s = parse_plugin_spec("plugin:/opt/model.so", &why);
  ASSERT_TRUE(s) << why;
  EXPECT_EQ(s->path, "/opt/model.so");
  EXPECT_EQ(s->args, "");
  s = parse_plugin_spec("plugin:/opt/model.so:mode=fast,lanes=8", &why);
  ASSERT_TRUE(s) << why;
  EXPECT_EQ(s->path, "/opt/model.so");
  EXPECT_EQ(s->args, "mode=fast,lanes=8");
  EXPECT_FALSE(parse_plugin_spec("plugin:", &why));
  EXPECT_NE(why.find("plugin:PATH"), std::string::npos) << why;
  EXPECT_FALSE(parse_plugin_spec("plugin::args", &why));
  EXPECT_NE(why.find("names no plugin library"), std::string::npos) << why;
}

TEST(PluginSpec, TheFactoryMakesAPluginBindingWithoutLoadingIt) {
  std::string why;
  // A path that does not exist: making the binding must not open it (the child process does).
  auto b = make_binding("plugin:/nonexistent/model.so:x", &why);
  ASSERT_TRUE(b) << why;
  EXPECT_EQ(b->identity().binding, "plugin");
  EXPECT_EQ(b->identity().name, "plugin:/nonexistent/model.so:x");
  EXPECT_FALSE(in_process_binding("plugin:/nonexistent/model.so"));
  const DutStatus st = b->status();
  EXPECT_EQ(st.code, DutStatus::Code::kFailed);
  EXPECT_NE(st.message.find("cannot load plugin /nonexistent/model.so"), std::string::npos) << st.message;
}

DutSetup rich_setup() {
  DutSetup s;
  s.format_mode = ap::FormatMode::kSrv6;
  s.format_widths = {16, 16, 32};
  s.ev_mode = ap::EvMode::kGenerated;
  s.fields = {{16, 1, 2, 300, 0xFFFF}, {8, 0, 0, 7, 0x7}};
  s.evs = {{{0x12, 0x34, 0x56}, 3}, {{0xAB}, 7}};
  s.generate_count = 9;
  s.generate_seed = 77;
  s.ev_min_active = 2;
  s.denied = {1, 4};
  s.ev_event_mask = 0x7;
  ap::NsccParams n;
  n.algorithm = "uet-1.0-nscc";
  n.disable_qa = true;
  n.base_rtt = 12000;
  n.gamma = 0.8;
  n.max_cwnd = 1 << 20;
  n.qa_gate = 3;
  n.target_delay = 9000;
  s.cc = n;
  s.cc_line_rate_bps = 400'000'000'000ull;
  s.cc_fabric_trims = false;
  s.qp = ap::QpParams{3, 1024, 4, 5, 64, 32, 12, 3, 9, 0x5, 0xFFFFF0};
  s.buffer_va = 0x2000'0000;
  s.buffer_bytes = 1 << 22;
  s.ipv4 = true;
  s.seed = 99;
  s.dscp = ap::DscpValues{20, 21, 22, 23, 24, 48};
  return s;
}

TEST(PluginAbi, ASetupSurvivesTheCRoundTrip) {
  const DutSetup s = rich_setup();
  const pa::CSetup c(s);
  const DutSetup back = pa::from_c(c.c);
  EXPECT_EQ(back.format_mode, s.format_mode);
  EXPECT_EQ(back.format_widths, s.format_widths);
  EXPECT_EQ(back.ev_mode, s.ev_mode);
  EXPECT_EQ(back.fields, s.fields);
  EXPECT_EQ(back.evs, s.evs);
  EXPECT_EQ(back.generate_count, s.generate_count);
  EXPECT_EQ(back.generate_seed, s.generate_seed);
  EXPECT_EQ(back.ev_min_active, s.ev_min_active);
  EXPECT_EQ(back.denied, s.denied);
  EXPECT_EQ(back.ev_event_mask, s.ev_event_mask);
  EXPECT_EQ(back.cc, s.cc);
  EXPECT_EQ(back.cc_line_rate_bps, s.cc_line_rate_bps);
  EXPECT_EQ(back.cc_fabric_trims, s.cc_fabric_trims);
  EXPECT_EQ(back.qp, s.qp);
  EXPECT_EQ(back.buffer_va, s.buffer_va);
  EXPECT_EQ(back.buffer_bytes, s.buffer_bytes);
  EXPECT_EQ(back.ipv4, s.ipv4);
  EXPECT_EQ(back.seed, s.seed);
  EXPECT_EQ(back.dscp, s.dscp);
  DutSetup no_cc = s;
  no_cc.cc.reset();
  const pa::CSetup c2(no_cc);
  EXPECT_EQ(c2.c.cc, nullptr);
  EXPECT_FALSE(pa::from_c(c2.c).cc);
}

TEST(PluginAbi, LocalsAndControlPayloadsSurviveTheCRoundTrip) {
  DutLocal l;
  l.gid[15] = 9;
  l.mac[0] = 2;
  l.ipv4 = 0x0A000001;
  l.qpns = {0x11, 0x22, 0x33};
  l.buffer_va = 0x1234;
  l.rkey = 0x55;
  l.mpr_dest = 3;
  l.max_wimm_dest = 17;
  l.qp_caps = 2;
  l.first_psn = 100;
  const pa::CLocal cl(l);
  const DutLocal back = pa::from_c(cl.c);
  EXPECT_EQ(back.gid, l.gid);
  EXPECT_EQ(back.mac, l.mac);
  EXPECT_EQ(back.qpns, l.qpns);
  EXPECT_EQ(back.rkey, l.rkey);
  EXPECT_EQ(back.first_psn, l.first_psn);
  // apply()'s out-struct: refused when the caller gave too little room.
  std::vector<std::uint32_t> room(2);
  mrc_dut_local out{};
  out.qpns = room.data();
  out.qpns_capacity = room.size();
  EXPECT_FALSE(pa::fill_c(l, out));
  room.resize(3);
  out.qpns = room.data();
  out.qpns_capacity = room.size();
  ASSERT_TRUE(pa::fill_c(l, out));
  EXPECT_EQ(pa::from_c(out).qpns, l.qpns);

  EvProfileChange ev;
  ev.state = ap::ProfileStateSetting::kOnline;
  ev.fields = std::vector<ap::EvField>{{4, 0, 0, 15, 0xF}};
  ev.min_active = 5;
  ev.seed = 3;
  const pa::CEvProfileOp cev(ev);
  EXPECT_EQ(pa::from_c(cev.c), ev);
  EXPECT_EQ(pa::from_c(pa::CEvProfileOp(EvProfileChange{}).c), EvProfileChange{});

  CcProfileChange cc;
  cc.state = ap::ProfileStateSetting::kOffline;
  cc.algorithm = "uet-1.0-nscc";
  cc.config = {{"base_rtt", "12000"}, {"gamma", "0.5"}};
  EXPECT_EQ(pa::from_c(pa::CCcProfileOp(cc).c), cc);
  CcProfileChange too_long = cc;
  too_long.config.emplace_back(std::string(MRC_DUT_NAME_LEN, 'n'), "1");
  EXPECT_NE(pa::CCcProfileOp::refused(too_long).find("does not fit"), std::string::npos);
  EXPECT_EQ(pa::CCcProfileOp::refused(cc), "");

  EvReplacement r;
  r.from = ap::EvValue{{0x01, 0x02}, 2};
  r.evs = {{{0x03}, 1}, {{0x04, 0x05}, 4}};
  r.all_copies = true;
  EXPECT_EQ(pa::from_c(pa::CReplaceEv(r).c), r);
  EvReplacement unpopulated;
  unpopulated.evs = {{{0x07}, 1}};
  EXPECT_EQ(pa::from_c(pa::CReplaceEv(unpopulated).c), unpopulated);

  const WriteRequest w{2, 0xABC, 64, 4096, 0x1000'0040, 0x77, true, 0xDEAD};
  const WriteRequest wb = pa::from_c(pa::to_c(w));
  EXPECT_EQ(wb.qp, w.qp);
  EXPECT_EQ(wb.wr_id, w.wr_id);
  EXPECT_EQ(wb.local_offset, w.local_offset);
  EXPECT_EQ(wb.length, w.length);
  EXPECT_EQ(wb.remote_addr, w.remote_addr);
  EXPECT_EQ(wb.rkey, w.rkey);
  EXPECT_EQ(wb.with_imm, w.with_imm);
  EXPECT_EQ(wb.imm, w.imm);
  EXPECT_EQ(pa::split_words(pa::join_words({"stev", "srv6"}).c_str()), (std::vector<std::string>{"stev", "srv6"}));
}

TEST(PluginBinding, TheReferencePluginLoadsAndDeclaresTheReferencesCapabilities) {
  PluginBinding b(PluginSpec{MRC_REFERENCE_PLUGIN, ""});
  ASSERT_TRUE(b.status().ok()) << b.status().message;
  EXPECT_EQ(b.capabilities(), ReferenceDut::capabilities());
  EXPECT_NE(b.identity().version.find("mrc-conform reference endpoint"), std::string::npos) << b.identity().version;
}

TEST(PluginBinding, APluginRefusingItsArgumentsIsAnErrorQuotingIt) {
  PluginBinding b(PluginSpec{MRC_REFERENCE_PLUGIN, "no-such-defect"});
  const DutStatus st = b.status();
  EXPECT_EQ(st.code, DutStatus::Code::kFailed);
  EXPECT_NE(st.message.find("refused to create an instance with arguments 'no-such-defect'"), std::string::npos)
      << st.message;
  EXPECT_NE(st.message.find("no-such-defect"), std::string::npos) << st.message;
}

TEST(PluginBinding, APluginOfAnotherAbiVersionIsRefusedNamingBoth) {
  PluginBinding b(PluginSpec{MRC_OLD_ABI_PLUGIN, ""});
  const DutStatus st = b.status();
  EXPECT_EQ(st.code, DutStatus::Code::kFailed);
  EXPECT_NE(st.message.find("built for plugin ABI version 0"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("this harness speaks version " + std::to_string(MRC_DUT_PLUGIN_ABI_VERSION)),
            std::string::npos)
      << st.message;
  // Nothing else runs on a refused plugin.
  EXPECT_TRUE(b.capabilities().empty());
}

// The reference plugin and the in-process reference, side by side on one testbed, connected to
// each other: a write from the plugin lands in the in-process endpoint's memory, and the model's
// refusal (a positive errno) is judged as a DUT behaviour, not as a broken binding.
TEST(PluginBinding, AWriteThroughThePluginLandsAndARefusalIsADutBehaviour) {
  std::string why;
  auto tb = make_sim_testbed(TestbedRequest::named("mini"), 1, &why);
  ASSERT_TRUE(tb) << why;
  PluginBinding a(PluginSpec{MRC_REFERENCE_PLUGIN, ""});
  ReferenceBinding b;
  ASSERT_TRUE(a.attach(*tb, 0).ok());
  ASSERT_TRUE(b.attach(*tb, 1).ok());
  auto setup = [&](int src, int dst) {
    DutSetup s;
    use_default_evs(s, tb->default_evs(wire::EvFmtMode::kStev, src, dst));
    s.format_mode = ap::FormatMode::kStev;
    s.ev_min_active = 1;
    s.cc = ap::NsccParams{};
    s.buffer_bytes = 1 << 20;
    return s;
  };
  DutLocal la, lb;
  ASSERT_TRUE(a.apply(setup(0, 1), la).ok());
  ASSERT_TRUE(b.apply(setup(1, 0), lb).ok());
  ASSERT_TRUE(a.connect(lb).ok());
  ASSERT_TRUE(b.connect(la).ok());
  std::vector<std::uint8_t> data(3 * 4096 + 5);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + 1);
  ASSERT_TRUE(a.fill_local(0, data).ok());
  ASSERT_TRUE(a.post_write(WriteRequest{0, 42, 0, static_cast<std::uint32_t>(data.size()), lb.buffer_va, lb.rkey}, 0).ok());
  tb->run_until(5'000'000);
  std::vector<CompletionRecord> done;
  ASSERT_EQ(a.poll_completions(done, tb->now()), 1u);
  EXPECT_EQ(done[0].wr_id, 42u);
  EXPECT_EQ(done[0].status, 0);
  std::vector<std::uint8_t> landed(data.size());
  ASSERT_TRUE(b.read_local(0, landed).ok());
  EXPECT_EQ(landed, data);
  // An EV index the profile does not have: the model's host API refuses it with ENOENT, which
  // the case judges; a QP the case never made is the harness's own mistake (MRC_DUT_BROKEN).
  const DutStatus refused = a.set_ev_denied(100000, true);
  EXPECT_EQ(refused.code, DutStatus::Code::kRejected) << refused.message;
  EXPECT_EQ(refused.err, ENOENT);
  EXPECT_NE(refused.message.find("no such EV index"), std::string::npos) << refused.message;
  const DutStatus broken = a.post_write(WriteRequest{7, 43, 0, 16, lb.buffer_va, lb.rkey}, tb->now());
  EXPECT_EQ(broken.code, DutStatus::Code::kFailed) << broken.message;
  EXPECT_NE(broken.message.find("post_write on an unknown QP"), std::string::npos) << broken.message;
  EXPECT_FALSE(a.ev_table().empty());
  EXPECT_FALSE(a.counters().empty());
  EXPECT_TRUE(a.reset().ok());
}

}  // namespace
}  // namespace mrc::harness
