// Neighbor-exchange (NEX) rank arithmetic for allgather "nex", even P only.
// Pure functions, no communication.
//
// Ranks pair up as (0,1), (2,3), ...: pair k = {2k, 2k+1}. Step 0 swaps the
// two blocks of each pair, so that both ranks of pair k hold blocks 2k and
// 2k+1, which are contiguous in the receive buffer. In every later step s
// (1..P/2-1) each rank swaps two blocks (one pair) with a neighbor, the pair it
// received in step s-1 going out:
//
//   even rank r:  s odd -> left  neighbor r-1,  s even -> right neighbor r+1
//   odd  rank r:  s odd -> right neighbor r+1,  s even -> left  neighbor r-1
//
// so that pairs spread in both directions around the ring:
//
//   P = 6, pairs A={0,1} B={2,3} C={4,5}; what each rank holds after a step
//
//            rank:  0    1    2    3    4    5
//   step 0         A    A    B    B    C    C     (0<->1, 2<->3, 4<->5)
//   step 1         AC   AB   BA   BC   CB   CA    (1<->2, 3<->4, 5<->0)
//   step 2         ACB  ABC  BAC  BCA  CBA  CAB   (0<->1, 2<->3, 4<->5)
//
// The pair an even rank of pair k receives in step s is k-(s+1)/2 (s odd) or
// k+s/2 (s even), modulo P/2; an odd rank's is k+(s+1)/2 (s odd) or k-s/2.
#pragma once

#include <cassert>

#include "plans/ring_plan.hpp"

namespace ragged::plans::nex {

/// What one rank does in one step: swap blocks with `peer`. Blocks are numbered
/// as in the receive buffer; a transfer covers [first, first + blocks).
struct Step {
  int peer = -1;
  int send_first = 0;
  int send_blocks = 0;
  int recv_first = 0;
  int recv_blocks = 0;
};

/// Number of steps for even procs: P/2.
constexpr int steps(int procs) {
  assert(procs > 0 && procs % 2 == 0);
  return procs / 2;
}

/// The pair (index k, blocks 2k and 2k+1) that `rank` receives in step `step` (1..P/2-1);
/// for step 0 its own pair.
constexpr int received_pair(int rank, int procs, int step) {
  assert(procs % 2 == 0 && step >= 0 && step < steps(procs));
  const int pairs = procs / 2;
  const int k = rank / 2;
  if (step == 0) return k;
  const bool odd_step = step % 2 == 1;
  const int shift = odd_step ? (step + 1) / 2 : step / 2;
  const bool even_rank = rank % 2 == 0;
  // even ranks go left first, odd ranks right first; the direction flips every step
  const bool leftwards = even_rank == odd_step;
  return ring::wrap(leftwards ? static_cast<long long>(k) - shift : static_cast<long long>(k) + shift, pairs);
}

/// The neighbor `rank` exchanges with in step `step` (0..P/2-1).
constexpr int peer(int rank, int procs, int step) {
  assert(procs % 2 == 0 && step >= 0 && step < steps(procs));
  const bool even_rank = rank % 2 == 0;
  // step 0 and every even step: within the pair; odd steps: with the neighboring pair
  const bool right = (step % 2 == 0) == even_rank;
  return right ? ring::right(rank, procs) : ring::left(rank, procs);
}

/// The whole step.
constexpr Step step(int rank, int procs, int s) {
  Step out;
  out.peer = peer(rank, procs, s);
  if (s == 0) {
    out.send_first = rank;
    out.send_blocks = 1;
    out.recv_first = out.peer;
    out.recv_blocks = 1;
    return out;
  }
  out.send_first = 2 * received_pair(rank, procs, s - 1);
  out.send_blocks = 2;
  out.recv_first = 2 * received_pair(rank, procs, s);
  out.recv_blocks = 2;
  return out;
}

}  // namespace ragged::plans::nex
