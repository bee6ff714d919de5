// bcast "pipelined_chain": a segmented pipeline down the chain root -> root+1 -> ... ->
// root+P-1 (relative ranks 0 -> 1 -> ... -> P-1). The root cuts the message into S segments
// (plans/pipelined_chain_plan.hpp); every other rank receives segment t from its predecessor
// and passes it on to its successor while segment t+1 is on its way in.
//
//   P = 4, S = 3 segments a b c, time in segment transfers:
//
//   step      1      2      3      4      5
//   0 -> 1    a      b      c
//   1 -> 2           a      b      c
//   2 -> 3                  a      b      c          the last rank is done after P-2+S steps
//
// Each rank keeps one send in flight (it waits for segment t-1's send before it starts
// segment t), as allreduce "pipelined_linear" does: sends posted all at once would share the
// link and arrive together at the end instead of one after the other, stalling the chain.
// Receives are all posted up front, so a segment is matched the moment it arrives.
//
// Why a chain and not a pipelined binary tree: in the chain every rank receives and sends each
// byte once, so every link carries m bytes and the bandwidth term is m beta, the least any
// broadcast can have (the root must send every byte); an inner node of a binary tree sends
// each segment twice, 2 m beta. The chain pays P - 2 more segment latencies to fill, which the
// segment size keeps small for large messages; for small ones `auto` takes the binomial tree.
//
// Streams its source: the root reads its buffer front to back, segment by segment, so a
// composing algorithm may still fill it (SourceProgress, dispatch/compose.hpp; allgather lnbc
// gathers into it): the root waits for each segment's bytes just before it sends them. With a
// HeldBlocks hint (lnbc: every rank holds its own block) a rank is sent only the bytes of a
// segment it lacks, in up to two messages, and forwards its own from its buffer.
//
// Owner first: with a HeldBlocks hint whose P blocks make up the buffer the link v -> v+1
// carries the blocks v, v-1, ..., 0, P-1, ..., v+2 (relative ranks), one message each: every
// block walks down the chain from its owner, as in the ring, and the root's link stands in for
// the ring's wrap. P = 4 (* = the rank's own block to the root, lnbc's OwnBlockSend):
//
//   block time   1   2   3   4
//   0 -> 1       0   3   2              3 and 2 as they come in to the root
//   1 -> 2       1   0   *   3
//   2 -> 3       2   *   1   0
//   3 -> 0       *
//
// Reference: the segmented chain of Open MPI's tuned broadcast (pipeline).
// Limitation: P - 2 segment latencies to fill the chain: for large messages.
// Memory: none beyond the receive buffer.
//
// Cost (alpha-beta, m bytes, segments of s bytes, S = ceil(m / s)):
//   (P - 2 + S)(alpha + s beta), about m beta + (P - 2) s beta + S alpha for large m.
//   Owner first: (P - 1)(alpha + m/P beta), the ring's; with lnbc's gather P block times.
// The root sends S messages, every other rank receives S and (but the last) sends S. No copies,
// no extra memory.
#include <array>
#include <utility>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"
#include "plans/pipelined_chain_plan.hpp"

