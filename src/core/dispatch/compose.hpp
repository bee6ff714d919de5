// Composition through dispatch: an algorithm that runs another collective as one of its parts
// (allgather "lnbc" and "bslb" broadcast what they gathered) asks dispatch for the algorithm
// that a call of that collective would select, instead of naming one. So a better broadcast
// in the list, a RAGGED_BCAST setting or a rules file reaches those algorithms too.
#pragma once

#include <cstddef>
#include <functional>

#include "ragged/context.hpp"
#include "ragged/datatype.hpp"
#include "ragged/registry.hpp"

namespace ragged::internal {

/// A hint for a broadcast composed into another collective whose root buffer still fills while
/// the broadcast runs (allgather lnbc gathers into it). At the root, a bcast whose entry streams
/// its source (Restrictions::streams_source) calls wait_source(ctx, end) before it sends bytes
/// below `end`; dispatch_bcast waits for the whole buffer before any other bcast. The hint also
/// changes `auto`'s choice (CallInfo::source_fills), so every rank of the bcast must carry it,
/// not only the root; the other ranks' is never called.
struct SourceProgress {
  /// Returns once bytes [0, end) of the root's buffer hold their final values.
  std::function<void(std::size_t end)> wait;
};

/// At the root of a bcast: waits until bytes [0, end) of the buffer are in (a no-op without a
/// SourceProgress hint).
inline void wait_source(const Context& ctx, std::size_t end) {
  if (const SourceProgress* source = ctx.hints().get<SourceProgress>()) source->wait(end);
}

/// Runs the bcast of `count` elements of `type` from `root` that dispatch selects for it
/// (RAGGED_BCAST, the rules file of RAGGED_TUNING_FILE, else `auto`; the enclosing call's own
/// algorithm name is not a bcast's and plays no part) under `ctx`: its tags (give it a
/// sub-block, ctx.sub()), deadline, workspace and hints. An arrival snapshot among the hints
/// gives `auto` only its link model: every rank is already inside the enclosing call, so the
/// choice is among the regular algorithms (CallInfo::sub_call). The arguments are the
/// enclosing algorithm's and are not checked again; P = 1 and count 0 return at once. With a
/// SourceProgress hint the root's buffer may still be filling (see there).
/// Returns the algorithm that ran.
const Algorithm& dispatch_bcast(const Context& ctx, void* buffer, std::size_t count, DataType type, int root);

}  // namespace ragged::internal
