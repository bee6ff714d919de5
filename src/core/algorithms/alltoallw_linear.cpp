// alltoallw "linear": MPI_Alltoallw's blocks, each of its own size and datatype
// (displacements in bytes), all in flight at once: every non-empty receive (from
// r+1, r+2, ...) and send (to r-1, r-2, ...) posted, then one wait.
//
//   rank r:  irecv(r+1) irecv(r+2) ... irecv(r-1)
//            isend(r-1) isend(r-2) ... isend(r+1)     wait all
//
// Reference: Open MPI's basic linear alltoallw (coll basic) and MPICH's "scattered" one.
// Limitation: all sends and receives in flight at once: they contend at the ports; between two clusters every
//   non-empty crossing block is its own backbone message.
// Memory: the requests (up to 2(P-1)) and the blocks' byte sizes and offsets (4·P words).
//
// Cost (α-β): about α + (Σ_j s(r,j))·β per rank, s in bytes; across two clusters every
// non-empty block between them is its own backbone message (up to 2·n1·n2).
#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"

namespace ragged {

void alltoallw_linear(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                      std::span<const DataType> sendtypes, void* recvbuf, std::span<const int> recvcounts,
                      std::span<const int> rdispls, std::span<const DataType> recvtypes) {
  const auto source =
      internal::AlltoallvSource::of_types(sendbuf, sendcounts, sdispls, sendtypes, recvcounts, rdispls, recvtypes);
  // Dispatch checked that this rank's two sides for itself agree in bytes and copied its block.
  internal::exchange_linear(ctx, source, recvbuf);
}

}  // namespace ragged
