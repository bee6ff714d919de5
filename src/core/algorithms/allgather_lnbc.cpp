// allgather "lnbc": linear gather to rank 0, then a broadcast of the whole gathered vector
// from rank 0 (the LNBC reference of Proficz 2021: "a regular gather operation, based on a linear
// tree algorithm, combined with a consecutive broadcast"), the broadcast streaming what the
// gather has brought in.
//
//   gather (linear; with the chain each      broadcast from rank 0 (auto: the chain, owner
//   rank sends when rank 0 needs its          first; every rank holds its own block)
//   block, its chain held back meanwhile)
//                                            0 ─0,P-1,...,2─> 1 ─1,0,P-1,...,3─> 2 ─> ... ─> P-1
//   P-1 ──┐  first                           rank v sends its own block, then what it gets,
//   P-2 ──┤  then                            and pauses one block time for its gather send
//   ...   ├──> 0                             (after it is the ring without its wrap link)
//   1   ──┘  last (rank 1 holds it)
//
// Every other rank sends (a copy of) its block to rank 0 and waits for that send after the
// broadcast; the broadcast decides when the send starts (OwnBlockSend). The owner-first chain
// starts it when rank 0 needs that block and holds the rank's own chain back meanwhile; every
// other bcast before it begins. Rank 0 posts the receives in the order the broadcast asks for
// the blocks: with the owner-first chain all at once (the senders pace themselves); with any
// other two at a time, the lowest missing first and one the broadcast sends to no one last, so
// that they arrive one after the other at the rate of its link instead of all together at the
// end. That pacing holds where a transfer waits for its receive: MPI's rendezvous (Open MPI
// over TCP: blocks from 64 KiB) and the simulator's default protocol. An eager block moves at
// its send.
//
// The broadcast is whatever dispatch selects for a bcast of the gathered vector
// (internal::dispatch_bcast): RAGGED_BCAST, a rules file, else `auto`. Every rank gives it three
// hints (src/core/dispatch/compose.hpp), every rank the same, as they change what `auto`
// chooses and which messages move:
//   - SourceProgress: a bcast that streams its source (Restrictions::streams_source:
//     pipelined_chain, double_tree) waits at rank 0 for the bytes of each segment it sends just
//     before it sends them, may tell the order it will ask for them in (plan) and name bytes it
//     sends to no one (unsent), which the gather then brings last; any other bcast starts when
//     the whole vector is in (the plain gather-then-broadcast). `auto` weighs the streaming
//     ones by what they add to the gather (CallInfo::source_fills): the chain.
//   - HeldBlocks{n}: every rank holds its own block, so a streaming bcast never sends it there;
//     the chain then runs owner first (docs/algorithms/bcast-pipelined-chain.md).
//   - OwnBlockSend (ranks but 0): starts this rank's gather send, and waits for it, when the
//     bcast chooses: the owner-first chain when rank 0 needs that block, its own sends held back
//     meanwhile, instead of sharing the link with it; any other bcast at once.
// Tags: the gather on tag 0, the broadcast on the second half of the call's block.
//
// Reference: J. Proficz, "All-gather Algorithms Resilient to Imbalanced Process Arrival Patterns", ACM TACO 18(4),
//   2021 (LNBC, its baseline); the streamed broadcast is ragged's own design, docs/algorithms/allgather-lnbc.md.
// Limitation: every block goes through rank 0's link twice, once in and once out: about 2 N beta unless the broadcast
//   streams, and at best P tau, one block time more than the ring.
//
// Cost (n bytes per block, N = P n gathered, tau = alpha + n beta):
//   gather:    (P-1) tau, one block after the other
//   broadcast: the least of the bcast models for N bytes (plans/cost_model.hpp). Streamed, it
//              runs beside the gather and ends at the later of its own time T and the gather's
//              end plus its tail: max(T, gather + tail). The owner-first chain: T = P tau, tail
//              tau, so P tau in all, the ring's (P-1) tau and one block time (every link but the
//              last rank's carries P - 1 blocks of the chain and its own to rank 0). The double
//              tree: 2 D + 1 segment times and a block, D = floor(log2(P-1)).
//              Not streamed, the two add: every byte crosses rank 0's link twice, about 2 N beta.
// Memory: a copy of one block on every rank but 0. Any P. docs/algorithms/allgather-lnbc.md.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"

