// alltoallv "linear": alltoall "linear" with per-pair block sizes: every
// receive and send posted at once (receives from r+1, r+2, ...; sends to r-1,
// r-2, ...), empty blocks skipped, then one wait.
//
// Reference: Open MPI's basic linear alltoallv (coll basic).
// Limitation: all sends and receives in flight at once: they contend at the ports; between two clusters every
//   non-empty crossing block is its own backbone message.
// Memory: none beyond the receive buffer.
//
// Cost (α-β): about α + (Σ_j s(r,j))·β per rank; across two clusters every
// non-empty block between them is its own backbone message (up to 2·n1·n2).
#include <utility>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"

namespace ragged {

void alltoallv_linear(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                      void* recvbuf, std::span<const int> recvcounts, std::span<const int> rdispls, DataType type) {
  const internal::AlltoallvSource source(sendbuf, sendcounts, sdispls, recvcounts, rdispls, type);
  const int p = ctx.procs();
  // Dispatch checked that this rank's two counts for itself agree and copied its block.
  std::vector<Request> requests;
  for (int k = 1; k < p; ++k) {
    Request r = source.post_recv(ctx.comm(), (ctx.rank() + k) % p, ctx.tag(), internal::bytes(recvbuf));
    if (r.active()) requests.push_back(std::move(r));
  }
  for (int k = 1; k < p; ++k) {
    Request r = source.post_send(ctx.comm(), (ctx.rank() - k + p) % p, ctx.tag());
    if (r.active()) requests.push_back(std::move(r));
  }
  ctx.comm().wait_all(requests, ctx.timeout());
}

}  // namespace ragged
