// The schedule of BGD (Background Greedy Dissemination), ragged's step beyond
// BDR (Proficz 2021, listing 2): a pure function of the process count, the
// (estimated) arrival times and the transfer time tau of one segment.
//
// BDR lets a rank send only its own segment before the last arrival, and only
// to the ranks before it in the ring; after the last arrival every segment the
// pre-steps did not finish travels the ring, so the last rank's segment needs
// P-1 more steps. BGD keeps BDR's step model (in a step a rank sends at most
// one segment and receives at most one; a step lasts tau) and fills every step
// greedily instead:
//
//   * time slot k starts at t0 + k tau, t0 = the earliest arrival; rank r owns
//     its segment from slot own_slot[r] = ceil((a_r - t0) / tau) on;
//   * any rank that holds a segment may pass it on, also before it arrives
//     itself (its agent forwards what it received in the background); only the
//     rank's own segment waits for its arrival;
//   * in each slot the segments are served rarest first (fewest holders; ties:
//     the later owner first, then the lower rank); each holder not yet busy in
//     the slot sends the segment to the rank that lacks it, receives nothing
//     else in the slot and has the most segments still to receive (ties: the
//     first after the holder in ring order), since the receive links bound the
//     finish;
//   * slots in which nothing can move are dropped (the next arrival follows).
//
// A segment that nobody else holds therefore spreads like a binomial broadcast
// (its holders double every step) while older, widely held segments fill the
// receive links that would otherwise idle. With all arrivals within one tau
// (a balanced pattern, Proficz 2021, §2: omega < tau), with no tau, or above
// max_greedy_procs ranks the schedule is exactly the ring.
//
// Every segment reaches every other rank exactly once; a rank sends only a
// segment it holds at the start of the slot; in a slot a rank sends at most one
// segment and receives at most one. The background part of a rank is its
// program up to its first send of its own segment (first_own_send).
//
// Cost of building it: at most P(P-1) non-empty slots, each O(P^2) in the
// worst case, O(P^2) memory.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "plans/bdr_schedule.hpp"

namespace ragged::plans::bgd {

using bdr::RankStep;
using bdr::Transfer;

/// Above this many ranks BGD's schedule is the ring (the greedy construction is O(P^3) a slot).
inline constexpr int max_greedy_procs = 512;

struct Schedule {
  int procs = 0;
  /// True when the schedule is the plain ring (balanced arrivals, no tau, or too many ranks).
  bool ring = false;
  /// The non-empty steps in order.
  std::vector<std::vector<Transfer>> steps;
  /// For each kept step, its time slot k (it starts at t0 + k tau).
  std::vector<std::int64_t> slot;
  /// own_slot[r]: the first slot in which rank r holds its own segment.
  std::vector<std::int64_t> own_slot;
  /// programs[r]: rank r's non-empty steps, in step order.
  std::vector<std::vector<RankStep>> programs;

  [[nodiscard]] const std::vector<RankStep>& program(int rank) const {
    return programs[static_cast<std::size_t>(rank)];
  }
  /// Index in program(rank) of the rank's first send of its own segment (program(rank).size()
  /// if none): the steps before it form the background part, which needs no input data.
  [[nodiscard]] std::size_t first_own_send(int rank) const;
};

/// The BGD schedule for arrivals.size() ranks. Arrival times must be finite.
Schedule make_schedule(std::span<const double> arrivals, double tau);

}  // namespace ragged::plans::bgd
