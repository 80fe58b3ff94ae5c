// The harness's lockstep port (harness/dut/lockstep_port.hpp) against a scripted agent: frames
// and advances wait for the fabric's next question and go out in its order; one frame per STEP;
// a drained DUT is not asked again until something happens to it; the deadline is cached until
// an op or a control call; a broken STEP breaks the port with a reason.
#include <gtest/gtest.h>

#include <deque>

#include "harness/dut/lockstep_port.hpp"

namespace mrc::harness {
namespace {

namespace ap = mrc::agentproto;

struct Script {
  std::vector<ap::Step> seen;
  std::deque<ap::Frames> answers;
  std::string fail;
  LockstepPort port{[this](ap::Body req, ap::Body& reply) -> std::string {
                      seen.push_back(std::get<ap::Step>(req));
                      if (!fail.empty()) return fail;
                      reply = answers.empty() ? ap::Frames{{}, true, 7777} : answers.front();
                      if (!answers.empty()) answers.pop_front();
                      return {};
                    },
                    [this](std::uint8_t port, bool up) {
                      admin.emplace_back(port, up);
                      return 0;
                    }};
  std::vector<std::pair<std::uint8_t, bool>> admin;
};

TEST(LockstepPort, BuffersOpsUntilTheFabricAsks) {
  Script s;
  const std::vector<std::uint8_t> frame(60, 0xAB);
  s.port.on_frame(2, frame, 1000);
  s.port.advance(1500);
  EXPECT_TRUE(s.seen.empty());
  s.answers.push_back(ap::Frames{{ap::StepFrame{1, std::vector<std::uint8_t>(70, 0xCD)}}, false, 9000});
  transport::TxFrame tx;
  ASSERT_TRUE(s.port.poll_frame(tx));
  ASSERT_EQ(s.seen.size(), 1u);
  ASSERT_EQ(s.seen[0].ops.size(), 2u);
  EXPECT_EQ(s.seen[0].ops[0].kind, ap::StepOpKind::kFrame);
  EXPECT_EQ(s.seen[0].ops[0].port, 2);
  EXPECT_EQ(s.seen[0].ops[0].frame, frame);
  EXPECT_EQ(s.seen[0].ops[1].kind, ap::StepOpKind::kAdvance);
  EXPECT_EQ(s.seen[0].ops[1].at_ns, 1500u);
  EXPECT_EQ(s.seen[0].max_frames, 1u);  // one frame per STEP: never ahead of the fabric
  EXPECT_EQ(tx.port, 1);
  EXPECT_EQ(tx.len, 70);
  EXPECT_EQ(s.port.next_deadline(), 9000u);  // cached: no STEP
  EXPECT_EQ(s.seen.size(), 1u);
  EXPECT_FALSE(s.port.poll_frame(tx));  // drained (the default answer)
  EXPECT_EQ(s.seen.size(), 2u);
  EXPECT_TRUE(s.seen[1].ops.empty());
  EXPECT_FALSE(s.port.poll_frame(tx));  // drained and nothing new: no STEP
  EXPECT_EQ(s.seen.size(), 2u);
  EXPECT_EQ(s.port.next_deadline(), 7777u);
  EXPECT_EQ(s.seen.size(), 2u);
  s.port.advance(8000);  // a new op: the deadline is asked again, with the op, taking no frame
  EXPECT_EQ(s.port.next_deadline(), 7777u);
  ASSERT_EQ(s.seen.size(), 3u);
  EXPECT_EQ(s.seen[2].max_frames, 0u);
  EXPECT_EQ(s.seen[2].ops.size(), 1u);
}

TEST(LockstepPort, ControlCallsComeAfterTheOpsBeforeThem) {
  Script s;
  s.port.advance(100);
  EXPECT_EQ(s.port.set_port_up(3, false), 0);
  ASSERT_EQ(s.seen.size(), 1u);  // flushed first
  EXPECT_EQ(s.seen[0].max_frames, 0u);
  ASSERT_EQ(s.admin.size(), 1u);
  EXPECT_EQ(s.admin[0], std::make_pair(std::uint8_t{3}, false));
  s.port.next_deadline();  // stale after the control call: asked again
  EXPECT_EQ(s.seen.size(), 2u);
  ASSERT_TRUE(s.port.flush());  // nothing buffered: no STEP
  EXPECT_EQ(s.seen.size(), 2u);
}

TEST(LockstepPort, ABrokenStepBreaksThePortWithAReason) {
  Script s;
  s.fail = "agent 127.0.0.1:1 did not answer STEP within call_timeout=5 s";
  s.port.advance(100);
  transport::TxFrame tx;
  EXPECT_FALSE(s.port.poll_frame(tx));
  EXPECT_NE(s.port.failure().find("call_timeout"), std::string::npos);
  EXPECT_EQ(s.port.next_deadline(), UINT64_MAX);
  EXPECT_FALSE(s.port.flush());
  s.port.advance(200);
  EXPECT_EQ(s.seen.size(), 1u);  // never asked again
}

TEST(LockstepPort, MoreFramesThanAskedForIsAFailure) {
  Script s;
  s.answers.push_back(ap::Frames{{ap::StepFrame{1, {1}}, ap::StepFrame{1, {2}}}, false, 1});
  transport::TxFrame tx;
  s.port.advance(1);
  EXPECT_FALSE(s.port.poll_frame(tx));
  EXPECT_NE(s.port.failure().find("asked for 1 frames and the agent sent 2"), std::string::npos) << s.port.failure();
}

}  // namespace
}  // namespace mrc::harness
