#include "internal/window_cache.hpp"

#include <bit>

#include "dispatch/compose.hpp"
#include "dispatch/state.hpp"
#include "ragged/collectives.hpp"

namespace ragged::internal {

CachedWindow cached_window(Context& ctx, const std::string& user, std::size_t bytes, int notifications) {
  DispatchState& state = dispatch_state(ctx.comm());
  DispatchState::OneSided& entry = state.windows[user];
  if (!entry.window || entry.window->bytes() < bytes || entry.window->notifications() != notifications) {
    // Every rank takes this branch in the same call (same arguments, same history), so the
    // collective destruction and creation match. Destroying first frees the memory before the
    // larger window is allocated; the MPI window's destruction waits for the other ranks, so no
    // put of the previous call can land in freed memory.
    entry.window.reset();
    // Creation blocks until every rank creates (MPI_Win_allocate cannot time out), so a rank that
    // never arrives must be found first: a barrier bounded by the call's timeout raises
    // TimeoutError instead of hanging in the creation.
    barrier(ctx.comm(), ctx.timeout());
    // Round up to a power of two, so a growing message size re-creates the window O(log) times.
    const std::size_t size = bytes <= 64 ? 64 : std::bit_ceil(bytes);
    entry.window = ctx.comm().create_window(size, notifications);
    entry.calls = 0;
  }
  return {*entry.window, ++entry.calls};
}

std::uint64_t call_number(const Context& ctx) {
  const Algorithm* running = ctx.algorithm();
  const std::string key =
      running == nullptr ? std::string() : std::string(name_of(running->collective)) + "." + running->name;
  return ++dispatch_state(ctx.comm()).calls[key];
}

}  // namespace ragged::internal
