// allreduce "slt": sorted linear tree (Proficz 2018, §4.1; docs/algorithms/slt.md).
//
// allreduce "pipelined_linear" (the linear tree) on a chain sorted by estimated
// arrival: the latest process sits at position 0, where the reduction
// completes and the results start back up; the earliest at the far end, where
// the pipeline starts (plans/slt_order.hpp). The faster processes start the
// communication earlier, the later ones have more time to compute. The agent
// of every rank receives the partial segments that reach it before its
// estimated arrival (plans::slt::step_model), so a late position 0 finds most
// of its partials waiting and only sends results after it arrives.
//
// Figure 6 of Proficz 2018, P = 4, 5 segments, process 0 late by 4 tau (steps of
// one segment transfer; "a->b" = a sends, lower case partials, upper case
// results; the figure's regular tree starts at process 0, SLT ends at it;
// ragged's pipelined_linear starts at rank P-1, so its 14 tau case is rank 3
// late, tests/sim/arrival_test.cpp):
//
//   regular: chain 0 -> 1 -> 2 -> 3, back 3 -> 2 -> 1 -> 0      14 tau
//     0->1 a..e at 4..8, 1->2 at 5..9, 2->3 at 6..10,
//     3->2 A..E at 7..11, 2->1 at 8..12, 1->0 at 9..13
//   SLT: chain 3 -> 2 -> 1 -> 0, back 0 -> 1 -> 2 -> 3           12 tau
//     3->2 a..e at 0..4, 2->1 at 1..5, 1->0 at 4..8 (0 arrives),
//     0->1 A..E at 5..9, 1->2 at 6..10, 2->3 at 7..11
//
// (With its agent receiving, process 0 finds a and b waiting: 11 tau.) Per
// rank the code is pipelined_linear's with chain positions for ranks: the far
// end sends its segments down one at a time; position 0 completes each
// segment and sends it back up; a middle rank reduces each partial with its
// own, passes it down and forwards the results up as they come. Where
// pipelined_linear's middle rank waits for result t - 2 pos after segment t
// (position 0 answers at once when everyone arrived together), SLT's never
// waits for a result while a partial can move: position 0 is late by design,
// and the partials must keep flowing to its agent meanwhile.
//
// Without a snapshot, with equal estimates, or with none that leave any
// partial to receive early, the chain is pipelined_linear's (position k =
// rank k) and SLT runs allreduce "pipelined_linear". Wrong estimates keep the
// result exact (all ranks sort the same snapshot) and cost only time.
//
// Reference: J. Proficz, "Improving all-reduce collective operations for imbalanced process arrival patterns", The
//   Journal of Supercomputing 74(7), 2018, §4.1 and figure 6.
// Limitation: commutative operators only (a non-commutative one runs reduce_bcast); gains only from an arrival
//   snapshot, otherwise it is pipelined_linear; latency linear in P.
// Memory: one vector of n bytes from the workspace (partial segments; at the far end its own copy), and the agent's
//   copies of the partial segments it receives before its rank arrives.
//
// Cost (alpha-beta, n bytes, k = ceil(n / s) segments of s = 32 KiB):
// pipelined_linear's, (2(P-1) + k - 1)(alpha + s beta) + n gamma on separate
// links (about 2(P-1)(alpha + s beta) + 2n beta + n gamma on a switch). With
// position 0 late by omega = W segment times, the rank at position pos is
// done max(0, P-1-W) + k + pos steps after the last arrival on separate links
// (k for position 0); on a switch the partials still on their way,
// max(0, P-1+k-W), share position 1's port with the results and replace the
// first term (plans::cost::allreduce_slt, the mean over the ranks).
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "internal/pipelined_chain.hpp"
#include "plans/pipelined_linear_plan.hpp"
#include "plans/slt_order.hpp"
#include "ragged/arrival.hpp"

