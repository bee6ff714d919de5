// Hierarchical (node-aware) bcast from any root: bcast among one representative per node (the root
// on the root's node, the lowest rank elsewhere), then bcast inside every node from its
// representative. Each phase is the bcast dispatch selects on a sub-communicator (RAGGED_BCAST and
// the rules file reach them); the root need not be a node's lowest rank and pays no extra step.
//
//   P = 7 on nodes {0,1,2} {3,4} {5,6}, root 4     (R = representative)
//
//   phase 1  bcast of representatives   R4 ---> R0, R5          (node 1 first: the root's node)
//   phase 2  bcast in node              R0 -> 1, 2   R4 -> 3   R5 -> 6
//
// Cost (q = ranks on the largest node, k = nodes, m = bytes): B_k(m) between nodes + B_q(m) inside
// them, B the selected bcast (binomial: ceil(log2 k)(alpha + m beta) + ceil(log2 q)(alpha_i + m beta_i)).
//
// Reference: Luo et al. 2020 (HAN: upper bcast among one rank per node, then lower bcast, segmented
// and pipelined there); SimGrid SMPI's bcast "SMP_binomial" (root's node leader first, inter-node
// binomial, intra-node binomial); Kandalla et al. 2009; docs/algorithms/hierarchical.md.
// Limitation: needs a layout of two or more nodes with one of two or more ranks (binomial on a
// flat layout); the two phases do not overlap (no segments: han pipelines them), so for large
// messages the node phase starts only when the whole vector is in.
// Memory: none of its own.
#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/hierarchy.hpp"

namespace ragged {

void bcast_hierarchical(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  const internal::Hierarchy h = internal::hierarchy_of(ctx);
  const std::vector<int> reps = plans::hierarchy::representatives(h.split, root);
  const int root_node = h.split.node_of[static_cast<std::size_t>(root)];
  Hints leader_hints;
  Hints node_hints;
  // The two phases exchange between different pairs (across nodes, inside them): still disjoint
  // halves, so any bcast fits either.
  if (internal::SubComm* leaders = internal::representatives_comm(ctx, h, root)) {
    const Context across = internal::part_context(ctx, *leaders, ctx.tags().half(0), leader_hints);
    internal::dispatch_bcast(across, buffer, count, type, root_node);
  }
  const int local_root = h.split.local_of[static_cast<std::size_t>(reps[static_cast<std::size_t>(h.node)])];
  const Context inside = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(1), node_hints);
  internal::dispatch_bcast(inside, buffer, count, type, local_root);
}

}  // namespace ragged
