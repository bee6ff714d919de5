// The chain of SLT (sorted linear tree, Proficz 2018, §4.1) and its step model.
// Pure functions, no communication.
//
// SLT is allreduce "pipelined_linear" (plans/pipelined_linear_plan.hpp) on a
// chain sorted by (estimated) arrival: position 0, where the reduction
// completes and the results start back, is the latest process; the far end,
// which starts the pipeline, is the earliest. The faster processes start
// reducing earlier, the later ones have more time to compute. Ties keep rank
// order, so with equal arrivals (or none) the chain is pipelined_linear's own
// (position k = rank k).
//
//   arrivals (rank 0..4):  3.0  1.0  2.0  1.0  5.0
//   chain (position 0..4): 4 0 2 1 3        rank 4 completes the reduction
//
// The step model (time in segment transfers tau, one segment per link
// direction per step, as in figure 6 of Proficz 2018): the far end sends its
// segments down one per step from its arrival; a rank passes segment t on one
// step after it received it (and not before it arrived); position 0 sends the
// result of t back up as soon as it holds it; every rank forwards each result
// one step after receiving it. A transfer into a rank starts only once that
// rank arrived, unless its agent receives for it (`agent_receives`: the
// background part receives the partial segments that come before the rank's
// estimated arrival).
//
// Figure 6 of Proficz 2018: P = 4, 5 segments, process 0 late by 4 tau. The
// regular linear tree, process 0 first in the pipeline, takes 14 tau; SLT puts
// it last (at position 0) and takes 12 tau (tests/unit/slt_order_test.cpp):
//
//   regular (chain 3 2 1 0)        SLT (chain 0 1 2 3)
//   0 -> 1  a..e  steps 4..8       3 -> 2  a..e  steps 0..4
//   1 -> 2  a..e  steps 5..9       2 -> 1  a..e  steps 1..5
//   2 -> 3  a..e  steps 6..10      1 -> 0  a..e  steps 4..8  (0 arrives at 4)
//   3 -> 2  A..E  steps 7..11      0 -> 1  A..E  steps 5..9
//   2 -> 1  A..E  steps 8..12      1 -> 2  A..E  steps 6..10
//   1 -> 0  A..E  steps 9..13      2 -> 3  A..E  steps 7..11
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ragged::plans::slt {

/// chain[k]: the rank at position k; position 0 completes the reduction (the latest arrival),
/// position P-1 starts it (the earliest). Equal arrivals keep rank order.
std::vector<int> chain_order(std::span<const double> arrivals);

/// Whether `chain` is pipelined_linear's own chain (position k = rank k).
bool is_rank_order(std::span<const int> chain);

struct StepModel {
  /// done[r]: when rank r's last transfer (send or receive) ends, in steps from time 0.
  std::vector<double> done;
  /// early[r]: how many partial segments (0, 1, ...) reach rank r no later than its arrival;
  /// with agent_receives these are what its agent receives in the background.
  std::vector<std::size_t> early;
  /// The last done minus the first arrival: figure 6's "total time of the execution".
  double total = 0;
};

/// The step model of the pipelined chain `chain` (chain[0] completes the reduction) for
/// `segments` segments; arrival[r] in steps (one step = one segment transfer, tau).
StepModel step_model(std::span<const int> chain, std::span<const double> arrival, std::size_t segments,
                     bool agent_receives);

}  // namespace ragged::plans::slt
