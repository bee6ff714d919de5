// allgatherv "pipelined_ring": the ring with every block cut into pieces of at most s bytes, each
// forwarded as soon as it is in, so a large block streams around the ring instead of crossing it
// link by link. Every iteration every rank sends one piece to r+1 and receives one from r-1: its
// own block's pieces first, then the pieces it received, in the order it received them
// (plans/allgatherv_plan.hpp has the schedule and its proof of causality).
//
//   P = 4, one large block on rank 0 in pieces a0..a3, the others empty (one empty piece each):
//   iteration   0    1    2    3    4    5
//   rank 0      a0   a1   a2   a3   -    -       sends
//   rank 1      -    a0   a1   a2   a3   -       (its empty piece, then forwards)
//   rank 2      -    -    a0   a1   a2   a3
//   The ring takes 3 (alpha + 4 s beta) for the same block; this takes 6 (alpha + s beta).
//
// Reference: J. L. Träff, A. Ripke, C. Siebert, P. Balaji, R. Thakur, W. Gropp, "A pipelined algorithm for large,
//   irregular all-gather problems", IJHPCA 24(1), 2010: all-gather as simultaneous pipelined broadcasts along a
//   ring, so the time no longer depends on how the bytes are spread over the blocks. ragged's schedule is its own
//   (docs/algorithms/allgatherv.md): the paper's text was not at hand, only its abstract and MPICH's pipelined
//   ring, which follows it.
// Limitation: about P + n/s iterations of one piece each: more latency than the ring for equal blocks; one piece
//   in flight per link.
// Memory: none beyond the receive buffer.
//
// Cost (n = all blocks, L = the largest, s = segment_elements()): about (P - 1 + n/s)(alpha + min(s, L) beta).
#include "algorithms/list.hpp"
#include "internal/exchange.hpp"
#include "plans/allgatherv_plan.hpp"

namespace ragged {

void allgatherv_pipelined_ring(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::span<const int> recvcounts,
                               std::span<const int> displs, DataType type) {
  namespace plan = plans::allgatherv;
  const std::size_t es = size_of(type);
  auto* out = static_cast<std::byte*>(recvbuf);
  const int procs = ctx.procs();
  const int rank = ctx.rank();
  std::size_t total = 0;
  for (int c : recvcounts) total += static_cast<std::size_t>(c);
  const std::size_t per = plan::segment_elements(total * es, es, procs);
  const auto count_of = [&](int block) {
    return static_cast<std::size_t>(recvcounts[static_cast<std::size_t>(block)]);
  };
  // Piece `piece` of `block`: where it is and how many bytes.
  const auto piece_at = [&](int block, std::size_t piece) {
    return out + (static_cast<std::size_t>(displs[static_cast<std::size_t>(block)]) + piece * per) * es;
  };
  const auto piece_bytes = [&](int block, std::size_t piece) {
    const std::size_t first = piece * per;
    return count_of(block) > first ? std::min(per, count_of(block) - first) * es : 0;
  };
  const std::size_t n = plan::iterations(recvcounts, per, rank);
  plan::Cursor send;
  plan::Cursor recv;
  for (std::size_t i = 0; i < n; ++i) {
    const bool sends = send.step < procs - 1;
    const bool receives = recv.step < procs - 1;
    const int send_block = plan::block_at(rank, procs, 0, send.step);
    const int recv_block = plan::block_at(rank, procs, 1, recv.step);
    internal::exchange_nonempty(ctx, plans::ring::right(rank, procs), piece_at(send_block, send.piece),
                                sends ? piece_bytes(send_block, send.piece) : 0, plans::ring::left(rank, procs),
                                piece_at(recv_block, recv.piece), receives ? piece_bytes(recv_block, recv.piece) : 0,
                                ctx.tag());
    if (sends) plan::advance(send, plan::pieces(count_of(send_block), per));
    if (receives) plan::advance(recv, plan::pieces(count_of(recv_block), per));
  }
}

}  // namespace ragged
