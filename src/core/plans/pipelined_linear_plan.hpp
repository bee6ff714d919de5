// Chain arithmetic for allreduce "pipelined_linear". Pure functions, no
// communication.
//
// Ranks form a chain P-1 -> P-2 -> ... -> 0 for the reduction and 0 -> 1 ->
// ... -> P-1 for the way back. The vector is cut into segments of
// segment_elements() elements (the last one shorter). Rank P-1 sends its
// segments down; every middle rank r receives segment t from r+1, reduces it
// with its own and sends it to r-1; rank 0 completes segment t and sends the
// result back up, where every rank stores it and passes it on.
//
// A middle rank interleaves both directions without polling: segment t of the
// reduction reaches r about P-1-r segment times after the start plus t, and
// the result of segment j comes back to r at about P-1+r+j, so after reducing
// segment t, rank r forwards the results of segments up to t - lag(r), with
// lag(r) = 2r (the round trip from r to 0 and back), then the rest at the end.
//
//   P = 4, 3 segments, time in segment transfers (a..c partial, A..C result)
//   rank 3:  a  b  c
//   rank 2:     a  b  c             C
//   rank 1:        a  b  c       B  C
//   rank 0:           a  b  c       (reduces and returns each at once)
//   back  :           A  B  C  (0->1)  then 1->2, 2->3 one step behind
#pragma once

#include <cassert>
#include <cstddef>

namespace ragged::plans::chain {

/// Segment size of the pipeline, in bytes: small enough to fill a 48-rank chain
/// with a few hundred KiB, large enough that the per-message latency stays a
/// small fraction of a segment's transfer time on 1 GbE and faster networks.
inline constexpr std::size_t segment_bytes = std::size_t{32} * 1024;

/// Sends a rank keeps in flight in each direction: it waits for the send of segment t - window
/// before it starts segment t. Messages posted all at once would share the link and arrive
/// together at the end instead of one after the other, which stalls the pipeline; one send in
/// flight keeps them in order, at the price of one latency per segment.
inline constexpr std::size_t send_window = 1;

/// Elements per segment for elements of `element_size` bytes (at least one).
constexpr std::size_t segment_elements(std::size_t element_size) {
  assert(element_size > 0);
  const std::size_t n = segment_bytes / element_size;
  return n > 0 ? n : 1;
}

/// Number of segments of a `count`-element vector.
constexpr std::size_t segments(std::size_t count, std::size_t per_segment) {
  assert(per_segment > 0);
  return (count + per_segment - 1) / per_segment;
}

/// First element and size of segment `index`.
constexpr std::size_t segment_first(std::size_t index, std::size_t per_segment) { return index * per_segment; }
constexpr std::size_t segment_size(std::size_t count, std::size_t index, std::size_t per_segment) {
  const std::size_t first = index * per_segment;
  assert(first < count);
  return count - first < per_segment ? count - first : per_segment;
}

/// How many result segments a middle rank forwards up the chain once it has reduced segment
/// `t` (segments 0..n-1 of the result, n = this value, capped at `total`): t + 1 - lag(rank).
constexpr std::size_t forwarded_after(int rank, std::size_t t, std::size_t total) {
  assert(rank >= 0);
  const auto lag = 2 * static_cast<std::size_t>(rank);
  if (t + 1 <= lag) return 0;
  const std::size_t n = t + 1 - lag;
  return n < total ? n : total;
}

}  // namespace ragged::plans::chain
