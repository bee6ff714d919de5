// alltoall "onesided": Iakymchuk et al. 2021 (§IV-B) over notified puts (GASPI's write_notify). Every rank
// writes its block for rank j straight into rank j's window with a notification of its own,
// then waits for the P-1 notifications of the others (notify_wait_some), resets each and
// copies the block out. No handshake, no matching: one put per pair.
//
//   window of rank j (cached from call to call, at least 2 P b bytes, cut in two halves W/2):
//     half 0 (even calls): [from 0][from 1] ... [from P-1] ...  notifications 0..P-1
//     half 1 (odd calls):  [from 0][from 1] ... [from P-1] ...  notifications P..2P-1
//   call c, rank i: for k = 1..P-1: put block of j = i+k into half c%2 of j at c%2·W/2 + i·b,
//                   notification (c%2)·P + i := c
//                   then P-1 times: wait some of half c%2's notifications, reset, copy out.
//
// Safety across calls: the window is reused, and a fast rank i may start call c+1 while rank j
// still copies out call c. Call c+1 writes the other half, so what i overwrites in j's window
// is call c-1's block, and j is done with it: i finished call c, so it received j's block of
// call c, which j put only after it had finished call c-1 (copied out and reset every
// notification of that half). The halves are fixed by the window's size, not by the block size
// of the call: i's put of call c (to the other half) may still be in flight when i starts call
// c+1 with smaller blocks, and must not land in call c+1's blocks. The same reasoning shows
// that no put of call c-1 is still in flight when i writes that half again in call c+1. The notification value is the
// call number: a stale one is recognised (and cannot occur; the check throws std::logic_error if it ever does).
//
// Reference: R. Iakymchuk, A. Faustino, A. Emerson, J. Barreto, V. Bartsch, R. Rodrigues, J. C. Monteiro, "Efficient
//   and Eventually Consistent Collective Operations", IPDPS Workshops (IPDPSW) 2021, §IV-B.
// Limitation: needs a window (RMA, or its emulation) of 2 P b bytes per rank; P-1 puts in flight at once, as in
//   alltoall "linear".
// Memory: a window of 2 P b bytes and 2P notifications per rank, cached from call to call.
//
// Cost (b = count·size bytes per block): (P-1)(alpha + b beta) at each rank's port, all puts in
// flight at once as in alltoall "linear" but without a rendezvous per message (a put needs no
// matching receive), plus the copy-out of (P-1) b bytes; the window holds 2 P b bytes per rank.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"
#include "internal/common.hpp"
#include "internal/window_cache.hpp"
#include "ragged/window.hpp"

namespace ragged {

void alltoall_onesided(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const auto [comm, p, me, tag, b, in, out] = internal::alltoall_view(ctx, sendbuf, recvbuf, count, type);
  if (p < 2 || b == 0) return;  // dispatch copied this rank's own block

  const auto procs = static_cast<std::size_t>(p);
  const internal::CachedWindow cached = internal::cached_window(ctx, "alltoall onesided", 2 * procs * b, 2 * p);
  Window& win = cached.window;
  const std::uint64_t call = cached.call;
  const auto half = static_cast<std::size_t>(call % 2);
  // The halves split the window as it was created, whatever this call's block size: a put of the
  // previous call (larger blocks, still in flight) never reaches into this call's half.
  const std::size_t half_start = half * (win.bytes() / 2);
  const std::size_t base = half * procs;  // first notification id of this call's half

  for (int k = 1; k < p; ++k) {
    const auto to = static_cast<std::size_t>((me + k) % p);
    win.put_notify(static_cast<int>(to), half_start + static_cast<std::size_t>(me) * b, in + to * b, b,
                   static_cast<int>(base) + me, call);
  }
  const std::byte* window = win.local().data();
  for (int received = 0; received < p - 1; ++received) {
    const int id = win.notify_wait_some(static_cast<int>(base), p, ctx.timeout());
    const std::uint64_t got = win.notify_reset(id);
    const auto from = static_cast<std::size_t>(id) - base;
    if (got != call || from == static_cast<std::size_t>(me)) {
      throw std::logic_error("alltoall onesided: rank " + std::to_string(me) + " expected notification " +
                             std::to_string(call) + " on slot " + std::to_string(id) + ", found " +
                             std::to_string(got));
    }
    internal::copy_bytes(out + from * b, window + half_start + from * b, b);
  }
  // No flush: the notifications above, not the completion of this rank's own puts, are what the
  // next call relies on (see "Safety across calls"), and waiting for the puts to land would add
  // a one-way latency to every call. The emulated window takes its acknowledgements as they come.
}

}  // namespace ragged
