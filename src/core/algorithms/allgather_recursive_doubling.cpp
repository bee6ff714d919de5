// allgather "recursive_doubling": log2 P rounds of pairwise exchanges at doubling distance,
// for P a power of two; any other P runs Bruck (Open MPI's recursive doubling has the same
// restriction and fallback).
//
//   Before round k (d = 2^k) a rank holds the d blocks of its aligned group [rank & ~(d-1), +d),
//   contiguous in recvbuf. It exchanges them with rank ^ d, whose group is the neighbouring one:
//   both then hold the 2d blocks of [rank & ~(2d-1), +2d).
//
//   P = 8, the blocks rank 0 holds after each round, and its partner
//   start    0 . . . . . . .
//   d = 1    0 1 . . . . . .     (rank 1 sends block 1)
//   d = 2    0 1 2 3 . . . .     (rank 2 sends blocks 2..3)
//   d = 4    0 1 2 3 4 5 6 7     (rank 4 sends blocks 4..7)
//
// Both directions of a pair's connection carry data in every round, and no local rotation is
// needed (Bruck's last step). On the 8-host TCP testbed that made Open MPI's own recursive
// doubling (its choice for this size) 12% faster than Bruck and NEX (docs/reproduction.md).
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's recursive-doubling allgather).
// Limitation: P a power of two only: any other P runs Bruck.
// Memory: none beyond the receive buffer.
//
// Cost (n = P*count*size bytes gathered): log2 P alpha + (P-1)/P n beta.
#include <cassert>

#include "algorithms/list.hpp"
#include "internal/common.hpp"

namespace ragged {

void allgather_recursive_doubling(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count,
                                  DataType type) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  assert((procs & (procs - 1)) == 0);  // the list's restriction `power_of_two`: dispatch runs Bruck otherwise
  const int rank = comm.rank();
  const std::size_t block = count * size_of(type);
  const int tag = ctx.tag(0);
  std::byte* out = internal::bytes(recvbuf);
  const auto at = [&](int b) { return out + static_cast<std::size_t>(b) * block; };
  // Dispatch copied this rank's block to its place in recvbuf.
  for (int d = 1; d < procs; d *= 2) {
    const int partner = rank ^ d;
    const int mine = rank & ~(d - 1);
    const int theirs = partner & ~(d - 1);
    const std::size_t bytes = static_cast<std::size_t>(d) * block;
    comm.sendrecv(partner, tag, at(mine), bytes, partner, tag, at(theirs), bytes, ctx.timeout());
  }
}

}  // namespace ragged
