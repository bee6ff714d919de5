// Composition through dispatch: an algorithm that runs another collective as one of its parts
// (allgather "lnbc" and "bslb" broadcast what they gathered) asks dispatch for the algorithm
// that a call of that collective would select, instead of naming one. So a better broadcast
// in the list, a RAGGED_BCAST setting or a rules file reaches those algorithms too.
#pragma once

#include <cstddef>

#include "ragged/context.hpp"
#include "ragged/datatype.hpp"
#include "ragged/registry.hpp"

namespace ragged::internal {

/// Runs the bcast of `count` elements of `type` from `root` that dispatch selects for it
/// (RAGGED_BCAST, the rules file of RAGGED_TUNING_FILE, else `auto`; the enclosing call's own
/// algorithm name is not a bcast's and plays no part) under `ctx`: its tags (give it a
/// sub-block, ctx.sub()), deadline, workspace and hints. An arrival snapshot among the hints
/// gives `auto` only its link model: every rank is already inside the enclosing call, so the
/// choice is among the regular algorithms (CallInfo::sub_call). The arguments are the
/// enclosing algorithm's and are not checked again; P = 1 and count 0 return at once.
/// Returns the algorithm that ran.
const Algorithm& dispatch_bcast(const Context& ctx, void* buffer, std::size_t count, DataType type, int root);

}  // namespace ragged::internal
