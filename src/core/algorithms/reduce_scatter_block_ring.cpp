// Reduce-scatter of equal blocks around a ring (MPI_Reduce_scatter_block).
//
// In step k = 0 .. P-2 rank r sends the partial of block r - k - 1 to r + 1 and receives the
// partial of block r - k - 2 from r - 1, into which it folds its own operand's block; after P - 1
// steps the partial it received last is block r, reduced over every rank. P = 4, partials as
// the ranks whose operands they hold:
//
//   step 0:  r sends b_(r-1) {r}           receives b_(r-2) {r-1}       -> {r-1, r}
//   step 1:  r sends b_(r-2) {r-1, r}      receives b_(r-3) {r-2, r-1}  -> {r-2, r-1, r}
//   step 2:  r sends b_(r-3) {r-2, r-1, r} receives b_r {r-3, r-2, r-1} -> every rank's: done
//
// Reference: the reduce-scatter half of the ring allreduce (P. Patarasuk, X. Yuan, "Bandwidth
//   optimal all-reduce algorithms for clusters of workstations", JPDC 69(2), 2009).
// Cost (α-β-γ, b bytes a block): (P - 1)(α + bβ + bγ); only neighbours talk, so ranks that share
//   a node send one block off it per step.
// Limitations: commutative operators only (a partial's operands are not in rank order); P - 1
//   latencies (long blocks).
// Memory: two blocks a rank.
#include <memory>
#include <utility>

#include "algorithms/list.hpp"
#include "internal/common.hpp"

namespace ragged {

void reduce_scatter_block_ring(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                               const ReduceOp& op) {
  Comm& comm = ctx.comm();
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const std::size_t b = ctx.bytes(count, type);
  const int tag = ctx.tag(0);
  const int right = (me + 1) % procs;
  const int left = (me - 1 + procs) % procs;
  const auto* in = static_cast<const std::byte*>(sendbuf);
  const auto block = [&](int j) { return in + static_cast<std::size_t>(((j % procs) + procs) % procs) * b; };
  auto buffers = std::make_unique_for_overwrite<std::byte[]>(2 * b);
  std::byte* incoming = buffers.get();
  std::byte* partial = buffers.get() + b;
  const std::byte* outgoing = block(me - 1);  // step 0 sends the own operand's block
  for (int k = 0; k + 1 < procs; ++k) {
    // The last step receives straight into recvbuf: the result.
    std::byte* to = k + 2 == procs ? static_cast<std::byte*>(recvbuf) : incoming;
    comm.sendrecv(right, tag, outgoing, b, left, tag, to, b, ctx.timeout());
    reduce_local(op, type, block(me - k - 2), to, count);  // to = mine ∘ partial (commutative)
    comm.runtime().charge(static_cast<double>(count));
    std::swap(incoming, partial);
    outgoing = partial;
  }
}

}  // namespace ragged
