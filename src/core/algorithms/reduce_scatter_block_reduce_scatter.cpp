// Reduce-scatter of equal blocks as a reduce then a scatter (MPI_Reduce_scatter_block), for any
// operator: a binomial reduce of the whole vector to rank 0 in rank order, then a binomial
// scatter of its blocks. Both parts are listed algorithms run through the list (run_listed), as
// allreduce reduce_bcast's are.
//
//   reduce (rank order):  every rank's P blocks  ──binomial──>  rank 0: b_0 .. b_(P-1) reduced
//   scatter:              rank 0  ──binomial──>  block r to rank r
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication
//   operations in MPICH", IJHPCA 19(1), 2005 (reduce then scatterv, MPICH's reduce-scatter for
//   non-commutative operators before its recursive-doubling one).
// Cost (α-β-γ, n = P b bytes): ⌈log2 P⌉(α + nβ + nγ) for the reduce, ⌈log2 P⌉α + (P-1) b β for
//   the scatter.
// Limitations: the whole vector at every level of the reduce (short vectors); rank 0 works most.
// Memory: n bytes at rank 0 (and the reduce's own), none elsewhere beyond the reduce's.
#include <memory>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"

namespace ragged {

void reduce_scatter_block_reduce_scatter(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count,
                                         DataType type, const ReduceOp& op) {
  constexpr int root = 0;
  const std::size_t all = static_cast<std::size_t>(ctx.procs()) * count;
  std::unique_ptr<std::byte[]> reduced;
  if (ctx.rank() == root) reduced = std::make_unique_for_overwrite<std::byte[]>(ctx.bytes(all, type));
  Context reduce_ctx = ctx.half(0);
  (void)internal::run_listed<Collective::reduce>(reduce_ctx, "binomial", sendbuf, static_cast<void*>(reduced.get()),
                                                 all, type, op, root);
  Context scatter_ctx = ctx.half(1);
  // The root's own block: the scatter copies it into recvbuf as dispatch's front door would not.
  if (ctx.rank() == root) internal::copy_bytes(recvbuf, reduced.get(), ctx.bytes(count, type));
  (void)internal::run_listed<Collective::scatter>(scatter_ctx, "binomial", static_cast<const void*>(reduced.get()),
                                                  recvbuf, count, type, root);
}

}  // namespace ragged
