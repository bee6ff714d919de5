// Schedules of the allgatherv algorithms that need no communication: the segment size and the
// piece cursor of "pipelined_ring", the rotated packing of "bruck". Pure functions.
//
// pipelined_ring: rank r sends blocks r, r-1, ..., r-(P-2) to r+1 and receives blocks r-1, ...,
// r-(P-1) from r-1, every block cut into pieces of at most `per` elements (an empty block is one
// empty piece, so that every block takes at least one iteration). Iteration i sends rank r's i-th
// piece and receives its i-th incoming piece: rank r-1's i-th outgoing one. Rank r's i-th piece is
// its own block's while i < pieces(own), else its (i - pieces(own))-th received piece: always one
// it holds by then, as pieces(own) >= 1.
//
//   P = 3, blocks of 2, 1, 0 pieces (a0 a1 | b0 | c0 empty), rank 1 (own b):
//   iteration   0    1    2
//   sends       b0   a0   a1      (its own block, then what it received one and two iterations before)
//   receives    a0   a1   c0      (rank 0 sends a0 a1 c0; rank 2 sends c0 b0 and receives rank 1's b0 a0 a1)
#pragma once

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "plans/pipelined_chain_plan.hpp"
#include "plans/ring_plan.hpp"

namespace ragged::plans::allgatherv {

/// Elements per piece of the pipelined ring for `total_bytes` in all over `procs` ranks: about
/// (total / s + P)(alpha + s beta) iterations' time is least at s* = sqrt(total alpha / (P beta)),
/// with alpha / beta = pipelined_chain::latency_bytes, at least min_segment_bytes (and one element).
inline std::size_t segment_elements(std::size_t total_bytes, std::size_t element, int procs) {
  assert(element > 0 && procs > 0);
  const double best = std::sqrt(static_cast<double>(total_bytes) * pipelined_chain::latency_bytes / procs);
  const auto bytes = std::max<std::size_t>(pipelined_chain::min_segment_bytes, static_cast<std::size_t>(best));
  return std::max<std::size_t>(1, bytes / element);
}

/// Pieces of a block of `count` elements, `per` each: at least one (an empty block is one empty piece).
constexpr std::size_t pieces(std::size_t count, std::size_t per) {
  assert(per > 0);
  return count == 0 ? 1 : (count + per - 1) / per;
}

/// A position in a ring's sequence of blocks (the k-th block of the sequence, its piece-th piece).
struct Cursor {
  int step = 0;
  std::size_t piece = 0;
};

/// The block at step k of rank `rank`'s sends (first = 0) or receives (first = 1): rank - first - k.
constexpr int block_at(int rank, int procs, int first, int k) {
  return ring::wrap(static_cast<long long>(rank) - first - k, procs);
}

/// Moves `c` to the next piece of the sequence whose block at c.step has `block_pieces` pieces.
constexpr void advance(Cursor& c, std::size_t block_pieces) {
  if (++c.piece >= block_pieces) {
    c.piece = 0;
    ++c.step;
  }
}

/// Iterations of the pipelined ring on rank `rank`: the longer of its send and receive sequences.
inline std::size_t iterations(std::span<const int> counts, std::size_t per, int rank) {
  const auto procs = static_cast<int>(counts.size());
  std::size_t sent = 0;
  std::size_t received = 0;
  for (int k = 0; k + 1 < procs; ++k) {
    sent += pieces(static_cast<std::size_t>(counts[static_cast<std::size_t>(block_at(rank, procs, 0, k))]), per);
    received += pieces(static_cast<std::size_t>(counts[static_cast<std::size_t>(block_at(rank, procs, 1, k))]), per);
  }
  return std::max(sent, received);
}

/// Bruck's rotated view (plans/bruck_plan.hpp) with blocks of different sizes, packed: position i
/// holds block (rank + i) mod P, from element offsets[i] to offsets[i + 1] (P + 1 offsets).
inline std::vector<std::size_t> rotated_offsets(std::span<const int> counts, int rank) {
  const auto procs = static_cast<int>(counts.size());
  std::vector<std::size_t> offsets(counts.size() + 1, 0);
  for (int i = 0; i < procs; ++i) {
    const auto block = static_cast<std::size_t>(ring::wrap(static_cast<long long>(rank) + i, procs));
    offsets[static_cast<std::size_t>(i) + 1] =
        offsets[static_cast<std::size_t>(i)] + static_cast<std::size_t>(counts[block]);
  }
  return offsets;
}

}  // namespace ragged::plans::allgatherv
