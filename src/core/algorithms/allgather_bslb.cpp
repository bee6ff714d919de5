// allgather "bslb": Background Sorted Linear synchronized tree with Broadcast
// (listing 3 of Proficz 2021): BSLS gather to rank 0, then a broadcast of the
// gathered vector from rank 0, both in the background where the agents allow.
//
//   gather (BSLS, estimated arrival order)   broadcast: each block streamed down the chain
//   a ──┐                                    as soon as rank 0 holds it, by every rank's agent
//   b ──┼──> 0 (0's agent receives           0 ─a─> 1 ─a─> 2 ─a─> ... ─a─> P-1
//   c ──┘       while 0 computes)              ─b─>   ─b─>   ─b─> ...
//
// Proficz 2021 gathers in the background and then calls "a regular broadcast algorithm provided by
// the used MPI implementation". After the last arrival that broadcast still moves the whole
// vector, at least N beta: no faster than the ring, which BDR improves on. ragged moves the
// broadcast into the background as well (docs/algorithms/bslb.md):
//   - the blocks go down in the gather's order, the order of the estimated arrivals, rank 0's
//     own among them; each block in segments of s bytes (plans/pipelined_chain_plan.hpp for a
//     message of one block), two sends in flight per rank;
//   - every rank's agent receives and forwards, whether its rank has arrived or not: a rank
//     that arrives finds the blocks of the ranks before it already in;
//   - rank 0's agent posts the receives of the next block before it streams the previous one,
//     so the gather (into rank 0) and the stream (out of rank 0) run at once;
//   - rank 0's foreground hands its own block to its agent (a message to itself, tag_bslb_self),
//     which streams it at rank 0's place in the order; the gather of the others never waits
//     for it.
// After the last arrival: that block into rank 0 (3 alpha + n beta), then down the chain,
// (P - 2 + S)(alpha + s beta) for S segments of s bytes: a few n beta, where the ring needs
// (P-1)(alpha + n beta) and BDR the same for the last rank's block.
//
// When the agents do not all run it (no snapshot, no agents, or the ranks agreed on another
// plan): the paper's form, gather_bsls then the bcast dispatch selects for the vector
// (internal::dispatch_bcast, the second half of its tags; RAGGED_BCAST, a rules file, else `auto`).
// On a balanced pattern (the snapshot's omega below tau, Proficz 2021, §2) there is nothing to
// absorb and BSLB runs the best regular allgather instead (the list's balanced "auto"; the agents run no
// background).
// A rank whose agent had not begun when its foreground claimed runs the same program itself
// (after its own block went to rank 0): the same messages, so any mix of agent and foreground
// is exact. Wrong estimates keep the result exact; rank 0 then waits for a late rank while
// the blocks of earlier ones queue behind it.
//
// Reference: J. Proficz, "All-gather Algorithms Resilient to Imbalanced Process Arrival Patterns", ACM TACO 18(4),
//   2021, listing 3 (BSLB on the BSLS gather of §3.2); the streamed broadcast is ragged's own design,
//   docs/algorithms/bslb.md.
// Limitation: gains only from an arrival snapshot with running agents: without agents it is the paper's gather then
//   broadcast, on a balanced pattern the best regular allgather; with wrong estimates rank 0 waits for a late rank
//   while the blocks of earlier ones queue behind it.
//
// Cost (alpha-beta, n bytes per block, N = P n, S segments of s bytes per block):
//   balanced arrivals with agents: the gather's (P-1)(3 alpha + n beta) beside the stream's
//   N beta, then the last block's tail (P - 2 + S)(alpha + s beta);
//   after the last arrival: 3 alpha + n beta + (P - 2 + S)(alpha + s beta).
// Memory: every rank's agent holds the P blocks until its foreground copies them.
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "plans/pipelined_chain_plan.hpp"
#include "plans/sorted_order.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"

namespace ragged {

namespace {

constexpr int bslb_root = 0;  // the gather's root (a distinct name: unity builds share the namespace)

/// What every rank derives alike from the snapshot: the order of the blocks (estimated arrival,
/// earliest first, rank 0 among them) and their segments.
struct Stream {
  std::vector<int> order;
  std::size_t block = 0;
  std::size_t per = 0;       ///< bytes per segment
  std::size_t segments = 0;  ///< per block
  int tag = 0;               ///< the stream's messages (the epoch's planned tag)
  int signal_tag = 0;        ///< the gather's (BSLS's planned tags)
  int data_tag = 0;

  Stream(const ArrivalSnapshot& snapshot, int procs, std::size_t block_bytes)
      : order(plans::sorted::earliest_first(snapshot.arrivals())),
        block(block_bytes),
        per(plans::pipelined_chain::segment_elements(block_bytes, 1, procs)),
        segments(plans::pipelined_chain::segments(block_bytes, per)),
        tag(internal::planned_epoch_tag(&snapshot)),
        signal_tag(internal::tag_bsls_signal),
        data_tag(internal::tag_bsls_data) {}

