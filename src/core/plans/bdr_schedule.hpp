// The schedule of BDR (Background Disseminated Ring, listing 2 of Proficz 2021),
// a pure function of the process count, the (estimated) arrival times and the
// transfer time tau of one segment. No communication.
//
// Segment r is the block of rank r. The schedule is a sequence of steps; in a
// step a rank sends at most one segment and receives at most one.
//
//   1. Pre-steps (listing lines 22-33). psNo_q = floor((max a - a_q) / tau) is
//      the number of whole steps rank q could work before the last arrival.
//      Listing step s = 0 .. S-1 (S = max psNo) is aligned so that it ends
//      (S - s - 1) tau before the last arrival; rank r may send in it once
//      psNo_r >= S - s, i.e. once it has arrived. The ranks are visited slowest
//      first (pa); each sends its own segment to r-1, r-2, ... (one receiver
//      more per send: rc = r - 1 - prevSent_r mod P) when that receiver has no
//      receive booked in the step yet.
//   2. The ring (lines 34-45): from step S on, rank i forwards segment i-j to
//      i+1 in step S+j while prevSent_seg + j < P-1, so every segment travels
//      the ring only as far as the pre-steps have not already carried it.
//   3. Steps in which no rank does anything are dropped.
//
// Example (figure 4 of Proficz 2021): P = 4, rank 0 late by 2 tau, so psNo =
// (0, 2, 2, 2) and S = 2 ("a -> b: s" = rank a sends segment s to b):
//
//   step 0 (pre):  1 -> 0: 1   2 -> 1: 2   3 -> 2: 3
//   step 1 (pre):  1 -> 3: 1   2 -> 0: 2   3 -> 1: 3
//   step 2 (ring): 0 -> 1: 0   1 -> 2: 1   2 -> 3: 2   3 -> 0: 3
//   step 3 (ring): 1 -> 2: 0
//   step 4 (ring): 2 -> 3: 0
//
// Rank 0 receives segments 1 and 2 while it still computes and has one step
// left when it arrives; the plain ring would need three after its arrival.
//
// Every segment reaches every other rank exactly once; a rank forwards only a
// segment it received in an earlier step; the slowest rank never sends in a
// pre-step. Cost of building it: O(P^3) in the worst case (at most P(P-1)
// non-empty pre-steps of O(P) work), independent of tau, with O(P^2) memory.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ragged::plans::bdr {

/// `from` sends segment `segment` to `to`.
struct Transfer {
  int from = -1;
  int to = -1;
  int segment = -1;
};

/// What one rank does in one step: at most one send and one receive (-1: none).
struct RankStep {
  int step = 0;
  int send_to = -1;
  int send_segment = -1;
  int recv_from = -1;
  int recv_segment = -1;
};

struct Schedule {
  int procs = 0;
  /// The non-empty steps in order; steps [0, pre_steps) are pre-steps, the rest the ring.
  std::vector<std::vector<Transfer>> steps;
  int pre_steps = 0;
  /// For each kept step, its number s in listing 2 (pre-steps 0..S-1, ring steps S+j).
  std::vector<std::int64_t> listing_step;
  /// S = max_q psNo_q: the pre-steps the listing reserves before the last arrival.
  std::int64_t listing_pre_steps = 0;
  /// psNo_q of every rank.
  std::vector<std::int64_t> pre_step_budget;
  /// programs[r]: rank r's non-empty steps, in step order.
  std::vector<std::vector<RankStep>> programs;

  [[nodiscard]] const std::vector<RankStep>& program(int rank) const {
    return programs[static_cast<std::size_t>(rank)];
  }
  /// Index in program(rank) of the rank's first send (program(rank).size() if it never sends):
  /// the steps before it are the background part of listing 2 (lines 47-51).
  [[nodiscard]] std::size_t first_send(int rank) const;
};

/// psNo_q = floor((max_r a_r - a_q) / tau) for every rank q. A quotient within one part in
/// 10^9 of an integer counts as that integer, so that estimates exactly k tau apart give k
/// pre-steps despite rounding. tau <= 0 (or not finite) gives no pre-steps at all.
std::vector<std::int64_t> pre_step_counts(std::span<const double> arrivals, double tau);

/// The BDR schedule for arrivals.size() ranks. Arrival times must be finite.
Schedule make_schedule(std::span<const double> arrivals, double tau);

}  // namespace ragged::plans::bdr
