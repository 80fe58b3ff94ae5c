// One message of every type with non-default values in every field: the round-trip set and the
// fuzz seed corpus (tests/fuzz/agent_corpus/<name>.bin is the encoding of each).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "harness/agentproto/messages.hpp"

namespace mrc::agentproto::testing {

inline std::vector<std::pair<std::string, Message>> sample_messages() {
  std::vector<std::pair<std::string, Message>> v;
  auto add = [&v](std::string name, std::uint32_t seq, Body b, std::uint16_t flags = 0) {
    v.emplace_back(std::move(name), Message{flags, seq, std::move(b)});
  };
  add("hello", 1, Hello{kProtocolVersion, "tok", "mrc-conform 0.1.0"});
  add("hello_ok", 1,
      HelloOk{kProtocolVersion, "mrc-dut-agent 0.1.0 reference", {"stev", "srv6", "trim_nack"},
              {{1, "veth-a1", {2, 0, 0, 0, 0, 1}, true}, {2, "veth-a2", {2, 0, 0, 0, 0, 2}, false}}});
  ApplyConfig a;
  a.format_mode = FormatMode::kSrv6;
  a.format_widths = {32, 16, 16, 16, 16};
  a.ev_mode = EvMode::kExplicit;
  a.fields = {{32, 0xfc000000, 0, 0, 0}, {16, 0x0100, 1, 15, 0xF}};
  a.evs = {{{0x12, 0x34}, 1}, {{0xFF}, 2}, {std::vector<std::uint8_t>(32, 0xAB), 8}};
  a.generate_count = 7;
  a.generate_seed = 0x0123456789ABCDEFull;
  a.ev_min_active = 1;
  a.denied = {2};
  a.ev_event_mask = 0x7;
  a.cc_line_rate_bps = 400'000'000'000ull;
  a.cc_fabric_trims = false;
  NsccParams cc;
  cc.base_rtt = 12000;
  cc.eta = 0.15;
  cc.gamma = 0.8;
  cc.disable_qa = true;
  cc.qa_gate = 3;
  a.cc = cc;
  a.qp = QpParams{2, 1024, 4, 6, 64, 32, 10, 3, 5, 2, 0x100};
  a.ipv4 = true;
  a.seed = 99;
  a.regions = {{0x10000000, 65536}, {0, 4096}};
  a.dscp = DscpValues{20, 22, 18, 21, 23, 40};  // v4: non-default traffic classes (W13)
  PeerInfo peer;
  peer.gid = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  peer.mac = {2, 0, 0, 0, 0, 2};
  peer.ipv4 = 0x0A000002;
  peer.qpns = {0x11, 0x12};
  peer.mpr_dest = 4;
  peer.max_wimm_dest = 16;
  peer.qp_caps = 1;
  peer.first_psn = 0x200;
  add("apply_config_no_peer", 2, a);
  a.peer = peer;
  add("apply_config", 3, a);
  ApplyConfig gen;
  gen.ev_mode = EvMode::kGenerated;
  gen.format_widths = {16, 16};
  gen.fields = {{16, 0, 1, 0xFFF, 0x0FFF}};
  gen.generate_count = 32;
  add("apply_config_generated", 4, gen);
  add("apply_ok", 3,
      ApplyOk{{0xfd, 0x6d, 0x72, 0x63, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 1}, 0, {0x40, 0x41},
              {{0x10000000, 65536, 1, 2}}, 6, 32, 2, 0x100});
  add("connect", 5, Connect{peer});
  add("ok", 5, Ok{});
  add("ok_closing", 9, Ok{}, kFlagClosing);
  add("post_write", 6, PostWrite{1, 0xDEADBEEF, 0, 128, 4096, 0x20000000, 0x77, true, 0xCAFE});
  add("post_recv", 7, PostRecv{1, 42});
  add("poll", 8, Poll{100, 50});
  add("completions", 8,
      Completions{123456789, {{1000, 0xDEADBEEF, 1, 0, true, false, 0, 4096}, {2000, 42, 1, 5, false, true, 0xCAFE, 4096}},
                  {{1500, 3, 2, 2, 0}, {1600, 3, 2, 1, 4}}, true});
  add("set_ev_state", 10, SetEvState{3, true});
  add("port_admin", 11, PortAdmin{2, false});
  add("ep_op_probe", 12, EpOp{EpOpKind::kProbeEv, 5, 26});
  add("ep_op_port_status", 13, EpOp{EpOpKind::kPortStatusUpdate, 0, 48});
  add("read_memory", 14, ReadMemory{0x10000100, 256});
  add("memory", 14, MemoryBytes{0x10000100, std::vector<std::uint8_t>{1, 2, 3, 4, 5}});
  add("write_memory", 15, WriteMemory{0x10000000, std::vector<std::uint8_t>(300, 0x5A)});
  add("query_state", 16, QueryState{});
  add("state", 16,
      StateReport{999, {{0, 1, {0x12, 0x34}, {0x00, 0x12, 0xC0, 0x34}, 0x0012C034, 1, false}, {1, 2, {0xFF}, {0xFF}, 1, 4, true}},
                  {{"frames_tx", 10}, {"agent_tx_errors", 0.5}}});
  EvProfileOp evp;
  evp.state = ProfileStateSetting::kOnline;
  evp.mode = EvMode::kGenerated;
  evp.fields = std::vector<EvField>{{16, 0, 1, 0xFFF, 0x0FFF}};
  evp.count = 16;
  evp.min_active = 2;
  evp.event_mask = 0x6;
  evp.seed = 0xFEEDull;
  add("ev_profile_op", 19, evp);
  EvProfileOp evp_state;
  evp_state.state = ProfileStateSetting::kOffline;
  add("ev_profile_op_state_only", 20, evp_state);
  add("cc_profile_op", 21,
      CcProfileOp{ProfileStateSetting::kInit, "uet-1.0-nscc", {{"base_rtt", "12000"}, {"eta", "0.15"}}});
  add("replace_ev", 22, ReplaceEv{EvValue{{0x12, 0x34}, 1}, {{{0x56, 0x78}, 2}, {{0x9A}, 1}}, true});
  add("replace_ev_unpopulated", 23, ReplaceEv{std::nullopt, {{{0x01}, 1}}, false});
  add("set_profile_online", 24, SetProfileOnline{false});
  add("restrict_device", 25, RestrictDevice{{"modify_online", "trim_nack"}, 64});
  // Version 5, lockstep (agent-protocol.md §9).
  add("hello_ok_virtual", 1,
      HelloOk{kProtocolVersion, "mrc-dut-agent 0.1.0 lockstep reference", {"stev"}, {{1, "virtual-p1", {}, true}},
              Clock::kVirtual});
  add("attach", 26, Attach{{2, 0, 0, 0, 0, 9}, {0xfd, 0x6d, 0x72, 0x63, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9}, 0x0a000009, 8});
  add("step", 27,
      Step{{StepOp{StepOpKind::kFrame, 10000, 3, std::vector<std::uint8_t>(80, 0x5C)}, StepOp{StepOpKind::kAdvance, 12500, 0, {}}},
           1});
  add("step_empty", 28, Step{{}, 0});
  add("frames", 27, Frames{{StepFrame{2, std::vector<std::uint8_t>(64, 0xA5)}}, false, 2010000});
  add("frames_drained", 28, Frames{{}, true, UINT64_MAX});
  add("reset", 17, Reset{});
  add("bye", 18, Bye{});
  add("error", 18, Error{ErrorCode::kRejected, 22, "modify_qp(RTR): Invalid argument"});
  add("error_fatal", 0, Error{ErrorCode::kBadToken, 0, "wrong token"}, kFlagClosing);
  return v;
}

}  // namespace mrc::agentproto::testing
