// allgather "lnbc": linear gather to rank 0, then a broadcast of the whole
// gathered vector from rank 0 (the LNBC reference of seed 000: "a regular gather
// operation, based on a linear tree algorithm, combined with a consecutive
// broadcast").
//
//   gather (linear)            broadcast from rank 0: the bcast dispatch selects for
//                              P*count elements, e.g. at 1 MiB and P = 8 the chain
//   1 ──┐
//   2 ──┤                      0 ─a─> 1 ─a─> 2 ─a─> ... ─a─> 7
//   3 ──┼──> 0                   ─b─>   ─b─>   ─b─>  ...       segments a, b, ... one
//   ... │                                                       step behind each other
//   P-1 ┘
//
// The broadcast is whatever dispatch selects for a bcast of the gathered vector
// (internal::dispatch_bcast, src/core/dispatch/compose.hpp): `auto` by the cost models, so
// the binomial tree for small vectors, bcast "scatter_allgather" for medium and
// "pipelined_chain" for large ones; RAGGED_BCAST or a rules file choose another. It runs on
// tags 32..63 of the call's block, the gather on tag 0.
//
// Cost (n = P*count*size bytes gathered):
//   gather:    (P-1) alpha + (P-1)/P n beta   (every block crosses rank 0's link)
//   broadcast: the least of the bcast models for n bytes (plans/cost_model.hpp), for a large
//              n the chain's (P - 2 + S)(alpha + s beta), about n beta + (P-2) s beta + S alpha
// Even with the best broadcast, every byte crosses rank 0's link twice (in, then out): about
// twice the ring's n beta. LNBC is the reference; its appeal is that rank 0 holds everything
// after the first phase. Any P.
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"

namespace ragged {

void allgather_lnbc(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int rank = comm.rank();
  const std::size_t block = count * size_of(type);
  const auto p = static_cast<std::size_t>(procs);

  // Dispatch copied this rank's block into recvbuf.
  std::byte* out = internal::bytes(recvbuf);
  const auto at = [&](int b) { return out + static_cast<std::size_t>(b) * block; };

  constexpr int root = 0;
  const int tag = ctx.tag(0);

  // Linear gather: rank 0 receives every block straight into place.
  if (rank == root) {
    std::vector<Request> requests;
    requests.reserve(p - 1);
    for (int j = 1; j < procs; ++j) requests.push_back(comm.irecv(j, tag, at(j), block));
    comm.wait_all(requests, ctx.timeout());
  } else {
    comm.send(root, tag, at(rank), block, ctx.timeout());
  }

  // Broadcast of all P blocks from rank 0, on tags 32.. of this call's block.
  (void)internal::dispatch_bcast(ctx.sub(32, 32), out, p * count, type, root);
}

}  // namespace ragged
