// Lane (multi-leader) allgather: every rank of a node takes part in the exchange between nodes,
// each on its own lane, then the node's ranks share what their lanes brought. With c = the fewest
// ranks on one node, lane j is the j-th rank of every node; a node's other ranks first hand their
// block to lane (index mod c) of their node (plans::lanes). Each phase is the collective dispatch
// selects on a sub-communicator.
//
//   P = 8 on nodes {0,1,2,3} {4,5,6,7}                  (c = 4: four lanes, no hand-over)
//
//   phase 1  allgatherv in each lane   lane 0: 0 <-> 4   lane 1: 1 <-> 5   lane 2: 2 <-> 6   lane 3: 3 <-> 7
//            (all four at once, sharing each node's link)      rank 1 holds [b1 b5]
//   phase 2  allgatherv in each node   ranks 0..3 share [b0 b4 | b1 b5 | b2 b6 | b3 b7]
//   unpack   block i of that buffer to rank order[i]'s place: b0 .. b7
//
//   P = 10 on nodes of 3 + 5 + 2 (c = 2): rank 5 (index 2 of node 1) hands b5 to rank 3 (lane 0),
//   rank 6 to rank 4 (lane 1), rank 7 to rank 3; lane 0 carries [b0 b2 | b3 b5 b7 | b8].
//
// Cost (m = one block, k nodes, q ranks per node, even nodes): AG_k(m) with the q lanes' messages
// sharing each node's link, then AG_q(k m) inside the node: with rings
// (k-1)(alpha + q m beta) + (q-1)(alpha_i + k m beta_i); plans::cost::allgather_lanes. Against
// the leader-based `hierarchical` (all p m bytes into one rank, then a bcast of them inside the
// node) it sends the same bytes across nodes in k-1 steps instead of its gather's and bcast's, and
// no rank of a node receives more than p m bytes. Uneven nodes add one intra-node step
// (ceil(max/c) - 1 messages into a lane rank) and lanes that carry more blocks than others.
//
// Reference: Träff and Hunold 2020 (decomposing collectives into lane and node collectives, their
// "full-lane" allgather: an allgather on every lane communicator, then one on every node
// communicator); Kandalla et al. 2009 (multi-leader allgather on multi-core clusters);
// docs/algorithms/hierarchical.md, "Lanes".
// Limitation: needs a layout of two or more nodes with one of two or more ranks (ring on a flat
// layout); p count elements must fit an int (the allgatherv parts' counts), else UnsupportedError
// on every rank before any message; the unpacking copies p m bytes on every rank.
// Memory: p m bytes on every rank, kept across the parts (internal::hierarchy_workspace).
#include <climits>
#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "internal/hierarchy.hpp"
#include "plans/lanes_plan.hpp"
#include "ragged/error.hpp"

namespace ragged {

void allgather_lanes(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  // Dispatch copied this rank's block into recvbuf.
  const internal::Hierarchy h = internal::hierarchy_of(ctx);
  const auto& split = h.split;
  const std::size_t p = static_cast<std::size_t>(split.procs());
  if (p * count > static_cast<std::size_t>(INT_MAX)) {
    throw UnsupportedError("allgather lanes: " + std::to_string(p * count) +
                           " elements do not fit the allgatherv parts' int counts and displacements");
  }
  const plans::lanes::Plan plan = plans::lanes::plan(split);
  const std::size_t block = ctx.bytes(count, type);
  const auto out = ctx.blocks(recvbuf, block);
  const int c = plan.lanes;
  const auto node = static_cast<std::size_t>(h.node);
  const bool carrier = h.local < c;
  const auto lane = static_cast<std::size_t>(h.local % c);
  std::byte* gathered = internal::hierarchy_workspace(ctx.comm()).get(p * block).data();
  const auto slot = [&](std::size_t i) { return gathered + i * block; };

  // Phase 0: the ranks past the first c of a node hand their block to their lane's rank.
  const std::vector<int>& bundle = plan.bundle[node][lane];
  const int hand_over = ctx.tags().half(0).first();
  if (carrier) {
    std::vector<Request> requests;
    for (std::size_t t = 1; t < bundle.size(); ++t) {
      requests.push_back(ctx.comm().irecv(bundle[t], hand_over, slot(plan.at[lane][node] + t), block));
    }
    internal::copy_bytes(slot(plan.at[lane][node]), out.at(ctx.rank()), block);
    ctx.comm().wait_all(requests, ctx.timeout());
  } else {
    ctx.comm().send(bundle.front(), hand_over, out.at(ctx.rank()), block, ctx.timeout());
  }

  Hints lane_hints;
  Hints node_hints;
  const int per_block = static_cast<int>(count);
  // Phase 1: an allgatherv of the bundles within every lane (node n is rank n there), between
  // ranks of different nodes: the whole tag block.
  if (carrier) {
    const std::size_t k = plan.lane_members[lane].size();
    std::vector<int> counts(k);
    std::vector<int> displs(k);
    for (std::size_t n = 0; n < k; ++n) {
      counts[n] = static_cast<int>(plan.bundle[n][lane].size()) * per_block;
      displs[n] = static_cast<int>(plan.at[lane][n] - plan.lane_first[lane]) * per_block;
    }
    internal::SubComm& lane_comm = internal::sub_comm(ctx.comm(), plan.lane_members[lane], *h.layout);
    const Context part = internal::part_context(ctx, lane_comm, ctx.tags(), lane_hints);
    internal::part_allgatherv(part, slot(plan.lane_first[lane]), counts, displs, type);
  }
  // Phase 2: an allgatherv within every node of each lane's part (the node's ranks past c give none).
  const std::size_t q = split.members[node].size();
  std::vector<int> counts(q, 0);
  std::vector<int> displs(q, static_cast<int>(p) * per_block);
  for (std::size_t j = 0; j < static_cast<std::size_t>(c); ++j) {
    counts[j] = static_cast<int>(plans::lanes::lane_blocks(plan, static_cast<int>(j))) * per_block;
    displs[j] = static_cast<int>(plan.lane_first[j]) * per_block;
  }
  const Context node_part = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(1), node_hints);
  internal::part_allgatherv(node_part, gathered, counts, displs, type);
  for (std::size_t i = 0; i < p; ++i) internal::copy_bytes(out.at(plan.order[i]), slot(i), block);
}

}  // namespace ragged
