// Reduce-scatter of equal blocks by pairwise exchange (MPI_Reduce_scatter_block).
//
// In step k = 1 .. P-1 rank r sends its operand's block r + k (mod P) to rank r + k and receives
// rank r - k's operand of its own block r, which it folds into its result. Every rank sends and
// receives one block per step; no partial result travels. P = 4, rank 0's view, b_j^i = block j
// of rank i's operand:
//
//   k = 1:  0 -> 1: b_1^0     3 -> 0: b_0^3     result b_0^0 ∘ b_0^3
//   k = 2:  0 -> 2: b_2^0     2 -> 0: b_0^2     ... ∘ b_0^2
//   k = 3:  0 -> 3: b_3^0     1 -> 0: b_0^1     ... ∘ b_0^1
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication
//   operations in MPICH", IJHPCA 19(1), 2005 (the pairwise exchange reduce-scatter, for long
//   messages and commutative operators).
// Cost (α-β-γ, b bytes a block): (P - 1)(α + bβ + bγ).
// Limitations: commutative operators only (the operands are folded in the order r, r-1, ...,
//   not in rank order); P - 1 latencies (long blocks).
// Memory: one block a rank.
#include <memory>

#include "algorithms/list.hpp"
#include "internal/common.hpp"

namespace ragged {

void reduce_scatter_block_pairwise(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                                   const ReduceOp& op) {
  Comm& comm = ctx.comm();
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const std::size_t b = ctx.bytes(count, type);
  const int tag = ctx.tag(0);
  const auto* in = static_cast<const std::byte*>(sendbuf);
  const auto block = [&](int j) { return in + static_cast<std::size_t>(j) * b; };
  internal::copy_bytes(recvbuf, block(me), b);
  auto incoming = std::make_unique_for_overwrite<std::byte[]>(b);
  for (int k = 1; k < procs; ++k) {
    const int to = (me + k) % procs;
    const int from = (me - k + procs) % procs;
    comm.sendrecv(to, tag, block(to), b, from, tag, incoming.get(), b, ctx.timeout());
    reduce_local(op, type, incoming.get(), recvbuf, count);
    comm.runtime().charge(static_cast<double>(count));
  }
}

}  // namespace ragged
