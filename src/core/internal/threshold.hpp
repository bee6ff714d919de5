// The threshold broadcast and reduce of Iakymchuk et al. 2021, §III-B (src/core/algorithms/threshold_*.cpp),
// run by dispatch (src/core/dispatch/threshold.cpp) with validated arguments and the plan
// (plans/threshold_plan.hpp) already computed. Outside the registry: their signatures and
// results are their own. Design and protocol: docs/algorithms/threshold-bcast-reduce.md.
#pragma once

#include <cstddef>

#include "ragged/context.hpp"
#include "ragged/datatype.hpp"

namespace ragged::internal {

/// Broadcasts elements [0, elements) of `buffer` from `root` down the binomial tree of all
/// ranks with notified writes. P >= 2 and elements >= 1.
void bcast_threshold_binomial(Context& ctx, void* buffer, std::size_t elements, DataType type, int root);

/// Reduces elements [0, elements) of `sendbuf` of the relative ranks [0, contributors) into
/// `recvbuf` at `root` (sendbuf == recvbuf at the root in place) up the binomial tree of those
/// ranks. The other ranks return at once. P >= 2, elements >= 1, op commutative.
void reduce_threshold_binomial(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t elements, DataType type,
                               const ReduceOp& op, int root, int contributors);

}  // namespace ragged::internal
