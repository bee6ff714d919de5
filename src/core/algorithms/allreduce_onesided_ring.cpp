// allreduce "onesided_ring": the segmented pipelined ring of Iakymchuk et al. 2021 (§IV-A) over notified puts
// (GASPI's write_notify): reduce-scatter then allgather, P-1 steps each, every transfer a
// put_notify into the right neighbour's window, and no global synchronisation at all: each
// rank talks to its two neighbours only, through notifications (Iakymchuk et al. 2021, §II, Table I).
//
//   left (r-1)                        rank r                           right (r+1)
//                                     slots 0..K-1 of S bytes
//   ready(call) <--------------------  at entry: my slots are free
//   put piece q into slot q%K  ----->  wait data q%K, reset,
//     data notification (call, q)      reduce (reduce-scatter) or copy (allgather) into recvbuf,
//   ack (call, q) <-------------------  then ack: slot q%K may take piece q+K
//                                      put piece s into slot s%K  ------> ...
//                                      (after ready, and for s >= K after ack (call, s-K))
//
//   Step t of 2P-2 (t < P-1: reduce-scatter, chunk r-t-1 out, r-t-2 in; then allgather, chunk
//   r-(t-P+1) out, r-(t-P+1)-1 in); each chunk cut into m segments of at most S bytes; the
//   streams and their order are plans/onesided_ring_plan.hpp.
//
// Safety across calls (the window is cached and reused): a rank writes its right neighbour's
// slots in call c only after that neighbour's ready(c), which the neighbour sends on entering
// call c, when it has consumed every piece of call c-1; within a call, slot s%K is written again
// only after the acknowledgement of piece s-K. Every notification carries the call number (and
// the piece), so a stale one would be recognised: the protocol makes them impossible and the
// checks throw std::logic_error if one ever appears. Acknowledgements nobody will wait for (the
// last K pieces) are not sent, so a call leaves no notification behind.
//
// Reference: R. Iakymchuk, A. Faustino, A. Emerson, J. Barreto, V. Bartsch, R. Rodrigues, J. C. Monteiro, "Efficient
//   and Eventually Consistent Collective Operations", IPDPS Workshops (IPDPSW) 2021, §IV-A.
// Limitation: commutative operators only (a non-commutative one runs reduce_bcast); needs a window (RMA, or its
//   emulation) per communicator; 2(P-1) steps, latency linear in P.
// Memory: a window of K slots of S bytes per rank (OneSidedTuning: K = 4 and S up to 64 KiB by default) and 2K + 1
//   notifications, cached from call to call.
//
// Cost (n = count*size bytes, m segments per chunk, S = n/(P m)): 2(P-1) m (alpha + S beta) on
// the critical path without overlap, but the puts of one link run K segments ahead of the
// reductions, so in steady state a step costs max(n/P beta, n/P gamma) + alpha:
// about 2(P-1) alpha + 2(P-1)/P n beta with the reduction (P-1)/P n gamma hidden behind the
// transfers when gamma < beta, plus one alpha for the ready at entry and (m-1)(alpha + S beta)
// of pipeline fill. Commutative operators only (each chunk is reduced in a different rank order);
// every chunk is reduced on one rank and copied, so all ranks get the same bits.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "internal/window_cache.hpp"
#include "plans/onesided_ring_plan.hpp"
#include "ragged/onesided.hpp"
#include "ragged/window.hpp"

