// Leader-pipelined (node-aware) allgather: the ranks of each node first allgather their blocks
// among themselves (the allgather dispatch selects, on the node); then the node leaders pass the
// nodes' chunks around a ring, and each chunk a leader receives runs down its node's chain in
// pieces while the ring moves on, so the exchange between nodes and the one inside them overlap.
// This is SMPI's allgather SMP_NTS made layout-aware: nodes from the call's layout (any sizes, any
// placement) instead of a fixed count of consecutive cores, and the node phase from dispatch.
//
//   P = 9 on nodes A = {0,1,2}, B = {3,4,5}, C = {6,7,8}       (leaders 0, 3, 6; "=>" ring, "->" chain)
//
//   phase 1  allgather in each node        every rank of A holds A, of B holds B, of C holds C
//   step 0   ring  0 => 3: A   3 => 6: B   6 => 0: C
//            chain 0 -> 1 -> 2: C (pieces)  3 -> 4 -> 5: A   6 -> 7 -> 8: B
//   step 1   ring  0 => 3: C   3 => 6: A   6 => 0: B     (what came in at step 0 goes on)
//            chain 0 -> 1 -> 2: B           3 -> 4 -> 5: C   6 -> 7 -> 8: A
//
// Cost (m = one block, k nodes, q = ranks on the largest node, s = 8 KiB pieces):
// AG_q(m) + (alpha + q m beta) + max((k-2)(alpha + q m beta), 2 (k-1) q m beta_i,
// q (k-1) q m beta_node) + (q-1)(alpha_i + s beta_i): the node's allgather, the first chunk, then
// the slowest of what overlaps (the ring, the leader's link, which carries the ring's and the
// chain's bytes, and the node's memory, through which every rank takes in (k-1) q m bytes), and
// the chain's fill (plans::cost::allgather_leader_pipeline).
// It moves every block across the nodes once and into every rank once; no rank receives more
// than its p m bytes.
//
// Reference: SimGrid SMPI's allgather "SMP_NTS" (intra-node exchange, then a ring among the SMP
// leaders that posts every receive at once and forwards each received chunk to the next leader
// and down the node's chain); docs/algorithms/allgather-leader-pipeline.md.
// Limitation: needs a layout of two or more nodes, one with two or more ranks (ring otherwise);
// the leader carries the ring's bytes and feeds the chain, so its link moves 2 (k-1) q m bytes
// out; one piece size (8 KiB, the best of 2 to 64 KiB at P = 560 on infiniband-qdr-560) everywhere.
// Memory: none when every node's ranks are consecutive; p m bytes otherwise (node-major order,
// internal::hierarchy_workspace), unpacked at the end.
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "internal/hierarchy.hpp"
#include "plans/leader_pipeline_plan.hpp"

namespace ragged {

namespace {
using plans::leader_pipeline::piece_bytes;
}  // namespace

void allgather_leader_pipeline(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  // Dispatch copied this rank's block into recvbuf.
  const internal::Hierarchy h = internal::hierarchy_of(ctx);
  const auto& split = h.split;
  const int k = split.nodes();
  const std::size_t p = static_cast<std::size_t>(split.procs());
  const std::size_t block = ctx.bytes(count, type);
  const auto out = ctx.blocks(recvbuf, block);
  const plans::leader_pipeline::Order order = plans::leader_pipeline::order(split);
  std::byte* base = order.identity ? out.at(0) : internal::hierarchy_workspace(ctx.comm()).get(p * block).data();
  const auto chunk = [&](int n) { return base + order.first[static_cast<std::size_t>(n)] * block; };
  const auto chunk_bytes = [&](int n) { return split.members[static_cast<std::size_t>(n)].size() * block; };
  const auto& mine = split.members[static_cast<std::size_t>(h.node)];
  if (!order.identity)
    internal::copy_bytes(chunk(h.node) + static_cast<std::size_t>(h.local) * block, out.at(ctx.rank()), block);

  // Phase 1: the node's blocks to every rank of the node.
  if (mine.size() > 1) {
    Hints node_hints;
    const Context node_part = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(0), node_hints);
    internal::part_allgather(node_part, chunk(h.node), count, type);
  }

  // Phase 2: the leaders' ring, each chunk down the node's chain as it comes in.
  Comm& comm = ctx.comm();
  const int tag = ctx.tags().half(1).first();
  const int next_in_chain =
      h.local + 1 < static_cast<int>(mine.size()) ? mine[static_cast<std::size_t>(h.local + 1)] : -1;
  std::vector<Request> sends;
  const auto down_the_chain = [&](int n, std::vector<Request>* receives) {
    // Pieces of node n's chunk: received from the previous rank of the chain (leaders: already
    // there), forwarded to the next.
    const std::size_t bytes = chunk_bytes(n);
    for (std::size_t i = 0; i < plans::leader_pipeline::pieces(bytes, piece_bytes); ++i) {
      const std::size_t at = i * piece_bytes;
      const std::size_t size = std::min(piece_bytes, bytes - at);
      if (receives != nullptr) {
        comm.wait_all(std::span<Request>(&(*receives)[i], 1), ctx.timeout());
      }
      if (next_in_chain >= 0) sends.push_back(comm.isend(next_in_chain, tag, chunk(n) + at, size));
    }
  };
  if (h.local == 0) {
    const int next = split.members[static_cast<std::size_t>((h.node + 1) % k)].front();
    const int prev = split.members[static_cast<std::size_t>((h.node - 1 + k) % k)].front();
    std::vector<Request> ring;
    ring.reserve(static_cast<std::size_t>(k));
    for (int s = 0; s + 1 < k; ++s) {
      const int n = plans::leader_pipeline::received_at(k, h.node, s);
      ring.push_back(comm.irecv(prev, tag, chunk(n), chunk_bytes(n)));
    }
    if (k > 1) sends.push_back(comm.isend(next, tag, chunk(h.node), chunk_bytes(h.node)));
    for (int s = 0; s + 1 < k; ++s) {
      const int n = plans::leader_pipeline::received_at(k, h.node, s);
      comm.wait_all(std::span<Request>(&ring[static_cast<std::size_t>(s)], 1), ctx.timeout());
      if (s + 2 < k) sends.push_back(comm.isend(next, tag, chunk(n), chunk_bytes(n)));
      down_the_chain(n, nullptr);
    }
  } else {
    const int prev_in_chain = mine[static_cast<std::size_t>(h.local - 1)];
    for (int s = 0; s + 1 < k; ++s) {
      const int n = plans::leader_pipeline::received_at(k, h.node, s);
      // Every piece's receive posted before the first is waited for, so the chain never stalls
      // on a receive not yet posted.
      std::vector<Request> receives;
      const std::size_t bytes = chunk_bytes(n);
      for (std::size_t i = 0; i < plans::leader_pipeline::pieces(bytes, piece_bytes); ++i) {
        const std::size_t at = i * piece_bytes;
        receives.push_back(comm.irecv(prev_in_chain, tag, chunk(n) + at, std::min(piece_bytes, bytes - at)));
      }
      down_the_chain(n, &receives);
    }
  }
  comm.wait_all(sends, ctx.timeout());

  if (!order.identity) {
    for (std::size_t i = 0; i < p; ++i) {
      if (order.rank_at[i] != ctx.rank()) internal::copy_bytes(out.at(order.rank_at[i]), base + i * block, block);
    }
  }
}

}  // namespace ragged
