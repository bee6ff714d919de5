// allgather "bslb": Background Sorted Linear synchronized tree with Broadcast
// (listing 3 of seed 000): BSLS gather to rank 0, then a binomial broadcast of
// the gathered vector from rank 0.
//
//   gather (BSLS, arrival order)        broadcast (binomial, P = 8)
//   a ──┐                               0 ──────────> 4
//   b ──┼──> 0 (its agent receives      0 ────> 2     4 ────> 6
//   c ──┘       while 0 computes)       0 > 1  2 > 3  4 > 5  6 > 7
//
// The ranks that arrive early hand their block over early, and the root's agent
// collects them while the root still computes; everybody then waits for the
// broadcast, which starts when the last block (and rank 0) are in.
//
// The broadcast is LNBC's (allgather_lnbc.cpp): a rank receives from its parent,
// then sends to its children one after the other, the farthest (largest
// subtree) first, so that each transfer has the sender's link to itself. BSLB
// and LNBC thus differ only in the gather, as seed 000 compares them.
//
// On a balanced pattern (the snapshot's omega below tau, seed 000 §2) there is nothing to absorb
// and BSLB runs NEX instead (the ring for odd P; the agent skips the root's background too).
//
// Cost (alpha-beta, n bytes per block, N = P n, balanced arrivals): the
// gather's (P-1)(3 alpha + n beta), then ceil(log2 P)(alpha + N beta) along the
// deepest path of the broadcast. docs/algorithms/bslb.md.
#include <vector>

#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"
#include "ragged/algorithms.hpp"
#include "ragged/arrival.hpp"

namespace ragged {

void allgather_bslb(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                    const CollectiveOptions& options) {
  namespace tree = plans::binomial;
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t block = count * size_of(type);
  const auto p = static_cast<std::size_t>(procs);
  if (!internal::is_in_place(sendbuf)) internal::check_buffer(sendbuf, block, "sendbuf");
  internal::check_buffer(recvbuf, p * block, "recvbuf");
  constexpr int root = 0;
  // A balanced pattern leaves nothing to absorb: the gather and broadcast would only cost more
  // than an allgather algorithm; run NEX (the agent ran no background either; monitor.cpp).
  if (const ArrivalSnapshot* snapshot = options.arrival.get();
      snapshot != nullptr && snapshot->size() == procs && snapshot->balanced(block)) {
    allgather_nex(comm, sendbuf, recvbuf, count, type, options);
    return;
  }
  // In place, this rank's block already sits in recvbuf: the root gathers in place, the
  // others send it from there.
  const void* mine = sendbuf;
  if (internal::is_in_place(sendbuf) && me != root) {
    mine = internal::bytes(recvbuf) + static_cast<std::size_t>(me) * block;
  }
  gather_bsls(comm, mine, recvbuf, count, type, root, options);
  if (procs == 1 || block == 0) return;

  // Binomial broadcast of the P blocks from rank 0 (root 0: relative ranks are ranks).
  const std::size_t all = p * block;
  if (me != root) comm.recv(tree::parent(me), internal::tag_bcast, recvbuf, all, options.timeout);
  const std::vector<int> children = tree::children(me, procs);
  for (auto c = children.rbegin(); c != children.rend(); ++c) {
    comm.send(*c, internal::tag_bcast, recvbuf, all, options.timeout);
  }
}

}  // namespace ragged
