// allgather "bruck": ceil(log2 P) rounds of doubling distance, for any P.
//
//   Each rank works in a rotated view of recvbuf: position i holds block
//   rank+i (mod P). In round k (d = 2^k) a rank sends positions [0, m) to
//   rank-d and receives positions [d, d+m) from rank+d, m = min(d, P-d).
//   A final rotation by `rank` blocks puts block j at position j.
//
//   P = 5, the positions of rank 0 after each round, and what it received
//   start    0 . . . .
//   d = 1    0 1 . . .     (rank 1 sends its positions 0    = block 1)
//   d = 2    0 1 2 3 .     (rank 2 sends its positions 0..1 = blocks 2,3)
//   d = 4    0 1 2 3 4     (rank 4 sends its position  0    = block 4)
//   rotate by 0: nothing to do. Rank 3 ends with 3 4 0 1 2 and rotates right by 3.
//
// Reference: J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby, "Efficient algorithms for all-to-all
//   communications in multiport message-passing systems", IEEE TPDS 8(11), 1997; the short-message allgather of R.
//   Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH", IJHPCA 19(1),
//   2005.
// Limitation: ranks but 0 rotate the whole result locally at the end (a copy of n bytes), which the ring and NEX do
//   not need.
// Memory: none beyond the receive buffer (the rotation is in place).
//
// Cost (n = P*count*size bytes gathered): ceil(log2 P) alpha + (P-1)/P n beta,
// plus a local rotation of n bytes. The rotated view lives in recvbuf itself:
// no extra memory.
#include <algorithm>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/bruck_plan.hpp"

namespace ragged {

void allgather_bruck(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int rank = comm.rank();
  const std::size_t block = count * size_of(type);
  const auto p = static_cast<std::size_t>(procs);
  const int tag = ctx.tag(0);

  std::byte* out = internal::bytes(recvbuf);
  const auto at = [&](int position) { return out + static_cast<std::size_t>(position) * block; };
  // Own block to position 0 of the rotated view, from position `rank` (where dispatch copied it).
  internal::copy_bytes(at(0), at(rank), block);

  for (int k = 0; k < plans::bruck::rounds(procs); ++k) {
    const plans::bruck::Round round = plans::bruck::round(rank, procs, k);
    const std::size_t bytes = static_cast<std::size_t>(round.blocks) * block;
    comm.sendrecv(round.send_to, tag, at(0), bytes, round.recv_from, tag, at(round.distance), bytes, ctx.timeout());
  }
  // Position i holds block rank+i: rotate right by `rank` blocks so that block j sits at j.
  std::rotate(out, out + (p - static_cast<std::size_t>(rank)) * block, out + p * block);
}

}  // namespace ragged
