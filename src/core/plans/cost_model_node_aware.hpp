// Cost models of the node-aware (hierarchical) algorithms and of the node- and arrival-aware
// allreduce, built on the models of plans/cost_model.hpp (which includes this file at its end;
// either header gives both).
//
// The node- and arrival-aware allreduce (hierarchical_arrival; docs/algorithms/hierarchical-arrival.md)
// gives the time after the last arrival with one node late by omega and its representative (its latest
// rank) the only late rank there: what is left of the early ranks' reduce (q - 1 of them, binomial,
// R_{q-1}) after omega, one intra-node step to the representative (alpha_i + m beta_i + m gamma), the
// allreduce `auto` selects among the k representatives with omega' = omega plus that tail minus the
// early nodes' own R_{q-1} and step (the least of prr, prd, slt once omega' reaches a segment's tau,
// the least regular one before), and the selected bcast in the node. Like prr, it reads omega_last.
#pragma once

#include <algorithm>

#include "plans/cost_input.hpp"
#include "plans/cost_model.hpp"
#include "plans/cost_model_reductions.hpp"
#include "plans/leader_pipeline_plan.hpp"

namespace ragged::plans::cost {

// ------------------------------------------------------------------ hierarchical (node-aware)
// docs/algorithms/hierarchical.md. Three phases, each the collective `auto` selects on its
// sub-communicator: the least of that collective's regular models. Inside a node: q = per_node
// ranks over alpha_intra and beta_intra (0: as alpha and beta); between nodes: k = nodes leaders
// over alpha and beta, each leader alone on its node's link. Every phase on the largest node
// (per_node), so uneven nodes are costed as if all were that large. With nodes < 2 or per_node < 2
// the restriction sends the call elsewhere; the models then cost the flat equivalent.

/// The link inside a node, for q ranks and m bytes.
inline CostInput intra_node(const CostInput& x, double bytes) {
  CostInput in = x;
  in.procs = std::max(1, x.per_node);
  in.bytes = bytes;
  in.alpha = x.alpha_intra > 0 ? x.alpha_intra : x.alpha;
  in.beta = x.beta_intra > 0 ? x.beta_intra : x.beta;
  in.nodes = 1;
  in.per_node = in.procs;
  return in;
}
/// The links between nodes, among the k leaders, for m bytes.
inline CostInput inter_node(const CostInput& x, double bytes) {
  CostInput in = x;
  in.procs = x.nodes > 0 ? x.nodes : x.procs;
  in.bytes = bytes;
  in.nodes = in.procs;
  in.per_node = 1;
  return in;
}
/// What `auto` would pay for a part of each collective (the least regular model).
inline double allreduce_selected(const CostInput& x) {
  return std::min({allreduce_ring(x), allreduce_rabenseifner(x), allreduce_recursive_doubling(x),
                   allreduce_pipelined_linear(x), allreduce_reduce_bcast(x)});
}
inline double allgather_selected(const CostInput& x) {
  return std::min({allgather_ring(x), allgather_bruck(x), allgather_lnbc(x)});
}
inline double reduce_selected(const CostInput& x) { return std::min(reduce_binomial(x), reduce_pipelined_chain(x)); }
inline double gather_selected(const CostInput& x) { return std::min(gather_linear(x), gather_binomial(x)); }
/// The leaders' alltoallv of m-byte blocks: its models are latency terms only (the sizes are not
/// shared), so `auto` runs linear, whose p - 1 messages are in flight at once as the linear
/// alltoall's are: the cheaper of the linear and pairwise alltoall models of those blocks. (It was
/// (p - 1)(alpha + m beta), one message after the other: at P = 256 on infiniband-qdr-560 that put
/// the node-aware alltoall of 1-byte blocks at 35.7 us against Bruck's 16.8, where it takes 15.3.)
inline double alltoallv_selected(const CostInput& x) { return std::min(alltoall_linear(x), alltoall_pairwise(x)); }

/// allreduce hierarchical: reduce in the node (q ranks, m bytes), allreduce among k leaders, bcast
/// in the node.
inline double allreduce_hierarchical(const CostInput& x) {
  return reduce_selected(intra_node(x, x.bytes)) + allreduce_selected(inter_node(x, x.bytes)) +
         bcast_selected(intra_node(x, x.bytes));
}
/// bcast hierarchical: bcast among k representatives (the root's node first), bcast in each node.
inline double bcast_hierarchical(const CostInput& x) {
  return bcast_selected(inter_node(x, x.bytes)) + bcast_selected(intra_node(x, x.bytes));
}
/// reduce hierarchical: reduce in each node to its representative, reduce among the k of them.
inline double reduce_hierarchical(const CostInput& x) {
  return reduce_selected(intra_node(x, x.bytes)) + reduce_selected(inter_node(x, x.bytes));
}
/// allgather hierarchical (m = one rank's block): gather q blocks to the leader, allgather of
/// padded q m blocks among k leaders, bcast of the p m bytes in the node.
inline double allgather_hierarchical(const CostInput& x) {
  const double q = std::max(1, x.per_node);
  const double k = x.nodes > 0 ? x.nodes : x.procs;
  const CostInput in = intra_node(x, k * q * x.bytes);
  // The bcast's q - 1 receivers take in the p m bytes through the node's memory.
  const double bcast = std::max(bcast_selected(in), in.alpha + node_memory(x, (q - 1) / q * k * q * x.bytes));
  return gather_selected(intra_node(x, x.bytes)) + allgather_selected(inter_node(x, q * x.bytes)) + bcast;
}
/// allgather lanes (m = one rank's block): an allgather among k nodes on each of the q lanes at
/// once, the q lanes' messages sharing each node's link (every rank off-node at every step), then
/// an allgather of k m bytes per rank inside the node. Costed on even nodes of per_node ranks.
inline double allgather_lanes(const CostInput& x) {
  const int q = std::max(1, x.per_node);
  CostInput lanes = x;
  lanes.procs = x.nodes > 0 ? x.nodes : x.procs;
  lanes.nodes = lanes.procs;
  lanes.per_node = q;
  lanes.regular_layout = false;  // a lane's partners are all on other nodes
  lanes.consecutive_layout = false;
  const double between = q > 1 ? std::min(allgather_ring(lanes), allgather_bruck(lanes)) : allgather_selected(lanes);
  const CostInput in = intra_node(x, lanes.procs * x.bytes);
  // Inside the node every rank takes in the other lanes' k m bytes through the node's memory.
  return between + std::max(allgather_selected(in), in.alpha + node_memory(x, (q - 1) * lanes.procs * x.bytes));
}
/// allgather leader_pipeline (m = one rank's block, s = 8 KiB pieces): the allgather of q blocks in
/// the node; the first chunk of q m bytes to the leader; then the slowest of the ring's other
/// k - 2 steps, the leader's link (it sends the ring's and the chain's (k - 1) q m bytes each) and
/// the node's memory (every rank takes in (k - 1) q m bytes), which overlap; and the chain's fill
/// of q - 1 pieces.
inline double allgather_leader_pipeline(const CostInput& x) {
  const double q = std::max(1, x.per_node);
  const double k = x.nodes > 0 ? x.nodes : x.procs;
  const CostInput in = intra_node(x, x.bytes);
  const double chunk = q * x.bytes;
  const double piece = std::min(chunk, static_cast<double>(leader_pipeline::piece_bytes));
  const double node = std::max(allgather_selected(in), in.alpha + node_memory(x, (q - 1) * x.bytes));
  const double step = x.alpha + chunk * x.beta;
  const double flow = std::max({(k - 2) * step, 2 * (k - 1) * chunk * in.beta, node_memory(x, (k - 1) * chunk)});
  return node + step + flow + (q - 1) * (in.alpha + piece * in.beta);
}
/// alltoall hierarchical (m = one block): gather of p m bytes per rank to the leader, k - 1
/// messages of q q m bytes between leaders, scatter of p m bytes per rank; plus the leader's two
/// local copies of its q p m bytes (at beta_intra).
inline double alltoall_hierarchical(const CostInput& x) {
  const double q = std::max(1, x.per_node);
  const double k = x.nodes > 0 ? x.nodes : x.procs;
  const double row = k * q * x.bytes;  // one rank's whole send buffer
  const CostInput in = intra_node(x, row);
  return 2 * gather_selected(in) + alltoallv_selected(inter_node(x, q * q * x.bytes)) + 2 * q * row * in.beta;
}

// ------------------------------------------------------------------ node- and arrival-aware
/// allreduce hierarchical_arrival: the time after the last arrival (see the top), one node late by
/// omega, its representative the only late rank there.
inline double allreduce_hierarchical_arrival(const CostInput& x) {
  const CostInput in = intra_node(x, x.bytes);
  CostInput early = in;  // the q - 1 ranks of a node other than its representative
  early.procs = std::max(1, in.procs - 1);
  const double hand_over = in.procs >= 2 ? tau(in) + x.bytes * x.gamma : 0;
  const double ready = reduce_binomial(early) + hand_over;  // an early node's representative enters
  const double tail = std::max(0.0, reduce_binomial(early) - x.omega_last) + hand_over;
  CostInput between = inter_node(x, x.bytes);
  between.omega = std::max(0.0, x.omega + tail - ready);
  between.omega_last = std::max(0.0, x.omega_last + tail - ready);
  const double segment_tau = between.alpha + x.bytes / std::max(1, between.procs) * between.beta;
  const double inter = between.omega_last >= segment_tau && between.procs >= 2
                           ? std::min({allreduce_prr(between), allreduce_prd(between), allreduce_slt(between)})
                           : allreduce_selected(between);
  return tail + inter + bcast_selected(in);
}

/// allreduce early_late (allreduce_early_late.cpp): with one rank late by more than the early
/// reduce-scatter takes (t = n beta + ceil(log2 P) alpha, the algorithm's split) and the others
/// within t of the earliest, what the early ranks' reduce-scatter (ring or pairwise, P - 1 ranks)
/// leaves after the last arrival, or the late rank's P - 1 pieces if they take longer, then one
/// addition of a block and NEX's allgather of the P blocks.
/// Otherwise it runs `auto`'s regular choice: that and one latency more, so that the regular
/// algorithm itself wins the tie.
inline double allreduce_early_late(const CostInput& x) {
  const double t = x.bytes * x.beta + log2_ceil(x.procs) * x.alpha;
  if (x.procs >= 3 && x.omega_last > t && x.omega - x.omega_last <= t) {
    CostInput early = x;
    early.procs = x.procs - 1;
    const double before = std::min(reduce_scatter_block_ring(early), reduce_scatter_block_pairwise(early));
    CostInput blocks = x;
    blocks.bytes = std::ceil(x.bytes / x.procs);
    const double pieces = x.alpha + (x.procs - 1) * std::max(x.gap, blocks.bytes * x.beta);
    const double after = blocks.bytes * x.gamma + allgather_nex(blocks);
    return std::max(before - x.omega_last, pieces) + after;
  }
  return std::min(allreduce_selected(x), allreduce_onesided_ring(x)) + x.alpha;
}

}  // namespace ragged::plans::cost
