// What the allgatherv algorithms share: an exchange that sends and receives nothing for an empty
// block (every rank knows every count, so both sides skip it).
#pragma once

#include <array>
#include <cstddef>

#include "ragged/comm.hpp"
#include "ragged/context.hpp"

namespace ragged::internal::allgatherv {

/// Sends `send_bytes` at `send` to `to` while receiving `recv_bytes` into `recv` from `from`, both
/// on `tag`; an empty side posts no message.
inline void exchange(const Context& ctx, int to, const std::byte* send, std::size_t send_bytes, int from,
                     std::byte* recv, std::size_t recv_bytes, int tag) {
  std::array<Request, 2> requests;
  if (recv_bytes > 0) requests[0] = ctx.comm().irecv(from, tag, recv, recv_bytes);
  if (send_bytes > 0) requests[1] = ctx.comm().isend(to, tag, send, send_bytes);
  ctx.comm().wait_all(requests, ctx.timeout());
}

}  // namespace ragged::internal::allgatherv
