// The failover timeline a timing check of a failover metric draws: per failure trial, relative
// to its fault, when the DUT first lost data on a failed EV, last sent on one, first retransmitted
// on a healthy EV, and reported a failed EV ASSUMED_BAD, against the bound the case judges. A
// reader sees at once which step of the failover came late.
#pragma once

#include "harness/case/vocabulary.hpp"
#include "harness/verdict/check_context.hpp"
#include "harness/verdict/trace.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

// True for the metrics that time a failure event (one trial per fault).
bool is_failover_metric(TimingMetric m);

// A Chart of kind kEvents; `bound_ns` is the bound judged (the budget included), drawn from where
// the metric's span starts (the first loss for first_retx_other_path, else the fault).
Chart failover_timeline(TimingMetric m, const CheckContext& ctx, const Trace& t, double bound_ns);

}  // namespace mrc::harness
