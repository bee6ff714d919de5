// allgather "lnbc": linear gather to rank 0, then a broadcast of the whole gathered vector
// from rank 0 (the LNBC reference of seed 000: "a regular gather operation, based on a linear
// tree algorithm, combined with a consecutive broadcast"), the broadcast streaming what the
// gather has brought in.
//
//   gather (linear, paced by rank 0)      broadcast from rank 0, e.g. the double tree, each
//                                          segment sent once rank 0 holds its bytes, no rank
//   1 ──┐  recv 1, recv 2 posted           sent its own block
//   2 ──┤  block 1 in: recv 3 posted
//   3 ──┼──> 0  block 2 in: recv 4, ...    0 ─a,c,e─> tree 0 ─> ...
//   ... │                                  0 ─b,d,f─> tree 1 ─> ...
//   P-1 ┘
//
// Every other rank starts the send of (a copy of) its block and goes straight on into the
// broadcast; it waits for the send after it. Rank 0 paces the gather: it keeps the receives of
// two blocks posted and posts the next one when a block lands, so that blocks 1, 2, ..., P-1
// arrive one after the other at the rate of its link instead of all together at the end
// (senders in flight at once share that link). That holds where a transfer waits for its
// receive: MPI's rendezvous (Open MPI over TCP: blocks from 64 KiB) and the simulator's default
// protocol. An eager block moves at its send, and then they come together as in a plain linear
// gather.
//
// The broadcast is whatever dispatch selects for a bcast of the gathered vector
// (internal::dispatch_bcast): RAGGED_BCAST, a rules file, else `auto`. Every rank gives it two
// hints (src/core/dispatch/compose.hpp), every rank the same, as they change what `auto`
// chooses and which messages move:
//   - SourceProgress: bytes [0, j n) are in once block j-1 is; a bcast that streams its source
//     (Restrictions::streams_source: pipelined_chain, double_tree) waits at rank 0 for each
//     segment's bytes just before it sends them, any other starts when the whole vector is in
//     (the plain gather-then-broadcast). `auto` weighs the streaming ones by what they add to
//     the gather (CallInfo::source_fills): the double tree from P = 8, the chain at P = 4.
//   - HeldBlocks{n}: every rank holds its own block, so a streaming bcast never sends it there.
// Tags: the gather on tag 0, the broadcast on tags 32..63 of the call's block.
//
// Cost (n bytes per block, N = P n gathered):
//   gather:    (P-1)(alpha + n beta), one block after the other
//   broadcast: the least of the bcast models for N bytes (plans/cost_model.hpp). Streamed, it
//              runs beside the gather and ends at the later of its own time T and the gather's
//              end plus its tail (the last segment's way down: 2 D + 1 segment times in the
//              double tree, D = floor(log2(P-1)), P - 1 in the chain): max(T, gather + tail).
//              Not streamed, the two add: every byte crosses rank 0's link twice, about 2 N beta.
// Memory: a copy of one block on every rank but 0. Any P. docs/algorithms/allgather-lnbc.md.
#include <algorithm>
#include <memory>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"

namespace ragged {

namespace {

/// Receives rank 0 keeps posted ahead of the blocks it already holds.
constexpr int posted_ahead = 2;

/// Rank 0's side of the paced linear gather: blocks come in in rank order, and wait(end)
/// returns once bytes [0, end) of the vector are in, posting the next receives as blocks land.
class PacedGather {
 public:
  PacedGather(Context& ctx, std::byte* out, std::size_t block)
      : ctx_(ctx), out_(out), block_(block), procs_(ctx.size()) {
    blocks_.resize(static_cast<std::size_t>(procs_));
    post_ahead();
  }

  /// Returns once bytes [0, end) are in (rank 0's own block always is).
  void wait(std::size_t end) {
    const auto need = static_cast<int>(std::min((end + block_ - 1) / block_, static_cast<std::size_t>(procs_)));
    while (in_ < need) {
      blocks_[static_cast<std::size_t>(in_)].wait(ctx_.timeout());
      ++in_;
      post_ahead();
    }
  }

  /// Every block in.
  void finish() { wait(static_cast<std::size_t>(procs_) * block_); }

 private:
  void post_ahead() {
    for (; posted_ < procs_ && posted_ < in_ + posted_ahead; ++posted_) {
      const auto j = static_cast<std::size_t>(posted_);
      blocks_[j] = ctx_.comm().irecv(posted_, ctx_.tag(0), out_ + j * block_, block_);
    }
  }

  Context& ctx_;
  std::byte* out_;
  std::size_t block_;
  int procs_;
  std::vector<Request> blocks_;  ///< by rank, each posted in turn
  int in_ = 1;                   ///< blocks [0, in_) are in
  int posted_ = 1;               ///< the receives of blocks [1, posted_) are posted
};

}  // namespace

void allgather_lnbc(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int rank = comm.rank();
  const std::size_t block = count * size_of(type);
  const auto p = static_cast<std::size_t>(procs);
  constexpr int root = 0;

  // Dispatch copied this rank's block into recvbuf (and returned for P = 1 or an empty block).
  std::byte* out = internal::bytes(recvbuf);
  // Every rank carries the SourceProgress hint, as `auto` weighs the broadcasts by it and all
  // must choose the same; only rank 0's is ever called. And every rank holds its own block
  // (HeldBlocks): a streaming broadcast does not send it to that rank.
  Hints hints = ctx.hints();
  hints.set(std::make_shared<const internal::HeldBlocks>(internal::HeldBlocks{block}));
  if (rank != root) {
    hints.set(std::make_shared<const internal::SourceProgress>(internal::SourceProgress{[](std::size_t) {}}));
    // The send goes from a copy: the broadcast's receives write this block's place in recvbuf
    // while the send may still be pending (MPI forbids touching a pending send's buffer).
    const std::byte* own = out + static_cast<std::size_t>(rank) * block;
    const std::vector<std::byte> copy(own, own + block);
    Request mine = comm.isend(root, ctx.tag(0), copy.data(), block);
    (void)internal::dispatch_bcast(ctx.sub(32, 32).with_hints(hints), out, p * count, type, root);
    mine.wait(ctx.timeout());
    return;
  }
  PacedGather gather(ctx, out, block);
  hints.set(std::make_shared<const internal::SourceProgress>(
      internal::SourceProgress{[&gather](std::size_t end) { gather.wait(end); }}));
  (void)internal::dispatch_bcast(ctx.sub(32, 32).with_hints(hints), out, p * count, type, root);
  gather.finish();
}

}  // namespace ragged
