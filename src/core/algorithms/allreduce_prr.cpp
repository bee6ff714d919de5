// allreduce "prr": prereduced ring (Proficz 2018, §4.2; docs/algorithms/prr.md).
//
// The ring (allreduce_ring.cpp) whose segments are reduced ahead of the late
// processes. The ranks form a ring in estimated arrival order; each of the P
// segments travels one chain around it: P-1 reducing hops (add your own
// contribution, pass the partial on), then P-1 overriding hops (store the
// result, pass it on). The chains are laid out so that the late process comes
// as late as possible in them; the early processes reduce among themselves
// before it arrives (the reducing pre-steps), and the late process's agent
// receives their partials while it still computes. The schedule is a pure
// function of the snapshot (plans/prr_schedule.hpp); every rank computes it
// from the same snapshot, so wrong estimates cost time, never correctness.
//
// P = 4, rank 0 late by 5 tau (time runs down; "a->b s" = a sends segment s,
// '*' the result; the ring runs in arrival order 1, 2, 3, 0):
//
//          rank 1      rank 2      rank 3      rank 0
//   0 tau  1->2 2                              (computing)
//   1 tau  1->2 1      2->3 2
//   2 tau  1->2 0      2->3 1      3->0 2      (its agent receives 2)
//   3 tau  1->2 3      2->3 0      3->0 1      (its agent receives 1)
//   4 tau              2->3 3      3->0 0      (its agent receives 0)
//   5 tau                          3->0 3      0->1 2*   arrives: 2* = own + partial
//   6 tau  1->2 2*                             0->1 1*
//   7 tau  1->2 1*     2->3 2*                 0->1 0*
//   8 tau  1->2 0*     2->3 1*                 0->1 3*   done
//   9 tau  1->2 3*     2->3 0*
//  10 tau              2->3 3*
//
// Every segment is reduced over ranks 1, 2, 3 in the pre-steps and completed
// by rank 0, which then only sends results. After its arrival rank 0 needs 4
// steps and ranks 1, 2, 3 need 5, 6, 6; the ring would need 6 each.
//
// Without a snapshot, with every arrival within one tau, or an unknown link
// model, there are no pre-steps and PRR runs allreduce "ring". The foreground
// per step: post the receive, send (blocking), wait; reduce a partial into the
// own segment, store a result. Messages are the ring's: P(2P-2) in all.
//
// Reference: J. Proficz, "Improving all-reduce collective operations for imbalanced process arrival patterns", The
//   Journal of Supercomputing 74(7), 2018, §4.2.
// Limitation: commutative operators only (a non-commutative one runs reduce_bcast); gains only from an arrival
//   snapshot: without one, or with every arrival within one tau, it is the ring.
// Memory: one segment (n/P bytes) from the workspace, the agent's copies of the partial segments it receives
//   before its rank arrives, and its own program of the schedule (O(P) steps; building it takes O(P^2) time).
//
// Cost (alpha-beta, n bytes, balanced arrivals): the ring's,
// 2(P-1) alpha + 2(P-1)/P n beta + (P-1)/P n gamma. After the last arrival, with
// the late process more than (P-1) tau behind: P steps for it, P + p for the
// early process at ring position p (the ring: 2P-2 for everyone).
#include <algorithm>
#include <cstring>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "plans/prr_schedule.hpp"
#include "plans/ring_plan.hpp"
#include "ragged/arrival.hpp"

