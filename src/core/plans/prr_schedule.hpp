// The schedule of PRR (prereduced ring, Proficz 2018, §4.2), a pure function of the
// (estimated) arrival times and the transfer time tau of one segment (n/P
// bytes). No communication. Proficz 2018's listing is missing; this is ragged's
// design from the text (docs/algorithms/prr.md).
//
// The vector is cut into P segments, as for the ring. Each segment travels one
// chain around a virtual ring (positions 0..P-1 = the ranks sorted by arrival,
// earliest first, ties by rank): P-1 reducing hops, in which each rank adds
// its own contribution and passes the partial on, then P-1 overriding hops
// that carry the result on around the ring. A chain that starts at position c
// in step t sends from position c+h in step t+h, so it runs along a diagonal
// d = t - c of the (step, position) grid; chains on distinct diagonals never
// meet, so in a step every rank sends at most one segment and receives at most
// one.
//
//   * psNo_r = floor((max a - a_r) / tau) (BDR's pre-step counts), A = max psNo:
//     step A starts at the last arrival, steps 0..A-1 are the pre-steps; rank
//     r may send from step arr_r = A - psNo_r on (it needs its own data), and
//     may receive at any step (its agent receives before it arrives).
//   * chain i = 0..P-1 takes diagonal d_i = A - P + 1 + i and starts at the
//     smallest position c_i with d_i >= D(c) = max over p >= c of (arr_p - p),
//     so that no rank sends before it arrives. The latest rank (position P-1)
//     sends chain i in step A + i: one segment per step from its arrival on.
//   * A chain with c_i = 0 ends at the latest rank: it is reduced over all the
//     early ranks in the pre-steps and completed by the latest rank's own
//     contribution. Its reducing hops do not have to wait for their diagonal:
//     they run as early as possible (step e_i + h, e_i >= max(0, max over
//     p <= P-2 of (arr_p - p)), one chain per step), and the latest rank holds
//     the partial until its step A + i. These are the reducing pre-steps.
//   * A chain with c_i > 0 passes the latest rank in its middle: it starts in
//     step 0 at position c_i and is reduced further after the last arrival.
//
// With every arrival within one tau (A = 0) the chains are exactly the ring
// (chain i starts at position P-1-i in step 0) and `ring` is set: the
// algorithm then runs allreduce "ring". When the latest rank arrives at least
// (P-1) tau after the earliest and the others arrive early enough for the
// pipeline (one late process: more than P tau after the next one), every chain
// starts at position 0 and ends at the latest rank, which then sends P results
// and receives P partials (its agent receives those that come before it
// arrives), while the ring would need 2P-2 of each after its arrival.
//
// Example: P = 4, rank 0 late by 5 tau (A = 5), positions (1, 2, 3, 0);
// "a -> b: s" = rank a sends segment s to b, '*' = the result:
//
//   step 0: 1 -> 2: 2                    step 5: 0 -> 1: 2*  3 -> 0: 3
//   step 1: 1 -> 2: 1   2 -> 3: 2        step 6: 0 -> 1: 1*  1 -> 2: 2*
//   step 2: 1 -> 2: 0   2 -> 3: 1        step 7: 0 -> 1: 0*  1 -> 2: 1*  2 -> 3: 2*
//           3 -> 0: 2                    step 8: 0 -> 1: 3*  1 -> 2: 0*  2 -> 3: 1*
//   step 3: 1 -> 2: 3   2 -> 3: 0        step 9: 1 -> 2: 3*  2 -> 3: 0*
//           3 -> 0: 1                    step 10: 2 -> 3: 3*
//   step 4: 2 -> 3: 3   3 -> 0: 0
//
// Steps 0-4 are the reducing pre-steps; rank 0's agent receives segments 2, 1
// and 0 before rank 0 arrives, and every segment ends at rank 0. After its
// arrival rank 0 needs 4 steps, ranks 1, 2, 3 need 5, 6, 6; the ring 6 each.
// (tests/unit/prr_schedule_test.cpp prints any schedule this way.) Every
// segment is reduced exactly once over all ranks and then delivered to every
// rank; P(2P-2) transfers in all, as the ring.
//
// Cost of building it: O(P^2) time, and O(P^2) memory for every rank's program or O(P) for one
// rank's (`only`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ragged::plans::prr {

/// `from` sends segment `segment` to `to`: a partial the receiver reduces into its own
/// (reduce), or the finished result the receiver stores (override).
struct Transfer {
  int from = -1;
  int to = -1;
  int segment = -1;
  bool reduce = true;
};

/// What one rank does in one step: at most one send and one receive (-1: none).
struct RankStep {
  std::int64_t step = 0;
  int send_to = -1;
  int send_segment = -1;
  int recv_from = -1;
  int recv_segment = -1;
  bool recv_reduce = false;  ///< the receive is a partial to reduce (else a result to store)
};

/// One segment's chain: its diagonal and start position, where its reducing hops begin.
struct Chain {
  int segment = -1;
  std::int64_t diagonal = 0;      ///< d: the hop from position p runs in step d + p (mod-P wrap adds P)
  int start = 0;                  ///< c: the position whose own data starts the partial
  std::int64_t reduce_start = 0;  ///< step of the first hop (the reducing hops run consecutively)
  std::int64_t latest_send = 0;   ///< step in which the latest rank sends this segment
};

struct Schedule {
  int procs = 0;
  /// No pre-steps (every arrival within one tau, no tau, or one rank): the regular ring.
  bool ring = false;
  /// A: the step that starts at the last arrival; steps before it are pre-steps.
  std::int64_t last_arrival_step = 0;
  /// order[p]: the rank at virtual ring position p (earliest first).
  std::vector<int> order;
  /// arrival_step[r]: the first step in which rank r may send.
  std::vector<std::int64_t> arrival_step;
  std::vector<Chain> chains;
  /// The non-empty steps in order, and the step number of each.
  std::vector<std::vector<Transfer>> steps;
  std::vector<std::int64_t> step_number;
  /// programs[r]: rank r's non-empty steps, in step order.
  std::vector<std::vector<RankStep>> programs;

  [[nodiscard]] const std::vector<RankStep>& program(int rank) const {
    return programs[static_cast<std::size_t>(rank)];
  }
  /// Index in program(rank) of its first send (program(rank).size() if none): the steps before
  /// it only receive partials and need no input data, so the rank's agent can run them.
  [[nodiscard]] std::size_t first_send(int rank) const;
  /// s_i of Proficz 2018: the segment rank `rank` sends first (-1 if none). In the ring it is
  /// rank - 1 (mod P); PRR moves it by the pre-steps.
  [[nodiscard]] int first_segment(int rank) const;
  /// The ranks `rank` sends to and receives from (its virtual ring neighbours), for the warm-up.
  [[nodiscard]] int successor(int rank) const;
  [[nodiscard]] int predecessor(int rank) const;
};

/// The PRR schedule for arrivals.size() ranks. Arrival times must be finite; tau <= 0 (or not
/// finite) gives the ring. With `only` >= 0 it keeps rank `only`'s program alone (the others
/// empty, no `steps`): what a rank running the algorithm needs, in O(P) memory instead of O(P^2)
/// (at P = 560, 45 MB per rank, 25 GB for a simulated world, which shares one address space).
Schedule make_schedule(std::span<const double> arrivals, double tau, int only = -1);

/// Times in the step model (a step lasts tau; the last arrival at 0): when each rank has the
/// whole result, counted from the last arrival (the end of its last step, in steps, minus A).
std::vector<std::int64_t> finish_after_last_arrival(const Schedule& schedule);

}  // namespace ragged::plans::prr
