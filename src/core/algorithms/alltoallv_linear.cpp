// alltoallv "linear": alltoall "linear" with per-pair block sizes: every
// receive and send posted at once (receives from r+1, r+2, ...; sends to r-1,
// r-2, ...), empty blocks skipped, then one wait.
//
// Cost (α-β): about α + (Σ_j s(r,j))·β per rank; across two clusters every
// non-empty block between them is its own backbone message (up to 2·n1·n2).
#include <vector>

#include "internal/alltoall_common.hpp"
#include "ragged/alltoall.hpp"

namespace ragged {

void alltoallv_linear(Comm& comm, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                      void* recvbuf, std::span<const int> recvcounts, std::span<const int> rdispls, DataType type,
                      const CollectiveOptions& options) {
  const int p = comm.size();
  const int me = comm.rank();
  const internal::AlltoallvSource source(comm, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, type);
  std::byte* out = internal::bytes(recvbuf);

  if (source.send_bytes(me) != source.recv_bytes(me)) {
    throw InvalidArgument("sendcounts", "rank " + std::to_string(me) + " sends itself " +
                                            std::to_string(source.send_bytes(me)) + " bytes but expects " +
                                            std::to_string(source.recv_bytes(me)));
  }
  internal::copy_bytes(out + source.recv_offset(me), source.block(me), source.recv_bytes(me));
  std::vector<Request> requests;
  for (int k = 1; k < p; ++k) {
    const int from = (me + k) % p;
    if (source.recv_bytes(from) != 0) {
      requests.push_back(
          comm.irecv(from, internal::tag_alltoallv, out + source.recv_offset(from), source.recv_bytes(from)));
    }
  }
  for (int k = 1; k < p; ++k) {
    const int to = (me - k + p) % p;
    if (source.send_bytes(to) != 0) {
      requests.push_back(comm.isend(to, internal::tag_alltoallv, source.block(to), source.send_bytes(to)));
    }
  }
  comm.wait_all(requests, options.timeout);
}

}  // namespace ragged
