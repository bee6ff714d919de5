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
