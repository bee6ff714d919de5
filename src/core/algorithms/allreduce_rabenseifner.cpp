// allreduce "rabenseifner": reduce-scatter by recursive halving, then
// allgather by recursive doubling (Rabenseifner; MPICH's long-message
// allreduce; Proficz 2018's baseline), for any P by Rabenseifner's "binary
// blocks" (Rabenseifner 2004), not by folding the extra ranks away.
//
//   P is cut by its binary digits into blocks of 2^k consecutive ranks, the
//   largest first (P = 13: ranks 0..7, 8..11, 12). The vector is cut into
//   F = pof2(P) fine blocks; in a block of s ranks a chunk is F/s of them
//   (plans/rabenseifner_plan.hpp).
//   1. Every block reduce-scatters by recursive halving, at the same time: rank
//      v of a block of s ranks ends with chunk v (n/s bytes) reduced over its
//      block.
//   2. From the smallest block up, each block sends its chunks to the next
//      larger block, every rank the q = s'/s pieces that are the chunks of q
//      ranks there, which reduce them into theirs (the receive is posted before
//      step 1, so it overlaps the larger block's reduce-scatter). Block 0 then
//      holds chunk v reduced over all P ranks.
//   3. From block 0 down, each block sends the results to the next smaller
//      block (the same pieces, back), then allgathers by recursive doubling
//      while they travel.
//
//   P = 6 = 4 + 2: block 0 = ranks 0..3, block 1 = ranks 4, 5; fine blocks b0..b3;
//   what each rank holds after each step, (/k): reduced over k ranks
//   step                      r0       r1       r2       r3       r4             r5
//   1 RS mask 2 (block 1: 1)  b0b1/2   b0b1/2   b2b3/2   b2b3/2   b0b1/2         b2b3/2
//   1 RS mask 1               b0/4     b1/4     b2/4     b3/4     b0b1/2         b2b3/2
//   2 up: r4 -> r0 r1,        b0/6     b1/6     b2/6     b3/6     (sent b0 to r0, b1 to r1;
//         r5 -> r2 r3                                             r5 b2, b3 to r2, r3)
//   3 down: r0 r1 -> r4,      b0       b1       b2       b3       b0b1           b2b3
//           r2 r3 -> r5
//   3 AG mask 1, 2 (1)        b0..b3   b0..b3   b0..b3   b0..b3   b0..b3         b0..b3
//
// Reference: R. Rabenseifner, "Optimization of collective reduction operations", ICCS 2004 (LNCS 3036): the
//   reduce-scatter/allgather allreduce and its "binary blocks" variant for non-power-of-two P (Rabenseifner 2004);
//   R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH", IJHPCA
//   19(1), 2005. The message schedule (chunk alignment, posting order) is ragged's:
//   docs/algorithms/allreduce-rabenseifner.md.
// Limitation: commutative operators only (a non-commutative one runs reduce_bcast). The chunks climb and descend
//   the chain of blocks one block at a time, so P with many one bits (2^k - 1: 7, 15, 31, 63) pays up to about
//   2 n beta more than the ring (Rabenseifner & Traff 2004's 3-2 elimination keeps the whole under 3 n beta; not
//   implemented); P with two one bits (48, 24, 40, 2^k + 1) stays within 2 n/P beta of the ring's bandwidth.
// Memory: from the workspace, the largest half-window a reduce-scatter step receives (at most n/2 bytes) plus,
//   where a smaller block sends to the rank, its chunk (n/s bytes).
//
// Cost (n = count*size bytes), blocks s_1 < s_2 < ... < s_k (the one bits of P),
//   RS(s) = log2(s) alpha + (1 - 1/s) n beta:
//   R_1 = RS(s_1) + (1 - 1/s_1) n gamma,
//   R_j = max(RS(s_j) + (1 - 1/s_j) n gamma, R_(j-1) + alpha + n/s_(j-1) beta) + n/s_j gamma,
//   A_k = R_k, A_j = A_(j+1) + alpha + n/s_j beta (block j has its results),
//   total = max_j (A_j + RS(s_j)).
//   P a power of two (one block): 2 log2 P alpha + 2 (P-1)/P n beta + (P-1)/P n gamma, bandwidth-optimal
//   with logarithmic latency. Two blocks (s_1 < s_2: P = 48, 24, 40, 2^k + 1): about 2 (log2 s_2 + 1) alpha +
//   2 n beta + n gamma, within 2 n/P beta of the ring's bandwidth; every block between the smallest and the
//   largest adds alpha + n/s_j beta in each direction. Each chunk is reduced on one rank of block 0 and then
//   copied, so all ranks get the same bits. Pieces of zero elements (count < pof2(P)) are skipped by both
//   partners, who agree on their size.
#include <cstddef>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/rabenseifner_plan.hpp"

