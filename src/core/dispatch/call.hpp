// What every dispatch entry point shares to run one call: its tag block, its Context and the
// argument checks on buffers. The registry's collectives (dispatch.cpp) and the threshold
// collectives outside the registry (threshold.cpp) build their calls the same way.
#pragma once

#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/registry.hpp"
#include "ragged/selection.hpp"

namespace ragged::internal {

/// The collectives that dispatch runs outside the registry (no algorithm choice).
enum class Unlisted { bcast_threshold, reduce_threshold };

/// Each collective's calls own a block of tags, far from the arrival agent's (below 8192):
/// the registry's collectives first, then the unlisted ones.
[[nodiscard]] TagBlock tags_of(Collective collective);
[[nodiscard]] TagBlock tags_of(Unlisted collective);

/// The Context of one call: its tags, its deadline (options.timeout from now), the
/// communicator's workspace and the options' hints.
[[nodiscard]] Context call_context(Comm& comm, TagBlock tags, const CollectiveOptions& options,
                                   const Algorithm* algorithm = nullptr);

/// The selection for what `call` asks for, resolved already (resolve_request): `auto`'s choice, or
/// the named algorithm with its restrictions checked (its fallback when they fail). Not counted
/// by selections(): select() is the selector, this its last step, which composition reuses.
[[nodiscard]] Selection selection_for(const CallInfo& call, Requested requested);

/// Throws InvalidArgument naming `argument` when `buffer` is in_place; `where` says where
/// in_place is allowed ("at the root", ...).
void reject_in_place(const void* buffer, const char* argument, const char* where);

}  // namespace ragged::internal
