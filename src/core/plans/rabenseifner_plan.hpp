// Recursive-halving / recursive-doubling block arithmetic for allreduce
// "rabenseifner", and the binary-blocks schedule that extends it to any P
// (Rabenseifner 2004). Pure functions, no communication.
//
// Inside one block of 2^k ranks (virtual ranks v = 0..2^k-1) the vector is cut
// into 2^k nearly equal blocks (plans::ring::segment_*). In the reduce-scatter,
// masks go 2^k/2, ..., 2, 1: v and its partner v^mask each keep the half of their
// common window that contains their own block, send the other half and reduce
// the half they keep. Before the step with `mask` both hold the window of
// 2*mask blocks that starts at v & ~(2*mask-1); after it v keeps the `mask`
// blocks that start at v & ~(mask-1). After the last step (mask 1) v holds block
// v, fully reduced. The allgather walks the masks back up (1, 2, ..., 2^k/2): v
// sends the mask blocks it holds and receives the partner's, doubling its window.
//
//   2^k = 4, blocks 0..3           v=0      v=1      v=2      v=3
//   reduce-scatter mask 2 keeps    [0,1]    [0,1]    [2,3]    [2,3]
//   reduce-scatter mask 1 keeps    [0]      [1]      [2]      [3]
//   allgather mask 1 holds         [0,1]    [0,1]    [2,3]    [2,3]
//   allgather mask 2 holds         [0..3]   [0..3]   [0..3]   [0..3]
//
// Binary blocks. P is cut by its binary digits into blocks of consecutive ranks,
// the largest first: P = 13 = 8 + 4 + 1 gives block 0 = ranks 0..7, block 1 =
// ranks 8..11, block 2 = rank 12. The vector is cut into F = pof2(P) fine
// blocks (the size of block 0); in a block of s ranks, "block" above means F/s
// consecutive fine blocks, so every chunk of a block is a union of chunks of
// every larger block. Rank u of a block of s ranks and the
// q = s'/s ranks u*q .. u*q+q-1 of the next larger block (s' ranks) cover the
// same elements: u's chunk is the union of theirs.
//
//   P = 13, F = 8 fine blocks; the chunk each rank holds after its block's reduce-scatter
//   block 0 (8 ranks)  r0:[0] r1:[1] r2:[2] r3:[3] r4:[4] r5:[5] r6:[6] r7:[7]
//   block 1 (4 ranks)  r8:[0,1]    r9:[2,3]     r10:[4,5]    r11:[6,7]
//   block 2 (1 rank)   r12:[0..7]
//   r12 sends [0,1] to r8, [2,3] to r9, ...; r8 sends [0] to r0 and [1] to r1, ...
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

// ------------------------------------------------------------------ binary blocks

/// One block of the binary-block decomposition: ranks [first, first + size), size a power of two;
/// index 0 is the largest block.
struct Block {
  int index = 0;
  int first = 0;
  int size = 0;
};

/// The number of blocks: the number of one bits of `procs` (procs >= 1).
constexpr int block_count(int procs) {
  assert(procs > 0);
  int n = 0;
  for (int p = procs; p != 0; p &= p - 1) ++n;
  return n;
}

/// Block `index` (0: the largest) of `procs` ranks: the index-th highest one bit of procs, its ranks
/// following those of the larger blocks.
constexpr Block block(int procs, int index) {
  assert(index >= 0 && index < block_count(procs));
  int first = 0;
  int seen = 0;
  for (int bit = 30; bit >= 0; --bit) {
    const int size = 1 << bit;
    if ((procs & size) == 0) continue;
    if (seen == index) return Block{index, first, size};
    first += size;
    ++seen;
  }
  return Block{};
}

/// The block that holds `rank`.
constexpr Block block_of(int rank, int procs) {
  assert(rank >= 0 && rank < procs);
  for (int i = 0;; ++i) {
    const Block b = block(procs, i);
    if (rank < b.first + b.size) return b;
  }
}

/// The number of fine blocks the vector is cut into: the size of block 0, the largest power of
/// two <= procs.
constexpr int fine_blocks(int procs) { return block(procs, 0).size; }

/// A range of `size`-rank block units (kept(), reduce_scatter_*(), allgather_*() of a block of
/// `size` ranks) in fine blocks: each unit is fine / size fine blocks.
constexpr BlockRange in_fine(BlockRange range, int size, int fine) {
  assert(size > 0 && fine % size == 0);
  const int f = fine / size;
  return BlockRange{range.first * f, range.blocks * f};
}

/// The chunk that virtual rank `v` of a block of `size` ranks holds after its block's
/// reduce-scatter, in fine blocks.
constexpr BlockRange chunk(int v, int size, int fine) { return in_fine(BlockRange{v, 1}, size, fine); }

/// Ranks [first, first + count) of another block.
struct Peers {
  int first = 0;
  int count = 0;
};

/// The ranks of the next larger block that virtual rank `v` of block `me` sends its chunk to,
/// each the part that is that rank's chunk, and receives the results from; none for block 0.
constexpr Peers larger_peers(int procs, Block me, int v) {
  if (me.index == 0) return Peers{};
  const Block larger = block(procs, me.index - 1);
  const int q = larger.size / me.size;
  return Peers{larger.first + v * q, q};
}

/// The rank of the next smaller block whose chunk contains the chunk of virtual rank `v` of
/// block `me`: it sends its partial sum of v's chunk before v's block reduces it, and receives
/// v's result after. -1 for the smallest block.
constexpr int smaller_peer(int procs, Block me, int v) {
  if (me.index + 1 == block_count(procs)) return -1;
  const Block smaller = block(procs, me.index + 1);
  return smaller.first + v / (me.size / smaller.size);
}

}  // namespace ragged::plans::rabenseifner
