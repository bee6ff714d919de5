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
#include <vector>

#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"

namespace ragged {

void alltoallv_linear(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                      void* recvbuf, std::span<const int> recvcounts, std::span<const int> rdispls, DataType type) {
  Comm& comm = ctx.comm();
  const int p = comm.size();
  const int me = comm.rank();
  const int tag = ctx.tag(0);
  const internal::AlltoallvSource source(sendbuf, sendcounts, sdispls, recvcounts, rdispls, type);
  std::byte* out = internal::bytes(recvbuf);
  // Dispatch checked that this rank's two counts for itself agree and copied its block.
  std::vector<Request> requests;
  for (int k = 1; k < p; ++k) {
    const int from = (me + k) % p;
    if (source.recv_bytes(from) != 0) {
      requests.push_back(comm.irecv(from, tag, out + source.recv_offset(from), source.recv_bytes(from)));
    }
  }
  for (int k = 1; k < p; ++k) {
    const int to = (me - k + p) % p;
    if (source.send_bytes(to) != 0) {
      requests.push_back(comm.isend(to, tag, source.block(to), source.send_bytes(to)));
    }
  }
  comm.wait_all(requests, ctx.timeout());
}

}  // namespace ragged