namespace ragged {

namespace {

struct SltPlan {
  std::vector<int> chain;          ///< chain[k]: the rank at position k (0 completes the reduction)
  std::vector<std::size_t> early;  ///< per rank: partial segments its agent receives ahead
  bool regular = true;             ///< pipelined_linear's own chain and nothing to receive ahead
  std::size_t segments = 0;
};

/// The same on every rank and on its agent: a function of the snapshot and the vector's bytes
/// (segments of 32 KiB whatever the element size: 1, 4 and 8 divide it).
SltPlan plan_for(const ArrivalSnapshot* snapshot, int procs, std::size_t bytes) {
  namespace chain = plans::chain;
  SltPlan plan;
  plan.segments = (bytes + chain::segment_bytes - 1) / chain::segment_bytes;
  const internal::StepPlanInput in = internal::step_plan_input(snapshot, procs, std::min(bytes, chain::segment_bytes));
  plan.chain = plans::slt::chain_order(in.arrivals);
  plan.early.assign(static_cast<std::size_t>(procs), 0);
  if (in.tau > 0) {
    const double first = *std::min_element(in.arrivals.begin(), in.arrivals.end());
    std::vector<double> steps(in.arrivals.size());
    for (std::size_t r = 0; r < steps.size(); ++r) steps[r] = (in.arrivals[r] - first) / in.tau;
    plan.early = plans::slt::step_model(plan.chain, steps, plan.segments, true).early;
  }
  plan.regular = plans::slt::is_rank_order(plan.chain) &&
                 std::all_of(plan.early.begin(), plan.early.end(), [](std::size_t n) { return n == 0; });
  return plan;
}

int position_of(const std::vector<int>& chain, int rank) {
  return static_cast<int>(std::find(chain.begin(), chain.end(), rank) - chain.begin());
}

/// The chain neighbours of `rank`: where it sends (and receives from).
std::vector<int> neighbours(const std::vector<int>& chain, int rank) {
  const int pos = position_of(chain, rank);
  std::vector<int> out;
  if (pos > 0) out.push_back(chain[static_cast<std::size_t>(pos - 1)]);
  if (pos + 1 < static_cast<int>(chain.size())) out.push_back(chain[static_cast<std::size_t>(pos + 1)]);
  return out;
}

std::size_t segment_bytes_of(std::size_t bytes, std::size_t t) {
  const std::size_t first = t * plans::chain::segment_bytes;
  return std::min(plans::chain::segment_bytes, bytes - first);
}

}  // namespace

namespace internal {

void slt_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context) {
  const int procs = comm.size();
  const int me = comm.rank();
  const auto bytes = static_cast<std::size_t>(slot.agreed().block_bytes);
  slot.next_step = 0;
  if (procs < 2 || snapshot.size() != procs) return;
  const SltPlan plan = plan_for(&snapshot, procs, bytes);
  if (plan.regular) return;  // the foreground runs pipelined_linear
  const int tag = planned_epoch_tag(&snapshot);
  const std::vector<int> peers = neighbours(plan.chain, me);
  warm_up(comm, peers, peers, tag, [&](Request& r) { context.wait(r); });
  const std::size_t early = plan.early[static_cast<std::size_t>(me)];
  if (early == 0) return;
  const int up = plan.chain[static_cast<std::size_t>(position_of(plan.chain, me) + 1)];
  slot.segments.assign(early, {});
  slot.received.assign(early, 0);
  for (std::size_t t = 0; t < early; ++t) {
    slot.segments[t].resize(segment_bytes_of(bytes, t));
    Request r = comm.irecv(up, tag, slot.segments[t].data(), slot.segments[t].size());
    context.wait(r);
    slot.received[t] = 1;
  }
  slot.next_step = early;
}

}  // namespace internal

