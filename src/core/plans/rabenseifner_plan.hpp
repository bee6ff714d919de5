// Recursive-halving / recursive-doubling block arithmetic for allreduce
// "rabenseifner". Pure functions, no communication. Ranks are the virtual
// ranks 0..pof2-1 of plans/recursive_doubling_plan.hpp (after the fold).
//
// The vector is cut into pof2 nearly equal blocks (plans::ring::segment_*).
// In the reduce-scatter, masks go pof2/2, ..., 2, 1: virtual rank v and its
// partner v^mask each keep the half of their common window that contains their
// own block, send the other half and reduce the half they keep. Before the step
// with `mask` both hold the window of 2*mask blocks that starts at
// v & ~(2*mask-1); after it v keeps the `mask` blocks that start at
// v & ~(mask-1). After the last step (mask 1) v holds block v, fully reduced.
// The allgather walks the masks back up (1, 2, ..., pof2/2): v sends the mask
// blocks it holds and receives the partner's, doubling its window.
//
//   pof2 = 4, blocks 0..3          v=0      v=1      v=2      v=3
//   reduce-scatter mask 2 keeps    [0,1]    [0,1]    [2,3]    [2,3]
//   reduce-scatter mask 1 keeps    [0]      [1]      [2]      [3]
//   allgather mask 1 holds         [0,1]    [0,1]    [2,3]    [2,3]
//   allgather mask 2 holds         [0..3]   [0..3]   [0..3]   [0..3]
#pragma once

#include <cassert>
#include <cstddef>

#include "plans/ring_plan.hpp"

namespace ragged::plans::rabenseifner {

/// A range of blocks [first, first + blocks).
struct BlockRange {
  int first = 0;
  int blocks = 0;
};

/// The blocks virtual rank `v` holds (keeps) at the granularity `mask`: the
/// aligned group of `mask` blocks that contains block v.
constexpr BlockRange kept(int v, int mask) {
  assert(v >= 0 && mask > 0 && (mask & (mask - 1)) == 0);
  return BlockRange{v & ~(mask - 1), mask};
}

/// Reduce-scatter step `mask`: what v receives and reduces (its kept half).
constexpr BlockRange reduce_scatter_recv(int v, int mask) { return kept(v, mask); }
/// Reduce-scatter step `mask`: what v sends (the half its partner keeps).
constexpr BlockRange reduce_scatter_send(int v, int mask) { return kept(v ^ mask, mask); }
/// Allgather step `mask`: what v sends (all it holds).
constexpr BlockRange allgather_send(int v, int mask) { return kept(v, mask); }
/// Allgather step `mask`: what v receives (all its partner holds).
constexpr BlockRange allgather_recv(int v, int mask) { return kept(v ^ mask, mask); }

/// The elements [first, first + size) of a block range of a `count`-element vector cut into `pof2` blocks.
struct ElementRange {
  std::size_t first = 0;
  std::size_t size = 0;
};
constexpr ElementRange elements(BlockRange range, std::size_t count, int pof2) {
  const std::size_t begin = ring::segment_offset(count, pof2, range.first);
  const std::size_t end = ring::segment_offset(count, pof2, range.first + range.blocks);
  return ElementRange{begin, end - begin};
}

}  // namespace ragged::plans::rabenseifner