namespace ragged {

void allreduce_rabenseifner(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type,
                            const ReduceOp& op) {
  namespace rs = plans::rabenseifner;
  Comm& comm = ctx.comm();
  const int procs = ctx.procs();
  const std::size_t esize = size_of(type);
  const int fine = rs::fine_blocks(procs);
  const rs::Block me = rs::block_of(ctx.rank(), procs);
  const int v = ctx.rank() - me.first;
  // Dispatch copied sendbuf into recvbuf.
  std::byte* out = internal::bytes(recvbuf);
  const auto elements = [&](rs::BlockRange blocks) { return rs::elements(blocks, count, fine); };
  const auto at = [&](rs::ElementRange range) { return out + range.first * esize; };
  // A range of this block's units (recursive halving and doubling among its me.size ranks).
  const auto own = [&](rs::BlockRange units) { return elements(rs::in_fine(units, me.size, fine)); };
  const rs::ElementRange mine = elements(rs::chunk(v, me.size, fine));

  // Workspace: [the largest half-window the reduce-scatter receives | the smaller block's piece].
  const std::size_t half = me.size > 1 ? own(rs::kept(v, me.size / 2)).size : 0;
  const int lower = rs::smaller_peer(procs, me, v);
  const std::size_t from_lower = lower >= 0 ? mine.size : 0;
  std::byte* scratch = ctx.workspace().get((half + from_lower) * esize).data();
  std::byte* lower_piece = scratch + half * esize;

  // The smaller block's partial sum of this rank's chunk: posted first, so it arrives while the
  // block reduce-scatters (on sim a transfer starts only once both sides are posted).
  Request lower_recv;
  if (from_lower != 0) lower_recv = comm.irecv(lower, ctx.tag(1), lower_piece, from_lower * esize);

  // Exchanges `send` for `recv` with `peer` inside the block; either range may be empty.
  const auto exchange = [&](int peer, rs::ElementRange send, rs::ElementRange recv, std::byte* recv_to) {
    Request requests[2];
    if (recv.size != 0) requests[0] = comm.irecv(peer, ctx.tag(), recv_to, recv.size * esize);
    if (send.size != 0) requests[1] = comm.isend(peer, ctx.tag(), at(send), send.size * esize);
    comm.wait_all(requests, ctx.timeout());
  };

  // 1. Reduce-scatter by recursive halving inside the block: masks size/2, ..., 1.
  for (int mask = me.size / 2; mask >= 1; mask /= 2) {
    const rs::ElementRange keep = own(rs::reduce_scatter_recv(v, mask));
    exchange(me.first + (v ^ mask), own(rs::reduce_scatter_send(v, mask)), keep, scratch);
    if (keep.size != 0) {
      reduce_local(op, type, scratch, at(keep), keep.size);
      comm.runtime().charge(static_cast<double>(keep.size));
    }
  }

  // 2. The smaller blocks' partial sums, then this rank's chunk up to the next larger block.
  if (from_lower != 0) {
    lower_recv.wait(ctx.timeout());
    reduce_local(op, type, lower_piece, at(mine), mine.size);
    comm.runtime().charge(static_cast<double>(mine.size));
  }
  const rs::Peers upper = rs::larger_peers(procs, me, v);
  if (upper.count != 0) {
    const rs::Block larger = rs::block(procs, me.index - 1);
    const auto piece = [&](int w) { return elements(rs::chunk(w - larger.first, larger.size, fine)); };
    {
      std::vector<Request> sends;
      for (int w = upper.first; w < upper.first + upper.count; ++w) {
        if (const rs::ElementRange p = piece(w); p.size != 0) {
          sends.push_back(comm.isend(w, ctx.tag(1), at(p), p.size * esize));
        }
      }
      comm.wait_all(sends, ctx.timeout());
    }
    // 3. The results of this chunk back from the same ranks.
    std::vector<Request> recvs;
    for (int w = upper.first; w < upper.first + upper.count; ++w) {
      if (const rs::ElementRange p = piece(w); p.size != 0) {
        recvs.push_back(comm.irecv(w, ctx.tag(1), at(p), p.size * esize));
      }
    }
    comm.wait_all(recvs, ctx.timeout());
  }

  // 3. The chunk's result down to the smaller block while the block allgathers (both only read it).
  Request lower_send;
  if (from_lower != 0) lower_send = comm.isend(lower, ctx.tag(1), at(mine), mine.size * esize);
  for (int mask = 1; mask < me.size; mask *= 2) {
    const rs::ElementRange recv = own(rs::allgather_recv(v, mask));
    exchange(me.first + (v ^ mask), own(rs::allgather_send(v, mask)), recv, at(recv));
  }
  lower_send.wait(ctx.timeout());
}

}  // namespace ragged
