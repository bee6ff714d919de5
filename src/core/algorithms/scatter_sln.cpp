// scatter "sln": Sorted LiNear tree (Proficz 2021, §1, after its reference [21]).
//
// The root sends every other rank its block, one at a time, in the order of their estimated
// arrival (earliest first, ties by rank; plans::sorted::gather_order): the early ranks get their
// blocks and leave while the late ones still compute, and the root's link carries one block at a
// time, so a late rank delays only the blocks after its own.
//
//   root            rank a (earliest)      rank b           rank c (latest)
//    |== block a ====>| leaves
//    |== block b ============================>| leaves
//    |== block c ---------------------------------(waits for c)->| leaves
//
// Only the scatter's order is in the text (its reference [21], Proficz 2020, is not at hand):
// the design keeps what it states, a linear tree whose order follows the process arrival times.
// Each send is blocking, so a block larger than the eager limit waits for its receiver; a block
// below it leaves at once and the order matters less.
//
// Reference: J. Proficz, "All-gather Algorithms Resilient to Imbalanced Process Arrival Patterns", ACM TACO 18(4),
//   2021, §1 and table 1 (SLN, after its reference [21]).
// Limitation: the root sends P - 1 blocks one after the other, slower than scatter "binomial" for small blocks when
//   everybody is there; needs the arrival estimates to order the ranks (equal estimates: rank order, scatter
//   "linear"'s order with blocking sends); foreground only (BSLN, the root's agent sending while the root computes,
//   is not built).
// Memory: none beyond the buffers.
//
// Cost (alpha-beta, n bytes per block): (P-1)(alpha + n beta) at the root when everybody is there; with the root
// early and the others spread, the latest rank's block alone after it arrives: alpha + n beta
// (plans::cost::scatter_sln). docs/algorithms/sln.md.
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "internal/common.hpp"
#include "plans/sorted_order.hpp"

namespace ragged {

void scatter_sln(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  // Dispatch copied the root's own block into recvbuf.
  const std::size_t block = ctx.bytes(count, type);
  // No background part; claiming cancels one prepared for another call.
  const internal::PlanKey call = internal::plan_key(Collective::scatter, "sln", block, root);
  if (internal::BackgroundSlot* slot = internal::slot_of(ctx)) slot->claim(call);
  // Every rank reads the snapshot: one of another size throws on every rank alike.
  const std::vector<double> arrivals = internal::step_plan_input(ctx.arrival(), ctx.procs(), block).arrivals;
  const int tag = ctx.tag(0);
  if (ctx.rank() != root) {
    ctx.comm().recv(root, tag, recvbuf, block, ctx.timeout());
    return;
  }
  for (const int r : plans::sorted::gather_order(arrivals, root)) {
    ctx.comm().send(r, tag, internal::bytes(sendbuf) + static_cast<std::size_t>(r) * block, block, ctx.timeout());
  }
}

}  // namespace ragged
