// reduce_scatter "ring": the reduce-scatter half of the ring allreduce with each block its own
// size. In step k = 0 ... P-2 rank r sends the partial of block r-k-1 to r+1 and receives that of
// block r-k-2 from r-1, into which it folds its own operand's block; the last one it receives is
// block r, complete, straight into recvbuf.
//
//   P = 3, blocks a (2 elements), b (empty), c (3), p_j = a partial of block j:
//   step 0:  0 -> 1: c^0      1 -> 2: a^1         2 -> 0: b^2 (empty: no message)
//   step 1:  0 -> 1: p_b      1 -> 2: p_c ...     rank 0 receives p_a = a^1 ∘ a^2, folds a^0: done
//
// Reference: P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations", JPDC
//   69(2), 2009 (the ring's reduce-scatter phase).
// Limitation: commutative operators (otherwise reduce_scatterv runs); P-1 steps, each as long as its largest block.
// Memory: two buffers of the largest block.
//
// Cost (L = the largest block): at most (P-1)(alpha + L beta + L gamma).
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "internal/exchange.hpp"

namespace ragged {

void reduce_scatter_ring(Context& ctx, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                         DataType type, const ReduceOp& op) {
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const std::size_t es = size_of(type);
  const int right = (me + 1) % procs;
  const int left = (me - 1 + procs) % procs;
  const std::vector<int> offsets = internal::packed_offsets(recvcounts);
  const auto wrap = [&](int j) { return static_cast<std::size_t>(((j % procs) + procs) % procs); };
  const auto* in = static_cast<const std::byte*>(sendbuf);
  const auto own = [&](int j) { return in + static_cast<std::size_t>(offsets[wrap(j)]) * es; };
  const auto count = [&](int j) { return static_cast<std::size_t>(recvcounts[wrap(j)]); };
  const auto largest = static_cast<std::size_t>(*std::max_element(recvcounts.begin(), recvcounts.end()));
  auto buffers = std::make_unique_for_overwrite<std::byte[]>(2 * largest * es);
  std::byte* incoming = buffers.get();
  std::byte* partial = buffers.get() + largest * es;
  const std::byte* outgoing = own(me - 1);  // step 0 sends the own operand's block
  for (int k = 0; k + 1 < procs; ++k) {
    const int send_block = me - k - 1;
    const int recv_block = me - k - 2;
    // The last step receives straight into recvbuf: the result.
    std::byte* to = k + 2 == procs ? static_cast<std::byte*>(recvbuf) : incoming;
    internal::exchange_nonempty(ctx, right, outgoing, count(send_block) * es, left, to, count(recv_block) * es,
                                ctx.tag(0));
    if (count(recv_block) > 0) {
      reduce_local(op, type, own(recv_block), to, count(recv_block));  // to = mine ∘ partial (commutative)
      ctx.runtime().charge(static_cast<double>(count(recv_block)));
    }
    std::swap(incoming, partial);
    outgoing = partial;
  }
}

}  // namespace ragged
