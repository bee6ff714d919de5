// What the two reduces on a segmented chain share (reduce_pipelined_chain.cpp in rank order,
// reduce_sorted_chain.cpp in arrival order): the chain's first rank sends its own segments, every
// other rank adds its own to each partial segment from its predecessor and sends it on, one send
// in flight, and the last rank, the root, adds its own into recvbuf.
#pragma once

#include <cstddef>
#include <span>

#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/datatype.hpp"

namespace ragged::internal {

/// Reduces `count` elements of `type` down `order` (every rank once, the root last) in segments
/// of `per` elements, on ctx.tag(0). `sendbuf` is this rank's operand (recvbuf at the root in
/// place); the root's result goes to `recvbuf`. Partials use n bytes of the workspace at every
/// rank but the chain's first. `op` must be commutative (the chain combines in its own order).
void reduce_along_chain(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                        const ReduceOp& op, std::span<const int> order, std::size_t per);

}  // namespace ragged::internal
