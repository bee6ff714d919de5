// Exclusive scan down a segmented chain (MPI_Exscan).
//
// Rank r receives segment t of x_0 ∘ ... ∘ x_(r-1) from r - 1 straight into recvbuf (its answer),
// puts it on the left of its own segment and sends that on to r + 1. Rank 0 sends its own
// segments and writes nothing; rank P - 1 only receives. P = 4, 3 segments a, b, c:
//
//   rank 0:  a  b  c              (x_0, from sendbuf)
//   rank 1:     a  b  c           (receives x_0, sends x_0 ∘ x_1)
//   rank 2:        a  b  c
//   rank 3:           a  b  c     (receives x_0 ∘ x_1 ∘ x_2)
//
// Reference: as scan pipelined_chain (Sanders and Träff 2006).
// Cost (α-β-γ, segments of s bytes and σ elements, S = ⌈n/s⌉): (P - 1 + S - 1)(α + sβ + σγ).
// Limitations: P - 1 steps of latency (long vectors, few ranks).
// Memory: n bytes at the middle ranks (a copy of the own operand, which may be recvbuf in place).
#include "algorithms/list.hpp"
#include "internal/prefix.hpp"

namespace ragged {

void exscan_pipelined_chain(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                            const ReduceOp& op) {
  internal::prefix_pipelined_chain(ctx, sendbuf, recvbuf, count, type, op, internal::Prefix::exclusive);
}

}  // namespace ragged
