// alltoallv "pairwise": alltoall "pairwise" with per-pair block sizes: P-1
// steps, in step k rank r sends to r+k and receives from r-k; a step with
// nothing to send or receive posts nothing in that direction.
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (the pairwise exchange).
// Limitation: P-1 steps whatever the sizes, each as long as its larger block.
// Memory: none beyond the receive buffer.
//
// Cost (α-β): Σ_k (α + max(s(r,r+k), s(r-k,r))·β); between two clusters up to
// 2·n1·n2 backbone messages, one or two per step.
#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"

namespace ragged {

void alltoallv_pairwise(Context& ctx, const void* sendbuf, std::span<const int> sendcounts,
                        std::span<const int> sdispls, void* recvbuf, std::span<const int> recvcounts,
                        std::span<const int> rdispls, DataType type) {
  const internal::AlltoallvSource source(sendbuf, sendcounts, sdispls, recvcounts, rdispls, type);
  // Dispatch checked that this rank's two counts for itself agree and copied its block.
  internal::exchange_pairwise(ctx, source, recvbuf);
}

}  // namespace ragged
