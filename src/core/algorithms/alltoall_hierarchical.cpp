// Hierarchical (node-aware) alltoall through node leaders: every rank's whole send buffer is
// gathered to its node's leader (lowest rank), the leaders exchange one message per pair of nodes
// (an alltoallv among leaders: node a sends node b the n_a n_b blocks a's ranks send b's), and
// every leader scatters to each rank of its node the P blocks it receives. Each phase is the
// collective dispatch selects on a sub-communicator.
//
//   P = 4 on nodes {0,1} {2,3}            (xy = the block rank x sends rank y)
//
//   phase 1  gather in node      L0: [00 01 02 03 | 10 11 12 13]   L2: [20 .. 23 | 30 .. 33]
//   phase 2  leaders exchange    L0 -> L2: [02 03 12 13]           L2 -> L0: [20 21 30 31]
//   phase 3  scatter in node     L0 -> 1: [01 11 21 31]            L2 -> 3: [03 13 23 33]
//
// Cost (m = one block, q = ranks on the largest node, k = nodes, p = ranks): G_q(p m) + (k-1)
// (alpha + q^2 m beta) + S_q(p m) + 2 q p m beta_i for the leader's two reorderings; the network
// link of a node carries one message per other node instead of q^2 (plans::cost::alltoall_hierarchical).
// It pays where alpha dominates (small blocks, many ranks per node); with large blocks the leader's
// q p m bytes in and out make it slower than pairwise.
//
// Reference: SimGrid SMPI's alltoall and Open MPI's han leader-based schemes (Luo et al. 2020:
// gather to the node leader, inter-node exchange, scatter); Jeannot & Steffenel 2007's coordinator
// (alltoall "coordinator", two clusters) generalised to k nodes; docs/algorithms/hierarchical.md.
// Limitation: needs a layout of two or more nodes with one of two or more ranks (pairwise on a flat
// layout); q p count elements must fit an int (the alltoallv among leaders), else
// UnsupportedError on every rank before any message.
// Memory: at leaders, 2 n p m bytes (n = ranks on its node) kept across the parts
// (internal::hierarchy_workspace), plus what the alltoallv part needs; none elsewhere.
#include <climits>
#include <string>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "internal/hierarchy.hpp"
#include "ragged/error.hpp"

namespace ragged {

void alltoall_hierarchical(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  namespace hier = plans::hierarchy;
  const internal::Hierarchy h = internal::hierarchy_of(ctx);
  const auto& split = h.split;
  const int k = split.nodes();
  const auto q = static_cast<std::size_t>(hier::max_per_node(split));
  const auto p = static_cast<std::size_t>(ctx.procs());
  if (q * p * count > static_cast<std::size_t>(INT_MAX)) {
    throw UnsupportedError("alltoall hierarchical: " + std::to_string(q * p * count) +
                           " elements at a leader do not fit the alltoallv's int counts and displacements");
  }
  const std::size_t block = ctx.bytes(count, type);
  const std::size_t row = p * block;  // one rank's whole buffer
  const auto& mine = split.members[static_cast<std::size_t>(h.node)];
  const std::size_t n = mine.size();
  const bool leader = h.local == 0;
  Workspace& keep = internal::hierarchy_workspace(ctx.comm());
  std::byte* gathered = leader ? keep.get(n * row, 0).data() : nullptr;

  Hints node_hints;
  Hints leader_hints;
  const Context gather_part = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(0), node_hints);
  internal::part_gather(gather_part, sendbuf, gathered, count * p, type, 0);
  std::byte* rows = nullptr;  // the scatter's rows at the leader
  if (internal::SubComm* leaders = internal::representatives_comm(ctx, h)) {
    // Pack the message for every node b: [i][j] = what mine[i] sends members[b][j].
    std::byte* packed = keep.get(n * row, 1).data();
    std::vector<int> counts(static_cast<std::size_t>(k));
    std::vector<int> displs(static_cast<std::size_t>(k));
    std::size_t at = 0;  // blocks
    for (int b = 0; b < k; ++b) {
      const std::size_t nb = split.members[static_cast<std::size_t>(b)].size();
      counts[static_cast<std::size_t>(b)] = static_cast<int>(n * nb * count);
      displs[static_cast<std::size_t>(b)] = static_cast<int>(at * count);
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < nb; ++j) {
          internal::copy_bytes(packed + (at + i * nb + j) * block,
                               gathered + hier::gathered_index(split, b, i, j) * block, block);
        }
      }
      at += n * nb;
    }
    // Node b's message has the same n n_b blocks, [j][i] = what members[b][j] sends mine[i]; it
    // lands where the gathered rows were.
    std::byte* received = gathered;
    const Context exchange = internal::part_context(ctx, *leaders, ctx.tags(), leader_hints);
    internal::part_alltoallv(exchange, packed, counts, displs, received, counts, displs, type);
    rows = packed;  // the packed messages are sent: their room takes the scatter's rows
    at = 0;
    for (int b = 0; b < k; ++b) {
      const std::size_t nb = split.members[static_cast<std::size_t>(b)].size();
      for (std::size_t j = 0; j < nb; ++j) {
        for (std::size_t i = 0; i < n; ++i) {
          internal::copy_bytes(rows + hier::scatter_index(split, b, j, i) * block, received + (at + j * n + i) * block,
                               block);
        }
      }
      at += n * nb;
    }
  }
  const Context scatter_part = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(1), node_hints);
  internal::part_scatter(scatter_part, rows, recvbuf, count * p, type, 0);
}

}  // namespace ragged
