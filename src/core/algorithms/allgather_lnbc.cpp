// allgather "lnbc": linear gather to rank 0, then a binomial broadcast of the
// whole gathered vector from rank 0 (the LNBC reference of seed 000).
//
//   gather (linear)            broadcast (binomial, root 0), P = 8
//
//   1 ──┐                      round 1   0 ──────────────> 4
//   2 ──┤                      round 2   0 ──────> 2       4 ──────> 6
//   3 ──┼──> 0                 round 3   0 > 1   2 > 3   4 > 5   6 > 7
//   ... │
//   P-1 ┘                      a rank receives from its parent (its rank with
//                              the lowest set bit cleared), then sends to
//                              rank + d for d = lowbit(rank)/2, ..., 2, 1
//                              (root: d = 2^(ceil(log2 P)-1), ..., 1)
//
// Cost (n = P*count*size bytes gathered):
//   gather:    (P-1) alpha + (P-1)/P n beta   (every block crosses rank 0's link)
//   broadcast: ceil(log2 P) (alpha + n beta)
// The broadcast sends the whole vector in each round: LNBC is the slow
// reference; its appeal is that rank 0 holds everything after the first phase.
// The broadcast is written here rather than calling bcast_binomial, so that all
// of its traffic carries the allgather tag. Any P; P = 1 only copies.
#include <vector>

#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void allgather_lnbc(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                    const CollectiveOptions& options) {
  const int procs = comm.size();
  const int rank = comm.rank();
  const std::size_t block = count * size_of(type);
  const auto p = static_cast<std::size_t>(procs);
  if (!internal::is_in_place(sendbuf)) internal::check_buffer(sendbuf, block, "sendbuf");
  internal::check_buffer(recvbuf, p * block, "recvbuf");

  std::byte* out = internal::bytes(recvbuf);
  const auto at = [&](int b) { return out + static_cast<std::size_t>(b) * block; };
  if (!internal::is_in_place(sendbuf)) internal::copy_bytes(at(rank), sendbuf, block);
  if (procs == 1 || block == 0) return;

  constexpr int root = 0;
  const int tag = internal::tag_allgather;

  // Linear gather: rank 0 receives every block straight into place.
  if (rank == root) {
    std::vector<Request> requests;
    requests.reserve(p - 1);
    for (int j = 1; j < procs; ++j) requests.push_back(comm.irecv(j, tag, at(j), block));
    comm.wait_all(requests, options.timeout);
  } else {
    comm.send(root, tag, at(rank), block, options.timeout);
  }

  // Binomial broadcast of all P blocks from rank 0.
  const std::size_t all = p * block;
  int span = 1;  // children of `rank` are rank + d for d < span
  if (rank == root) {
    while (span < procs) span <<= 1;
  } else {
    span = rank & -rank;
    comm.recv(rank & (rank - 1), tag, out, all, options.timeout);
  }
  for (int d = span / 2; d >= 1; d /= 2) {
    if (rank + d < procs) comm.send(rank + d, tag, out, all, options.timeout);
  }
}

}  // namespace ragged
