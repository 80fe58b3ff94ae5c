// The `positive_control` check (anchors P4): the run exercised the DUT at all, so that a DUT
// that sent nothing cannot pass every "never does X" check. It counts WRITE data frames the DUT
// sent; when the DUT sent none but answered with feedback (the DUT as responder), the data frames
// that reached it are the traffic instead. An empty capture is a FAIL, never a PASS.
#include "harness/verdict/check_support.hpp"
#include "harness/verdict/checks.hpp"

namespace mrc::harness {

CheckResult run_positive_control(const PositiveControlCheck& spec, const CheckContext& ctx) {
  CheckResult r = make_result("positive_control", "positive_control");
  const auto taps = select_taps(ctx, TapSide::kAll);
  if (integrity_gate(ctx, taps, "any frame", r)) return r;
  const auto shared = trace_of(ctx, taps);
  const Trace& t = *shared;
  note_decode_issues(ctx, t, r);

  std::uint64_t from_pkts = 0, from_bytes = 0, to_pkts = 0, to_bytes = 0, feedback = 0;
  const PacketRec* first_from = nullptr;
  const PacketRec* first_to = nullptr;
  for (const PacketRec& p : t.packets) {
    if (p.from_dut && p.is_feedback()) ++feedback;
    if (!p.is_write_data()) continue;
    if (p.from_dut) {
      ++from_pkts;
      from_bytes += p.payload_len;
      if (!first_from) first_from = &p;
    } else {
      ++to_pkts;
      to_bytes += p.payload_len;
      if (!first_to) first_to = &p;
    }
  }
  r.metrics["data_from_dut"] = static_cast<double>(from_pkts);
  r.metrics["payload_bytes_from_dut"] = static_cast<double>(from_bytes);
  r.metrics["data_to_dut"] = static_cast<double>(to_pkts);
  r.metrics["payload_bytes_to_dut"] = static_cast<double>(to_bytes);
  r.metrics["feedback_from_dut"] = static_cast<double>(feedback);

  const bool responder = from_pkts == 0 && feedback > 0;
  const std::uint64_t pkts = responder ? to_pkts : from_pkts;
  const std::uint64_t bytes = responder ? to_bytes : from_bytes;
  const std::string what = responder ? "data frames to the DUT (it answered with " + std::to_string(feedback) + " feedback frames)"
                                     : "data frames from the DUT";
  const PacketRec* first = responder ? first_to : first_from;
  if (first) {
    r.evidence.insert(r.evidence.begin(),
                      packet_evidence(ctx, *first, "bth.opcode", ">= " + std::to_string(spec.min_packets) + " data frames",
                                      std::to_string(pkts) + " data frames", "first data frame counted"));
  }
  if (pkts < spec.min_packets || bytes < spec.min_bytes) {
    conclude(r, Verdict::kFail, "the run did not exercise the DUT: " + std::to_string(pkts) + " " + what + ", " +
                                    std::to_string(bytes) + " payload bytes; need >= " + std::to_string(spec.min_packets) +
                                    " frames and >= " + std::to_string(spec.min_bytes) + " bytes");
    return r;
  }
  conclude(r, Verdict::kPass, std::to_string(pkts) + " " + what + ", " + std::to_string(bytes) + " payload bytes (>= " +
                                  std::to_string(spec.min_packets) + " frames, >= " + std::to_string(spec.min_bytes) +
                                  " bytes)");
  return r;
}

}  // namespace mrc::harness
