// Hierarchical (node-aware) allgather: gather every node's blocks to its leader (lowest rank),
// allgather among the leaders, bcast of the whole result inside every node. Each phase is the
// collective dispatch selects on a sub-communicator. With uneven nodes (or nodes whose ranks are
// not consecutive) the leaders exchange padded node blocks of q blocks
// (q = ranks on the largest node) through the leader's buffers and put every block in its rank's
// place; with q consecutive ranks on every node the node blocks are runs of recvbuf and nothing
// is copied.
//
//   P = 5 on nodes {0,1,2} {3,4}                      (q = 3, "-" = padding)
//
//   phase 1  gather in node        b0 b1 b2 -> L0 [b0 b1 b2]     b3 b4 -> L3 [b3 b4 -]
//   phase 2  allgather of leaders  L0, L3: [b0 b1 b2 | b3 b4 -]   (then unpacked: b0 .. b4)
//   phase 3  bcast in node         L0 -> 1, 2: [b0 .. b4]        L3 -> 4: [b0 .. b4]
//
// Cost (m = one block, k = nodes, p = ranks): G_q(m) + AG_k(q m) + B_q(p m), G the selected gather,
// AG the selected allgather and B the selected bcast (ring and binomial:
// (q-1)(alpha_i + m beta_i) + (k-1)(alpha + q m beta) + ceil(log2 q)(alpha_i + p m beta_i));
// plans::cost::allgather_hierarchical. Padding sends (k q - p) m bytes more across nodes.
//
// Reference: SimGrid SMPI's allgather "SMP_NTS" and "loosely_lr" (intra-node gather, inter-node
// exchange among leaders, intra-node bcast); Luo et al. 2020 (HAN's allgather: lower gather, upper
// allgather, lower bcast); Kandalla et al. 2009; docs/algorithms/hierarchical.md.
// Limitation: needs a layout of two or more nodes with one of two or more ranks (ring on a flat
// layout); uneven nodes pay the padding; the leader's link carries all p m bytes inward and the
// node bcast carries them again (MPI-3 shared memory would let a node read them once).
// Memory: at leaders, without consecutive even nodes, k q m bytes kept across the parts
// (internal::hierarchy_workspace); none otherwise.
#include <cstring>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "internal/hierarchy.hpp"

namespace ragged {

void allgather_hierarchical(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const internal::Hierarchy h = internal::hierarchy_of(ctx);
  const auto& split = h.split;
  const bool leader = h.local == 0;
  const std::size_t block = ctx.bytes(count, type);
  const int q = plans::hierarchy::max_per_node(split);
  const int k = split.nodes();
  const auto out = ctx.blocks(recvbuf, block);
  const bool direct = plans::hierarchy::consecutive_equal(split);
  // Leaders without consecutive even nodes: k padded node blocks of q blocks each.
  std::byte* padded = nullptr;
  if (leader && !direct)
    padded = internal::hierarchy_workspace(ctx.comm()).get(static_cast<std::size_t>(k * q) * block).data();
  std::byte* node_run = direct ? out.at(split.members[static_cast<std::size_t>(h.node)].front())
                               : padded + static_cast<std::size_t>(h.node * q) * block;

  Hints node_hints;
  Hints leader_hints;
  // Phases 1 and 3 exchange inside the node: disjoint halves. Phase 2 runs between leaders of
  // different nodes: the whole block (an allgather part may split it, as lnbc does).
  const Context gather_part = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(0), node_hints);
  internal::part_gather(gather_part, sendbuf, leader ? node_run : nullptr, count, type, 0);
  if (internal::SubComm* leaders = internal::representatives_comm(ctx, h)) {
    const Context allgather_part = internal::part_context(ctx, *leaders, ctx.tags(), leader_hints);
    internal::part_allgather(allgather_part, direct ? recvbuf : padded, count * static_cast<std::size_t>(q), type);
    if (!direct) {
      for (int n = 0; n < k; ++n) {
        const auto& members = split.members[static_cast<std::size_t>(n)];
        for (std::size_t i = 0; i < members.size(); ++i) {
          internal::copy_bytes(out.at(members[i]), padded + (static_cast<std::size_t>(n * q) + i) * block, block);
        }
      }
    }
  }
  const Context bcast_part = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(1), node_hints);
  internal::dispatch_bcast(bcast_part, recvbuf, count * static_cast<std::size_t>(split.procs()), type, 0);
}

}  // namespace ragged
