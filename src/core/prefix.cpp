// The two prefix-reduction patterns, inclusive and exclusive (src/core/internal/prefix.hpp); the
// pictures, costs and references are at the top of scan_recursive_doubling.cpp and
// scan_pipelined_chain.cpp. reduce_local(op, type, a, b, m) computes b = a ∘ b: the operand
// from lower ranks always stays on the left, so a non-commutative operator is applied in rank order.
#include "internal/prefix.hpp"

#include <cstddef>
#include <memory>
#include <utility>

#include "internal/common.hpp"
#include "plans/pipelined_linear_plan.hpp"
#include "ragged/comm.hpp"

namespace ragged::internal {

void prefix_recursive_doubling(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                               const ReduceOp& op, Prefix kind) {
  Comm& comm = ctx.comm();
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const std::size_t n = ctx.bytes(count, type);
  const int tag = ctx.tag(0);
  // partial: the reduction of this rank's aligned block of 2^k ranks (those that exist) so far;
  // incoming: what the partner sent, the partner's block's reduction.
  auto partial = std::make_unique_for_overwrite<std::byte[]>(n);
  auto incoming = std::make_unique_for_overwrite<std::byte[]>(n);
  copy_bytes(partial.get(), sendbuf, n);
  bool have_result = kind == Prefix::inclusive;
  if (have_result) copy_bytes(recvbuf, sendbuf, n);  // a no-op when in place
  for (int mask = 1; mask < procs; mask <<= 1) {
    const int partner = me ^ mask;
    if (partner >= procs) continue;  // no block above: the partial stays
    comm.sendrecv(partner, tag, partial.get(), n, partner, tag, incoming.get(), n, ctx.timeout());
    if (partner < me) {  // the lower block: on the left of both the result and the partial
      if (have_result) {
        reduce_local(op, type, incoming.get(), recvbuf, count);
        comm.runtime().charge(static_cast<double>(count));
      } else {
        copy_bytes(recvbuf, incoming.get(), n);
        have_result = true;
      }
      reduce_local(op, type, incoming.get(), partial.get(), count);
    } else {  // the upper block: on the right of the partial only
      reduce_local(op, type, partial.get(), incoming.get(), count);
      std::swap(partial, incoming);
    }
    comm.runtime().charge(static_cast<double>(count));
  }
}

void prefix_pipelined_chain(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                            const ReduceOp& op, Prefix kind) {
  namespace chain = plans::chain;
  Comm& comm = ctx.comm();
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const std::size_t es = size_of(type);
  const std::size_t n = count * es;
  const int tag = ctx.tag(0);
  const std::size_t per = chain::segment_elements(es);
  const std::size_t nseg = chain::segments(count, per);
  const bool first = me == 0;
  const bool last = me == procs - 1;
  auto* out = static_cast<std::byte*>(recvbuf);
  const auto* own = static_cast<const std::byte*>(sendbuf);

  // Inclusive: recvbuf holds the own operand and becomes the prefix, segment by segment; the
  // segments from the left arrive in two buffers taken in turn. Exclusive: they arrive straight
  // into recvbuf (they are the result), and a middle rank combines them with a copy of its own
  // operand (recvbuf may hold that operand, in place), which it then sends on.
  std::unique_ptr<std::byte[]> scratch;
  std::byte* combined = nullptr;  // exclusive, middle ranks: the own operand, then prefix ∘ own
  std::byte* incoming[2] = {nullptr, nullptr};
  if (kind == Prefix::inclusive) {
    copy_bytes(out, own, n);
    if (!first) {
      const std::size_t seg = per * es < n ? per * es : n;
      scratch = std::make_unique_for_overwrite<std::byte[]>(2 * seg);
      incoming[0] = scratch.get();
      incoming[1] = scratch.get() + seg;
    }
  } else if (!first && !last) {
    scratch = std::make_unique_for_overwrite<std::byte[]>(n);
    combined = scratch.get();
    copy_bytes(combined, own, n);
  }

  const auto offset = [&](std::size_t t) { return chain::segment_first(t, per) * es; };
  const auto length = [&](std::size_t t) { return chain::segment_size(count, t, per); };
  Request recv[2];
  const auto post_recv = [&](std::size_t t) {
    std::byte* to = kind == Prefix::inclusive ? incoming[t % 2] : out + offset(t);
    recv[t % 2] = comm.irecv(me - 1, tag, to, length(t) * es);
  };
  Request send;
  if (!first) post_recv(0);
  for (std::size_t t = 0; t < nseg; ++t) {
    const std::size_t m = length(t);
    if (!first) {
      recv[t % 2].wait(ctx.timeout());
      if (t + 1 < nseg) post_recv(t + 1);
    }
    const std::byte* forward = nullptr;  // what goes to the right: x_0 ∘ ... ∘ x_me of segment t
    if (kind == Prefix::inclusive) {
      if (!first) {
        reduce_local(op, type, incoming[t % 2], out + offset(t), m);
        comm.runtime().charge(static_cast<double>(m));
      }
      forward = out + offset(t);
    } else if (first) {
      forward = own + offset(t);
    } else if (!last) {
      reduce_local(op, type, out + offset(t), combined + offset(t), m);
      comm.runtime().charge(static_cast<double>(m));
      forward = combined + offset(t);
    }
    if (last) continue;
    // One send in flight (plans::chain::send_window): segments leave in order, one after the other.
    if (send.active()) send.wait(ctx.timeout());
    send = comm.isend(me + 1, tag, forward, m * es);
  }
  if (send.active()) send.wait(ctx.timeout());
}

}  // namespace ragged::internal
