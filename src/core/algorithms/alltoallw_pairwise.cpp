// alltoallw "pairwise": MPI_Alltoallw's blocks, each of its own size and datatype
// (displacements in bytes), exchanged pairwise: P-1 steps, in step k rank r sends
// to r+k and receives from r-k; a step with nothing to send or receive posts
// nothing in that direction.
//
//   step 1:  0 -> 1 -> 2 -> ... -> P-1 -> 0     (each rank also receives from r-1)
//   step 2:  0 -> 2, 1 -> 3, ...                (and from r-2)
//   ...
//   step P-1: r -> r-1                          (and from r+1)
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (the pairwise exchange; MPICH's alltoallw uses it too).
// Limitation: P-1 steps whatever the sizes, each as long as its larger block; derived datatypes
//   are the caller's to flatten (the PMPI library packs non-contiguous ones to bytes).
// Memory: none beyond the receive buffer (the byte sizes and offsets of the blocks: 4·P words).
//
// Cost (α-β): Σ_k (α + max(s(r,r+k), s(r-k,r))·β), s in bytes; between two clusters up to
// 2·n1·n2 backbone messages, one or two per step.
#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"

namespace ragged {

void alltoallw_pairwise(Context& ctx, const void* sendbuf, std::span<const int> sendcounts,
                        std::span<const int> sdispls, std::span<const DataType> sendtypes, void* recvbuf,
                        std::span<const int> recvcounts, std::span<const int> rdispls,
                        std::span<const DataType> recvtypes) {
  const auto source =
      internal::AlltoallvSource::of_types(sendbuf, sendcounts, sdispls, sendtypes, recvcounts, rdispls, recvtypes);
  // Dispatch checked that this rank's two sides for itself agree in bytes and copied its block.
  internal::exchange_pairwise(ctx, source, recvbuf);
}

}  // namespace ragged
