// allreduce "prd": prereduced direct exchange (ragged's own, beyond Proficz 2018; docs/algorithms/prd.md).
//
// Proficz 2018 (§3) bounds what an allreduce can save when one process k is late by
// D: the others cannot finish before a_k + delta (delta = one transfer of the
// vector), the ring finishes about a_k + Delta. PRR saves part of Delta -
// delta; prd aims at the bound. While k still computes, the early processes
// reduce-scatter their own data among themselves (a ring over the P-1 of
// them, earliest first), so that early[j] holds block j summed over all but k.
// When k arrives, what remains is one transfer each way: k sends piece (r, j)
// of its vector to early[j], who adds it to its block's piece and sends the
// finished piece to every other process, k included. The exchange runs in m
// waves (rounds) so that the early processes forward wave r while k sends wave
// r + 1.
//
// Reference: ragged's own design, docs/algorithms/prd.md, after J. Proficz, "Improving all-reduce collective
//   operations for imbalanced process arrival patterns", The Journal of Supercomputing 74(7), 2018, §3.
// Limitation: commutative operators only (a non-commutative one runs reduce_bcast); made for one late process: without
//   a snapshot the highest rank is taken as the late one (correct, no faster), with balanced arrivals about 1.1 times
//   the ring; up to P-1 messages in flight per rank.
// Memory: max(largest block, 2 largest pieces) elements from the workspace.
//
//   P = 4, rank 0 late, m = 2; blocks b0 b1 b2 at ranks 1 2 3 (plans/prd_plan.hpp)
//
//              rank 1          rank 2          rank 3          rank 0 (late)
//   before     ring reduce-scatter of x1+x2+x3 (2 steps)       (computing)
//   wave 0                                                     0 -> 1,2,3: piece 0 of b0,b1,b2
//   wave 1     (0,b0)* -> all  (0,b1)* -> all  (0,b2)* -> all  0 -> 1,2,3: piece 1 of b0,b1,b2
//   wave 2     (1,b0)* -> all  (1,b1)* -> all  (1,b2)* -> all
//   ('*' = finished: own partial + k's piece; every piece is finished on one rank, so all ranks
//    get the same bits)
//
// After k's arrival every process receives n elements and sends at most n (k: n each way), in
// m + 1 waves of n/m: the others finish about (m + 1)(alpha + n beta / m) after a_k, against the
// bound's alpha + n beta. Cost (alpha-beta-gamma, n bytes, one late process, Q = P - 1):
//   before a_k:  (Q-1)(alpha + n beta / Q) + (Q-1)/Q n gamma  (the early reduce-scatter)
//   after a_k:   max(0, that - D) + (m+1)(alpha + n beta / m) + n gamma / Q
// With balanced arrivals it costs the reduce-scatter plus the exchange, about 1.1 times the ring
// at P = 48; `auto` runs it only for an imbalanced pattern (docs/selection.md). Commutative
// operators only. Without a snapshot the highest rank is taken as the late one: correct, but no
// faster. Messages: the ring's Q(Q-1) in the reduce-scatter, then m Q from k and m Q (Q) among
// the others.
#include <algorithm>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/prd_plan.hpp"
#include "plans/ring_plan.hpp"
#include "ragged/arrival.hpp"

namespace ragged {

namespace {

plans::prd::Plan plan_for(const ArrivalSnapshot* snapshot, int procs, std::size_t bytes) {
  if (snapshot == nullptr || snapshot->size() != procs) {
    const std::vector<double> flat(static_cast<std::size_t>(procs), 0.0);
    return plans::prd::make_plan(flat, bytes, 0, 0);
  }
  const LinkModel link = snapshot->link();
  return plans::prd::make_plan(snapshot->arrivals(), bytes, link.alpha, link.beta);
}

}  // namespace

void allreduce_prd(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type,
                   const ReduceOp& op) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t esize = size_of(type);
  const plans::prd::Plan plan = plan_for(ctx.arrival(), procs, count * esize);
  const int blocks = static_cast<int>(plan.early.size());
  const int rounds = plan.rounds;
  const auto piece = [&](int block, int round) { return plans::prd::piece(count, blocks, rounds, block, round); };

  // Dispatch copied sendbuf into recvbuf: it starts as this rank's own contribution.
  std::byte* out = internal::bytes(recvbuf);
  const auto at = [&](const plans::prd::Piece& p) { return out + p.offset * esize; };
  const int tag_rs = ctx.tag(0);
  const int tag_late = ctx.tag(1);
  const int tag_done = ctx.tag(2);
  const Timeout timeout = ctx.timeout();

