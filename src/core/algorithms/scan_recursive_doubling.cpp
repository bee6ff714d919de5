// Inclusive scan by recursive doubling (MPI_Scan).
//
// Each rank keeps a partial, the reduction of its aligned block of 2^k ranks so far, and its
// result. In step k it exchanges partials with rank xor 2^k; a partial from below goes on the
// left of both, one from above on the right of the partial only. Ranks whose partner does not
// exist (P not a power of two) skip the step. P = 6, x_i rank i's operand, [a..b] = x_a ∘ ... ∘ x_b:
//
//   step 0 (xor 1):  0 <-> 1   2 <-> 3   4 <-> 5        result  [0] [0..1] [2] [2..3] [4] [4..5]
//   step 1 (xor 2):  0 <-> 2   1 <-> 3   4 ... 6 (none)  result  [0] [0..1] [0..2] [0..3] [4] [4..5]
//   step 2 (xor 4):  0 <-> 4   1 <-> 5                  result  [0] ... [0..3] [0..4] [0..5]
//
// Reference: W. D. Hillis, G. L. Steele, "Data parallel algorithms", CACM 29(12), 1986 (the
//   parallel prefix by doubling); the xor pairing for any P is MPICH's MPIR_Scan_intra_recursive_doubling.
// Cost (α-β-γ, n bytes of m elements): ⌈log2 P⌉ (α + nβ + 2mγ): every step exchanges the whole vector.
// Limitations: whole vectors at every step (short and medium vectors; scan pipelined_chain for long ones).
// Memory: 2n bytes a rank (the partial and the incoming vector).
#include "algorithms/list.hpp"
#include "internal/prefix.hpp"

namespace ragged {

void scan_recursive_doubling(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                             const ReduceOp& op) {
  internal::prefix_recursive_doubling(ctx, sendbuf, recvbuf, count, type, op, internal::Prefix::inclusive);
}

}  // namespace ragged
