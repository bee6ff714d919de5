#include "internal/reduce_chain.hpp"

#include <algorithm>
#include <vector>

#include "internal/common.hpp"
#include "plans/pipelined_linear_plan.hpp"

namespace ragged::internal {

void reduce_along_chain(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                        const ReduceOp& op, std::span<const int> order, std::size_t per) {
  namespace chain = plans::chain;
  const std::size_t esize = size_of(type);
  const std::size_t total = count * esize;
  const auto mine = std::find(order.begin(), order.end(), ctx.rank());
  const auto at = static_cast<std::size_t>(mine - order.begin());
  const int prev = at > 0 ? order[at - 1] : -1;
  const int next = at + 1 < order.size() ? order[at + 1] : -1;
  const std::size_t segments = chain::segments(count, per);
  const int tag = ctx.tag(0);
  const std::byte* own = internal::bytes(sendbuf);
  const auto offset = [&](std::size_t t) { return chain::segment_first(t, per) * esize; };
  const auto length = [&](std::size_t t) { return chain::segment_size(count, t, per); };

  if (prev < 0) {  // the chain's first rank: its own segments go down as they are
    Request in_flight;
    for (std::size_t t = 0; t < segments; ++t) {
      in_flight.wait(ctx.timeout());
      in_flight = ctx.comm().isend(next, tag, own + offset(t), length(t) * esize);
    }
    in_flight.wait(ctx.timeout());
    return;
  }
  // Partials from the predecessor land in `partial`; at the root the result is recvbuf.
  std::byte* partial = ctx.workspace().get(total).data();
  std::vector<Request> in;
  in.reserve(segments);
  for (std::size_t t = 0; t < segments; ++t) {
    in.push_back(ctx.comm().irecv(prev, tag, partial + offset(t), length(t) * esize));
  }
  std::byte* result = next < 0 ? internal::bytes(recvbuf) : partial;
  Request in_flight;
  for (std::size_t t = 0; t < segments; ++t) {
    in[t].wait(ctx.timeout());
    if (next < 0) {  // the root: recvbuf = partial ∘ own (in place: own is recvbuf already)
      copy_bytes(result + offset(t), own + offset(t), length(t) * esize);
      reduce_local(op, type, partial + offset(t), result + offset(t), length(t));
    } else {
      reduce_local(op, type, own + offset(t), partial + offset(t), length(t));
    }
    ctx.runtime().charge(static_cast<double>(length(t)));
    if (next < 0) continue;
    in_flight.wait(ctx.timeout());
    in_flight = ctx.comm().isend(next, tag, partial + offset(t), length(t) * esize);
  }
  in_flight.wait(ctx.timeout());
}

}  // namespace ragged::internal
