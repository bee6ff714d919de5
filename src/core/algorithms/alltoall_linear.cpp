// alltoall "linear": every rank posts all its receives and sends at once and
// waits for them, in the scattered order of Open MPI's basic linear algorithm
// (receives from r+1, r+2, ...; sends to r-1, r-2, ...), so that not every
// rank starts with the same peer.
//
//   rank r:  irecv r+1, r+2, ..., r-1     isend r-1, r-2, ..., r+1     wait all
//
// Cost (α-β, one port): the P-1 messages of m bytes leave one after another:
// about α + (P-1)·m·β per rank; across two clusters 2·n1·n2 messages cross the
// backbone, all at once.
#include <vector>

#include "internal/alltoall_common.hpp"
#include "ragged/alltoall.hpp"

namespace ragged {

void alltoall_linear(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                     const CollectiveOptions& options) {
  const int p = comm.size();
  const int me = comm.rank();
  const std::size_t b = count * size_of(type);
  const internal::AlltoallSource source(sendbuf, recvbuf, b * static_cast<std::size_t>(p));
  std::byte* out = internal::bytes(recvbuf);
  const auto at = [b](int rank) { return b * static_cast<std::size_t>(rank); };

  internal::copy_bytes(out + at(me), source.data() + at(me), b);
  if (b == 0 || p == 1) return;
  std::vector<Request> requests;
  requests.reserve(2 * static_cast<std::size_t>(p - 1));
  for (int k = 1; k < p; ++k) {
    const int from = (me + k) % p;
    requests.push_back(comm.irecv(from, internal::tag_alltoall, out + at(from), b));
  }
  for (int k = 1; k < p; ++k) {
    const int to = (me - k + p) % p;
    requests.push_back(comm.isend(to, internal::tag_alltoall, source.data() + at(to), b));
  }
  comm.wait_all(requests, options.timeout);
}

}  // namespace ragged