namespace ragged {

namespace {

/// Receives rank 0 keeps posted at once (see PacedGather).
constexpr int posted_ahead = 2;

/// Rank 0's side of the paced linear gather. The broadcast asks for byte ranges in the order it
/// sends them (wait(begin, end)) and may name those it sends no one (unsent(begin, end)). Unless
/// it plans (plan() below), the gather keeps posted_ahead receives posted: the lowest blocks
/// still missing, blocks the broadcast does not send last, and a block asked for out of that
/// order at once. So the blocks come in about one after the other at the rate of rank 0's link
/// (all senders in flight at once would share it and all land late), in the order the broadcast
/// needs them. One receive at a time is slower (each block then pays the rendezvous hand-shake):
/// 1.82x the ring against 1.57x (the chain in buffer order, P = 8, 128K floats, sim); three,
/// 1.67x.
class PacedGather {
 public:
  PacedGather(Context& ctx, std::byte* out, std::size_t block)
      : ctx_(ctx), out_(out), block_(block), procs_(ctx.size()) {
    blocks_.resize(static_cast<std::size_t>(procs_));
    state_.assign(static_cast<std::size_t>(procs_), State::idle);
    last_.assign(static_cast<std::size_t>(procs_), false);
    state_[0] = State::in;  // rank 0's own block
  }

  /// Returns once bytes [begin, end) are in.
  void wait(std::size_t begin, std::size_t end) {
    post_ahead();
    if (begin >= end) return;
    const auto last = static_cast<int>(std::min((end - 1) / block_, static_cast<std::size_t>(procs_ - 1)));
    for (auto j = static_cast<int>(begin / block_); j <= last; ++j) take(j);
  }

  /// The broadcast sends bytes [begin, end) to no one: the blocks wholly inside come last.
  void unsent(std::size_t begin, std::size_t end) {
    for (std::size_t j = (begin + block_ - 1) / block_; (j + 1) * block_ <= end && j < last_.size(); ++j) {
      last_[j] = true;
    }
    post_ahead();
  }

  /// The broadcast will ask for these ranges in this order (the owner-first chain, whose ranks
  /// start their sends to rank 0 themselves, each when rank 0 needs its block, with their own
  /// link to themselves: OwnBlockSend): every receive is posted at once, in that order, so that
  /// a block moves the moment its sender starts it. Paced by rank 0 instead, one receive at a
  /// time, a sender that reached its turn waited for rank 0 to take the block before (on the
  /// simulator the same time; on the 8-host testbed 150 ms against 122, the ring 102).
  void plan(const std::vector<std::pair<std::size_t, std::size_t>>& ranges) {
    ahead_ = procs_;
    for (const auto& [begin, end] : ranges) {
      if (begin >= end) continue;
      const auto last = std::min((end - 1) / block_, static_cast<std::size_t>(procs_ - 1));
      for (std::size_t j = begin / block_; j <= last; ++j) {
        if (std::find(order_.begin(), order_.end(), static_cast<int>(j)) == order_.end()) {
          order_.push_back(static_cast<int>(j));
        }
      }
    }
    post_ahead();
  }

  /// Every block in.
  void finish() {
    post_ahead();
    for (bool late : {false, true}) {
      for (int j = 0; j < procs_; ++j) {
        if (last_[static_cast<std::size_t>(j)] == late) take(j);
      }
    }
  }

 private:
  enum class State { idle, posted, in };

  void take(int j) {
    const auto at = static_cast<std::size_t>(j);
    if (state_[at] == State::in) return;
    if (state_[at] == State::idle) post(j);
    blocks_[at].wait(ctx_.timeout());
    state_[at] = State::in;
    --in_flight_;
    post_ahead();
  }

