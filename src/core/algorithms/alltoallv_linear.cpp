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
#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"

namespace ragged {

void alltoallv_linear(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                      void* recvbuf, std::span<const int> recvcounts, std::span<const int> rdispls, DataType type) {
  const internal::AlltoallvSource source(sendbuf, sendcounts, sdispls, recvcounts, rdispls, type);
  // Dispatch checked that this rank's two counts for itself agree and copied its block.
  internal::exchange_linear(ctx, source, recvbuf);
}

}  // namespace ragged
