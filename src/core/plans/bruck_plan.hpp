// Bruck allgather rank arithmetic for allgather "bruck". Pure functions, no
// communication.
//
// Each rank works in a rotated view of the receive buffer: position i holds
// block (rank + i) mod P. It starts with its own block at position 0. In round
// k (distance d = 2^k, k = 0..ceil(log2 P)-1) it sends positions [0, n) to
// rank - d and receives positions [d, d + n) from rank + d, where
// n = min(d, P - d): after round k it holds positions [0, min(2d, P)). A final
// rotation by `rank` blocks puts block j at position j.
//
//   P = 5, rank 0 (positions hold blocks 0+i):
//   start      [0 . . . .]
//   d = 1      [0 1 . . .]   gets position 1 from rank 1 (its position 0)
//   d = 2      [0 1 2 3 .]   gets positions 2,3 from rank 2 (its 0,1 = blocks 2,3)
//   d = 4      [0 1 2 3 4]   gets position 4 from rank 4 (its 0 = block 4)
#pragma once

#include <cassert>

#include "plans/ring_plan.hpp"

namespace ragged::plans::bruck {

/// ceil(log2 procs): the number of rounds.
constexpr int rounds(int procs) {
  assert(procs > 0);
  int r = 0;
  while ((1LL << r) < procs) ++r;
  return r;
}

struct Round {
  int send_to = -1;
  int recv_from = -1;
  int distance = 0;  ///< d = 2^k: the received blocks land at positions [d, d + blocks)
  int blocks = 0;    ///< min(d, P - d): positions [0, blocks) go out
};

constexpr Round round(int rank, int procs, int k) {
  assert(k >= 0 && k < rounds(procs));
  Round out;
  out.distance = 1 << k;
  out.blocks = out.distance < procs - out.distance ? out.distance : procs - out.distance;
  out.send_to = ring::wrap(static_cast<long long>(rank) - out.distance, procs);
  out.recv_from = ring::wrap(static_cast<long long>(rank) + out.distance, procs);
  return out;
}

/// The block held at position `position` of rank `rank`'s rotated view.
constexpr int block_at(int rank, int procs, int position) {
  return ring::wrap(static_cast<long long>(rank) + position, procs);
}

}  // namespace ragged::plans::bruck
