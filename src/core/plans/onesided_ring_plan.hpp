// Schedule arithmetic of allreduce "onesided_ring" (Iakymchuk et al. 2021, §IV-A): the segmented pipelined ring
// as two streams of pieces per rank, the one it puts to its right neighbour and the one it takes
// from its left neighbour. Pure functions, no communication.
//
// The vector is cut into P chunks (ring::segment_size/segment_offset); every chunk is cut into the
// same number m of segments (m from the largest chunk and the segment size in bytes), so the
// segment j of one chunk and of the next have the same index on both sides of a link. Global step
// t = 0..2P-3: t < P-1 is reduce-scatter step t, t >= P-1 allgather step t-(P-1).
//
//   rank r, step t        sends chunk                  receives chunk
//   reduce-scatter t      r-t-1                        r-t-2 (reduces it)
//   allgather t-(P-1)     r-(t-(P-1))                  r-(t-(P-1))-1 (copies it)
//
// A stream lists the non-empty pieces (step, segment) in order (empty ones, when count < P·m,
// are skipped by both ends alike: they compute the same sizes). The stream r puts to r+1 is
// exactly the stream r+1 takes from r. And the chunk r sends at step t+1 is the one it received
// at step t, so piece s of the send stream, once past the n0 pieces of step 0, is the piece
// s - n0 of the receive stream one step later: put s may go as soon as receive s - n0 is done.
#pragma once

#include <cstddef>
#include <vector>

#include "plans/ring_plan.hpp"

namespace ragged::plans::onesided_ring {

/// Segments per chunk: the largest chunk (ring segment 0) in pieces of at most `segment_bytes`
/// bytes, at least 1. `segment_bytes` 0 counts as 1.
constexpr std::size_t segments_per_chunk(std::size_t count, int procs, std::size_t element_bytes,
                                         std::size_t segment_bytes) {
  const std::size_t largest = ring::segment_size(count, procs, 0) * element_bytes;
  const std::size_t seg = segment_bytes == 0 ? 1 : segment_bytes;
  const std::size_t m = (largest + seg - 1) / seg;
  return m == 0 ? 1 : m;
}

/// Elements in one receive slot: the largest piece, ceil(largest chunk / m).
constexpr std::size_t slot_elements(std::size_t count, int procs, std::size_t segments) {
  const std::size_t largest = ring::segment_size(count, procs, 0);
  return (largest + segments - 1) / segments;
}

/// The chunk rank `rank` sends at global step `step` (0..2P-3).
constexpr int send_chunk(int rank, int procs, int step) {
  return step < procs - 1 ? ring::reduce_scatter_send_segment(rank, procs, step)
                          : ring::allgather_send_block(rank, procs, step - (procs - 1));
}
/// The chunk rank `rank` receives at global step `step` (0..2P-3).
constexpr int recv_chunk(int rank, int procs, int step) {
  return step < procs - 1 ? ring::reduce_scatter_recv_segment(rank, procs, step)
                          : ring::allgather_recv_block(rank, procs, step - (procs - 1));
}

/// One non-empty segment of a stream: elements [offset, offset + count) of the vector.
struct Piece {
  int step = 0;  ///< global step, 0..2P-3
  int chunk = 0;
  std::size_t offset = 0;
  std::size_t count = 0;
  /// Reduce-scatter (reduce into the result) or allgather (copy into it).
  [[nodiscard]] bool reduces(int procs) const { return step < procs - 1; }
};

namespace detail {
template <class ChunkOf>
std::vector<Piece> stream(std::size_t count, int procs, std::size_t segments, ChunkOf chunk_of) {
  std::vector<Piece> out;
  if (procs < 2) return out;
  for (int step = 0; step < 2 * (procs - 1); ++step) {
    const int chunk = chunk_of(step);
    const std::size_t chunk_count = ring::segment_size(count, procs, chunk);
    const std::size_t chunk_offset = ring::segment_offset(count, procs, chunk);
    for (std::size_t j = 0; j < segments; ++j) {
      const auto jj = static_cast<int>(j);
      const auto parts = static_cast<int>(segments);
      const std::size_t n = ring::segment_size(chunk_count, parts, jj);
      if (n == 0) continue;
      out.push_back(Piece{step, chunk, chunk_offset + ring::segment_offset(chunk_count, parts, jj), n});
    }
  }
  return out;
}
}  // namespace detail

/// The pieces `rank` puts to its right neighbour, in order.
inline std::vector<Piece> send_stream(std::size_t count, int procs, int rank, std::size_t segments) {
  return detail::stream(count, procs, segments, [&](int step) { return send_chunk(rank, procs, step); });
}
/// The pieces `rank` takes from its left neighbour, in order (the left neighbour's send stream).
inline std::vector<Piece> recv_stream(std::size_t count, int procs, int rank, std::size_t segments) {
  return detail::stream(count, procs, segments, [&](int step) { return recv_chunk(rank, procs, step); });
}

/// Whether put `send` may be issued before receive `recv` is taken, with `slots` receive slots and
/// `first` = first_step_pieces(): its data is complete (receive send - first is done) and it runs
/// fewer than `slots` pieces ahead of the receives, which keeps the ring free of deadlock (a rank
/// blocked on an acknowledgement waits for a piece its right neighbour can always take).
constexpr bool put_before_take(std::size_t send, std::size_t recv, std::size_t first, std::size_t slots) {
  return send < recv + first && send < recv + slots;
}

/// Pieces of step 0 in a send stream: put s >= first_step_pieces depends on receive
/// s - first_step_pieces; the puts before it depend on nothing.
inline std::size_t first_step_pieces(const std::vector<Piece>& sends) {
  std::size_t n = 0;
  while (n < sends.size() && sends[n].step == 0) ++n;
  return n;
}

}  // namespace ragged::plans::onesided_ring