  if (me == plan.late) {
    // Wave by wave: send piece r of every block to its owner, then expect the finished pieces.
    std::vector<Request> finished;
    finished.reserve(static_cast<std::size_t>(blocks * rounds));
    std::vector<Request> sends(static_cast<std::size_t>(blocks));
    for (int r = 0; r < rounds; ++r) {
      for (int j = 0; j < blocks; ++j) {
        const plans::prd::Piece p = piece(j, r);
        sends[static_cast<std::size_t>(j)] =
            p.count == 0 ? Request{}
                         : comm.isend(plan.early[static_cast<std::size_t>(j)], tag_late, at(p), p.count * esize);
      }
      comm.wait_all(sends, timeout);  // k's own piece r is on its way: its room can take the result
      for (int j = 0; j < blocks; ++j) {
        const plans::prd::Piece p = piece(j, r);
        if (p.count != 0)
          finished.push_back(comm.irecv(plan.early[static_cast<std::size_t>(j)], tag_done, at(p), p.count * esize));
      }
    }
    comm.wait_all(finished, timeout);
    return;
  }

  const int pos = plan.position(me);
  // 1. The early reduce-scatter: a ring over early[], block j ends at early[j].
  namespace ring = plans::ring;
  const auto block_ptr = [&](int j) { return out + ring::segment_offset(count, blocks, j) * esize; };
  const auto block_size = [&](int j) { return ring::segment_size(count, blocks, j); };
  const std::size_t largest_block = block_size(0);
  const std::size_t largest_piece = plans::prd::piece(largest_block, 1, rounds, 0, 0).count;
  std::byte* work = ctx.workspace().get(std::max(largest_block, 2 * largest_piece) * esize).data();
  const int right = plan.early[static_cast<std::size_t>(ring::right(pos, blocks))];
  const int left = plan.early[static_cast<std::size_t>(ring::left(pos, blocks))];
  for (int t = 0; t + 1 < blocks; ++t) {
    const int send_seg = ring::reduce_scatter_send_segment(pos, blocks, t);
    const int recv_seg = ring::reduce_scatter_recv_segment(pos, blocks, t);
    Request rs[2];
    if (block_size(recv_seg) != 0) rs[0] = comm.irecv(left, tag_rs, work, block_size(recv_seg) * esize);
    if (block_size(send_seg) != 0) rs[1] = comm.isend(right, tag_rs, block_ptr(send_seg), block_size(send_seg) * esize);
    comm.wait_all(rs, timeout);
    if (block_size(recv_seg) != 0) {
      reduce_local(op, type, work, block_ptr(recv_seg), block_size(recv_seg));
      comm.runtime().charge(static_cast<double>(block_size(recv_seg)));
    }
  }

  // 2. The direct exchange. The other blocks' rooms are free now: expect their finished pieces.
  std::vector<Request> pending;
  pending.reserve(static_cast<std::size_t>(2 * procs * rounds));
  for (int r = 0; r < rounds; ++r) {
    for (int j = 0; j < blocks; ++j) {
      const plans::prd::Piece p = piece(j, r);
      if (j != pos && p.count != 0)
        pending.push_back(comm.irecv(plan.early[static_cast<std::size_t>(j)], tag_done, at(p), p.count * esize));
    }
  }
  std::byte* incoming[2] = {work, work + largest_piece * esize};
  const auto expect_late = [&](int r) {
    const plans::prd::Piece p = piece(pos, r);
    return p.count == 0 ? Request{} : comm.irecv(plan.late, tag_late, incoming[r % 2], p.count * esize);
  };
  Request from_late = expect_late(0);
  for (int r = 0; r < rounds; ++r) {
    from_late.wait(timeout);
    if (r + 1 < rounds) from_late = expect_late(r + 1);
    const plans::prd::Piece p = piece(pos, r);
    if (p.count == 0) continue;
    reduce_local(op, type, incoming[r % 2], at(p), p.count);
    comm.runtime().charge(static_cast<double>(p.count));
    for (int dest = 0; dest < procs; ++dest) {
      if (dest != me) pending.push_back(comm.isend(dest, tag_done, at(p), p.count * esize));
    }
  }
  comm.wait_all(pending, timeout);
}

}  // namespace ragged