namespace ragged {

namespace {

/// Every rank plans with tau of an average segment (n/P bytes): the background knows only n.
/// It keeps its own program alone (`me`): O(P) memory, not every rank's O(P^2).
plans::prr::Schedule schedule_for(const ArrivalSnapshot* snapshot, int procs, std::size_t vector_bytes, int me) {
  const internal::StepPlanInput in =
      internal::step_plan_input(snapshot, procs, vector_bytes / static_cast<std::size_t>(procs));
  return plans::prr::make_schedule(in.arrivals, in.tau, me);
}

/// Room for any segment of a vector of `vector_bytes` bytes whatever its element size (<= 8).
std::size_t segment_room(std::size_t vector_bytes, int procs) {
  return vector_bytes / static_cast<std::size_t>(procs) + 16;
}

}  // namespace

namespace internal {

void prr_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context) {
  const int procs = comm.size();
  const int me = comm.rank();
  const auto bytes = static_cast<std::size_t>(slot.agreed().block_bytes);
  slot.next_step = 0;
  if (procs < 2 || snapshot.size() != procs) return;
  const plans::prr::Schedule schedule = schedule_for(&snapshot, procs, bytes, me);
  if (schedule.ring) return;  // the foreground runs the ring: nothing ahead of it
  const int tag = planned_epoch_tag(&snapshot);
  const int next[] = {schedule.successor(me)};
  const int prev[] = {schedule.predecessor(me)};
  warm_up(comm, next, prev, tag, [&](Request& r) { context.wait(r); });
  slot.segments.assign(static_cast<std::size_t>(procs), {});
  slot.received.assign(static_cast<std::size_t>(procs), 0);
  const std::vector<plans::prr::RankStep>& program = schedule.program(me);
  const std::size_t first_send = schedule.first_send(me);
  for (std::size_t k = 0; k < first_send; ++k) {
    const plans::prr::RankStep& step = program[k];
    if (step.recv_from < 0) continue;
    const auto seg = static_cast<std::size_t>(step.recv_segment);
    slot.segments[seg].resize(segment_room(bytes, procs));
    Request r = comm.irecv(step.recv_from, tag, slot.segments[seg].data(), slot.segments[seg].size());
    context.wait(r);
    slot.received[seg] = 1;
  }
  slot.next_step = first_send;
}

}  // namespace internal

void allreduce_prr(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                   const ReduceOp& op) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t esize = size_of(type);
  const std::size_t bytes = count * esize;
  const ArrivalSnapshot* snapshot = ctx.arrival();
  const plans::prr::Schedule schedule = schedule_for(snapshot, procs, bytes, me);

  const internal::PlanKey call = internal::plan_key(Collective::allreduce, "prr", bytes, 0);
  internal::BackgroundSlot* slot = internal::slot_of(ctx);
  internal::BackgroundSlot* done = slot != nullptr ? slot->claim(call) : nullptr;
  if (schedule.ring) {
    // No pre-steps: the regular algorithm the list names for this case, the ring (the
    // background, computing the same schedule, did nothing).
    (void)internal::run_balanced(ctx, sendbuf, recvbuf, count, type, op);
    return;
  }
  // The agreed plan's messages use the epoch's tag (the agents receive on it); anything else
  // this call's own tags.
  const bool planned = slot != nullptr && slot->planned(call);
  const int tag = planned ? internal::planned_epoch_tag(snapshot) : ctx.tag(0);

  // Dispatch copied sendbuf into recvbuf: every segment starts as this rank's own contribution.
  std::byte* out = internal::bytes(recvbuf);
  namespace ring = plans::ring;
  const auto seg_ptr = [&](int s) { return out + ring::segment_offset(count, procs, s) * esize; };
  const auto seg_count = [&](int s) { return ring::segment_size(count, procs, s); };
  const auto reduce_into = [&](int s, const std::byte* partial) {
    reduce_local(op, type, partial, seg_ptr(s), seg_count(s));
    comm.runtime().charge(static_cast<double>(seg_count(s)));
  };

  std::size_t k = 0;
  if (done != nullptr) {
    // The agent warmed up and received the partials before this rank's first send.
    for (int s = 0; s < procs; ++s) {
      const auto u = static_cast<std::size_t>(s);
      if (u < done->received.size() && done->received[u]) reduce_into(s, done->segments[u].data());
    }
    k = done->next_step;
  } else if (planned) {
    const int next[] = {schedule.successor(me)};
    const int prev[] = {schedule.predecessor(me)};
    internal::warm_up(comm, next, prev, tag, [&](Request& r) { r.wait(ctx.timeout()); });
  }

  std::byte* incoming = ctx.workspace().get(seg_count(0) * esize).data();  // segment 0 is a longest one
  const std::vector<plans::prr::RankStep>& program = schedule.program(me);
  for (; k < program.size(); ++k) {
    const plans::prr::RankStep& step = program[k];
    Request recv;
    if (step.recv_from >= 0) {
      std::byte* into = step.recv_reduce ? incoming : seg_ptr(step.recv_segment);
      recv = comm.irecv(step.recv_from, tag, into, seg_count(step.recv_segment) * esize);
    }
    if (step.send_to >= 0) {
      comm.send(step.send_to, tag, seg_ptr(step.send_segment), seg_count(step.send_segment) * esize, ctx.timeout());
    }
    if (step.recv_from >= 0) {
      recv.wait(ctx.timeout());
      if (step.recv_reduce) reduce_into(step.recv_segment, incoming);
    }
  }
}

}  // namespace ragged