  [[nodiscard]] std::size_t length(std::size_t t) const { return t + 1 < segments ? per : block - t * per; }
  /// Whether the chain carries `owner`'s block into `receiver`: every rank forwards every block
  /// but the last rank of the chain, which needs no copy of its own.
  [[nodiscard]] bool carried(int receiver, int owner) const {
    return owner != receiver || receiver + 1 < static_cast<int>(order.size());
  }
};

/// The sends a rank keeps in flight down the chain, used in turn. One would leave the link idle
/// for a latency between segments: the stream carries the whole vector, (P-1) S segments, where
/// the chain bcast sends one message's S. Two overlap each segment's latency with the other's
/// bytes and share the link for the rest, so the segments still arrive one after the other.
struct InFlight {
  std::array<Request, 2> all;
  std::size_t turn = 0;
  Request& next() { return all[turn++ % all.size()]; }
};

/// The blocks of one rank's part of the stream: buffers by rank, and which are complete.
struct Blocks {
  std::vector<std::vector<std::byte>>& data;
  std::vector<char>& received;
};

/// Rank 0's program: gather the blocks of the other ranks in the stream's order and send every
/// block down the chain to rank 1, in that order, as soon as it and those before it are in.
/// Rank 0's own block comes from its foreground whenever rank 0 arrives, received apart from the
/// gather: a late rank 0 holds back the stream at its place in the order, never the gather of
/// the others (estimated early, rank 0 then streams the whole vector after arriving; with the
/// gather stalled behind it, it would also gather it). `wait(request)` waits for one request.
template <class Wait>
void root_program(Comm& comm, const Stream& s, Blocks out, Wait&& wait) {
  const std::size_t first = internal::sorted_gather_short_bytes(s.block);
  InFlight sends;
  const auto stream = [&](int r) {
    if (!s.carried(1, r)) return;
    const std::byte* data = out.data[static_cast<std::size_t>(r)].data();
    for (std::size_t t = 0; t < s.segments; ++t) {
      Request& send = sends.next();
      wait(send);
      send = comm.isend(1, s.tag, data + t * s.per, s.length(t));
    }
  };
  std::vector<std::byte>& own = out.data[static_cast<std::size_t>(bslb_root)];
  own.resize(s.block);
  Request self = comm.irecv(bslb_root, internal::tag_bslb_self, own.data(), s.block);
  std::size_t streamed = 0;  // blocks of the order sent down the chain
  const auto stream_ready = [&] {
    for (; streamed < s.order.size(); ++streamed) {
      const auto r = static_cast<std::size_t>(s.order[streamed]);
      if (r == bslb_root && !out.received[r] && self.test()) out.received[r] = 1;
      if (!out.received[r]) return;
      stream(static_cast<int>(r));
    }
  };
  for (int r : s.order) {
    if (r == bslb_root) continue;
    std::vector<std::byte>& dst = out.data[static_cast<std::size_t>(r)];
    dst.resize(s.block);
    // Both parts posted at once (one tag: they match in order), then the signal: the block
    // comes in while the blocks before it go out.
    Request parts[3];
    parts[0] = comm.irecv(r, s.data_tag, dst.data(), first);
    if (s.block > first) parts[1] = comm.irecv(r, s.data_tag, dst.data() + first, s.block - first);
    parts[2] = comm.isend(r, s.signal_tag, nullptr, 0);
    stream_ready();
    for (Request& part : parts) {
      if (!part.active()) continue;
      wait(part);
    }
    out.received[static_cast<std::size_t>(r)] = 1;
  }
  stream_ready();  // the blocks before rank 0's own, while it has not arrived
  // (a request that test() completed is not waited for again: the agent's wait goes by the
  // backend's completion, which test() has taken)
  if (!out.received[static_cast<std::size_t>(bslb_root)]) wait(self);
  out.received[static_cast<std::size_t>(bslb_root)] = 1;
  stream_ready();
  for (Request& r : sends.all) wait(r);
}

/// Rank v > 0's program: receive every segment from v - 1 and pass it on to v + 1.
template <class Wait>
void chain_program(Comm& comm, const Stream& s, Blocks out, Wait&& wait) {
  const int me = comm.rank();
  const bool has_next = me + 1 < comm.size();
  std::vector<Request> receives;
  receives.reserve(s.order.size() * s.segments);
  for (int r : s.order) {
    if (!s.carried(me, r)) continue;
    std::vector<std::byte>& dst = out.data[static_cast<std::size_t>(r)];
    dst.resize(s.block);
    for (std::size_t t = 0; t < s.segments; ++t) {
      receives.push_back(comm.irecv(me - 1, s.tag, dst.data() + t * s.per, s.length(t)));
    }
  }
  InFlight sends;
  std::size_t i = 0;
  for (int r : s.order) {
    if (!s.carried(me, r)) continue;
    const std::byte* data = out.data[static_cast<std::size_t>(r)].data();
    for (std::size_t t = 0; t < s.segments; ++t, ++i) {
      wait(receives[i]);
      if (!has_next || !s.carried(me + 1, r)) continue;
      Request& send = sends.next();
      wait(send);
      send = comm.isend(me + 1, s.tag, data + t * s.per, s.length(t));
    }
    out.received[static_cast<std::size_t>(r)] = 1;
  }
  for (Request& r : sends.all) wait(r);
}

/// This rank's program; `wait(request)` waits for one active request.
template <class Wait>
void program(Comm& comm, const Stream& s, Blocks out, Wait&& wait) {
  out.data.assign(static_cast<std::size_t>(comm.size()), {});
  out.received.assign(static_cast<std::size_t>(comm.size()), 0);
  const auto active = [&](Request& r) {
    if (r.active()) wait(r);
  };
  if (comm.rank() == bslb_root) {
    root_program(comm, s, out, active);
  } else {
    chain_program(comm, s, out, active);
  }
}

}  // namespace

namespace internal {

void bslb_background(Comm& comm, const ArrivalSnapshot& snapshot, BackgroundSlot& slot, BackgroundContext& context) {
  const int procs = comm.size();
  if (snapshot.size() != procs || procs < 2) return;
  const Stream s(snapshot, procs, static_cast<std::size_t>(slot.agreed().block_bytes));
  program(comm, s, Blocks{slot.segments, slot.received}, [&](Request& r) { context.wait(r); });
}

}  // namespace internal

void allgather_bslb(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t block = count * size_of(type);
  const auto p = static_cast<std::size_t>(procs);
  const ArrivalSnapshot* snapshot = ctx.arrival();
  if (procs == 1) return;  // dispatch copied the one block into recvbuf
  // A balanced pattern leaves nothing to absorb: the gather and broadcast would only cost more
  // than an allgather algorithm; dispatch runs the regular one the list names for this case
  // (NEX; the agents ran no background either; monitor.cpp).
  if (snapshot != nullptr && snapshot->size() == procs && snapshot->balanced(block)) {
    (void)internal::run_balanced(ctx, sendbuf, recvbuf, count, type);
    return;
  }
  const internal::PlanKey call = internal::plan_key(Collective::allgather, "bslb", block, bslb_root);
  internal::BackgroundSlot* slot = internal::slot_of(ctx);
  if (snapshot == nullptr || snapshot->size() != procs || slot == nullptr || !slot->planned(call)) {
    // The paper's form. Dispatch copied the root's own block into recvbuf for the gather; the
    // others send theirs from sendbuf.
    Context gather_ctx = ctx.half(0);
    (void)internal::run_listed<Collective::gather>(gather_ctx, "bsls", sendbuf, recvbuf, count, type, bslb_root);
    (void)internal::dispatch_bcast(ctx.half(1), recvbuf, p * count, type, bslb_root);
    return;
  }

  // Every agent runs the stream. This rank's block goes to rank 0 first (rank 0: to its own
  // agent), from recvbuf, where dispatch copied it and where nothing is written before the end.
  std::byte* out = internal::bytes(recvbuf);
  std::byte* own = out + static_cast<std::size_t>(me) * block;
  const Stream s(*snapshot, procs, block);
  Request self;
  if (me == bslb_root) {
    self = comm.isend(bslb_root, internal::tag_bslb_self, own, block);
  } else {  // the sender's side of the sorted gather: wait for rank 0's signal, send the block
    internal::sorted_gather_foreground(ctx, own, recvbuf, count, type, bslb_root, s.signal_tag, s.data_tag);
  }
  std::vector<std::vector<std::byte>> data;
  std::vector<char> received;
  const std::vector<std::vector<std::byte>>* blocks = &data;
  const std::vector<char>* in = &received;
  if (internal::BackgroundSlot* done = slot->claim(call)) {
    blocks = &done->segments;
    in = &done->received;
  } else {  // the agent had not begun: run its program here
    program(comm, s, Blocks{data, received}, [&](Request& r) { r.wait(ctx.timeout()); });
  }
  for (int r = 0; r < procs; ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (r == me) continue;
    if (i >= in->size() || !(*in)[i]) throw Error("bslb: the stream finished without rank " + std::to_string(r));
    std::memcpy(out + i * block, (*blocks)[i].data(), block);
  }
  self.wait(ctx.timeout());
}

}  // namespace ragged
