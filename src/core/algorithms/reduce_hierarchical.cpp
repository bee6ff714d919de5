// Hierarchical (node-aware) reduce to any root: reduce inside every node to its representative
// (the root on the root's node, the lowest rank elsewhere), then reduce among the representatives
// to the root. Each phase is the reduce dispatch selects on a sub-communicator.
//
//   P = 7 on nodes {0,1,2} {3,4} {5,6}, root 4      (R = representative, S = the result)
//
//   phase 1  reduce in node             d0 d1 d2 -> R0     d3 d4 -> R4     d5 d6 -> R5
//   phase 2  reduce of representatives  R0, R5 ---> R4 = S
//
// Cost (q = ranks on the largest node, k = nodes, m = bytes; binomial parts):
//   ceil(log2 q)(alpha_i + m beta_i + m gamma) + ceil(log2 k)(alpha + m beta + m gamma)
// (plans::cost::reduce_hierarchical).
//
// Reference: SimGrid SMPI's reduce "mvapich2_two_level" (intra-node reduce to the node leader,
// inter-node reduce among leaders); Luo et al. 2020 (HAN's reduce: lower reduce, upper reduce);
// MPICH's node-aware MPIR_Reduce_intra_smp; docs/algorithms/hierarchical.md.
// Limitation: commutative operators only (operands are combined node by node, not in rank order;
// binomial, which keeps rank order, otherwise); needs a layout of two or more nodes with one of two
// or more ranks (binomial on a flat layout); the phases do not overlap (no segments).
// Memory: m bytes at the representatives other than the root, kept across the two phases
// (internal::hierarchy_workspace).
#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/hierarchy.hpp"

namespace ragged {

void reduce_hierarchical(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                         const ReduceOp& op, int root) {
  const internal::Hierarchy h = internal::hierarchy_of(ctx);
  const std::vector<int> reps = plans::hierarchy::representatives(h.split, root);
  const int rep = reps[static_cast<std::size_t>(h.node)];
  const bool is_root = ctx.rank() == root;
  const bool is_rep = ctx.rank() == rep;
  // The node's partial result: the root's recvbuf, or a buffer of the other representatives.
  void* partial = nullptr;
  if (is_root) {
    partial = recvbuf;
  } else if (is_rep) {
    partial = internal::hierarchy_workspace(ctx.comm()).get(ctx.bytes(count, type)).data();
  }
  Hints node_hints;
  Hints leader_hints;
  const Context inside = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(0), node_hints);
  internal::part_reduce(inside, sendbuf, partial, count, type, op, h.split.local_of[static_cast<std::size_t>(rep)]);
  if (internal::SubComm* leaders = internal::representatives_comm(ctx, h, root)) {
    const Context across = internal::part_context(ctx, *leaders, ctx.tags().half(1), leader_hints);
    internal::part_reduce(across, partial, is_root ? recvbuf : nullptr, count, type, op,
                          h.split.node_of[static_cast<std::size_t>(root)]);
  }
}

}  // namespace ragged
