// allgatherv "ring": allgather's ring with each rank's own block size. In step s rank r sends
// block r-s to r+1 and receives block r-s-1 from r-1, whole, at its displacement in recvbuf.
//
//   P = 4, blocks of 3, 1, 0, 2 elements (aaa b - dd):
//   step   rank 0 sends   rank 1 sends   rank 2 sends   rank 3 sends
//   0      aaa            b              -              dd
//   1      dd             aaa            b              -
//   2      -              dd             aaa            b
//   An empty block is no message; a step lasts as long as its largest block.
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's long-message allgather and allgatherv).
// Limitation: P-1 steps, and block b crosses P-1 links one after the other, whole: with one large block of m bytes
//   the ring takes (P-1)(alpha + m beta), where pipelined_ring and gatherv_bcast take about m beta.
// Memory: none beyond the receive buffer.
//
// Cost (L = the largest block, n = all blocks): at most (P-1)(alpha + L beta); (P-1)(alpha + n/P beta) when the
// blocks are equal.
#include "algorithms/list.hpp"
#include "internal/exchange.hpp"
#include "plans/ring_plan.hpp"

namespace ragged {

void allgatherv_ring(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::span<const int> recvcounts,
                     std::span<const int> displs, DataType type) {
  // Dispatch copied this rank's block to its place in recvbuf.
  const std::size_t es = size_of(type);
  auto* out = static_cast<std::byte*>(recvbuf);
  const int procs = ctx.procs();
  const int rank = ctx.rank();
  const auto at = [&](int block) {
    return out + static_cast<std::size_t>(displs[static_cast<std::size_t>(block)]) * es;
  };
  const auto size = [&](int block) {
    return static_cast<std::size_t>(recvcounts[static_cast<std::size_t>(block)]) * es;
  };
  for (int s = 0; s < procs - 1; ++s) {
    const int send_block = plans::ring::allgather_send_block(rank, procs, s);
    const int recv_block = plans::ring::allgather_recv_block(rank, procs, s);
    internal::exchange_nonempty(ctx, plans::ring::right(rank, procs), at(send_block), size(send_block),
                                plans::ring::left(rank, procs), at(recv_block), size(recv_block), ctx.tag());
  }
}

}  // namespace ragged
