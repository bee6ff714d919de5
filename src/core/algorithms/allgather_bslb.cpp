// allgather "bslb": Background Sorted Linear synchronized tree with Broadcast
// (listing 3 of seed 000): BSLS gather to rank 0, then a broadcast of the
// gathered vector from rank 0.
//
//   gather (BSLS, arrival order)        broadcast from rank 0 (the selected bcast;
//   a ──┐                               for a large vector the pipelined chain)
//   b ──┼──> 0 (its agent receives      0 ─a─> 1 ─a─> 2 ─a─> ... ─a─> P-1
//   c ──┘       while 0 computes)         ─b─>   ─b─>   ─b─> ...
//
// The ranks that arrive early hand their block over early, and the root's agent
// collects them while the root still computes; everybody then waits for the
// broadcast, which starts when the last block (and rank 0) are in.
//
// The broadcast is LNBC's: "a regular broadcast algorithm provided by the used MPI
// implementation" (seed 000), here the bcast that dispatch selects for the gathered vector
// (internal::dispatch_bcast, src/core/dispatch/compose.hpp; an arrival snapshot plays no part
// in that choice). BSLB and LNBC thus differ only in the gather, as seed 000 compares them.
// The gather runs on tags 0..31 of the call's block (BSLS itself uses the arrival runtime's
// tags), the broadcast on tags 32..63.
//
// On a balanced pattern (the snapshot's omega below tau, seed 000 §2) there is nothing to absorb
// and BSLB runs NEX instead (the ring for odd P; the agent skips the root's background too).
//
// Cost (alpha-beta, n bytes per block, N = P n, balanced arrivals): the
// gather's (P-1)(3 alpha + n beta), then the broadcast of N bytes, the least of the bcast
// models (for a large N the chain's, about N beta + (P-2) s beta + S alpha). After the last
// arrival: the last block (alpha + n beta), then the broadcast. docs/algorithms/bslb.md.
#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "ragged/arrival.hpp"

namespace ragged {

void allgather_bslb(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const int procs = ctx.size();
  const std::size_t block = count * size_of(type);
  const auto p = static_cast<std::size_t>(procs);
  constexpr int root = 0;
  // A balanced pattern leaves nothing to absorb: the gather and broadcast would only cost more
  // than an allgather algorithm; run NEX (the agent ran no background either; monitor.cpp).
  if (const ArrivalSnapshot* snapshot = ctx.arrival();
      snapshot != nullptr && snapshot->size() == procs && snapshot->balanced(block)) {
    allgather_nex(ctx, sendbuf, recvbuf, count, type);
    return;
  }
  // Dispatch copied every rank's own block into recvbuf, so the root's block is in place for
  // the gather; the others send theirs from sendbuf.
  Context gather_ctx = ctx.sub(0, 32);
  gather_bsls(gather_ctx, sendbuf, recvbuf, count, type, root);

  // Broadcast of the P blocks from rank 0.
  (void)internal::dispatch_bcast(ctx.sub(32, 32), recvbuf, p * count, type, root);
}

}  // namespace ragged
