// The windows of the one-sided collectives (Iakymchuk et al. 2021), kept per communicator and per user (an
// algorithm's name) from call to call, as GASPI keeps its segments: creating a window is
// collective and costly (MPI_Win_allocate), so a collective creates its window on first use and
// re-creates it, larger, only when a call needs more.
//
// Reuse has a price the users pay: a fast rank may start call k+1 while a slow one still reads
// call k's data from its window. Every collective built on this keeps its own protocol (ready
// and acknowledgement notifications, or halves by call parity) so that never overwrites data
// still in use; `call` numbers the calls on the window, from 1, for that purpose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ragged/context.hpp"
#include "ragged/window.hpp"

namespace ragged::internal {

struct CachedWindow {
  Window& window;
  /// 1 for the first call on this window, then 2, 3, ... (restarts at 1 when re-created).
  std::uint64_t call;
};

/// The window named `user` of ctx.comm(), with at least `bytes` bytes and exactly
/// `notifications` slots, zeroed notifications when (re-)created. Collective: every rank calls it
/// in the same call with the same arguments (a collective's own arguments agree across ranks).
/// Re-creation waits until every rank's previous call on the window is complete. Creation first
/// runs a barrier bounded by ctx.timeout(), so a rank that never arrives gives TimeoutError.
CachedWindow cached_window(Context& ctx, const std::string& user, std::size_t bytes, int notifications);

}  // namespace ragged::internal
