// allreduce "hierarchical_arrival": node-aware and arrival-aware (docs/algorithms/hierarchical-arrival.md).
// A node's arrival is its latest rank's; what a node does before that moment is free as long as it
// stays inside the node. So each node's representative is its latest rank by the snapshot (ties:
// the lowest rank), the node's other ranks reduce among themselves while it computes and hand it
// one partial, the representatives run an arrival-aware allreduce with the nodes' arrivals, and
// each representative broadcasts the result in its node. Every phase is the collective dispatch
// selects on a sub-communicator (SubComm), as in allreduce "hierarchical".
//
//   P = 7 on nodes {0,1,2} {3,4} {5,6}; arrivals: 1 < 0 < 2, 4 < 3, 5 < 6 (R = representative,
//   S = the node's second latest, d = this rank's vector)
//
//   phase 1a reduce of the early ranks    d0 d1 -> S0            (node {3,4}: nothing)   (5: alone)
//   phase 1b S -> R, R adds its own       S0 -> R2               d4 -> R3                d5 -> R6
//   phase 2  allreduce of the R's, with   R2 <--------------> R3 <--------------> R6
//            snapshot (max a0..a2, max a3..a4, max a5..a6): PRR, PRD or a regular one by `auto`
//   phase 3  bcast in node from R         R2 -> 0, 1             R3 -> 4                 R6 -> 5
//
// Only phase 1b waits for a node's latest rank: phase 1a runs while it computes, so after its
// arrival the node needs one intra-node step before its representative enters phase 2.
//
// Cost after the last arrival (one node late by omega, its representative the only late rank;
// q = ranks on the largest node, k = nodes, m bytes; alpha_i/beta_i inside a node, alpha/beta
// between nodes):
//   (alpha_i + m beta_i + m gamma)                          phase 1b (phase 1a, R_{q-1}(m), hides
//                                                           in omega; what it does not is added)
//   + X_k(m, omega')                                        the allreduce `auto` selects among k
//                                                           with omega' = omega + phase 1b - R_q(m):
//                                                           PRR's (or PRD's) mean after its last
//                                                           arrival, a regular one when balanced
//   + B_q(m)                                                the selected bcast in the node
// (plans::cost::allreduce_hierarchical_arrival). Balanced arrivals run "hierarchical" (the list's
// balanced column): R_q(m) + A_k(m) + B_q(m).
//
// Reference: the arrival-aware parts are Proficz 2018's PRR and SLT (J. Proficz, "Improving
// all-reduce collective operations for imbalanced process arrival patterns", The Journal of
// Supercomputing 74(7), 2018, §4) and ragged's PRD, which Proficz 2021 (§2) leaves for
// "hierarchical or long-distance clusters" as future work; the node-aware scheme is Luo et al.
// 2020's HAN and SimGrid SMPI's smp_binomial, as in allreduce_hierarchical.cpp; the combination
// is ragged's own, docs/algorithms/hierarchical-arrival.md.
// Limitation: commutative operators only (operands are combined in arrival order; reduce_bcast
// otherwise); a layout of two or more nodes, one of them with two or more ranks (on a flat layout
// dispatch runs prr, the flat arrival-aware algorithm); without a snapshot the representatives
// are the leaders and it is "hierarchical"; no background part (the representative's agent does
// not take in its node's partial before it arrives, as SLT's position 0 does); the early ranks'
// reduce is the selected one (binomial), not sorted by arrival; every distinct set of
// representatives makes a SubComm kept on the communicator (random arrivals make many).
// Memory: none of its own; the phases take what their algorithms take.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "dispatch/compose.hpp"
#include "internal/hierarchy.hpp"
#include "plans/hierarchy_plan.hpp"
#include "ragged/arrival.hpp"

namespace ragged {

namespace {

/// Index of `rank` in `members`.
int index_of(const std::vector<int>& members, int rank) {
  return static_cast<int>(std::find(members.begin(), members.end(), rank) - members.begin());
}

}  // namespace

void allreduce_hierarchical_arrival(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                                    const ReduceOp& op) {
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const std::size_t segment = std::max<std::size_t>(1, ctx.bytes(count, type) / static_cast<std::size_t>(procs));
  const ArrivalSnapshot* snapshot = ctx.arrival();
  // Balanced arrivals (by the criterion `auto` uses, omega < tau of a segment): the regular
  // node-aware algorithm, as the list's balanced column says.
  if (snapshot != nullptr && snapshot->balanced(segment)) {
    (void)internal::run_balanced(ctx, sendbuf, recvbuf, count, type, op);
    return;
  }
  // Arrivals before the snapshot was known count as known_at (as for PRR); none: all equal, and
  // the representatives are the leaders.
  const std::vector<double> arrivals = internal::step_plan_input(snapshot, procs, segment).arrivals;
  const internal::Hierarchy h = internal::hierarchy_of(ctx);
  const std::vector<int>& node = h.split.members[static_cast<std::size_t>(h.node)];
  const std::vector<int> reps = plans::hierarchy::latest_representatives(h.split, arrivals);
  const int rep = reps[static_cast<std::size_t>(h.node)];

  // Phase 1: the node's other ranks reduce to its second latest (1a), which hands the partial to the
  // representative (1b). Both exchange inside the node, as phase 3 does: disjoint tags.
  Hints node_hints;
  if (node.size() >= 2) {
    std::vector<int> early;
    for (const int r : node) {
      if (r != rep) early.push_back(r);
    }
    const int second = plans::hierarchy::latest_of(early, arrivals);
    if (me != rep && early.size() >= 2) {
      internal::SubComm& on = internal::sub_comm(ctx.comm(), early, *h.layout);
      const Context part = internal::part_context(ctx, on, ctx.tags().half(0).half(0), node_hints);
      internal::part_reduce(part, recvbuf, me == second ? recvbuf : nullptr, count, type, op, index_of(early, second));
    }
    if (me == rep || me == second) {
      const std::vector<int> pair{std::min(rep, second), std::max(rep, second)};
      internal::SubComm& on = internal::sub_comm(ctx.comm(), pair, *h.layout);
      const Context part = internal::part_context(ctx, on, ctx.tags().half(0).half(1), node_hints);
      internal::part_reduce(part, recvbuf, me == rep ? recvbuf : nullptr, count, type, op, index_of(pair, rep));
    }
  }

  // Phase 2: the representatives, with the nodes' arrivals as their snapshot (the link model
  // kept), so `auto` there weighs PRR, PRD and the regular algorithms. Between nodes only: the
  // whole tag block.
  if (me == rep) {
    internal::SubComm& on = internal::sub_comm(ctx.comm(), reps, *h.layout);
    Hints rep_hints;
    const Context part = internal::part_context(ctx, on, ctx.tags(), rep_hints);
    if (snapshot != nullptr) {
      rep_hints.set(std::make_shared<const ArrivalSnapshot>(
          plans::hierarchy::node_arrivals(h.split, arrivals), snapshot->link(), snapshot->epoch(),
          std::vector<ArrivalSource>{}, std::numeric_limits<double>::lowest(), nullptr, snapshot->regular_fallback()));
    }
    internal::part_allreduce_arrival(part, recvbuf, count, type, op);
  }

  // Phase 3: the representative broadcasts the result in its node.
  const Context bcast_part = internal::part_context(ctx, internal::node_comm(ctx, h), ctx.tags().half(1), node_hints);
  internal::dispatch_bcast(bcast_part, recvbuf, count, type, index_of(node, rep));
}

}  // namespace ragged
