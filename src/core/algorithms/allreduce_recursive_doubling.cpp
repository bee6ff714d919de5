// allreduce "recursive_doubling": whole vectors exchanged with partners at
// distance 1, 2, 4, ... among a power of two of ranks, for any P.
//
//   P = 6: pof2 = 4, rem = 2. Fold: even ranks below 2*rem hand their vector
//   to the odd rank above them and sit out; the other pof2 ranks take
//   virtual ranks 0..3 and exchange and reduce whole vectors with
//   vrank xor 1, then vrank xor 2; finally the folded ranks get the result.
//
//   rank       0      1      2      3      4      5
//   fold       0 ---> 1      2 ---> 3
//   vrank      -      0      -      1      2      3
//   mask 1            1 <--------> 3      4 <--> 5
//   mask 2            1 <---------------> 4
//                                   3 <--------> 5
//   unfold     0 <--- 1      2 <--- 3
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's short-message allreduce).
// Limitation: commutative operators only (a non-commutative one runs reduce_bcast); the whole vector in every step
//   (for short vectors); P not a power of two folds with two more whole-vector transfers.
// Memory: one scratch vector of n bytes.
//
// Cost (n = count*size bytes), pof2 = 2^floor(log2 P):
//   log2(pof2) (alpha + n beta + n gamma),
//   plus 2 (alpha + n beta) + n gamma when P is not a power of two (fold, unfold).
// Few steps but the whole vector in each: for short vectors. Commutative
// operators only. Both partners of a step compute (lower half) op (upper
// half) in the same order, so every rank gets the same bits.
#include <utility>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/recursive_doubling_plan.hpp"

namespace ragged {

void allreduce_recursive_doubling(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count,
                                  DataType type, const ReduceOp& op) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int rank = comm.rank();
  const std::size_t bytes = count * size_of(type);

  // Dispatch copied sendbuf into recvbuf.
  std::byte* out = internal::bytes(recvbuf);

  namespace rd = plans::recursive;
  const int tag = ctx.tag(0);
  const double elements = static_cast<double>(count);
  std::vector<std::byte> scratch(bytes);

  // Fold the ranks beyond the largest power of two.
  const int fold = rd::fold_partner(rank, procs);
  const int v = rd::vrank(rank, procs);
  if (v < 0) {
    comm.send(fold, tag, out, bytes, ctx.timeout());
    comm.recv(fold, tag, out, bytes, ctx.timeout());
    return;
  }
  if (fold >= 0) {
    comm.recv(fold, tag, scratch.data(), bytes, ctx.timeout());
    reduce_local(op, type, scratch.data(), out, count);  // lower rank on the left
    comm.runtime().charge(elements);
  }

  // Recursive doubling among the pof2 virtual ranks. `acc` holds this rank's partial result; it
  // alternates between recvbuf and scratch so that the reduction order can follow the ranks.
  std::byte* acc = out;
  std::byte* other = scratch.data();
  for (int mask = 1; mask < rd::pof2(procs); mask <<= 1) {
    const int peer = rd::partner(v, mask, procs);
    comm.sendrecv(peer, tag, acc, bytes, peer, tag, other, bytes, ctx.timeout());
    if ((v & mask) != 0) {
      reduce_local(op, type, other, acc, count);  // acc = partner's op mine
    } else {
      reduce_local(op, type, acc, other, count);  // other = mine op partner's
      std::swap(acc, other);
    }
    comm.runtime().charge(elements);
  }
  if (acc != out) internal::copy_bytes(out, acc, bytes);

  if (fold >= 0) comm.send(fold, tag, out, bytes, ctx.timeout());
}

}  // namespace ragged
