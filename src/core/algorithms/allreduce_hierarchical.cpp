// Hierarchical (node-aware) allreduce: reduce inside every node to its leader (its lowest rank),
// allreduce among the leaders, bcast inside every node. Each phase is the collective dispatch
// selects on a sub-communicator (a SubComm of the node's ranks, or of the leaders), so RAGGED_REDUCE,
// RAGGED_ALLREDUCE, RAGGED_BCAST and the rules file reach the phases too.
//
//   P = 7 on nodes {0,1,2} {3,4} {5,6}       (L = leader, d = this rank's vector, S = the sum)
//
//   phase 1  reduce in node         d0 d1 d2 -> L0      d3 d4 -> L3      d5 d6 -> L5
//   phase 2  allreduce of leaders   L0 <-------------> L3 <-----------> L5        (all hold S)
//   phase 3  bcast in node          L0 -> 1, 2          L3 -> 4          L5 -> 6
//
// Cost (q = ranks on the largest node, k = nodes, m = bytes; alpha_i/beta_i inside a node,
// alpha/beta between nodes; only the leaders use the node's network link):
//   ceil(log2 q)(alpha_i + m beta_i + m gamma) + A_k(m) + B_q(m)
// where A_k is the selected allreduce among k (ring: 2(k-1) alpha + 2 (k-1)/k m beta + ...) and
// B_q the selected bcast among q (plans::cost::allreduce_hierarchical).
//
// Reference: Luo et al. 2020 (HAN, Open MPI's coll/han: allreduce as intra-node reduce, inter-node
// allreduce, intra-node bcast, there segmented and pipelined); SimGrid SMPI's allreduce
// "smp_binomial" (intra-node binomial reduce, inter-node binomial reduce and bcast, intra bcast);
// Träff & Hunold 2020's and Kandalla et al. 2009's leader-based two-level schemes; docs/algorithms/hierarchical.md.
// Limitation: commutative operators only (the node phase reorders the operands; reduce_bcast
// otherwise); needs a layout of two or more nodes with one of two or more ranks (reduce_bcast on a
// flat layout); no pipelining of the three phases (han's segments), and the leader's link carries
// the whole vector, so large vectors on many ranks per node favour hierarchical_sliced-style
// schemes (not built yet, docs/algorithms/hierarchical.md).
// Memory: none of its own; the phases take what their algorithms take.
#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/hierarchy.hpp"

namespace ragged {

void allreduce_hierarchical(Context& ctx, const void* /*sendbuf: equals recvbuf*/, void* recvbuf, std::size_t count,
                            DataType type, const ReduceOp& op) {
  const internal::Hierarchy h = internal::hierarchy_of(ctx);
  const bool leader = h.local == 0;
  Hints node_hints;
  Hints leader_hints;
  // Phases 1 and 3 exchange between the same ranks: disjoint halves of the block. Phase 2 runs
  // between leaders of different nodes, pairs that never exchange in phases 1 and 3: the whole
  // block (an allreduce part may split it further, as reduce_bcast does).
  const Context reduce_part = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(0), node_hints);
  internal::part_reduce(reduce_part, recvbuf, leader ? recvbuf : nullptr, count, type, op, 0);
  if (internal::SubComm* leaders = internal::representatives_comm(ctx, h)) {
    const Context allreduce_part = internal::part_context(ctx, *leaders, ctx.tags(), leader_hints);
    internal::part_allreduce(allreduce_part, recvbuf, count, type, op);
  }
  const Context bcast_part = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(1), node_hints);
  internal::dispatch_bcast(bcast_part, recvbuf, count, type, 0);
}

}  // namespace ragged
