// reduce_scatter "reduce_scatterv": the reduce of the whole vector that dispatch selects for the
// operator (operands in rank order for a non-commutative one: the binomial tree) to the rank of
// the largest block (the first such), then the scatterv that dispatch selects (Träff 2018's
// block-size-aware tree under `auto`) of the blocks from there: the largest block never travels
// a second time. Any operator, commutative or not.
//
//   P = 4, blocks of 1, 3, 0, 2 elements (n = 6): the root is rank 1
//   reduce to 1:   x^0 ∘ x^1 ∘ x^2 ∘ x^3 = [a | b b b | - | d d] at rank 1
//   scatterv:      1 keeps b b b;  -> 0: a;  -> 3: d d  (rank 2's empty block: nothing)
//
// Reference: the composition of MPICH's and Open MPI's basic reduce_scatter (reduce, then scatterv); the scatterv is
//   J. L. Träff, "Practical, distributed, low overhead algorithms for irregular gather and scatter collectives",
//   Parallel Computing 75, 2018.
// Limitation: two phases and the root carries the whole vector twice: slower than pairwise or ring for commutative
//   operators and large, even vectors; the one for non-commutative operators.
// Memory: the whole vector (n bytes) at the root.
//
// Cost: the selected reduce's for n bytes (binomial: ceil(log2 P)(alpha + n beta + n gamma)) plus the scatterv's,
// ceil(log2 P) alpha + n beta.
#include <algorithm>
#include <memory>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "internal/exchange.hpp"

namespace ragged {

void reduce_scatter_reduce_scatterv(Context& ctx, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                                    DataType type, const ReduceOp& op) {
  const auto root = static_cast<int>(std::max_element(recvcounts.begin(), recvcounts.end()) - recvcounts.begin());
  const std::size_t es = size_of(type);
  const std::vector<int> offsets = internal::packed_offsets(recvcounts);
  const std::size_t total = static_cast<std::size_t>(offsets.back()) + static_cast<std::size_t>(recvcounts.back());
  std::unique_ptr<std::byte[]> reduced;
  if (ctx.rank() == root) reduced = std::make_unique_for_overwrite<std::byte[]>(total * es);
  (void)internal::part_reduce(ctx.half(0), sendbuf, reduced.get(), total, type, op, root);
  // The root's own block: scatterv's front door would have copied it.
  if (ctx.rank() == root) {
    const auto r = static_cast<std::size_t>(root);
    internal::copy_bytes(recvbuf, reduced.get() + static_cast<std::size_t>(offsets[r]) * es,
                         static_cast<std::size_t>(recvcounts[r]) * es);
  }
  const int mine = recvcounts[static_cast<std::size_t>(ctx.rank())];
  (void)internal::dispatch_part<Collective::scatterv>(ctx.half(1), 0, true, static_cast<const void*>(reduced.get()),
                                                      recvcounts, std::span<const int>(offsets), recvbuf, mine, type,
                                                      root);
}

}  // namespace ragged
