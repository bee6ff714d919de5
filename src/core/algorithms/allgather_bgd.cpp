// allgather "bgd": Background Greedy Dissemination, ragged's step beyond BDR
// (Proficz 2021, listing 2; docs/algorithms/bgd.md).
//
// Same model as BDR (steps of one segment transfer tau; in a step a rank sends
// at most one segment and receives at most one; the agent works before the
// rank arrives), but every step is filled greedily, rarest segment first, and
// a rank's agent also forwards segments it received while the rank still
// computes. A late rank's segment then spreads like a binomial broadcast
// (about log2 P steps after the last arrival) instead of travelling the whole
// ring, and the receive links of the early ranks stay busy meanwhile. The
// schedule is a pure function of the snapshot (plans/bgd_schedule.hpp).
//
// P = 4, rank 0 late by 2 tau (figure 4 of Proficz 2021; "a -> b: s" = a sends
// segment s to b; time runs down; tests/unit/bgd_schedule_test.cpp):
//
//          rank 0            rank 1       rank 2       rank 3
//   0 tau  (computing)       1 -> 2: 1    2 -> 3: 2    3 -> 0: 3
//   1 tau  (agent) 0 -> 2: 3 1 -> 3: 1    2 -> 0: 1    3 -> 1: 2
//   2 tau  0 -> 1: 0                      2 -> 0: 2
//   3 tau  0 -> 2: 0         1 -> 3: 0                 3 -> 1: 3
//
// Rank 0's agent receives segments 3 and 1 and forwards 3 while rank 0 still
// computes; from its arrival rank 0 needs two steps, everyone is done at 4 tau:
// elapsed (2, 4, 4, 4) tau, mean 3.5 tau (BDR 3.75, ring 4.5).
//
// Background part (the agent, after the snapshot is complete): every step of
// the rank's program before its first send of its own segment, sends of
// forwarded segments included. Foreground: copy the block, claim what the
// background received, then run the remaining steps: post the receive, send
// (blocking), wait for the receive.
//
// Balanced arrivals (omega < tau, Proficz 2021, §2), no snapshot or an unknown link
// model: BGD runs the best regular allgather by the cost models (the list's balanced "auto"). Wrong estimates keep the
// result exact (every rank builds the same schedule) and only cost time. Messages carry the snapshot's epoch in their
// tag (modulo tag_bgd_epochs): a background cancelled because the call differs from the plan may have forwarded
// segments nobody will receive, and no later call can match them until tag_bgd_epochs epochs have passed.
//
// Reference: ragged's own design, docs/algorithms/bgd.md, after J. Proficz, "All-gather Algorithms Resilient to
//   Imbalanced Process Arrival Patterns", ACM TACO 18(4), 2021, listing 2.
// Limitation: gains only from an arrival snapshot: balanced arrivals, no snapshot or an unknown link model run the best
// regular allgather
//   (the ring for odd P); a cancelled background may leave forwarded segments unreceived for tag_bgd_epochs epochs.
// Memory: the agent's copies of the segments it receives before its rank arrives (up to P-1 blocks), and its
//   own program of the schedule (the whole one, O(P^2), only while it is built).
//
// Cost (alpha-beta, n bytes per block, balanced arrivals): (P-1)(alpha + n beta),
// as the ring; P(P-1) transfers in every case.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "plans/bgd_schedule.hpp"
#include "plans/step_program.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"

