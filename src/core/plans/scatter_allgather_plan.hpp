// Piece arithmetic for bcast "scatter_allgather" (van de Geijn). Pure functions, no
// communication.
//
// Ranks are relative to the root (v = rank - root mod P, plans/binomial_tree.hpp). The root's
// vector of `count` elements is cut into P pieces, piece v for relative rank v, nearly equal as
// the ring's segments (plans/ring_plan.hpp): the first count % P pieces have one element more,
// so the last pieces are the short ones and, when count < P, the empty ones.
//
// Scatter: the binomial tree. The subtree of v is the relative ranks [v, v + subtree_size(v)),
// so its pieces are one contiguous range of elements, subtree(): v receives that range from
// its parent, then sends each child c the range of c's subtree, farthest child first. An
// empty range is neither sent nor received.
//
// Allgather: the ring on relative ranks (v sends to v+1, receives from v-1): at step
// s = 0..P-2, v sends piece v-s and receives piece v-s-1. After the scatter a rank already
// holds every piece of its subtree (the root holds all of them), so a piece the receiver
// holds, or an empty one, is neither sent nor received: ring_transfers(). The receiver still
// forwards such a piece at the next step, from its copy.
//
//   P = 6, count 6 (one element a piece), root 0:
//     scatter   0 -> 4: pieces 4,5    0 -> 2: pieces 2,3    0 -> 1: piece 1
//               4 -> 5: piece 5       2 -> 3: piece 3
//     ring      step 0: 0 -> 1 (piece 0), 1 -> 2 (1), 2 -> 3 (2), 3 -> 4 (3), 4 -> 5 (4);
//               5 -> 0 is skipped at every step (the root holds everything), and so is
//               every piece the receiver got in the scatter (3 -> 4 at step 4: piece 5).
#pragma once

#include <cassert>
#include <cstddef>

#include "plans/binomial_tree.hpp"
#include "plans/ring_plan.hpp"

namespace ragged::plans::scatter_allgather {

/// A range of elements [first, first + count).
struct Range {
  std::size_t first = 0;
  std::size_t count = 0;
  friend constexpr bool operator==(const Range&, const Range&) = default;
};

/// Piece `v` (0..procs-1) of a `count`-element vector.
constexpr Range piece(std::size_t count, int procs, int v) {
  assert(procs > 0 && v >= 0 && v < procs);
  return {ring::segment_offset(count, procs, v), ring::segment_size(count, procs, v)};
}

/// The pieces of the binomial subtree of relative rank `v`: what v receives in the scatter
/// (the whole vector for the root).
constexpr Range subtree(std::size_t count, int procs, int v) {
  assert(procs > 0 && v >= 0 && v < procs);
  const std::size_t first = ring::segment_offset(count, procs, v);
  const std::size_t end = ring::segment_offset(count, procs, v + binomial::subtree_size(v, procs));
  return {first, end - first};
}

/// Whether relative rank `v` holds piece `q` once the scatter is done: the pieces of its subtree.
constexpr bool held_after_scatter(int procs, int v, int q) {
  assert(procs > 0 && v >= 0 && v < procs && q >= 0 && q < procs);
  return q >= v && q < v + binomial::subtree_size(v, procs);
}

/// Ring step `step` (0..procs-2): the piece relative rank `v` sends to v+1.
constexpr int ring_send_piece(int procs, int v, int step) { return ring::allgather_send_block(v, procs, step); }
/// Ring step `step` (0..procs-2): the piece relative rank `v` receives from v-1.
constexpr int ring_recv_piece(int procs, int v, int step) { return ring::allgather_recv_block(v, procs, step); }

/// Whether piece `q` travels to relative rank `receiver` in the ring: it is not empty and the
/// receiver does not hold it from the scatter. Sender and receiver evaluate the same call.
constexpr bool ring_transfers(std::size_t count, int procs, int receiver, int q) {
  return piece(count, procs, q).count > 0 && !held_after_scatter(procs, receiver, q);
}

}  // namespace ragged::plans::scatter_allgather
