// Ring rank arithmetic for allgather "ring" and allreduce "ring". Pure
// functions, no communication.
//
// Every rank r sends to right(r) = r+1 and receives from left(r) = r-1 (mod P).
//
// Allgather, step s = 0..P-2: r sends block (r-s) and receives block (r-s-1):
// the block it received in step s-1 is the one it forwards in step s.
//
//   P = 4        step 0          step 1          step 2
//   rank 0   sends 0, gets 3  sends 3, gets 2  sends 2, gets 1
//   rank 1   sends 1, gets 0  sends 0, gets 3  sends 3, gets 2
//   rank 2   sends 2, gets 1  sends 1, gets 0  sends 0, gets 3
//   rank 3   sends 3, gets 2  sends 2, gets 1  sends 1, gets 0
//
// Reduce-scatter, step s = 0..P-2: r sends segment (r-s-1) and receives
// segment (r-s-2), which it reduces with its own copy; after P-1 steps rank r
// holds the fully reduced segment r, so an allgather of segments follows
// without renumbering.
//
// A vector of `count` elements is cut into `parts` nearly equal segments: the
// first count % parts segments have one element more than the others.
#pragma once

#include <cassert>
#include <cstddef>

namespace ragged::plans::ring {

/// a mod procs, in 0..procs-1, for any a (negative too).
constexpr int wrap(long long a, int procs) {
  assert(procs > 0);
  const long long m = a % procs;
  return static_cast<int>(m < 0 ? m + procs : m);
}

constexpr int right(int rank, int procs) { return wrap(static_cast<long long>(rank) + 1, procs); }
constexpr int left(int rank, int procs) { return wrap(static_cast<long long>(rank) - 1, procs); }

/// Allgather step `step` (0..procs-2): the block `rank` sends to right(rank).
constexpr int allgather_send_block(int rank, int procs, int step) {
  return wrap(static_cast<long long>(rank) - step, procs);
}
/// Allgather step `step` (0..procs-2): the block `rank` receives from left(rank).
constexpr int allgather_recv_block(int rank, int procs, int step) {
  return wrap(static_cast<long long>(rank) - step - 1, procs);
}

/// Reduce-scatter step `step` (0..procs-2): the segment `rank` sends to right(rank).
constexpr int reduce_scatter_send_segment(int rank, int procs, int step) {
  return wrap(static_cast<long long>(rank) - step - 1, procs);
}
/// Reduce-scatter step `step` (0..procs-2): the segment `rank` receives from left(rank) and reduces.
constexpr int reduce_scatter_recv_segment(int rank, int procs, int step) {
  return wrap(static_cast<long long>(rank) - step - 2, procs);
}

/// Number of elements of segment `index` when `count` elements are cut into `parts` segments.
constexpr std::size_t segment_size(std::size_t count, int parts, int index) {
  assert(parts > 0 && index >= 0 && index < parts);
  const auto p = static_cast<std::size_t>(parts);
  const auto i = static_cast<std::size_t>(index);
  return count / p + (i < count % p ? 1 : 0);
}

/// First element of segment `index` (segment_offset(count, parts, parts) == count).
constexpr std::size_t segment_offset(std::size_t count, int parts, int index) {
  assert(parts > 0 && index >= 0 && index <= parts);
  const auto p = static_cast<std::size_t>(parts);
  const auto i = static_cast<std::size_t>(index);
  const std::size_t extra = count % p;
  return i * (count / p) + (i < extra ? i : extra);
}

}  // namespace ragged::plans::ring
