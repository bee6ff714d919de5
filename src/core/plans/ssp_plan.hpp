// The communication plans of the stale-synchronous allreduce (SspAllreduce, Iakymchuk et al. 2021, §III-A,
// algorithm 1), as pure functions: which segment each rank sends to whom and receives from whom
// at each step. Every rank has the same number of steps; step t is also the channel number: the
// sender of step t writes into the receiver's slots of channel t, and the receiver returns its
// credits to the sender's credits of channel t. One sender per (receiver, channel) and one
// receiver per (sender, channel), so slots and credits never collide.
//
// Hypercube (algorithm 1), P = m + e with m the largest power of two <= P, d = log2 m:
//
//   step 0        extra rank m+i sends its contribution to core rank i (reduced there)
//   steps 1..d    core rank r exchanges its whole partial reduction with r XOR 2^(t-1)
//   step d+1      core rank i sends the result to extra rank m+i (copied there)
//
//   P = 6 (m = 4, d = 2):   step 0   step 1   step 2   step 3
//     rank 0                <- 4     <-> 1    <-> 2    -> 4
//     rank 1                <- 5     <-> 0    <-> 3    -> 5
//     rank 2                         <-> 3    <-> 0
//     rank 3                         <-> 2    <-> 1
//     rank 4                -> 0                       <- 0
//     rank 5                -> 1                       <- 1
//
// Ring (future work in Iakymchuk et al. 2021, §VII): the vector in P segments, steps 0..P-2 the ring
// reduce-scatter (send segment r-t-1 right, reduce segment r-t-2 from the left), steps
// P-1..2P-3 the ring allgather (plans/ring_plan.hpp), every step a channel of its own.
#pragma once

#include <cstddef>
#include <vector>

namespace ragged::plans::ssp {

enum class Topology { hypercube, ring };

/// What a received segment does to the working vector.
enum class Apply { reduce, copy };

struct Step {
  int send_to = -1;      ///< rank, or -1: no send this step
  int send_segment = 0;  ///< segment sent (the whole vector is segment 0 of 1 on the hypercube)
  int recv_from = -1;    ///< rank, or -1: no receive this step
  int recv_segment = 0;  ///< segment received
  Apply apply = Apply::reduce;
};

/// Segments the vector is cut into: 1 on the hypercube, P on the ring.
int segments(Topology topology, int procs);

/// Steps (= channels) of every rank: d + 2 on the hypercube (with the fold steps, also when P is
/// a power of two, where they are empty), 2(P-1) on the ring.
int steps(Topology topology, int procs);

/// Rank `rank`'s steps.
std::vector<Step> plan(Topology topology, int procs, int rank);

}  // namespace ragged::plans::ssp
