// reduce "sorted_chain": a segmented pipeline of partial results down a chain sorted by estimated
// arrival, the earliest rank first, the latest last before the root, which ends the chain
// (plans::sorted::reduce_chain). The reduce half of Proficz 2018's SLT (allreduce "slt", §4.1:
// "the faster processes start the communication earlier, the later ones have more time to
// compute"), ending at the root instead of at the latest rank, with no way back up.
//
//   P = 5, root 2, arrivals (estimated) 1 < 3 < 0 < 4, partial segments a b c:
//
//   1 ──a b c──> 3 ──a b c──> 0 ──a b c──> 4 ──a b c──> 2 (root)
//   x1           x1∘x3        x1∘x3∘x0     ...∘x4       ...∘x2 = the result
//
// Each rank receives partial segment t from its predecessor, adds its own and sends it on while
// segment t + 1 is on its way in, one send in flight (as allreduce "pipelined_linear"). By the
// time the latest rank arrives, the others' partials wait at its predecessor: it adds its own and
// streams S segments to the root, which adds the root's own. An early rank leaves once its
// successor, the next to arrive, has taken its partials.
//
// Segments: with a snapshot whose link model is known, the count the chain's step model finds least
// for the estimated arrivals (plans::sorted::chain_segment_count, as bcast sorted_chain); else 32 KiB.
//
// With equal estimates or without a snapshot the chain is the ranks but the root in rank order,
// then the root. Wrong estimates keep the result exact (every rank sorts the same snapshot) and
// cost only time.
//
// Reference: J. Proficz, "Improving all-reduce collective operations for imbalanced process arrival patterns", The
//   Journal of Supercomputing 74(7), 2018, §4.1 (SLT's sorted chain); ragged's reduce-only form.
// Limitation: commutative operators only (the chain combines in arrival order; a non-commutative one runs binomial);
//   gains only from an arrival snapshot; latency linear in P (P - 1 + S - 1 segment steps when everybody is there);
//   foreground only.
// Memory: n bytes from the workspace at every rank but the chain's first (the partial results).
//
// Cost (alpha-beta-gamma, n bytes in S = ceil(n / s) segments of s = 32 KiB): everybody there,
// (P - 2 + S)(alpha + s beta) + n gamma along the chain; arrivals spread by omega = W segment
// times with the root early, the latest rank needs max(S, P - 2 + S - W)(alpha + s beta) + 2 n gamma
// after it arrives (plans::cost::reduce_sorted_chain). docs/algorithms/sorted-chain.md.
#include <algorithm>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "internal/common.hpp"
#include "internal/reduce_chain.hpp"
#include "plans/pipelined_chain_plan.hpp"
#include "plans/pipelined_linear_plan.hpp"
#include "plans/sorted_order.hpp"
#include "ragged/arrival.hpp"

namespace ragged {

void reduce_sorted_chain(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                         const ReduceOp& op, int root) {
  namespace chain = plans::chain;
  internal::check_reducible(op, type);
  if (!op.commutative) {
    throw InvalidArgument("op", "operator '" + op.label +
                                    "' is not commutative; reduce sorted_chain combines in arrival order and needs a "
                                    "commutative operator");
  }
  const int procs = ctx.procs();
  const std::size_t esize = size_of(type);
  const std::size_t bytes = count * esize;
  // No background part; claiming cancels one prepared for another call.
  const internal::PlanKey call = internal::plan_key(Collective::reduce, "sorted_chain", bytes, root);
  if (internal::BackgroundSlot* slot = internal::slot_of(ctx)) slot->claim(call);
  const ArrivalSnapshot* snapshot = ctx.arrival();
  const std::vector<double> arrivals = internal::step_plan_input(snapshot, procs, bytes).arrivals;
  const std::vector<int> order = plans::sorted::reduce_chain(arrivals, root);
  // Segments: as bcast sorted_chain's, from the chain's step model with a snapshot's link model;
  // else pipelined_linear's 32 KiB.
  std::size_t per = chain::segment_elements(esize);
  if (snapshot != nullptr && snapshot->link().known()) {
    const std::size_t n = plans::sorted::chain_segment_count(plans::sorted::in_chain_order(arrivals, order), bytes,
                                                             snapshot->link().alpha, snapshot->link().beta,
                                                             plans::pipelined_chain::min_segment_bytes);
    per = std::max<std::size_t>(1, (count + n - 1) / n);
  }
  internal::reduce_along_chain(ctx, sendbuf, recvbuf, count, type, op, order, per);
}

}  // namespace ragged
