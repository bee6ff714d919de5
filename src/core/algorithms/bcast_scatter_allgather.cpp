// bcast "scatter_allgather" (van de Geijn): a binomial scatter of the root's vector in P
// pieces, then a ring allgather of the pieces. Relative ranks v = rank - root mod P; piece v
// goes to v (plans/scatter_allgather_plan.hpp: nearly equal pieces, the last ones shorter,
// empty when count < P).
//
//   P = 4, pieces A B C D, root 0:
//
//   scatter (binomial, largest subtree      ring allgather, P-1 = 3 steps, v -> v+1:
//            first)
//     0 --C,D--> 2 --D--> 3                   step 0:  0>1 A   1>2 B    2>3 C
//     0 --B----> 1                            step 1:  0>1 D   1>2 A    2>3 B
//                                             step 2:  0>1 C   (1>2 D)  2>3 A
//
//   After the scatter v holds the pieces of its binomial subtree; the ring moves every other
//   piece and skips a transfer whose receiver already holds the piece: (1>2 D) above, and
//   3>0 at every step (the root holds all).
//
// A rank sends to its children one after the other, waiting for each send, as bcast
// "binomial_blocking" does: the largest subtree's range goes first at the link's full rate.
//
// Reference: E. Chan, M. Heimlich, A. Purkayastha, R. A. van de Geijn, "Collective communication: theory, practice,
//   and experience", Concurrency and Computation: Practice and Experience 19(13), 2007; MPICH's long-message
//   broadcast, R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005.
// Limitation: twice the chain's bandwidth term and P - 1 ring steps: for medium messages.
// Memory: none beyond the receive buffer.
//
// Cost (alpha-beta, m bytes, L = ceil(log2 P)):
//   scatter:   L alpha + (P-1)/P m beta   (the root sends every piece but its own, one range
//              after the other; the subtrees forward theirs meanwhile)
//   allgather: (P-1)(alpha + m/P beta)    (the ring, pieces of m/P)
//   total:     (L + P - 1) alpha + 2 (P-1)/P m beta
// Twice the chain's bandwidth term, but only L + P - 1 latencies whatever m is: the best
// broadcast for medium messages, where the chain's segments or the binomial tree's
// L m beta cost more. No copies, no extra memory.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"
#include "plans/scatter_allgather_plan.hpp"

namespace ragged {

void bcast_scatter_allgather(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  namespace plan = plans::scatter_allgather;
  namespace tree = plans::binomial;
  Comm& comm = ctx.comm();
  const int procs = ctx.size();
  const int v = tree::relative(ctx.rank(), root, procs);
  const std::size_t size = size_of(type);
  std::byte* data = internal::bytes(buffer);
  const auto at = [&](plan::Range r) { return data + r.first * size; };
  const int scatter_tag = ctx.tag(0);
  const int ring_tag = ctx.tag(1);

  // Scatter: the pieces of this rank's subtree from its parent, then each child's from here,
  // the farthest child (largest subtree) first.
  if (v != 0) {
    const plan::Range mine = plan::subtree(count, procs, v);
    if (mine.count > 0) {
      comm.recv(tree::absolute(tree::parent(v), root, procs), scatter_tag, at(mine), mine.count * size, ctx.timeout());
    }
  }
  const std::vector<int> children = tree::children(v, procs);
  for (auto c = children.rbegin(); c != children.rend(); ++c) {
    const plan::Range theirs = plan::subtree(count, procs, *c);
    if (theirs.count == 0) continue;
    comm.send(tree::absolute(*c, root, procs), scatter_tag, at(theirs), theirs.count * size, ctx.timeout());
  }

  // Ring allgather of the pieces, skipping those the receiver holds (and empty ones).
  const int right_v = v + 1 == procs ? 0 : v + 1;
  const int right = tree::absolute(right_v, root, procs);
  const int left = tree::absolute(v == 0 ? procs - 1 : v - 1, root, procs);
  for (int step = 0; step + 1 < procs; ++step) {
    const int out = plan::ring_send_piece(procs, v, step);
    const int in = plan::ring_recv_piece(procs, v, step);
    const bool sends = plan::ring_transfers(count, procs, right_v, out);
    const bool receives = plan::ring_transfers(count, procs, v, in);
    const plan::Range out_piece = plan::piece(count, procs, out);
    const plan::Range in_piece = plan::piece(count, procs, in);
    if (sends && receives) {
      comm.sendrecv(right, ring_tag, at(out_piece), out_piece.count * size, left, ring_tag, at(in_piece),
                    in_piece.count * size, ctx.timeout());
    } else if (sends) {
      comm.send(right, ring_tag, at(out_piece), out_piece.count * size, ctx.timeout());
    } else if (receives) {
      comm.recv(left, ring_tag, at(in_piece), in_piece.count * size, ctx.timeout());
    }
  }
}

}  // namespace ragged
