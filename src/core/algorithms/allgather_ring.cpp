// allgather "ring": every rank passes blocks to its right neighbor.
//
//   P = 4, block b starts on rank b. In step s rank r sends block r-s to r+1
//   and receives block r-s-1 from r-1: the block it forwards in step s+1.
//
//   before step  rank 0     rank 1     rank 2     rank 3     block each rank sends
//   s = 0        [0 . . .]  [. 1 . .]  [. . 2 .]  [. . . 3]  0 1 2 3
//   s = 1        [0 . . 3]  [0 1 . .]  [. 1 2 .]  [. . 2 3]  3 0 1 2
//   s = 2        [0 . 2 3]  [0 1 . 3]  [0 1 2 .]  [. 1 2 3]  2 3 0 1
//   end          [0 1 2 3]  [0 1 2 3]  [0 1 2 3]  [0 1 2 3]
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's long-message allgather).
// Limitation: P-1 steps whatever the block size: the latency term grows linearly in P.
// Memory: none beyond the receive buffer.
//
// Cost (n = P*count*size bytes gathered): (P-1) alpha + (P-1)/P n beta.
// Every step moves one block on every link at once, so the ring is
// bandwidth-optimal; its latency term grows linearly in P.
#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/ring_plan.hpp"

namespace ragged {

void allgather_ring(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int rank = comm.rank();
  const std::size_t block = count * size_of(type);
  const int tag = ctx.tag(0);

  // Dispatch copied this rank's block into recvbuf.
  std::byte* out = internal::bytes(recvbuf);
  const auto at = [&](int b) { return out + static_cast<std::size_t>(b) * block; };

  const int right = plans::ring::right(rank, procs);
  const int left = plans::ring::left(rank, procs);
  for (int s = 0; s < procs - 1; ++s) {
    const int send_block = plans::ring::allgather_send_block(rank, procs, s);
    const int recv_block = plans::ring::allgather_recv_block(rank, procs, s);
    comm.sendrecv(right, tag, at(send_block), block, left, tag, at(recv_block), block, ctx.timeout());
  }
}

}  // namespace ragged
