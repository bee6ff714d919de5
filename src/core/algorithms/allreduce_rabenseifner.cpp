// allreduce "rabenseifner": reduce-scatter by recursive halving, then
// allgather by recursive doubling (Rabenseifner; MPICH's long-message
// allreduce; Proficz 2018's baseline), for any P.
//
//   Non-power-of-two P first folds to pof2 = 2^floor(log2 P) ranks: even
//   ranks below 2*rem (rem = P - pof2) give their vector to the odd rank
//   above them and wait for the result (see allreduce_recursive_doubling.cpp).
//   The vector is cut into pof2 nearly equal blocks b0..b(pof2-1).
//
//   pof2 = 4, virtual ranks v0..v3. What each holds after each step; (/k):
//   reduced over k of the ranks. A rank sends the half it does not keep and
//   reduces the partner's copy of the half it keeps.
//
//   step        pairs          v0          v1          v2          v3
//   RS mask 2   v0-v2 v1-v3    b0 b1 (/2)  b0 b1 (/2)  b2 b3 (/2)  b2 b3 (/2)
//   RS mask 1   v0-v1 v2-v3    b0 (/4)     b1 (/4)     b2 (/4)     b3 (/4)
//   AG mask 1   v0-v1 v2-v3    b0 b1       b0 b1       b2 b3       b2 b3
//   AG mask 2   v0-v2 v1-v3    b0..b3      b0..b3      b0..b3      b0..b3
//
// Reference: R. Rabenseifner, "Optimization of collective reduction operations", ICCS 2004 (LNCS 3036); R. Thakur, R.
//   Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH", IJHPCA 19(1), 2005.
// Limitation: commutative operators only (a non-commutative one runs reduce_bcast); P not a power of two folds the
//   extra ranks into partners with two whole-vector transfers (2 alpha + 2 n beta more).
// Memory: a scratch vector of n bytes on the ranks of the fold, n/2 bytes on the others.
//
// Cost (n = count*size bytes), pof2 = 2^floor(log2 P):
//   2 log2(pof2) alpha + 2 (pof2-1)/pof2 n beta + (pof2-1)/pof2 n gamma,
//   plus 2 (alpha + n beta) + n gamma when P is not a power of two (fold, unfold).
// Bandwidth-optimal with logarithmic latency for powers of two; the fold
// costs up to two whole-vector transfers otherwise. Commutative operators only.
// Each block is reduced on one rank and then copied, so all ranks get the same
// bits. Blocks of zero elements (count < pof2) are skipped by both partners.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/rabenseifner_plan.hpp"
#include "plans/recursive_doubling_plan.hpp"

namespace ragged {

void allreduce_rabenseifner(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type,
                            const ReduceOp& op) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int rank = comm.rank();
  const std::size_t esize = size_of(type);
  const std::size_t bytes = count * esize;

  // Dispatch copied sendbuf into recvbuf.
  std::byte* out = internal::bytes(recvbuf);

  namespace rd = plans::recursive;
  namespace rs = plans::rabenseifner;
  const int tag = ctx.tag(0);
  const int pof2 = rd::pof2(procs);

  // Fold the ranks beyond the largest power of two.
  const int fold = rd::fold_partner(rank, procs);
  const int v = rd::vrank(rank, procs);
  if (v < 0) {
    comm.send(fold, tag, out, bytes, ctx.timeout());
    comm.recv(fold, tag, out, bytes, ctx.timeout());
    return;
  }
  // Scratch for the fold's whole vector or, at most, the half kept in the first halving step.
  const std::size_t first_half = rs::elements(rs::kept(v, pof2 / 2), count, pof2).size;
  std::vector<std::byte> scratch((fold >= 0 ? count : first_half) * esize);
  if (fold >= 0) {
    comm.recv(fold, tag, scratch.data(), bytes, ctx.timeout());
    reduce_local(op, type, scratch.data(), out, count);  // lower rank on the left
    comm.runtime().charge(static_cast<double>(count));
  }

  // Exchanges `send` for `recv` with `peer`; either range may be empty.
  const auto exchange = [&](int peer, rs::ElementRange send, rs::ElementRange recv, std::byte* recv_to) {
    Request requests[2];
    if (recv.size != 0) requests[0] = comm.irecv(peer, tag, recv_to, recv.size * esize);
    if (send.size != 0) requests[1] = comm.isend(peer, tag, out + send.first * esize, send.size * esize);
    comm.wait_all(requests, ctx.timeout());
  };

  // Reduce-scatter by recursive halving: masks pof2/2, ..., 1.
  for (int mask = pof2 / 2; mask >= 1; mask /= 2) {
    const int peer = rd::partner(v, mask, procs);
    const rs::ElementRange send = rs::elements(rs::reduce_scatter_send(v, mask), count, pof2);
    const rs::ElementRange keep = rs::elements(rs::reduce_scatter_recv(v, mask), count, pof2);
    exchange(peer, send, keep, scratch.data());
    if (keep.size != 0) {
      reduce_local(op, type, scratch.data(), out + keep.first * esize, keep.size);
      comm.runtime().charge(static_cast<double>(keep.size));
    }
  }
  // Allgather by recursive doubling: masks 1, ..., pof2/2.
  for (int mask = 1; mask < pof2; mask *= 2) {
    const int peer = rd::partner(v, mask, procs);
    const rs::ElementRange send = rs::elements(rs::allgather_send(v, mask), count, pof2);
    const rs::ElementRange recv = rs::elements(rs::allgather_recv(v, mask), count, pof2);
    exchange(peer, send, recv, out + recv.first * esize);
  }

  if (fold >= 0) comm.send(fold, tag, out, bytes, ctx.timeout());
}

}  // namespace ragged
