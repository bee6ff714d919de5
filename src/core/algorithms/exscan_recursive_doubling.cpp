// Exclusive scan by recursive doubling (MPI_Exscan): scan recursive_doubling's exchanges, the
// result built from the partials that come from below only, so rank 0's recvbuf is never written.
//
//   P = 6, [a..b] = x_a ∘ ... ∘ x_b, "-" not written:
//   step 0 (xor 1):  0 <-> 1   2 <-> 3   4 <-> 5   result  -  [0]  -    [2]    -    [4]
//   step 1 (xor 2):  0 <-> 2   1 <-> 3             result  -  [0] [0..1] [0..2] -    [4]
//   step 2 (xor 4):  0 <-> 4   1 <-> 5             result  -  [0] [0..1] [0..2] [0..3] [0..4]
//
// Reference: as scan recursive_doubling (Hillis and Steele 1986; MPICH's MPIR_Exscan_intra_recursive_doubling).
// Cost (α-β-γ, n bytes of m elements): ⌈log2 P⌉ (α + nβ + 2mγ).
// Limitations: whole vectors at every step (exscan pipelined_chain for long vectors).
// Memory: 2n bytes a rank.
#include "algorithms/list.hpp"
#include "internal/prefix.hpp"

namespace ragged {

void exscan_recursive_doubling(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                               const ReduceOp& op) {
  internal::prefix_recursive_doubling(ctx, sendbuf, recvbuf, count, type, op, internal::Prefix::exclusive);
}

}  // namespace ragged