namespace ragged {

namespace {

/// Rank `me`'s part of the schedule: its program alone (plans::steps::keep_only).
plans::bgd::Schedule bgd_schedule_for(const ArrivalSnapshot* snapshot, int procs, std::size_t block, int me) {
  const internal::StepPlanInput in = internal::step_plan_input(snapshot, procs, block);
  plans::bgd::Schedule schedule = plans::bgd::make_schedule(in.arrivals, in.tau);
  plans::steps::keep_only(schedule, me);
  return schedule;
}

/// Runs program steps [from, to) in lockstep, as BDR does: post the step's receive, send,
/// wait for both. (A dataflow execution that posts every receive at once and sends as soon as
/// a segment is in was slower on the simulated cluster: several transfers then share one
/// rank's link and the greedy schedule's timing falls apart.) `buffer(seg)` is where segment
/// seg lives; `wait(request)` waits for one request; `received` marks the segments held.
template <class Buffer, class Wait>
void run_steps(Comm& comm, const std::vector<plans::bdr::RankStep>& program, std::size_t from, std::size_t to, int tag,
               std::size_t block, Buffer&& buffer, Wait&& wait, std::vector<char>& received) {
  for (std::size_t k = from; k < to; ++k) {
    const plans::bdr::RankStep& step = program[k];
    Request recv;
    if (step.recv_from >= 0) recv = comm.irecv(step.recv_from, tag, buffer(step.recv_segment), block);
    if (step.send_to >= 0) {
      if (!received[static_cast<std::size_t>(step.send_segment)]) {
        throw Error("bgd: step " + std::to_string(k) + " forwards segment " + std::to_string(step.send_segment) +
                    " it lacks");
      }
      Request send = comm.isend(step.send_to, tag, buffer(step.send_segment), block);
      wait(send);
    }
    if (step.recv_from >= 0) {
      wait(recv);
      received[static_cast<std::size_t>(step.recv_segment)] = 1;
    }
  }
}

int planned_tag(const ArrivalSnapshot* snapshot) {
  const std::uint64_t epoch = snapshot == nullptr ? 0 : snapshot->epoch();
  return internal::tag_bgd_first + static_cast<int>(epoch % internal::tag_bgd_epochs);
}

}  // namespace

namespace internal {

void bgd_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context) {
  const int procs = comm.size();
  const int me = comm.rank();
  const auto block = static_cast<std::size_t>(slot.agreed().block_bytes);
  const plans::bgd::Schedule schedule = bgd_schedule_for(&snapshot, procs, block, comm.rank());
  const std::vector<plans::bdr::RankStep>& program = schedule.program(me);
  const std::size_t stop = schedule.first_own_send(me);
  const int tag = planned_tag(&snapshot);
  slot.segments.assign(static_cast<std::size_t>(procs), {});
  slot.received.assign(static_cast<std::size_t>(procs), 0);
  for (std::size_t k = 0; k < stop; ++k) {
    if (program[k].recv_from >= 0) slot.segments[static_cast<std::size_t>(program[k].recv_segment)].resize(block);
  }
  run_steps(
      comm, program, 0, stop, tag, block, [&](int seg) { return slot.segments[static_cast<std::size_t>(seg)].data(); },
      [&](Request& r) { context.wait(r); }, slot.received);
  slot.next_step = stop;
}

}  // namespace internal

void allgather_bgd(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t block = count * size_of(type);
  const auto p = static_cast<std::size_t>(procs);

  const ArrivalSnapshot* snapshot = ctx.arrival();
  const plans::bgd::Schedule schedule = bgd_schedule_for(snapshot, procs, block, comm.rank());
  if (schedule.ring && (snapshot == nullptr || snapshot->regular_fallback())) {
    // Balanced arrivals (or no estimates): nothing to disseminate early. Dispatch runs the
    // regular algorithm the list names for this case (NEX; the ring for odd P, as Open MPI
    // does); the agent's background had no step before the first send, so it left nothing to claim.
    (void)internal::run_balanced(ctx, sendbuf, recvbuf, count, type);
    return;
  }
  // Dispatch copied this rank's block into recvbuf.
  std::byte* out = internal::bytes(recvbuf);
  const auto at = [&](int b) { return out + static_cast<std::size_t>(b) * block; };

  const internal::PlanKey call = internal::plan_key(Collective::allgather, "bgd", block, 0);
  const int tag = internal::arrival_tag(ctx, call, planned_tag(snapshot), internal::tag_bgd_unplanned);

  std::size_t k = 0;
  internal::BackgroundSlot* background = nullptr;
  if (internal::BackgroundSlot* slot = internal::slot_of(ctx)) {
    if (internal::BackgroundSlot* done = slot->claim(call)) {
      background = done;
      for (int seg = 0; seg < procs; ++seg) {
        const auto s = static_cast<std::size_t>(seg);
        if (s < done->received.size() && done->received[s]) std::memcpy(at(seg), done->segments[s].data(), block);
      }
      k = done->next_step;
    }
  }

  // What this rank holds now: its own block and what the background received.
  std::vector<char> held(p, 0);
  held[static_cast<std::size_t>(me)] = 1;
  if (background != nullptr) {
    for (std::size_t s = 0; s < p && s < background->received.size(); ++s) held[s] |= background->received[s];
  }
  run_steps(
      comm, schedule.program(me), k, schedule.program(me).size(), tag, block, [&](int seg) { return at(seg); },
      [&](Request& r) { r.wait(ctx.timeout()); }, held);
}

}  // namespace ragged
