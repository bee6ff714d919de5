// The fold of allreduce "recursive_doubling": with P not a power
// of two, P - pof2 ranks sit out (the even ranks below 2 (P - pof2)): each hands its vector to
// its odd neighbour, waits while the pof2 others work, and gets the result back
// (plans/recursive_doubling_plan.hpp).
#pragma once

#include <cstddef>

#include "plans/recursive_doubling_plan.hpp"
#include "ragged/context.hpp"
#include "ragged/datatype.hpp"

namespace ragged::internal {

/// At a rank that sits out (it has no virtual rank): sends `count` elements
/// of `data` to its fold partner, receives the result into `data` and returns true (the rank is
/// done). Elsewhere returns false at once. On the call's first tag.
inline bool folded_out(Context& ctx, std::byte* data, std::size_t count, DataType type) {
  namespace rd = plans::recursive;
  if (rd::vrank(ctx.rank(), ctx.procs()) >= 0) return false;
  const int fold = rd::fold_partner(ctx.rank(), ctx.procs());
  ctx.comm().send(fold, ctx.tag(), data, Context::bytes(count, type), ctx.timeout());
  ctx.comm().recv(fold, ctx.tag(), data, Context::bytes(count, type), ctx.timeout());
  return true;
}

/// At a rank with a virtual rank and a fold partner: receives the partner's vector into
/// `scratch` and reduces it into `data` (the lower rank on the left). Elsewhere nothing.
inline void fold_in(Context& ctx, std::byte* data, std::byte* scratch, std::size_t count, DataType type,
                    const ReduceOp& op) {
  const int fold = plans::recursive::fold_partner(ctx.rank(), ctx.procs());
  if (fold < 0) return;
  ctx.comm().recv(fold, ctx.tag(), scratch, Context::bytes(count, type), ctx.timeout());
  reduce_local(op, type, scratch, data, count);  // lower rank on the left
  ctx.runtime().charge(static_cast<double>(count));
}

/// The result back to the fold partner, if any.
inline void fold_out(Context& ctx, const std::byte* data, std::size_t count, DataType type) {
  const int fold = plans::recursive::fold_partner(ctx.rank(), ctx.procs());
  if (fold >= 0) ctx.comm().send(fold, ctx.tag(), data, Context::bytes(count, type), ctx.timeout());
}

}  // namespace ragged::internal
