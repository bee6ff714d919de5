// bcast "sorted_chain": the segmented pipeline of bcast "pipelined_chain" on a chain sorted by
// estimated arrival: the root first, then the other ranks earliest first, the latest last
// (plans::sorted::bcast_chain). Beyond Proficz 2021's sorted trees (its reference [21] sorts a
// scatter's and a gather's ranks by arrival; Proficz 2018's SLT sorts an allreduce's chain):
// the data walks down the ranks in the order they come, so a rank that arrives finds its
// predecessor holding the data already, and a late rank stalls nobody ahead of it.
//
//   P = 4, root 0, arrivals 0 < 2 < 1 < 3 (estimated), segments a b c, time in segment transfers;
//   rank 1 arrives at 4, rank 3 at 9:
//
//   regular chain 0 -> 1 -> 2 -> 3:             sorted chain 0 -> 2 -> 1 -> 3:
//   0 -> 1   a b c at 4..6 (waits for 1)         0 -> 2   a b c at 0..2
//   1 -> 2   a b c at 5..7                        2 -> 1   a b c at 4..6 (1 arrives)
//   2 -> 3   a b c at 9..11                       1 -> 3   a b c at 9..11
//   rank 0 leaves at 7, rank 2 at 12              rank 0 leaves at 3, rank 2 at 7
//
// The root's and every middle rank's sends wait for their successor (a rendezvous), so a rank
// leaves once its successor arrived and took the data: sorted, that is the next arrival, not the
// latest one ahead in rank order. A rank receives its segments as they come and forwards each one
// to its successor while the next is on its way in, one send in flight (as pipelined_chain).
//
// With the arrival agents (a Monitor, the background part): each rank's agent receives the
// segments that reach it before its rank's estimated arrival (plans::sorted::chain_early) and
// forwards them down the chain, so the data flows on from the root's arrival whatever the late
// ranks do; a rank that arrives copies what its agent holds and receives and forwards the rest
// itself. Who of a rank's agent and foreground takes a segment is the rank's own affair: both
// receive from the same predecessor on the same tag, in segment order, the agent first.
//
// Segments: with a snapshot whose link model is known, the count that the chain's step model
// (plans::sorted::chain_mean_elapsed: the data's front moves one rank a step, not before a rank
// arrives) finds least for the estimated arrivals; spread arrivals hide the fill, so they take
// fewer, larger segments (fewer latencies). Otherwise pipelined_chain's segments.
//
// With equal estimates or without a snapshot the chain is the root, then the others in rank
// order: the regular chain's cost. Wrong estimates keep the result exact (every rank sorts the
// same snapshot) and cost only time: at worst the regular chain's with one more stall per
// misplaced rank.
//
// Reference: J. Proficz, "All-gather Algorithms Resilient to Imbalanced Process Arrival Patterns", ACM TACO 18(4),
//   2021, §1 (sorted trees, its reference [21]); J. Proficz, J. Supercomputing 74(7), 2018, §4.1 (the sorted chain).
// Limitation: gains only from an arrival snapshot; a late root stalls everybody (no algorithm can do better: nobody
//   has the data); P - 2 segment latencies to fill the chain, so for large messages; foreground only (a rank
//   receives nothing before it arrives, and its agent forwards nothing after it leaves).
// Memory: none beyond the buffer without agents; an agent keeps the segments it received until its rank copies them.
//
// Cost (alpha-beta, m bytes in S segments of s bytes, pipelined_chain's segments): everybody there,
// (P - 2 + S)(alpha + s beta), pipelined_chain's. Arrivals spread by omega = W segment times
// with the root early: the latest rank needs max(S, P - 2 + S - W) segment times after it arrives
// (plans::cost::bcast_sorted_chain); every other rank leaves once its successor arrived and took
// the data. With agents, rank r needs only what reaches it after its arrival, and its successor's
// taking the last segment. docs/algorithms/sorted-chain.md.
#include <algorithm>
#include <cstring>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "internal/common.hpp"
#include "plans/pipelined_chain_plan.hpp"
#include "plans/sorted_order.hpp"
#include "ragged/arrival.hpp"

