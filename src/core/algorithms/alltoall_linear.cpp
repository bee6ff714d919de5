// alltoall "linear": every rank posts all its receives and sends at once and
// waits for them, in the scattered order of Open MPI's basic linear algorithm
// (receives from r+1, r+2, ...; sends to r-1, r-2, ...), so that not every
// rank starts with the same peer.
//
//   rank r:  irecv r+1, r+2, ..., r-1     isend r-1, r-2, ..., r+1     wait all
//
// Reference: Open MPI's basic linear alltoall (coll basic), the baseline of E. Jeannot, L. A. Steffenel, "Fast and
//   Efficient Total Exchange on Two Clusters", Euro-Par 2007 (LNCS 4641).
// Limitation: all P-1 sends and receives in flight at once: they contend at the ports, and between two clusters 2 n1
//   n2 messages cross the backbone together.
// Memory: none beyond the receive buffer.
//
// Cost (α-β, one port): the P-1 messages of m bytes leave one after another:
// about α + (P-1)·m·β per rank; across two clusters 2·n1·n2 messages cross the
// backbone, all at once.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"
#include "internal/common.hpp"

namespace ragged {

void alltoall_linear(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const auto [comm, p, me, tag, b, in, out] = internal::alltoall_view(ctx, sendbuf, recvbuf, count, type);
  // An init-capture: clang before 16 cannot capture a structured binding (the fuzz preset's clang 14).
  const auto at = [block = b](int rank) { return block * static_cast<std::size_t>(rank); };

  std::vector<Request> requests;
  requests.reserve(2 * static_cast<std::size_t>(p - 1));
  for (int k = 1; k < p; ++k) {
    const int from = (me + k) % p;
    requests.push_back(comm.irecv(from, tag, out + at(from), b));
  }
  for (int k = 1; k < p; ++k) {
    const int to = (me - k + p) % p;
    requests.push_back(comm.isend(to, tag, in + at(to), b));
  }
  comm.wait_all(requests, ctx.timeout());
}

}  // namespace ragged
