// An exchange for the collectives whose every rank knows every block's size (allgatherv,
// reduce_scatter): an empty block is no message, on either side.
#pragma once

#include <array>
#include <cstddef>
#include <numeric>
#include <span>
#include <vector>

#include "ragged/comm.hpp"
#include "ragged/context.hpp"

namespace ragged::internal {

/// Sends `send_bytes` at `send` to `to` while receiving `recv_bytes` into `recv` from `from`, both
/// on `tag`; an empty side posts no message (both sides know the sizes).
inline void exchange_nonempty(const Context& ctx, int to, const std::byte* send, std::size_t send_bytes, int from,
                              std::byte* recv, std::size_t recv_bytes, int tag) {
  std::array<Request, 2> requests;
  if (recv_bytes > 0) requests[0] = ctx.comm().irecv(from, tag, recv, recv_bytes);
  if (send_bytes > 0) requests[1] = ctx.comm().isend(to, tag, send, send_bytes);
  ctx.comm().wait_all(requests, ctx.timeout());
}

/// Where each block starts when the blocks of `counts` lie back to back in rank order (elements).
inline std::vector<int> packed_offsets(std::span<const int> counts) {
  std::vector<int> offsets(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  return offsets;
}

}  // namespace ragged::internal
