// reduce_scatter "recursive_halving": log2 P' exchanges of halves of the vector at halving
// distance (P' the largest power of two <= P), each rank keeping the half it will own and
// folding in its partner's operand of it, with each block its own size.
//
//   Any P: the first 2 rem ranks fold in pairs (rem = P - P'), even rank 2i giving its whole vector
//   to 2i+1, which then stands for blocks 2i and 2i+1 (plans::recursive: vrank, first_rank). The
//   P' virtual ranks hold runs of blocks; step d = P'/2, ..., 1 splits the run of the current
//   window in two, exchanges with virtual rank v xor d, and keeps the half of v. At the end rank
//   2i+1 sends block 2i back to 2i.
//
//   P = 6 (P' = 4, rem = 2), blocks 0..5, v = virtual rank:
//   fold       0 -> 1 (v0 = blocks 0,1)   2 -> 3 (v1 = blocks 2,3)   4 = v2 (block 4)   5 = v3 (block 5)
//   d = 2      v0 <-> v2: v0 keeps blocks 0-3 of the window's halves [0-3 | 4,5], v2 keeps 4,5
//   d = 1      v0 <-> v1: v0 keeps 0,1; v1 keeps 2,3          v2 <-> v3: v2 keeps 4, v3 keeps 5
//   unfold     1 -> 0: block 0                   3 -> 2: block 2
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (recursive halving for commutative reduce-scatter, with the fold for P not a power of two);
//   Open MPI's basic_recursivehalving runs it on uneven counts too.
// Limitation: commutative operators (otherwise reduce_scatterv runs). With one large block, every step whose half
//   holds it moves it whole.
// Memory: two vectors (2 n bytes): the running partial and the incoming half.
//
// Cost (n = the vector, L = the largest block): a fold of alpha + n beta + n gamma when P is not a power of two,
// then the sum over steps k = 1 ... log2 P' of alpha + max(n / 2^k, L)(beta + gamma), and alpha + L beta to unfold;
// equal blocks, P a power of two: log2 P alpha + (P-1)/P n (beta + gamma).
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "internal/exchange.hpp"
#include "plans/recursive_doubling_plan.hpp"

namespace ragged {

void reduce_scatter_recursive_halving(Context& ctx, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                                      DataType type, const ReduceOp& op) {
  namespace rd = plans::recursive;
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const std::size_t es = size_of(type);
  const int tag = ctx.tag(0);
  const std::vector<int> offsets = internal::packed_offsets(recvcounts);
  const auto count = [&](int j) { return static_cast<std::size_t>(recvcounts[static_cast<std::size_t>(j)]); };
  const auto offset = [&](int j) { return static_cast<std::size_t>(offsets[static_cast<std::size_t>(j)]); };
  const std::size_t total = offset(procs - 1) + count(procs - 1);
  // Element where the run of virtual rank v starts (v = pof2: the end of the vector).
  const auto start = [&](int v) {
    const int first = rd::first_rank(v, procs);
    return first == procs ? total : offset(first);
  };
  const auto fold = [&](std::byte* into, const std::byte* from, std::size_t n) {
    if (n == 0) return;
    reduce_local(op, type, from, into, n);  // into = from ∘ into (commutative)
    ctx.runtime().charge(static_cast<double>(n));
  };
  std::vector<std::byte> work(static_cast<const std::byte*>(sendbuf),
                              static_cast<const std::byte*>(sendbuf) + total * es);
  std::vector<std::byte> incoming(total * es);
  const int partner = rd::fold_partner(me, procs);
  const int v = rd::vrank(me, procs);
  if (v < 0) {  // an even rank of a folded pair: hands its vector over and waits for its block
    internal::exchange_nonempty(ctx, partner, work.data(), total * es, partner, nullptr, 0, tag);
    internal::exchange_nonempty(ctx, partner, nullptr, 0, partner, static_cast<std::byte*>(recvbuf), count(me) * es,
                                tag);
    return;
  }
  if (partner >= 0) {  // the odd rank of a folded pair
    internal::exchange_nonempty(ctx, partner, nullptr, 0, partner, incoming.data(), total * es, tag);
    fold(work.data(), incoming.data(), total);
  }
  int lo = 0;
  int hi = rd::pof2(procs);
  for (int d = hi / 2; d >= 1; d /= 2) {
    const int mid = lo + d;
    const bool lower = v < mid;
    const std::size_t keep_from = start(lower ? lo : mid);
    const std::size_t keep_to = start(lower ? mid : hi);
    const std::size_t send_from = start(lower ? mid : lo);
    const std::size_t send_to = start(lower ? hi : mid);
    const int peer = rd::partner(v, d, procs);
    internal::exchange_nonempty(ctx, peer, work.data() + send_from * es, (send_to - send_from) * es, peer,
                                incoming.data() + keep_from * es, (keep_to - keep_from) * es, tag);
    fold(work.data() + keep_from * es, incoming.data() + keep_from * es, keep_to - keep_from);
    if (lower) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  if (partner >= 0) {
    internal::exchange_nonempty(ctx, partner, work.data() + offset(partner) * es, count(partner) * es, partner, nullptr,
                                0, tag);
  }
  internal::copy_bytes(recvbuf, work.data() + offset(me) * es, count(me) * es);
}

}  // namespace ragged