namespace ragged {

namespace {

/// The chain under a HeldBlocks hint whose P blocks of `block` bytes make up the whole buffer:
/// the link v -> v + 1 carries every block but v + 1's, one message each, owner first
/// (plans::pipelined_chain::owner_first_order), one send in flight. With an OwnBlockSend hint
/// (allgather lnbc's gather) rank v sends its own block to the root before its send
/// plans::pipelined_chain::owner_first_pause(v, P), and waits for it: its chain pauses.
void owner_first_chain(Context& ctx, std::byte* data, std::size_t block, int root) {
  namespace chain = plans::pipelined_chain;
  namespace tree = plans::binomial;
  const int procs = ctx.size();
  const int v = tree::relative(ctx.rank(), root, procs);
  const int tag = ctx.tag(0);
  // The block of relative rank u starts here.
  const auto at = [&](int u) { return static_cast<std::size_t>(tree::absolute(u, root, procs)) * block; };
  // What comes in, by owner, in the order the predecessor sends it (all posted up front).
  std::vector<Request> in(static_cast<std::size_t>(procs));
  if (v > 0) {
    const int prev = tree::absolute(v - 1, root, procs);
    for (const int u : chain::owner_first_order(v - 1, procs)) {
      in[static_cast<std::size_t>(u)] = ctx.comm().irecv(prev, tag, data + at(u), block);
    }
  }
  const std::vector<int> order = chain::owner_first_order(v, procs);
  if (!order.empty()) {
    const int next = tree::absolute(v + 1, root, procs);
    if (v == 0) {  // the root: its successor's block goes to no one; the others in this order
      std::vector<std::pair<std::size_t, std::size_t>> plan;
      plan.reserve(order.size());
      for (const int u : order) plan.emplace_back(at(u), at(u) + block);
      internal::source_plan(ctx, plan);
      internal::source_unsent(ctx, at(1), at(1) + block);
    }
    // Rank v's own block goes to the root at its pause (OwnBlockSend), its chain held back.
    const internal::OwnBlockSend* own = v > 0 ? ctx.hints().get<internal::OwnBlockSend>() : nullptr;
    const std::size_t pause = chain::owner_first_pause(v, procs);
    Request in_flight;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const int u = order[k];
      if (u != v) in[static_cast<std::size_t>(u)].wait(ctx.timeout());
      if (v == 0) internal::wait_source(ctx, at(u), at(u) + block);
      in_flight.wait(ctx.timeout());
      if (own != nullptr && k == pause) own->wait();
      in_flight = ctx.comm().isend(next, tag, data + at(u), block);
    }
    in_flight.wait(ctx.timeout());
  } else if (v > 0) {
    internal::start_own_block(ctx);  // the last rank sends nothing else
  }
  for (Request& r : in) r.wait(ctx.timeout());
}

}  // namespace

void bcast_pipelined_chain(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  namespace chain = plans::pipelined_chain;
  namespace tree = plans::binomial;
  const int procs = ctx.size();
  const int v = tree::relative(ctx.rank(), root, procs);
  const bool has_prev = v > 0;
  const bool has_next = v < procs - 1;
  const int prev = has_prev ? tree::absolute(v - 1, root, procs) : -1;
  const int next = has_next ? tree::absolute(v + 1, root, procs) : -1;
  const std::size_t size = size_of(type);
  const std::size_t per = chain::segment_elements(count, size, procs);
  const std::size_t segments = chain::segments(count, per);
  const int tag = ctx.tag(0);
  std::byte* data = internal::bytes(buffer);
  // Under HeldBlocks of P whole blocks (allgather lnbc): owner first, a message per block.
  const internal::HeldBlocks* held = ctx.hints().get<internal::HeldBlocks>();
  if (held != nullptr && held->block > 0 && held->block * static_cast<std::size_t>(procs) == count * size) {
    owner_first_chain(ctx, data, held->block, root);
    return;
  }
  const auto length = [&](std::size_t t) { return (t + 1 < segments ? per : count - t * per) * size; };

  // Segment t is bytes [begin(t), end(t)); with a HeldBlocks hint a rank is sent only what it
  // lacks of it (internal::send_lacking), in up to two messages.
  const auto begin = [&](std::size_t t) { return t * per * size; };
  const auto end = [&](std::size_t t) { return begin(t) + length(t); };
  if (has_prev) internal::start_own_block(ctx);  // lnbc's gather, in buffer order: at once
  std::vector<std::array<Request, 2>> receives;
  if (has_prev) {
    receives.reserve(segments);
    for (std::size_t t = 0; t < segments; ++t) {
      receives.push_back(internal::receive_lacking(ctx, prev, tag, data, begin(t), end(t)));
    }
  }
  if (!has_prev && has_next) {  // the root sends its successor nothing of what that one holds
    const internal::Ranges all = internal::lacking(ctx, next, 0, count * size);
    internal::source_unsent(ctx, all[0].second, all[1].first);
  }
  std::array<Request, 2> in_flight;
  for (std::size_t t = 0; t < segments; ++t) {
    if (has_prev) internal::wait_both(receives[t], ctx.timeout());
    if (!has_next) continue;
    if (!has_prev) {  // the root: are the bytes it sends in?
      internal::wait_source(ctx, internal::lacking(ctx, next, begin(t), end(t)));
    }
    internal::wait_both(in_flight, ctx.timeout());
    in_flight = internal::send_lacking(ctx, next, tag, data, begin(t), end(t));
  }
  internal::wait_both(in_flight, ctx.timeout());
}

}  // namespace ragged
