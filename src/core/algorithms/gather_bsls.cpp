// gather "bsls": Background Sorted Linear Synchronized tree (Proficz 2021, §3.2,
// after [21]): SLS (gather_sls.cpp) with the root's loop moved into the
// background. As soon as the arrival snapshot is complete, the root's agent
// signals the other ranks in estimated arrival order and receives their blocks
// while the root itself still computes; the root's collective call only waits
// for its agent and copies the blocks into recvbuf. The non-root side is SLS's.
//
//   root (computing)   root's agent               rank a   rank b
//        |             |-- signal ---------------->|
//        |             |<-- short, rest -----------| leaves
//        |             |-- signal ------------------------->|
//        |             |<-- short, rest --------------------| leaves
//   arrives: wait for the agent, copy, leave
//
// Without an agent (a snapshot built by hand, or no snapshot) BSLS is SLS.
// Wrong estimates keep the result exact; the root then waits for a late rank
// while earlier ones queue behind it, at most (P-2)(3 alpha + n beta) more.
//
// Reference: J. Proficz, "All-gather Algorithms Resilient to Imbalanced Process Arrival Patterns", ACM TACO 18(4),
//   2021, §3.2 (BSLS, after its reference [21]).
// Limitation: gains only from an arrival snapshot and the root's agent: without an agent it is SLS; with wrong
//   estimates the root waits for a late rank while earlier ones queue behind it.
// Memory: the root's agent keeps the P-1 blocks until the root copies them into recvbuf.
//
// Cost (alpha-beta, n bytes per block): the root's call costs one copy of
// (P-1) n bytes when its agent finished before it arrived; otherwise SLS's
// (P-1)(3 alpha + n beta) minus what the agent did before the arrival.
#include <cstring>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "internal/common.hpp"
#include "plans/sorted_order.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"

namespace ragged {

namespace internal {

void bsls_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context) {
  const int procs = comm.size();
  const int root = slot.agreed().root;
  const auto block = static_cast<std::size_t>(slot.agreed().block_bytes);
  const std::size_t first = sorted_gather_short_bytes(block);
  if (comm.rank() != root || snapshot.size() != procs) return;
  slot.segments.assign(static_cast<std::size_t>(procs), {});
  slot.received.assign(static_cast<std::size_t>(procs), 0);
  for (int r : plans::sorted::gather_order(snapshot.arrivals(), root)) {
    std::vector<std::byte>& dst = slot.segments[static_cast<std::size_t>(r)];
    dst.resize(block);
    Request short_part = comm.irecv(r, tag_bsls_data, dst.data(), first);
    Request signal = comm.isend(r, tag_bsls_signal, nullptr, 0);
    context.wait(signal);
    // A zero-byte send completes before anyone takes it (eagerly): when rank r is in another call
    // (the site's root moved, the plan is given up), the signal stays queued and lets rank r send
    // at once in a later call of this plan, whose data still matches in order.
    context.wait(short_part);
    if (block > first) {
      Request rest = comm.irecv(r, tag_bsls_data, dst.data() + first, block - first);
      context.wait(rest);
    }
    slot.received[static_cast<std::size_t>(r)] = 1;
  }
  slot.next_step = static_cast<std::size_t>(procs);
}

}  // namespace internal

void gather_bsls(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  // Dispatch copied the root's own block into recvbuf.
  const std::size_t block = ctx.bytes(count, type);
  const internal::PlanKey call = internal::plan_key(Collective::gather, "bsls", block, root);
  if (internal::BackgroundSlot* slot = internal::slot_of(ctx)) {
    if (internal::BackgroundSlot* done = slot->claim(call); done != nullptr && ctx.rank() == root) {
      for (int r = 0; r < ctx.procs(); ++r) {
        const auto s = static_cast<std::size_t>(r);
        if (r == root || s >= done->received.size() || !done->received[s]) {
          if (r != root) throw Error("bsls: the background gather finished without rank " + std::to_string(r));
          continue;
        }
        std::memcpy(internal::bytes(recvbuf) + s * block, done->segments[s].data(), block);
      }
      return;
    }
  }
  internal::sorted_gather_foreground(
      ctx, sendbuf, recvbuf, count, type, root,
      internal::arrival_tag(ctx, call, internal::tag_bsls_signal, internal::tag_bsls_signal_unplanned),
      internal::arrival_tag(ctx, call, internal::tag_bsls_data, internal::tag_bsls_data_unplanned));
}

}  // namespace ragged