namespace ragged {

namespace {

/// Puts between two flushes within a call (see the end of allreduce_onesided_ring).
constexpr std::size_t flush_every = 256;

/// A data or acknowledgement notification: the call in the high 32 bits, piece + 1 in the low ones
/// (never zero).
std::uint64_t piece_value(std::uint64_t call, std::size_t piece) {
  return (call << 32U) | ((static_cast<std::uint64_t>(piece) + 1U) & 0xffffffffU);
}

}  // namespace

void allreduce_onesided_ring(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type,
                             const ReduceOp& op) {
  const int procs = ctx.size();
  const int rank = ctx.rank();
  if (procs < 2 || count == 0) return;  // dispatch copied sendbuf into recvbuf: done

  OneSidedTuning tuning;
  if (const OneSidedTuning* hint = ctx.hints().get<OneSidedTuning>()) tuning = *hint;
  if (tuning.slots < 1) {
    throw InvalidArgument("options.hints",
                          "OneSidedTuning::slots must be at least 1, got " + std::to_string(tuning.slots));
  }

  namespace plan = plans::onesided_ring;
  const std::size_t esize = size_of(type);
  const std::size_t segments = plan::segments_per_chunk(count, procs, esize, tuning.segment_bytes);
  const std::size_t slot_bytes = plan::slot_elements(count, procs, segments) * esize;
  const auto slots = static_cast<std::size_t>(tuning.slots);
  const std::vector<plan::Piece> sends = plan::send_stream(count, procs, rank, segments);
  const std::vector<plan::Piece> recvs = plan::recv_stream(count, procs, rank, segments);
  const std::size_t first = plan::first_step_pieces(sends);

  // Notification ids: data of slot i at i, acknowledgement of slot i at K + i, ready at 2K.
  const int k = tuning.slots;
  const int ready_id = 2 * k;
  const auto data_id = [k](std::size_t piece) { return static_cast<int>(piece % static_cast<std::size_t>(k)); };
  const auto ack_id = [k](std::size_t piece) { return k + static_cast<int>(piece % static_cast<std::size_t>(k)); };

  const internal::CachedWindow cached =
      internal::cached_window(ctx, "allreduce onesided_ring", slots * slot_bytes, 2 * k + 1);
  Window& win = cached.window;
  const std::uint64_t call = cached.call;
  const int right = plans::ring::right(rank, procs);
  const int left = plans::ring::left(rank, procs);
  std::byte* out = internal::bytes(recvbuf);
  std::byte* const slot_memory = win.local().data();

  // Waits for notification `id`, clears it and checks that it is the one the protocol expects.
  const auto await = [&](int id, std::uint64_t expected, const char* what) {
    win.notify_wait_some(id, 1, ctx.timeout());
    const std::uint64_t got = win.notify_reset(id);
    if (got != expected) {
      throw std::logic_error("allreduce onesided_ring: rank " + std::to_string(rank) + " expected " + what +
                             " notification " + std::to_string(expected) + " on slot " + std::to_string(id) +
                             ", found " + std::to_string(got));
    }
  };

  // Ready: the left neighbour may write my slots, everything of the previous call is consumed.
  if (!recvs.empty()) win.put_notify(left, 0, nullptr, 0, ready_id, call);
  bool right_ready = false;

  const auto put = [&](std::size_t s) {
    if (!right_ready) {
      await(ready_id, call, "ready");
      right_ready = true;
    }
    if (s >= slots) await(ack_id(s), piece_value(call, s - slots), "acknowledgement");
    const plan::Piece& p = sends[s];
    win.put_notify(right, (s % slots) * slot_bytes, out + p.offset * esize, p.count * esize, data_id(s),
                   piece_value(call, s));
    if ((s + 1) % flush_every == 0) win.flush();
  };

  const auto take = [&](std::size_t q) {
    await(data_id(q), piece_value(call, q), "data");
    const plan::Piece& p = recvs[q];
    const std::byte* slot = slot_memory + (q % slots) * slot_bytes;
    if (p.reduces(procs)) {
      reduce_local(op, type, slot, out + p.offset * esize, p.count);
      ctx.runtime().charge(static_cast<double>(p.count));
    } else {
      internal::copy_bytes(out + p.offset * esize, slot, p.count * esize);
    }
    // The slot is free again; the left neighbour waits for this only if it has piece q + K to put.
    if (q + slots < recvs.size()) win.put_notify(left, 0, nullptr, 0, ack_id(q), piece_value(call, q));
  };

  std::size_t next = 0;
  for (std::size_t q = 0; q < recvs.size(); ++q) {
    while (next < sends.size() && plan::put_before_take(next, q, first, slots)) put(next++);
    take(q);
  }
  while (next < sends.size()) put(next++);
  // No flush at the end: the next call writes a slot only after the neighbour's ready of that
  // call, so nothing of this call's completion is owed to it, and waiting for the last puts to
  // land would add a one-way latency to every call. The emulated window (src/mpi/window_emulated.cpp)
  // takes its acknowledgements as they come; the flushes every flush_every puts within a call
  // bound the sends it holds.
}

}  // namespace ragged
