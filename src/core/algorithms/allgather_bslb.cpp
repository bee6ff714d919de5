// allgather "bslb": Background Sorted Linear synchronized tree with Broadcast
// (listing 3 of seed 000): BSLS gather to rank 0, then a binomial broadcast of
// the gathered vector from rank 0.
//
//   gather (BSLS, arrival order)        broadcast (binomial, P = 8)
//   a ──┐                               0 ──> 4
//   b ──┼──> 0 (its agent receives      0 ──> 2    4 ──> 6
//   c ──┘       while 0 computes)       0 ──> 1    2 ──> 3    4 ──> 5    6 ──> 7
//
// The ranks that arrive early hand their block over early, and the root's agent
// collects them while the root still computes; everybody then waits for the
// broadcast, which starts when the last block (and rank 0) are in.
//
// Cost (alpha-beta, n bytes per block, balanced arrivals): the gather's
// (P-1)(3 alpha + n beta), then ceil(log2 P)(alpha + P n beta) for the broadcast.
// docs/algorithms/bslb.md.
#include "internal/common.hpp"
#include "ragged/algorithms.hpp"
#include "ragged/arrival.hpp"

namespace ragged {

void allgather_bslb(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                    const CollectiveOptions& options) {
  const int me = comm.rank();
  const std::size_t block = count * size_of(type);
  const auto procs = static_cast<std::size_t>(comm.size());
  if (!internal::is_in_place(sendbuf)) internal::check_buffer(sendbuf, block, "sendbuf");
  internal::check_buffer(recvbuf, procs * block, "recvbuf");
  constexpr int root = 0;
  // In place, this rank's block already sits in recvbuf: the root gathers in place, the
  // others send it from there.
  const void* mine = sendbuf;
  if (internal::is_in_place(sendbuf) && me != root) {
    mine = internal::bytes(recvbuf) + static_cast<std::size_t>(me) * block;
  }
  gather_bsls(comm, mine, recvbuf, count, type, root, options);
  bcast_binomial(comm, recvbuf, procs * count, type, root, options);
  // Non-root ranks had their own block overwritten by the broadcast with the same bytes;
  // with a separate sendbuf it was never copied, so nothing else is needed.
}

}  // namespace ragged