  void post(int j) {
    const auto at = static_cast<std::size_t>(j);
    blocks_[at] = ctx_.comm().irecv(j, ctx_.tag(0), out_ + at * block_, block_);
    state_[at] = State::posted;
    ++in_flight_;
  }

  /// Posts the planned blocks in their order, then the lowest missing ones, those the broadcast
  /// does not send after all others.
  void post_ahead() {
    for (const int j : order_) {
      const auto at = static_cast<std::size_t>(j);
      if (in_flight_ >= ahead_) return;
      if (!last_[at] && state_[at] == State::idle) post(j);
    }
    for (bool late : {false, true}) {
      for (int j = 1; j < procs_ && in_flight_ < ahead_; ++j) {
        const auto at = static_cast<std::size_t>(j);
        if (last_[at] == late && state_[at] == State::idle) post(j);
      }
    }
  }

  Context& ctx_;
  std::byte* out_;
  std::size_t block_;
  int procs_;
  std::vector<Request> blocks_;  ///< by rank
  std::vector<State> state_;     ///< by rank
  std::vector<bool> last_;       ///< by rank: the broadcast sends that block to no one
  std::vector<int> order_;       ///< blocks in the order the broadcast will ask for them (plan)
  int in_flight_ = 0;            ///< receives posted and not yet waited for
  int ahead_ = posted_ahead;     ///< receives to keep posted (all once the broadcast plans)
};

}  // namespace

void allgather_lnbc(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  const std::size_t block = ctx.bytes(count, type);
  const std::size_t elements = static_cast<std::size_t>(ctx.procs()) * count;  // the whole of recvbuf
  constexpr int root = 0;

  // Dispatch copied this rank's block into recvbuf (and returned for P = 1 or an empty block).
  std::byte* out = internal::bytes(recvbuf);
  // Every rank carries the SourceProgress hint, as `auto` weighs the broadcasts by it and all
  // must choose the same; only rank 0's is ever called. And every rank holds its own block
  // (HeldBlocks): a streaming broadcast does not send it to that rank.
  Hints hints = ctx.hints();
  hints.set(std::make_shared<const internal::HeldBlocks>(internal::HeldBlocks{block}));
  if (ctx.rank() != root) {
    hints.set(std::make_shared<const internal::SourceProgress>(
        internal::SourceProgress{[](std::size_t, std::size_t) {}, {}, {}}));
    // The send goes from a copy: the broadcast's receives write this block's place in recvbuf
    // while the send may still be pending (MPI forbids touching a pending send's buffer).
    const std::byte* own = ctx.blocks(out, block).at(ctx.rank());
    const std::vector<std::byte> copy(own, own + block);
    // The broadcast starts the send (OwnBlockSend): the owner-first chain when rank 0 asks for
    // this block, any other at once.
    Request mine;
    bool started = false;
    const auto start = [&] {
      if (!started) mine = ctx.comm().isend(root, ctx.tag(0), copy.data(), block);
      started = true;
    };
    hints.set(std::make_shared<const internal::OwnBlockSend>(internal::OwnBlockSend{start, [&] {
                                                                                      start();
                                                                                      mine.wait(ctx.timeout());
                                                                                    }}));
    (void)internal::dispatch_bcast(ctx.half(1).with_hints(hints), out, elements, type, root);
    start();  // every bcast has started it by now; a safety net
    mine.wait(ctx.timeout());
    return;
  }
  PacedGather gather(ctx, out, block);
  hints.set(std::make_shared<const internal::SourceProgress>(internal::SourceProgress{
      [&gather](std::size_t begin, std::size_t end) { gather.wait(begin, end); },
      [&gather](std::size_t begin, std::size_t end) { gather.unsent(begin, end); },
      [&gather](const std::vector<std::pair<std::size_t, std::size_t>>& ranges) { gather.plan(ranges); }}));
  (void)internal::dispatch_bcast(ctx.half(1).with_hints(hints), out, elements, type, root);
  gather.finish();
}

}  // namespace ragged
