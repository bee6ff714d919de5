// alltoall "pairwise": P-1 steps; in step k rank r sends its block for r+k and
// receives the block of r-k (one sendrecv), so each rank talks to one peer at a
// time.
//
//   step 1: r -> r+1, r <- r-1     step 2: r -> r+2, r <- r-2   ...   step P-1
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's pairwise exchange for long messages).
// Limitation: P-1 steps, latency linear in P; between two clusters the backbone latency is paid in almost every step.
// Memory: none beyond the receive buffer.
//
// Cost (α-β): (P-1)·(α + m·β). Across two clusters 2·n1·n2 messages cross the
// backbone, spread over the steps: the backbone latency is paid in almost every step.
#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"
#include "internal/common.hpp"

namespace ragged {

void alltoall_pairwise(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const auto [comm, p, me, tag, b, in, out] = internal::alltoall_view(ctx, sendbuf, recvbuf, count, type);
  // An init-capture: clang before 16 cannot capture a structured binding (the fuzz preset's clang 14).
  const auto at = [block = b](int rank) { return block * static_cast<std::size_t>(rank); };

  for (int k = 1; k < p; ++k) {
    const int to = (me + k) % p;
    const int from = (me - k + p) % p;
    comm.sendrecv(to, tag, in + at(to), b, from, tag, out + at(from), b, ctx.timeout());
  }
}

}  // namespace ragged
