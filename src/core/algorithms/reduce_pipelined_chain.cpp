// reduce "pipelined_chain": a segmented pipeline of partial results down the chain root + 1,
// root + 2, ..., root - 1, root (plans::pipelined_chain::reduce_order). The regular form of
// reduce "sorted_chain" (the same chain in rank order, so `auto` weighs it on balanced calls),
// and the chain/pipeline reduce of Open MPI's tuned component that Pješivac-Grbović et al. 2007
// model.
//
//   P = 5, root 2, partial segments a b c:
//
//   3 ──a b c──> 4 ──a b c──> 0 ──a b c──> 1 ──a b c──> 2 (root)
//   x3           x3∘x4        x3∘x4∘x0     ...∘x1       ...∘x2 = the result
//
// Each rank receives partial segment t from its predecessor, adds its own and sends it on while
// segment t + 1 is on its way in, one send in flight (internal::reduce_along_chain, shared with
// sorted_chain). Segments of 32 KiB (pipelined_linear's).
//
// Reference: J. Pješivac-Grbović, T. Angskun, G. Bosilca, G. E. Fagg, E. Gabriel, J. J. Dongarra,
//   "Performance analysis of MPI collective operations", Cluster Computing 10(2), 2007 (the
//   segmented chain reduce, its model as here).
// Limitation: commutative operators only (the chain combines from root + 1 on; a non-commutative
//   one runs binomial); latency linear in P (P - 2 + S segment steps), so it pays off for large
//   vectors only; foreground only.
// Memory: n bytes from the workspace at every rank but the chain's first (the partial results).
//
// Cost (alpha-beta-gamma, n bytes in S = ceil(n / s) segments of s = 32 KiB):
// (P - 2 + S)(alpha + s beta + s gamma), the last segment leaving the first rank at step S and
// crossing P - 1 hops; on ranks laid out by node a step is the ring's (one hop a node crosses
// the node's link; plans::cost::reduce_pipelined_chain). docs/algorithms/sorted-chain.md.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "internal/reduce_chain.hpp"
#include "plans/pipelined_chain_plan.hpp"
#include "plans/pipelined_linear_plan.hpp"

namespace ragged {

void reduce_pipelined_chain(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                            const ReduceOp& op, int root) {
  internal::check_reducible(op, type);
  if (!op.commutative) {
    throw InvalidArgument("op", "operator '" + op.label +
                                    "' is not commutative; reduce pipelined_chain combines from root + 1 on and "
                                    "needs a commutative operator");
  }
  const std::vector<int> order = plans::pipelined_chain::reduce_order(ctx.procs(), root);
  internal::reduce_along_chain(ctx, sendbuf, recvbuf, count, type, op, order,
                               plans::chain::segment_elements(size_of(type)));
}

}  // namespace ragged
