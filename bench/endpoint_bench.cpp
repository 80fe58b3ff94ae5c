// Data frames per second through a reference requester -> responder pair with no I/O: frames go
// straight from one Endpoint's poll_frame into the other's on_frame. Every frame is fully built
// (EV placement, ICRC), decoded (ICRC verified), placed by RETH, acknowledged (feedback built,
// encoded, decoded and consumed by the requester). One core, virtual time.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>

#include "reference/endpoint.hpp"

namespace {

using namespace mrc;

struct BenchPair {
  explicit BenchPair(enum ibv_mtu mtu, bool nscc) {
    for (int s = 0; s < 2; ++s) {
      ref::EndpointConfig c;
      c.seed = static_cast<std::uint64_t>(s + 1);
      c.mac = {2, 0, 0, 0, 0, static_cast<std::uint8_t>(s + 1)};
      c.gid = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<std::uint8_t>(s + 1)};
      ep[s] = std::make_unique<ref::Endpoint>(c);
      setup(*ep[s], nscc);
      ep[s]->create_qp(transport::QpInitAttr{}, qpn[s]);
    }
    namespace qa = transport::qp_attr;
    for (int s = 0; s < 2; ++s) {
      transport::QpAttr a;
      a.qp_state = transport::QpState::kInit;
      ep[s]->modify_qp(qpn[s], a, qa::kState);
      a.qp_state = transport::QpState::kRtr;
      a.ah.dgid = ep[1 - s]->config().gid;
      a.ah.dmac = ep[1 - s]->config().mac;
      a.dest_qp_num = qpn[1 - s];
      a.path_mtu = mtu;
      ep[s]->modify_qp(qpn[s], a, qa::kRtrRequired);
      a.qp_state = transport::QpState::kRts;
      ep[s]->modify_qp(qpn[s], a, qa::kRtsRequired);
    }
    ep[0]->reg_mr(0, kRegion, IBV_ACCESS_LOCAL_WRITE, src);
    ep[1]->reg_mr(0, kRegion, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, dst);
    ok = ep[0]->qp_state(qpn[0]) == transport::QpState::kRts &&
         ep[1]->qp_state(qpn[1]) == transport::QpState::kRts;
  }

  static void setup(ref::Endpoint& e, bool nscc) {
    ev::Controller& c = e.controller();
    ev::FmtProfileAttr f;
    f.mode = wire::EvFmtMode::kStev;
    f.widths = {16, 16};
    f.state = ev::ProfileState::kOffline;
    c.modify_fmt_profile(0, f, ev::fmt_attr::kState | ev::fmt_attr::kMode);
    f.state = ev::ProfileState::kOnline;
    c.modify_fmt_profile(0, f, ev::fmt_attr::kState | ev::fmt_attr::kFields);
    ev::EvProfileAttr p;
    p.state = ev::ProfileState::kOffline;
    p.mode = ev::EvMode::kGen;
    p.ev_count = 128;
    p.fields = {{16, 0, 1, 0xFFF, 0x0FFF}, {16, 0xC000, 0, 0xFFF, 0x0FFF}};
    p.ev_min_active = 1;
    p.ev_event_mask = ev::bits(ev::EvState::kGood) | ev::bits(ev::EvState::kAssumedBad);
    c.modify_ev_profile(0, p, ev::ev_attr::kState | ev::ev_attr::kMode | ev::ev_attr::kFmtId |
                                  ev::ev_attr::kCount | ev::ev_attr::kFields);
    p.state = ev::ProfileState::kOnline;
    c.modify_ev_profile(0, p, ev::ev_attr::kState | ev::ev_attr::kMinActive | ev::ev_attr::kEventMask);
    ev::CcProfileAttr cc;
    cc.state = ev::ProfileState::kOffline;
    cc.algorithm = nscc ? ev::kCcAlgoNscc : "";
    const std::string cfg = "base_rtt=12000";
    cc.config.assign(cfg.begin(), cfg.end());
    c.modify_cc_profile(0, cc, ev::cc_attr::kState | ev::cc_attr::kAlgorithm | (nscc ? ev::cc_attr::kConfig : 0));
    cc.state = ev::ProfileState::kOnline;
    c.modify_cc_profile(0, cc, ev::cc_attr::kState);
  }

  // Keeps `depth` writes of `len` bytes posted.
  void refill(std::uint32_t len, int depth) {
    transport::Completion c;
    while (ep[0]->poll_completion(c)) --posted;
    while (ep[1]->poll_completion(c)) {
    }
    while (posted < depth) {
      transport::SendWr wr;
      wr.wr_id = next_id++;
      wr.local_addr = src.addr + (wr.wr_id * len) % (kRegion - len);
      wr.length = len;
      wr.lkey = src.lkey;
      wr.remote_addr = dst.addr + (wr.wr_id * len) % (kRegion - len);
      wr.rkey = dst.rkey;
      if (ep[0]->post_send(qpn[0], wr) != 0) break;
      ++posted;
    }
  }

  // Moves every frame both ways once; returns data frames delivered.
  std::uint64_t pump() {
    std::uint64_t n = 0;
    while (ep[0]->poll_frame(frame)) {
      now += 40;  // a 4 KiB frame at 800 Gb/s
      ep[1]->on_frame(frame.port, frame.view(), now);
      ++n;
    }
    while (ep[1]->poll_frame(frame)) ep[0]->on_frame(frame.port, frame.view(), now);
    ep[0]->advance(now);
    ep[1]->advance(now);
    return n;
  }

  // Small enough to stay in cache: the bench measures the endpoint, not DRAM bandwidth.
  static constexpr std::size_t kRegion = 512u << 10;
  std::unique_ptr<ref::Endpoint> ep[2];
  std::uint32_t qpn[2] = {0, 0};
  transport::MemoryRegion src, dst;
  transport::TxFrame frame;
  std::uint64_t now = 1000;
  std::uint64_t next_id = 0;
  int posted = 0;
  bool ok = false;
};

void BM_EndpointDataFrames(benchmark::State& state) {
  const auto payload = static_cast<std::uint32_t>(state.range(0));
  const bool nscc = state.range(1) != 0;
  const enum ibv_mtu mtu = payload <= 256 ? IBV_MTU_256 : payload <= 1024 ? IBV_MTU_1024 : IBV_MTU_4096;
  BenchPair p(mtu, nscc);
  if (!p.ok) {
    state.SkipWithError("bring-up failed");
    return;
  }
  std::uint64_t frames = 0;
  for (auto _ : state) {
    p.refill(payload * 16, 64);
    frames += p.pump();
  }
  const auto& rs = p.ep[0]->requester(p.qpn[0])->stats();
  if (rs.retransmits != 0) state.SkipWithError("unexpected retransmissions");
  state.SetItemsProcessed(static_cast<std::int64_t>(frames));
  state.SetBytesProcessed(static_cast<std::int64_t>(frames) * payload);
  state.counters["frames/s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  state.counters["feedback/frame"] =
      frames ? static_cast<double>(p.ep[1]->stats().feedback_tx) / static_cast<double>(frames) : 0;
}
BENCHMARK(BM_EndpointDataFrames)
    ->ArgsProduct({{256, 1024, 4096}, {0, 1}})
    ->ArgNames({"payload", "nscc"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
