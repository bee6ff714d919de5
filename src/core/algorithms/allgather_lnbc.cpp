// allgather "lnbc": linear gather to rank 0, then a binomial broadcast of the
// whole gathered vector from rank 0 (the LNBC reference of seed 000).
//
//   gather (linear)            broadcast (binomial, root 0), P = 8
//
//   1 ──┐                      round 1   0 ──────────────> 4
//   2 ──┤                      round 2   0 ──────> 2       4 ──────> 6
//   3 ──┼──> 0                 round 3   0 > 1   2 > 3   4 > 5   6 > 7
//   ... │
//   P-1 ┘                      a rank receives from its parent (its rank with
//                              the lowest set bit cleared), then sends to
//                              rank + d for d = lowbit(rank)/2, ..., 2, 1
//                              (root: d = 2^(ceil(log2 P)-1), ..., 1)
//
// Cost (n = P*count*size bytes gathered):
//   gather:    (P-1) alpha + (P-1)/P n beta   (every block crosses rank 0's link)
//   broadcast: ceil(log2 P) (alpha + n beta)
// The broadcast sends the whole vector in each round: LNBC is the slow
// reference; its appeal is that rank 0 holds everything after the first phase.
// The broadcast is bcast "binomial_blocking" called through a sub-context (tags
// 32.. of the call's block; the gather uses tag 0): a rank sends to its children
// one after the other, so each transfer has the sender's link to itself, where
// bcast "binomial" posts them all at once and they share it (for P = 28 and 1 MB
// that made BSLB's broadcast twice as long, docs/algorithms/bslb.md). Any P.
#include <vector>

#include "algorithms/list.hpp"
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

  // Binomial broadcast of all P blocks from rank 0, on tags 32.. of this call's block.
  Context sub = ctx.sub(32, 32);
  bcast_binomial_blocking(sub, out, p * count, type, root);
}

}  // namespace ragged
