// reduce_scatter "pairwise": reduce_scatter_block's pairwise exchange with each block its own
// size. In step k = 1 ... P-1 rank r sends block r+k of its operand to rank r+k and folds rank
// r-k's operand of block r into its result: every rank receives its own block's operands only.
//
//   P = 3, blocks of 2, 0, 3 elements (a a | - | c c c), b_j^i = block j of rank i's operand:
//   k = 1:  0 -> 1: b_1^0 (empty: no message)   2 -> 0: b_0^2   1 -> 2: b_2^1
//   k = 2:  0 -> 2: b_2^0                         1 -> 0: b_0^1   2 -> 1: b_1^2 (empty)
//   rank 0 ends with b_0^0 ∘ b_0^2 ∘ b_0^1, rank 2 with b_2^2 ∘ b_2^1 ∘ b_2^0.
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's long-message reduce-scatter, for commutative operators).
// Limitation: commutative operators (operands fold in the order r, r-1, ...; otherwise reduce_scatterv runs). A step
//   lasts as long as its largest block: P-1 steps of up to L bytes.
// Memory: one block of this rank's size.
//
// Cost (L = the largest block): at most (P-1)(alpha + L beta + L gamma); equal blocks of b bytes: (P-1)(alpha + b beta
// + b gamma).
#include <memory>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "internal/exchange.hpp"

namespace ragged {

void reduce_scatter_pairwise(Context& ctx, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                             DataType type, const ReduceOp& op) {
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const std::size_t es = size_of(type);
  const std::vector<int> offsets = internal::packed_offsets(recvcounts);
  const auto* in = static_cast<const std::byte*>(sendbuf);
  const auto at = [&](int j) { return in + static_cast<std::size_t>(offsets[static_cast<std::size_t>(j)]) * es; };
  const auto count = [&](int j) { return static_cast<std::size_t>(recvcounts[static_cast<std::size_t>(j)]); };
  const std::size_t mine = count(me);
  internal::copy_bytes(recvbuf, at(me), mine * es);
  auto incoming = std::make_unique_for_overwrite<std::byte[]>(mine * es);
  for (int k = 1; k < procs; ++k) {
    const int to = (me + k) % procs;
    const int from = (me - k + procs) % procs;
    internal::exchange_nonempty(ctx, to, at(to), count(to) * es, from, incoming.get(), mine * es, ctx.tag(0));
    if (mine == 0) continue;
    reduce_local(op, type, incoming.get(), recvbuf, mine);
    ctx.runtime().charge(static_cast<double>(mine));
  }
}

}  // namespace ragged
