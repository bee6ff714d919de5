// bcast "double_tree": a segmented pipeline down two binary trees over the P - 1 other ranks
// (Sanders, Speck and Träff's two-tree broadcast; NCCL's double binary tree). The root cuts
// the message into S segments and sends segment t to the root of tree t mod 2; every rank
// forwards the segments of the one tree in which it is an inner node to its (at most two)
// children there. plans/double_tree_plan.hpp builds the trees and the segment size.
//
//   P = 7 (nodes 1..6), root 0, segments a c e ... down tree 0, b d f ... down tree 1:
//
//     tree 0 (a, c, e)                    tree 1 (b, d, f)
//     0 ──> 4 ─┬─> 2 ─┬─> 1               0 ──> 3 ─┬─> 5 ─┬─> 6
//              │      └─> 3                        │      └─> 4
//              └─> 6 ───> 5                        └─> 1 ───> 2
//
//   Inner nodes of tree 0 (2, 4, 6) are leaves of tree 1 and the other way round, so every
//   rank sends each of its tree's segments twice and the other half not at all: about m bytes
//   on every up-link, as in the chain, while a segment is at the deepest rank after
//   about 2 log2(P) hops instead of the chain's P - 2.
//
// Each rank posts all its receives up front (segment t from its parent in tree t mod 2, the
// root of a tree hearing from the bcast's root), then forwards its tree's segments in order,
// keeping one send per child in flight (sends posted all at once would share the link and stall
// the pipeline, as in the chain). The root keeps one send per tree in flight, so each tree takes
// half of its up-link all along: every rank then receives half its down-link's rate from each
// of its two parents. With one root send at a time, a root send would meet the other tree's
// forwarding on the same down-link, run at half rate, and hold the whole pipeline back
// (measured: twice the chain's time at P = 3 and 4).
//
// Streams its source: the root reads its buffer front to back, segment by segment, so a
// composing algorithm may still fill it (SourceProgress, dispatch/compose.hpp): it waits for
// each segment's bytes just before it sends them, and every rank, all carrying the hint, cuts
// segments half as long (plans/double_tree_plan.hpp says why). With a HeldBlocks hint (lnbc: every rank
// holds its own block) a rank is sent only the bytes of a segment it lacks, in up to two
// messages, and forwards its own from its buffer.
//
// Reference: P. Sanders, J. Speck, J. L. Träff, "Two-tree algorithms for full bandwidth broadcast, reduction and
//   scan", Parallel Computing 35, 2009; NCCL's double binary tree.
// Limitation: S + 2D + 1 segment latencies: for large messages on many ranks; small ones are faster down the binomial
//   tree.
// Memory: none beyond the receive buffer.
//
// Cost (alpha-beta, m bytes, S segments of s bytes, D = floor(log2(P - 1))):
//   (S + 2 D + 1)(alpha + s beta), about m beta + 2 D s beta + S alpha for large m.
// Any P (P = 2: the one other rank is both trees' root), any root. No copies, no extra memory.
#include <array>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"
#include "plans/double_tree_plan.hpp"

namespace ragged {

void bcast_double_tree(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  namespace trees = plans::double_tree;
  namespace tree = plans::binomial;
  const int procs = ctx.size();
  const int nodes = procs - 1;
  const int v = tree::relative(ctx.rank(), root, procs);
  const std::size_t size = size_of(type);
  // A filling source (every rank carries the hint) takes the shorter streamed segments.
  const bool streamed = ctx.hints().get<internal::SourceProgress>() != nullptr;
  const std::size_t per = trees::segment_elements(count, size, procs, streamed);
  const std::size_t segments = plans::pipelined_chain::segments(count, per);
  const int tag = ctx.tag(0);
  std::byte* data = internal::bytes(buffer);
  const auto length = [&](std::size_t t) { return (t + 1 < segments ? per : count - t * per) * size; };
  const auto absolute = [&](int relative) { return tree::absolute(relative, root, procs); };

  // Segment t is bytes [begin(t), end(t)); with a HeldBlocks hint a rank is sent only what it
  // lacks of it (internal::send_lacking), in up to two messages.
  const auto begin = [&](std::size_t t) { return t * per * size; };
  const auto end = [&](std::size_t t) { return begin(t) + length(t); };

  if (v == 0) {  // the root: segment t to the root of tree t mod 2, one send per tree in flight
    const std::array<int, 2> tops{absolute(trees::root(0, nodes)), absolute(trees::root(1, nodes))};
    std::array<std::array<Request, 2>, 2> in_flight;
    for (std::size_t t = 0; t < segments; ++t) {
      const int top = tops[t % 2];
      internal::wait_source(ctx, internal::lacking(ctx, top, begin(t), end(t)));
      internal::wait_both(in_flight[t % 2], ctx.timeout());
      in_flight[t % 2] = internal::send_lacking(ctx, top, tag, data, begin(t), end(t));
    }
    for (auto& pair : in_flight) internal::wait_both(pair, ctx.timeout());
    return;
  }

  internal::start_own_block(ctx);  // lnbc's gather: this rank's block goes to the root now
  std::vector<std::array<Request, 2>> receives;
  receives.reserve(segments);
  for (std::size_t t = 0; t < segments; ++t) {
    const int parent = trees::parent(static_cast<int>(t % 2), v, nodes);  // none = 0: the root
    receives.push_back(internal::receive_lacking(ctx, absolute(parent), tag, data, begin(t), end(t)));
  }
  // The tree this rank forwards (at most one has children for it), and those children.
  int mine = -1;
  std::array<int, 2> children{trees::none, trees::none};
  for (int k = 0; k < 2 && mine < 0; ++k) {
    children = trees::children(k, v, nodes);
    if (children[0] != trees::none || children[1] != trees::none) mine = k;
  }
  if (mine >= 0) {
    std::array<std::array<Request, 2>, 2> in_flight;  // per child
    for (auto t = static_cast<std::size_t>(mine); t < segments; t += 2) {
      internal::wait_both(receives[t], ctx.timeout());
      for (std::size_t c = 0; c < children.size(); ++c) {
        internal::wait_both(in_flight[c], ctx.timeout());
        if (children[c] != trees::none) {
          in_flight[c] = internal::send_lacking(ctx, absolute(children[c]), tag, data, begin(t), end(t));
        }
      }
    }
    for (auto& pair : in_flight) internal::wait_both(pair, ctx.timeout());
  }
  for (auto& pair : receives) internal::wait_both(pair, ctx.timeout());
}

}  // namespace ragged
