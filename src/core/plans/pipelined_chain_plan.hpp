// Segment size of bcast "pipelined_chain". Pure functions, no communication.
//
// The chain root -> root+1 -> ... -> root+P-1 (relative ranks 0 -> 1 -> ... -> P-1) moves a
// message of m bytes in S = ceil(m / s) segments of s bytes; the last rank has the last segment
// after P - 2 + S segment transfers of alpha + s beta each:
//
//   T(s) = (P - 2 + m / s)(alpha + s beta),   least at s* = sqrt(m alpha / ((P - 2) beta)).
//
// The segment must be the same on every rank, before any message, so it cannot depend on a
// measured link; it assumes alpha / beta = latency_bytes, the bytes a message's latency is
// worth. That ratio is about 6 KB on 1 GbE (50 us, 119.5 MB/s) and on QDR InfiniBand (2 us,
// 3.2 GB/s), 12-24 KB on 10 GbE, a few KB in shared memory; T is flat around s* (at
// P = 28 and 1 MiB, s = s*/2 or 2 s* costs 10% more), so one value serves them all. The
// message is cut into S = m / s* (rounded) nearly equal segments of at least
// min_segment_bytes; a chain of P <= 2 has nothing to pipeline: one segment.
#pragma once

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <vector>

namespace ragged::plans::pipelined_chain {

/// The alpha / beta the segment size assumes, in bytes (see the top of this file).
inline constexpr double latency_bytes = 8 * 1024;
/// The smallest segment: below it the latency of each segment dominates on any network.
inline constexpr std::size_t min_segment_bytes = 1024;

/// The number of segments of a message of `bytes` bytes on a chain of `procs` ranks: bytes / s*
/// (s* above) rounded, so that the segments come out nearly equal, with segments of at least
/// min_segment_bytes; 1 for procs <= 2 or an empty message.
inline std::size_t segment_count(std::size_t bytes, int procs) {
  assert(procs > 0);
  if (procs <= 2 || bytes <= min_segment_bytes) return 1;
  const double best = std::sqrt(static_cast<double>(bytes) * latency_bytes / static_cast<double>(procs - 2));
  const auto n = static_cast<std::size_t>(std::llround(static_cast<double>(bytes) / best));
  return std::clamp<std::size_t>(n, 1, bytes / min_segment_bytes);
}

/// Elements per segment for `count` elements of `element_size` bytes: count / segment_count()
/// rounded up (at least one element).
inline std::size_t segment_elements(std::size_t count, std::size_t element_size, int procs) {
  assert(element_size > 0);
  const std::size_t n = segment_count(count * element_size, procs);
  return std::max<std::size_t>(1, (count + n - 1) / n);
}

/// Number of segments of `count` elements, `per_segment` each (the last one may be shorter).
constexpr std::size_t segments(std::size_t count, std::size_t per_segment) {
  assert(per_segment > 0);
  return (count + per_segment - 1) / per_segment;
}

}  // namespace ragged::plans::pipelined_chain

namespace ragged::plans::pipelined_chain {

/// With held blocks (every rank u holds block u of P equal blocks, relative ranks; allgather lnbc)
/// the chain sends, on the link v -> v + 1, every block but v + 1's, owner first:
///
///   v, v - 1, ..., 0, P - 1, P - 2, ..., v + 2
///
/// Rank v holds its own block from the start and has the blocks of v - 1, v - 2, ... one after
/// the other from its predecessor (the ring's order: each block walks down the chain from its
/// owner); the root's blocks P - 1, P - 2, ... walk from the root to the ranks below their owner.
/// So the whole chain moves as the ring does, the root's link standing in for the ring's wrap
/// P - 1 -> 0; only the root's blocks wait for its source. Returns the relative owners in that
/// order (P - 1 of them; none for the last rank, which sends nothing).
inline std::vector<int> owner_first_order(int v, int procs) {
  assert(procs > 0 && v >= 0 && v < procs);
  std::vector<int> order;
  if (v == procs - 1) return order;
  order.reserve(static_cast<std::size_t>(procs - 1));
  for (int u = v; u >= 0; --u) order.push_back(u);
  for (int u = procs - 1; u >= v + 2; --u) order.push_back(u);
  return order;
}

/// Where rank v of the owner-first chain (0 < v < P - 1) sends its own block to the root alone,
/// when the root gathers them (allgather lnbc): the index in owner_first_order(v, P) before which
/// it sends it and waits for that send. The root sends P - 1, P - 2, ..., 2 after its own block,
/// each as it comes in; it needs block v next while it sends block v + 1, its send P - 1 - v, and
/// rank v sends it then, its own send P - 1 - v held back meanwhile, so that the block has its
/// link to itself (both at once would share it and each stall its chain). Rank v's chain then
/// runs one block time late, and so does everything after it; delays that follow one another
/// down the chain overlap instead of adding, so the chain ends about one block time later than
/// without the gather. The root never pauses (P - 1 is past the end of its order); the last rank
/// sends nothing in the chain and its block at once (the root needs it first).
inline std::size_t owner_first_pause(int v, int procs) {
  assert(procs > 0 && v >= 0 && v < procs);
  return static_cast<std::size_t>(procs - 1 - v);
}

}  // namespace ragged::plans::pipelined_chain

namespace ragged::plans::pipelined_chain {

/// The chain of reduce "pipelined_chain": root + 1, root + 2, ..., root + P - 1 (mod P), then the
/// root, which ends it. Consecutive ranks follow each other, so on ranks laid out by node a
/// partial crosses a node boundary once per node, and the last hop, root - 1 to the root, is
/// a neighbour's.
inline std::vector<int> reduce_order(int procs, int root) {
  assert(procs > 0 && root >= 0 && root < procs);
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(procs));
  for (int i = 1; i <= procs; ++i) order.push_back((root + i) % procs);
  return order;
}

}  // namespace ragged::plans::pipelined_chain