void allreduce_slt(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                   const ReduceOp& op) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const std::size_t esize = size_of(type);
  const std::size_t bytes = count * esize;
  const ArrivalSnapshot* snapshot = ctx.arrival();
  const SltPlan plan = plan_for(snapshot, procs, bytes);

  const internal::PlanKey call = internal::plan_key(Collective::allreduce, "slt", bytes, 0);
  internal::BackgroundSlot* slot = internal::slot_of(ctx);
  internal::BackgroundSlot* done = slot != nullptr ? slot->claim(call) : nullptr;
  if (plan.regular) {
    (void)internal::run_balanced(ctx, sendbuf, recvbuf, count, type, op);
    return;
  }
  const bool planned = slot != nullptr && slot->planned(call);
  const int tag = planned ? internal::planned_epoch_tag(snapshot) : ctx.tag(0);
  if (done == nullptr && planned) {
    const std::vector<int> peers = neighbours(plan.chain, comm.rank());
    internal::warm_up(comm, peers, peers, tag, [&](Request& r) { r.wait(ctx.timeout()); });
  }

  // Dispatch copied sendbuf into recvbuf: every rank's own vector starts in recvbuf, where its
  // results land too.
  std::byte* out = internal::bytes(recvbuf);
  const int pos = position_of(plan.chain, comm.rank());
  const int down = pos > 0 ? plan.chain[static_cast<std::size_t>(pos - 1)] : -1;  // toward position 0
  const int up = pos + 1 < procs ? plan.chain[static_cast<std::size_t>(pos + 1)] : -1;
  internal::ChainLink link(ctx, tag, out, count, type, down, up);
  const std::size_t nseg = link.segments();
  const auto offset = [&](std::size_t t) { return link.offset(t); };
  const auto length = [&](std::size_t t) { return link.length(t); };
  std::vector<Request>& partial_recv = link.partial_recv;
  std::vector<Request>& partial_send = link.partial_send;
  std::vector<Request>& result_recv = link.result_recv;
  std::vector<Request>& result_send = link.result_send;

  if (up < 0) {
    // The far end: its own segments go down (from a copy: results land in recvbuf meanwhile).
    std::byte* own = ctx.workspace().get(bytes).data();
    std::memcpy(own, out, bytes);
    link.far_end(own);
    return;
  }

  // Partial segments from `up` land in scratch; those the agent received are there already.
  std::byte* scratch = ctx.workspace().get(bytes).data();
  const std::size_t early = done != nullptr ? std::min(done->next_step, nseg) : 0;
  partial_recv.resize(nseg);
  for (std::size_t t = 0; t < nseg; ++t) {
    if (t < early) {
      std::memcpy(scratch + offset(t), done->segments[t].data(), length(t) * esize);
    } else {
      partial_recv[t] = comm.irecv(up, tag, scratch + offset(t), length(t) * esize);
    }
  }

  if (down < 0) {
    // Position 0: each segment is complete once the partial from `up` is added; it goes back up.
    link.reducing_end(scratch, op, type);
    return;
  }

  // A middle position: own plus partial goes down (from scratch), results come up into recvbuf
  // and go on up, one send in flight in each direction. Unlike pipelined_linear's middle rank,
  // which forwards results on a fixed interleaving and waits for them (position 0 answers at once
  // when everyone arrives together), this one moves whatever can move: position 0 is late by
  // design, and its agent takes the partials only if they keep coming meanwhile.
  const std::byte* own = out;
  partial_send.reserve(nseg);
  result_recv.reserve(nseg);
  result_send.reserve(nseg);
  std::size_t next_partial = 0;  // the next partial to pass down
  std::size_t next_result = 0;   // the next result to pass up (posted once its partial went down)
  const auto received_ahead = [&](std::size_t t) { return t < nseg && !partial_recv[t].active(); };
  bool partial_ready = received_ahead(0);
  bool result_ready = false;
  bool down_free = true;
  bool up_free = true;
  enum Event { partial, result, down_done, up_done };
  std::array<Request, 4> waiting;
  std::array<Event, 4> event{};
  std::array<Request*, 4> origin{};
  while (next_partial < nseg || next_result < nseg) {
    if (next_partial < nseg && partial_ready && down_free) {
      const std::size_t t = next_partial++;
      reduce_local(op, type, own + offset(t), scratch + offset(t), length(t));
      comm.runtime().charge(static_cast<double>(length(t)));
      partial_send.push_back(comm.isend(down, tag, scratch + offset(t), length(t) * esize));
      // Own segment t has been consumed: its memory may now take the result.
      result_recv.push_back(comm.irecv(down, tag, out + offset(t), length(t) * esize));
      partial_ready = received_ahead(next_partial);
      down_free = false;
      continue;
    }
    if (next_result < next_partial && result_ready && up_free) {
      const std::size_t t = next_result++;
      result_send.push_back(comm.isend(up, tag, out + offset(t), length(t) * esize));
      result_ready = false;
      up_free = false;
      continue;
    }
    std::size_t n = 0;
    const auto add = [&](Request& r, Event e) {
      waiting[n] = std::move(r);
      event[n] = e;
      origin[n] = &r;
      ++n;
    };
    if (next_partial < nseg && !partial_ready) add(partial_recv[next_partial], partial);
    if (next_result < next_partial && !result_ready) add(result_recv[next_result], result);
    if (!down_free) add(partial_send.back(), down_done);
    if (!up_free) add(result_send.back(), up_done);
    const std::size_t which = comm.wait_any(std::span<Request>(waiting.data(), n), ctx.timeout());
    for (std::size_t k = 0; k < n; ++k) *origin[k] = std::move(waiting[k]);
    switch (event[which]) {
      case partial:
        partial_ready = true;
        break;
      case result:
        result_ready = true;
        break;
      case down_done:
        down_free = true;
        break;
      case up_done:
        up_free = true;
        break;
    }
  }
  comm.wait_all(partial_send, ctx.timeout());
  comm.wait_all(result_send, ctx.timeout());
}

}  // namespace ragged