namespace ragged {

namespace {

/// The chain, its segments (in bytes: the agent knows no datatype) and what comes early: the same
/// on every rank and on its agent, a function of the snapshot, the bytes and the root.
struct ChainPlan {
  std::vector<int> chain;          ///< chain[0] is the root
  std::size_t per = 0;             ///< bytes per segment (the last one shorter)
  std::size_t segments = 0;        ///< ceil(bytes / per)
  std::vector<std::size_t> early;  ///< per chain position: segments its agent takes (background model)
};

ChainPlan plan_for(const ArrivalSnapshot* snapshot, int procs, std::size_t bytes, int root) {
  namespace chain = plans::pipelined_chain;
  namespace sorted = plans::sorted;
  ChainPlan plan;
  const std::vector<double> arrivals = internal::step_plan_input(snapshot, procs, bytes).arrivals;
  plan.chain = sorted::bcast_chain(arrivals, root);
  std::size_t n = chain::segment_count(bytes, procs);
  const bool link_known = snapshot != nullptr && snapshot->link().known();
  const std::vector<double> in_order = sorted::in_chain_order(arrivals, plan.chain);
  if (link_known) {
    n = sorted::chain_segment_count(in_order, bytes, snapshot->link().alpha, snapshot->link().beta,
                                    chain::min_segment_bytes);
  }
  plan.per = std::max<std::size_t>(1, (bytes + n - 1) / n);
  plan.segments = bytes == 0 ? 0 : (bytes + plan.per - 1) / plan.per;
  plan.early.assign(static_cast<std::size_t>(procs), 0);
  if (link_known) plan.early = sorted::chain_early(in_order, plan.segments, snapshot->link().tau(plan.per));
  return plan;
}

std::size_t length_of(const ChainPlan& plan, std::size_t bytes, std::size_t t) {
  return std::min(plan.per, bytes - t * plan.per);
}

}  // namespace

namespace internal {

void sorted_chain_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot,
                             BackgroundContext& context) {
  const int procs = comm.size();
  const auto bytes = static_cast<std::size_t>(slot.agreed().block_bytes);
  slot.next_step = 0;
  if (procs < 2 || snapshot.size() != procs || bytes == 0) return;
  const ChainPlan plan = plan_for(&snapshot, procs, bytes, slot.agreed().root);
  const std::size_t at = plans::sorted::position_in(plan.chain, comm.rank());
  const std::size_t early = plan.early[at];
  if (at == 0 || early == 0) return;
  const int tag = planned_epoch_tag(&snapshot);
  const int prev = plan.chain[at - 1];
  const int next = at + 1 < plan.chain.size() ? plan.chain[at + 1] : -1;
  slot.segments.assign(early, {});
  slot.received.assign(early, 0);
  std::vector<Request> in(early);
  for (std::size_t t = 0; t < early; ++t) {
    slot.segments[t].resize(length_of(plan, bytes, t));
    in[t] = comm.irecv(prev, tag, slot.segments[t].data(), slot.segments[t].size());
  }
  Request in_flight;
  for (std::size_t t = 0; t < early; ++t) {
    context.wait(in[t]);
    slot.received[t] = 1;
    if (next < 0) continue;
    if (in_flight.active()) context.wait(in_flight);
    in_flight = comm.isend(next, tag, slot.segments[t].data(), slot.segments[t].size());
  }
  if (in_flight.active()) context.wait(in_flight);  // the agent's wait takes an active request only
  slot.next_step = early;
}

}  // namespace internal

void bcast_sorted_chain(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  const int procs = ctx.procs();
  const std::size_t bytes = count * size_of(type);
  const ArrivalSnapshot* snapshot = ctx.arrival();
  const ChainPlan plan = plan_for(snapshot, procs, bytes, root);
  const internal::PlanKey call = internal::plan_key(Collective::bcast, "sorted_chain", bytes, root);
  internal::BackgroundSlot* slot = internal::slot_of(ctx);
  internal::BackgroundSlot* done = slot != nullptr ? slot->claim(call) : nullptr;
  const bool planned = slot != nullptr && slot->planned(call);
  const int tag = planned ? internal::planned_epoch_tag(snapshot) : ctx.tag(0);
  const std::size_t at = plans::sorted::position_in(plan.chain, ctx.rank());
  const int prev = at > 0 ? plan.chain[at - 1] : -1;
  const int next = at + 1 < plan.chain.size() ? plan.chain[at + 1] : -1;
  std::byte* data = internal::bytes(buffer);
  const auto offset = [&](std::size_t t) { return t * plan.per; };
  const auto length = [&](std::size_t t) { return length_of(plan, bytes, t); };

  // What the agent received (and forwarded) before this rank arrived.
  const std::size_t early = done != nullptr ? std::min(done->next_step, plan.segments) : 0;
  for (std::size_t t = 0; t < early; ++t) std::memcpy(data + offset(t), done->segments[t].data(), length(t));
  std::vector<Request> in;
  if (prev >= 0) {
    in.resize(plan.segments);
    for (std::size_t t = early; t < plan.segments; ++t)
      in[t] = ctx.comm().irecv(prev, tag, data + offset(t), length(t));
  }
  Request in_flight;
  for (std::size_t t = early; t < plan.segments; ++t) {
    if (prev >= 0) in[t].wait(ctx.timeout());
    if (next < 0) continue;
    in_flight.wait(ctx.timeout());
    in_flight = ctx.comm().isend(next, tag, data + offset(t), length(t));
  }
  in_flight.wait(ctx.timeout());
}

}  // namespace ragged
