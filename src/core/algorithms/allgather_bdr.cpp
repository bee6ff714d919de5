// allgather "bdr": Background Disseminated Ring (listing 2 of Proficz 2021).
//
// The ring, plus pre-steps that use the time before the last arrival: ranks
// that arrived early send their own block to the ranks before them in the ring
// (r-1, r-2, ...), so that the ring afterwards carries each block only as far
// as the pre-steps did not. The schedule is a pure function of the arrival
// estimates and tau (plans/bdr_schedule.hpp, with a worked example); every
// rank computes it from the same snapshot.
//
// Figure 4 of Proficz 2021, P = 4, rank 0 late by 2 tau (time runs down):
//
//          rank 0         rank 1        rank 2        rank 3
//   0 tau  (computing)    1 -> 0        2 -> 1        3 -> 2      pre-step 0
//   1 tau  (computing)    1 -> 3        2 -> 0        3 -> 1      pre-step 1
//   2 tau  0 -> 1 done    1 -> 2        2 -> 3        3 -> 0      ring
//   3 tau                 0 -> 2 done                             ring
//   4 tau                               0 -> 3 done   done        ring
//
// Rank 0 receives blocks 1 and 2 in the background (its agent posts the
// receives of every step before its first send) and leaves one step after it
// arrived. The foreground part: copy the block, wait for the background, copy
// what it received, then for every remaining step: post the receive, send
// (blocking), wait for the receive.
//
// Without a snapshot (or with a flat one, or an unknown link model) there are
// no pre-steps and BDR would be the ring: dispatch runs the best regular
// allgather by the cost models instead (the list's balanced "auto",
// internal::run_balanced), unless MonitorOptions::balanced_fallback is off. With wrong estimates the result
// stays exact (the schedule is the same on every rank); only the time suffers,
// by at most (P-2) tau against the ring (Proficz 2021, §3.1).
//
// Reference: J. Proficz, "All-gather Algorithms Resilient to Imbalanced Process Arrival Patterns", ACM TACO 18(4),
//   2021, listing 2 and §3.1.
// Limitation: gains only from an arrival snapshot (restriction arrival): without one, or with a flat one, it runs the
//   best regular allgather; wrong estimates keep the result exact but can cost (P-1) tau against the ring
//   (docs/algorithms/bdr.md).
// Memory: the agent's copies of the blocks it receives before its rank arrives (up to P-1 blocks), copied into
//   recvbuf by the foreground. Its own program of the schedule (the whole one, O(P^2), only while it is built).
//
// Cost (alpha-beta, n bytes per block, balanced arrivals): (P-1)(alpha + n beta),
// as the ring. With pre-steps the total number of transfers stays P(P-1).
#include <algorithm>
#include <cstring>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "plans/bdr_schedule.hpp"
#include "plans/step_program.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"

namespace ragged {

namespace {

// Without estimates (the last record came only with the last arrival) all arrivals are equal
// and BDR is the ring, instead of replaying pre-steps after the fact.
/// Rank `me`'s part of the schedule: its program alone (plans::steps::keep_only).
plans::bdr::Schedule bdr_schedule_for(const ArrivalSnapshot* snapshot, int procs, std::size_t block, int me) {
  const internal::StepPlanInput in = internal::step_plan_input(snapshot, procs, block);
  plans::bdr::Schedule schedule = plans::bdr::make_schedule(in.arrivals, in.tau);
  plans::steps::keep_only(schedule, me);
  return schedule;
}

}  // namespace

namespace internal {

void bdr_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context) {
  const auto block = static_cast<std::size_t>(slot.agreed().block_bytes);
  const plans::bdr::Schedule schedule = bdr_schedule_for(&snapshot, comm.size(), block, comm.rank());
  const std::vector<plans::bdr::RankStep>& program = schedule.program(comm.rank());
  const std::size_t first_send = schedule.first_send(comm.rank());
  slot.expect_segments(comm.size());
  for (std::size_t k = 0; k < first_send; ++k) {
    const plans::bdr::RankStep& step = program[k];
    if (step.recv_from < 0) continue;
    const auto seg = static_cast<std::size_t>(step.recv_segment);
    slot.segments[seg].resize(block);
    Request r = comm.irecv(step.recv_from, tag_bdr, slot.segments[seg].data(), block);
    context.wait(r);
    slot.received[seg] = 1;
  }
  slot.next_step = first_send;
}

}  // namespace internal

void allgather_bdr(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  Comm& comm = ctx.comm();
  const int procs = ctx.procs();
  const std::size_t block = ctx.bytes(count, type);
  // Line 53 (out_id = inp): dispatch copied this rank's block into recvbuf.
  const auto out = ctx.blocks(recvbuf, block);

  const internal::PlanKey call = internal::plan_key(Collective::allgather, "bdr", block, 0);
  const ArrivalSnapshot* snapshot = ctx.arrival();
  const plans::bdr::Schedule schedule = bdr_schedule_for(snapshot, procs, block, ctx.comm().rank());
  if (schedule.pre_steps == 0 && (snapshot == nullptr || snapshot->regular_fallback())) {
    // No pre-steps (balanced arrivals, no estimates): BDR would be the plain ring. Dispatch runs
    // the best regular algorithm by the cost models instead (the list's balanced "auto"); the
    // agent had no step before the first send, so it left nothing to claim.
    (void)internal::run_balanced(ctx, sendbuf, recvbuf, count, type);
    return;
  }
  const int tag = internal::arrival_tag(ctx, call, internal::tag_bdr, internal::tag_bdr_unplanned);

  // Line 54: wait for the background part, take what it received.
  std::size_t k = 0;
  if (internal::BackgroundSlot* slot = internal::slot_of(ctx)) {
    if (internal::BackgroundSlot* done = slot->claim(call)) {
      for (int seg = 0; seg < procs; ++seg) {
        const auto s = static_cast<std::size_t>(seg);
        if (s < done->received.size() && done->received[s]) std::memcpy(out.at(seg), done->segments[s].data(), block);
      }
      k = done->next_step;
    }
  }

  // Lines 56-67: the rest of the schedule.
  const std::vector<plans::bdr::RankStep>& program = schedule.program(ctx.rank());
  for (; k < program.size(); ++k) {
    const plans::bdr::RankStep& step = program[k];
    Request recv;
    if (step.recv_from >= 0) recv = comm.irecv(step.recv_from, tag, out.at(step.recv_segment), block);
    if (step.send_to >= 0) comm.send(step.send_to, tag, out.at(step.send_segment), block, ctx.timeout());
    if (step.recv_from >= 0) recv.wait(ctx.timeout());
  }
}

}  // namespace ragged
