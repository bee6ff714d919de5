// allreduce "reduce_bcast": a binomial reduce to rank 0 (reduce_binomial), then a
// binomial broadcast of the result from rank 0 (bcast_binomial). The one
// allreduce for any operator, commutative or not: rooted at rank 0, the reduce
// tree combines the operands in rank order, x0 ∘ x1 ∘ ... ∘ x(P-1), as MPI
// requires; dispatch falls back to it when an allreduce that needs a
// commutative operator gets another one.
//
//   P = 8, x_i the vector of rank i, ∘ the operator
//
//   reduce (binomial, root 0)                 broadcast (binomial, root 0)
//   round 0:  1 -> 0  3 -> 2  5 -> 4  7 -> 6   round 0:  0 -> 4
//   round 1:  2 -> 0  6 -> 4                   round 1:  0 -> 2            4 -> 6
//   round 2:  4 -> 0                           round 2:  0 -> 1  2 -> 3  4 -> 5  6 -> 7
//   0 holds ((x0∘x1)∘(x2∘x3))∘((x4∘x5)∘(x6∘x7))   then every rank holds rank 0's bits
//
// Each parent folds a child's partial result in on the right, and a child's
// relative ranks lie to the right of its parent's own range, so the brackets
// never reorder the operands (reduce_binomial.cpp).
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's binomial reduce and broadcast).
// Limitation: twice recursive doubling's communication, and rank 0 works in every step of both trees: the fallback
//   for non-commutative operators, not a fast allreduce.
//
// Cost (n bytes of the vector, L = ceil(log2 P), gamma per byte reduced):
//   reduce: rank 0 receives L messages, one after the other, and reduces each
//     on arrival. Its child 2^k finishes its own subtree (depth k) just as rank 0
//     finishes its k-th combination, so every step of rank 0 waits for one
//     transfer and one reduction: L (alpha + n beta + n gamma);
//   broadcast: L rounds along the deepest path (0 -> 2^(L-1) -> ... ): L (alpha + n beta)
//     when a rank's transfers do not slow each other down (bcast_binomial posts
//     a rank's sends at once: where they share its link, the deepest path pays up
//     to L alpha + L(L+1)/2 n beta);
//   total: L (2 alpha + 2 n beta + n gamma), twice recursive doubling's
//   communication for a power of two P, in exchange for the rank order.
// Memory: reduce_binomial's (n at rank 0, 2n at inner ranks, none at leaves).
//
// Tags: the reduce runs on the first half of the call's block, the broadcast on the second.
// Dispatch copied sendbuf into recvbuf (sendbuf == recvbuf here); reduce_binomial
// is correct with them aliased, and only rank 0 writes recvbuf before the broadcast.
#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"

namespace ragged {

void allreduce_reduce_bcast(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                            const ReduceOp& op) {
  constexpr int root = 0;
  Context reduce_ctx = ctx.half(0);
  (void)internal::run_listed<Collective::reduce>(reduce_ctx, "binomial", sendbuf, recvbuf, count, type, op, root);
  Context bcast_ctx = ctx.half(1);
  (void)internal::run_listed<Collective::bcast>(bcast_ctx, "binomial", recvbuf, count, type, root);
}

}  // namespace ragged
