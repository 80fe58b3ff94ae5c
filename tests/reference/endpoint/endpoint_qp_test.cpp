// Endpoint control plane: QP state machine with the attributes each transition takes, capability
// negotiation, posting rules (WRITE / WRITE WITH IMM only, no packet for refused opcodes), ERR
// flushing, memory registration.
#include <gtest/gtest.h>

#include <cerrno>

#include "tests/reference/endpoint/endpoint_pair.hpp"

namespace mrc::ref::testing {
namespace {

namespace qa = transport::qp_attr;
using transport::QpAttr;
using transport::QpState;

struct Single {
  Single() : ep(endpoint_config(PairOptions{}, 0)) {
    EXPECT_EQ(setup_profiles(ep, PairOptions{}), "");
    EXPECT_EQ(ep.create_qp(transport::QpInitAttr{}, qpn), 0);
  }
  int init() {
    QpAttr a;
    a.qp_state = QpState::kInit;
    return ep.modify_qp(qpn, a, qa::kState | qa::kEvProfile | qa::kCcProfile);
  }
  int rtr(std::uint32_t extra = 0, QpAttr a = rtr_attr()) {
    return ep.modify_qp(qpn, a, qa::kRtrRequired | extra);
  }
  static QpAttr rtr_attr() {
    QpAttr a;
    a.qp_state = QpState::kRtr;
    a.ah.dgid = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    a.dest_qp_num = 0x300;
    a.path_mtu = IBV_MTU_1024;
    return a;
  }
  int rts(std::uint32_t extra = 0, QpAttr a = rts_attr()) {
    return ep.modify_qp(qpn, a, qa::kRtsRequired | extra);
  }
  static QpAttr rts_attr() {
    QpAttr a;
    a.qp_state = QpState::kRts;
    return a;
  }
  Endpoint ep;
  std::uint32_t qpn = 0;
};

TEST(EndpointQp, StateMachineInOrder) {
  Single s;
  EXPECT_EQ(s.ep.qp_state(s.qpn), QpState::kReset);
  EXPECT_EQ(s.rtr(), EINVAL);  // RESET -> RTR is not a transition
  EXPECT_EQ(s.init(), 0);
  EXPECT_EQ(s.rts(), EINVAL);  // INIT -> RTS is not a transition
  EXPECT_EQ(s.rtr(), 0);
  EXPECT_NE(s.ep.responder(s.qpn), nullptr);
  EXPECT_EQ(s.ep.requester(s.qpn), nullptr);
  EXPECT_EQ(s.rts(), 0);
  EXPECT_NE(s.ep.requester(s.qpn), nullptr);
  QpAttr q;
  ASSERT_EQ(s.ep.query_qp(s.qpn, q), 0);
  EXPECT_EQ(q.cur_qp_state, QpState::kRts);
  EXPECT_EQ(q.dest_qp_num, 0x300u);
  EXPECT_EQ(q.path_mtu, IBV_MTU_1024);
  // -> RESET tears everything down; the QP can be brought up again.
  QpAttr r;
  r.qp_state = QpState::kReset;
  EXPECT_EQ(s.ep.modify_qp(s.qpn, r, qa::kState), 0);
  EXPECT_EQ(s.ep.requester(s.qpn), nullptr);
  EXPECT_EQ(s.init(), 0);
}

TEST(EndpointQp, EachTransitionTakesOnlyItsAttributes) {
  Single s;
  QpAttr a;
  a.qp_state = QpState::kInit;
  EXPECT_EQ(s.ep.modify_qp(s.qpn, a, qa::kState | qa::kSqPsn), EINVAL);  // RTS attribute at INIT
  EXPECT_EQ(s.ep.modify_qp(s.qpn, a, qa::kEvProfile), EINVAL);           // no STATE
  EXPECT_EQ(s.ep.modify_qp(s.qpn, a, qa::kState | (1u << 30)), EINVAL);  // unknown bit
  ASSERT_EQ(s.init(), 0);
  EXPECT_EQ(s.rtr(qa::kMpr), EINVAL);       // requester attribute at RTR
  EXPECT_EQ(s.ep.modify_qp(s.qpn, Single::rtr_attr(), qa::kState | qa::kAv | qa::kDestQpn), EINVAL);  // missing RQ_PSN, MTU
  ASSERT_EQ(s.rtr(), 0);
  EXPECT_EQ(s.rts(qa::kMprDest), EINVAL);   // responder attribute at RTS
  EXPECT_EQ(s.ep.modify_qp(s.qpn, Single::rts_attr(), qa::kState), EINVAL);  // SQ_PSN required
  EXPECT_EQ(s.rts(), 0);
  EXPECT_EQ(s.ep.modify_qp(0xDEAD, Single::rts_attr(), qa::kState), EINVAL);  // unknown QP
}

TEST(EndpointQp, AttributeLimits) {
  Single s;
  ASSERT_EQ(s.init(), 0);
  QpAttr a = Single::rtr_attr();
  a.path_mtu = static_cast<enum ibv_mtu>(6);
  EXPECT_EQ(s.rtr(0, a), EINVAL);
  a = Single::rtr_attr();
  a.mpr_dest = 0;
  EXPECT_EQ(s.rtr(qa::kMprDest, a), EINVAL);
  a = Single::rtr_attr();
  a.dest_qp_num = 1u << 24;
  EXPECT_EQ(s.rtr(0, a), EINVAL);
  a = Single::rtr_attr();
  a.cap = 1u << 5;
  EXPECT_EQ(s.rtr(qa::kCap, a), EINVAL);
  ASSERT_EQ(s.rtr(), 0);
  QpAttr r = Single::rts_attr();
  r.timeout = 25;
  EXPECT_EQ(s.rts(qa::kTimeout, r), EINVAL);  // max 24
  r = Single::rts_attr();
  r.retry = {8, 0};
  EXPECT_EQ(s.rts(qa::kRetry, r), EINVAL);    // linear_cnt max 7
  r.retry = {7, 26};
  EXPECT_EQ(s.rts(qa::kRetry, r), EINVAL);    // exp_cnt max 25
  r = Single::rts_attr();
  r.mpr = 0;
  EXPECT_EQ(s.rts(qa::kMpr, r), EINVAL);
  r = Single::rts_attr();
  r.timeout = 24;
  r.retry = {7, 25};
  EXPECT_EQ(s.rts(qa::kTimeout | qa::kRetry, r), 0);
}

TEST(EndpointQp, InitNeedsOnlineProfiles) {
  Endpoint ep(endpoint_config(PairOptions{}, 0));  // no profiles set up
  std::uint32_t qpn = 0;
  ASSERT_EQ(ep.create_qp(transport::QpInitAttr{}, qpn), 0);
  QpAttr a;
  a.qp_state = QpState::kInit;
  EXPECT_EQ(ep.modify_qp(qpn, a, qa::kState | qa::kEvProfile | qa::kCcProfile), EINVAL);
  EXPECT_EQ(ep.qp_state(qpn), QpState::kReset);
}

TEST(EndpointQp, ProtocolVersionIsOneBitTheDeviceSupports) {
  Endpoint ep(endpoint_config(PairOptions{}, 0));
  std::uint32_t qpn = 0;
  transport::QpInitAttr ia;
  ia.protocol_version = 3;
  EXPECT_EQ(ep.create_qp(ia, qpn), EINVAL);
  ia.protocol_version = 2;  // not in the device bitmap
  EXPECT_EQ(ep.create_qp(ia, qpn), EINVAL);
  ia.protocol_version = transport::kProtocolVersion1;
  EXPECT_EQ(ep.create_qp(ia, qpn), 0);
  ia.protocol_version = 0;
  EXPECT_EQ(ep.create_qp(ia, qpn), 0);
}

TEST(EndpointQp, DynamicMprNeedsTheDeviceCap) {
  PairOptions o;
  EndpointConfig cfg = endpoint_config(o, 0);
  cfg.device.caps &= ~dev_cap::kDynamicMpr;
  Endpoint ep(cfg);
  ASSERT_EQ(setup_profiles(ep, o), "");
  std::uint32_t qpn = 0;
  ASSERT_EQ(ep.create_qp(transport::QpInitAttr{}, qpn), 0);
  QpAttr a;
  a.qp_state = QpState::kInit;
  ASSERT_EQ(ep.modify_qp(qpn, a, qa::kState), 0);  // profiles from QpInitAttr (0, 0)
  QpAttr r = Single::rtr_attr();
  r.cap = transport::qp_cap::kDynamicMpr;
  EXPECT_EQ(ep.modify_qp(qpn, r, qa::kRtrRequired | qa::kCap), EINVAL);
}

TEST(EndpointQp, RefusedOpcodesPutNothingOnTheWire) {
  Pair p;
  ASSERT_EQ(p.error, "");
  transport::MemoryRegion mr;
  ASSERT_EQ(p.a->reg_mr(0, 4096, IBV_ACCESS_LOCAL_WRITE, mr), 0);
  transport::SendWr wr;
  wr.local_addr = mr.addr;
  wr.length = 64;
  wr.lkey = mr.lkey;
  for (auto opc : {IBV_WR_RDMA_READ, IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_ATOMIC_CMP_AND_SWP,
                   IBV_WR_ATOMIC_FETCH_AND_ADD}) {
    wr.opcode = opc;
    EXPECT_EQ(p.a->post_send(p.qp.qpn_a, wr), EOPNOTSUPP);
  }
  wr.opcode = static_cast<enum ibv_wr_opcode>(77);
  EXPECT_EQ(p.a->post_send(p.qp.qpn_a, wr), EINVAL);
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.lkey = 0xBAD;
  EXPECT_EQ(p.a->post_send(p.qp.qpn_a, wr), EINVAL);  // not a registered region
  wr.lkey = mr.lkey;
  wr.length = 8192;
  EXPECT_EQ(p.a->post_send(p.qp.qpn_a, wr), EINVAL);  // runs past the region
  transport::TxFrame f;
  EXPECT_FALSE(p.a->poll_frame(f));
  EXPECT_EQ(p.a->stats().frames_tx, 0u);
}

TEST(EndpointQp, PostingBeforeRtsIsRefusedAndErrFlushes) {
  Single s;
  transport::MemoryRegion mr;
  ASSERT_EQ(s.ep.reg_mr(0, 4096, IBV_ACCESS_LOCAL_WRITE, mr), 0);
  transport::SendWr wr;
  wr.wr_id = 42;
  wr.local_addr = mr.addr;
  wr.length = 16;
  wr.lkey = mr.lkey;
  EXPECT_EQ(s.ep.post_send(s.qpn, wr), EINVAL);  // RESET
  EXPECT_EQ(s.ep.post_recv(s.qpn, 1), EINVAL);   // RESET
  ASSERT_EQ(s.init(), 0);
  EXPECT_EQ(s.ep.post_send(s.qpn, wr), EINVAL);  // INIT
  EXPECT_EQ(s.ep.post_recv(s.qpn, 7), 0);        // receives may be posted from INIT
  QpAttr e;
  e.qp_state = QpState::kErr;
  ASSERT_EQ(s.ep.modify_qp(s.qpn, e, qa::kState), 0);
  EXPECT_EQ(s.ep.post_send(s.qpn, wr), 0);
  transport::Completion c;
  ASSERT_TRUE(s.ep.poll_completion(c));
  EXPECT_EQ(c.wr_id, 7u);
  EXPECT_EQ(c.status, IBV_WC_WR_FLUSH_ERR);
  EXPECT_FALSE(c.is_send);
  ASSERT_TRUE(s.ep.poll_completion(c));
  EXPECT_EQ(c.wr_id, 42u);
  EXPECT_EQ(c.status, IBV_WC_WR_FLUSH_ERR);
  EXPECT_TRUE(c.is_send);
  transport::TxFrame f;
  EXPECT_FALSE(s.ep.poll_frame(f));
}

TEST(EndpointQp, MoveToErrFlushesOutstandingWrs) {
  Pair p;
  ASSERT_EQ(p.error, "");
  transport::MemoryRegion mr, dst;
  ASSERT_EQ(p.a->reg_mr(0, 1 << 16, IBV_ACCESS_LOCAL_WRITE, mr), 0);
  ASSERT_EQ(p.b->reg_mr(0, 1 << 16, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, dst), 0);
  for (std::uint64_t i = 0; i < 3; ++i) {
    transport::SendWr wr;
    wr.wr_id = i;
    wr.local_addr = mr.addr;
    wr.length = 4096;
    wr.lkey = mr.lkey;
    wr.remote_addr = dst.addr;
    wr.rkey = dst.rkey;
    ASSERT_EQ(p.a->post_send(p.qp.qpn_a, wr), 0);
  }
  QpAttr e;
  e.qp_state = QpState::kErr;
  ASSERT_EQ(p.a->modify_qp(p.qp.qpn_a, e, qa::kState), 0);
  int flushed = 0;
  transport::Completion c;
  while (p.a->poll_completion(c)) flushed += c.status == IBV_WC_WR_FLUSH_ERR;
  EXPECT_EQ(flushed, 3);
  transport::TxFrame f;
  EXPECT_FALSE(p.a->poll_frame(f));
}

TEST(EndpointQp, MemoryRegions) {
  Single s;
  transport::MemoryRegion mr;
  ASSERT_EQ(s.ep.reg_mr(0x7000000, 100, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, mr), 0);
  EXPECT_EQ(mr.addr, 0x7000000u);
  EXPECT_EQ(mr.length, 100u);
  auto bytes = s.ep.mr_bytes(mr.lkey);
  ASSERT_EQ(bytes.size(), 100u);
  bytes[5] = 9;
  EXPECT_EQ(s.ep.mr_bytes(mr.rkey)[5], 9);
  EXPECT_TRUE(s.ep.mr_bytes(0xBAD).empty());
  EXPECT_EQ(s.ep.reg_mr(0, 0, IBV_ACCESS_LOCAL_WRITE, mr), EINVAL);
  EXPECT_EQ(s.ep.reg_mr(0, 10, IBV_ACCESS_REMOTE_WRITE, mr), EINVAL);  // needs LOCAL_WRITE
}

}  // namespace
}  // namespace mrc::ref::testing
