// The threshold broadcast and reduce of Iakymchuk et al. 2021, §III-B, on notified one-sided writes.
//
// Both run on the binomial tree of plans/binomial_tree.hpp (relative ranks, the root is 0,
// children v + 2^j for 2^j below the lowest set bit of v) over a window kept per
// communicator (internal/window_cache.hpp), with the producer/consumer protocol of the
// table I of Iakymchuk et al. 2021: the consumer notifies "ready" when its receive area may be written, the
// producer writes with put_notify, and an acknowledgement closes the transfer.
//
// Broadcast of m elements (m = ceil(t count), the first ones), P = 8, root 0:
//
//   every v > 0: ready ──> parent                (my receive area is free)
//   0 ──> 4 ──> 6 ──> 7     data, after the child's ready, farthest child first
//   0 ──> 2 ──> 3   4 ──> 5
//   0 ──> 1
//   every leaf (1, 3, 5, 7): ack ──> parent      (the outer nodes have the data)
//
// A parent returns when its writes are issued and its leaf children have acknowledged; only
// the leaves acknowledge (the paper: "the collective is considered complete when the outer
// nodes receive data").
//
// Reduce over the relative ranks [0, n) (n = P, or fewer for a process threshold: the tree
// of n ranks is the first n ranks of the tree of P), m elements each:
//
//   parent: ready ──> each child                 (its slot in my window is free)
//   child:  waits for ready, writes its partial result into its slot of the parent's window
//   parent: reduces the slots nearest child first, acknowledges each ──> child
//
// Cross-call safety. The window lives from call to call and ranks drift apart: a rank may
// start call k+1 (with another root, count or threshold) while another still works on
// call k. Nothing is ever written into a rank's window except after that rank's own "ready"
// of the same call, so call k+1's data never lands on call k's. Every notification carries
// the call's number and is checked. Notification slots are indexed by kind and by the
// distance 2^j between the two ranks, which names the peer: rank s is at distance
// (x - s) mod P of rank x whatever the root, and two distinct powers of two below P are
// distinct mod P. A peer's next notification in the same slot comes only after the
// notification before it was consumed (each is answered before the sender can finish its
// call), so no notification overwrites one not yet read.
//
// Reference: R. Iakymchuk, A. Faustino, A. Emerson, J. Barreto, V. Bartsch, R. Rodrigues, J. C. Monteiro, "Efficient
//   and Eventually Consistent Collective Operations", IPDPS Workshops (IPDPSW) 2021, §III-B and table I.
// Limitation: eventually consistent: a call may return with only the threshold's part of the data or of the
//   contributors (ThresholdStatus says which); needs a window (RMA, or its emulation).
// Memory: a window per communicator, m bytes (bcast) or ceil(log2 P) slots of m bytes (reduce), and 3 ceil(log2 P)
//   notifications, kept from call to call.
//
// Window of rank x: m bytes (bcast), or ceil(log2 P) slots of m bytes, slot j for the child
// at distance 2^j (reduce); 3 ceil(log2 P) notifications: id = kind * ceil(log2 P) + j.
#include <cstdint>
#include <string>
#include <vector>

#include "internal/common.hpp"
#include "internal/threshold.hpp"
#include "internal/window_cache.hpp"
#include "plans/binomial_tree.hpp"
#include "plans/threshold_plan.hpp"
#include "ragged/error.hpp"

namespace ragged::internal {

namespace {

namespace tree = plans::binomial;
namespace plan = plans::threshold;

enum class Kind { data = 0, ready = 1, ack = 2 };
constexpr int kinds = 3;

/// Notification ids: kind * rounds + j, j the distance index of the peer.
struct Slots {
  int rounds;
  [[nodiscard]] int id(Kind kind, int j) const { return static_cast<int>(kind) * rounds + j; }
};

const char* name_of(Kind kind) {
  switch (kind) {
    case Kind::data:
      return "data";
    case Kind::ready:
      return "ready";
    case Kind::ack:
      return "ack";
  }
  return "?";
}

/// Waits for notification (kind, j), consumes it and checks that it belongs to this call.
void await(const Context& ctx, Window& window, const Slots& slots, Kind kind, int j, std::uint64_t call) {
  const int id = slots.id(kind, j);
  window.notify_wait_some(id, 1, ctx.timeout());
  const std::uint64_t got = window.notify_reset(id);
  if (got != call) {
    throw Error("threshold collective: rank " + std::to_string(ctx.rank()) + " got the " + name_of(kind) +
                " notification of call " + std::to_string(got) + " from distance " + std::to_string(1 << j) +
                " during call " + std::to_string(call) + " (protocol broken)");
  }
}

/// Sends notification (kind, j) with no data to `target`.
void notify(Window& window, const Slots& slots, int target, Kind kind, int j, std::uint64_t call) {
  window.put_notify(target, 0, nullptr, 0, slots.id(kind, j), call);
}

}  // namespace

void bcast_threshold_binomial(Context& ctx, void* buffer, std::size_t elements, DataType type, int root) {
  const int procs = ctx.size();
  const std::size_t bytes = elements * size_of(type);
  const Slots slots{tree::rounds(procs)};
  const CachedWindow cached = cached_window(ctx, "bcast_threshold", bytes, kinds * slots.rounds);
  Window& window = cached.window;
  const std::uint64_t call = cached.call;
  const int v = tree::relative(ctx.rank(), root, procs);
  const auto rank_of = [&](int relative) { return tree::absolute(relative, root, procs); };

  int up = -1;  // distance index of the parent
  if (v != 0) {
    up = plan::distance_index(tree::lowest_bit(v));
    const int parent = rank_of(tree::parent(v));
    notify(window, slots, parent, Kind::ready, up, call);
    await(ctx, window, slots, Kind::data, up, call);
    copy_bytes(buffer, window.local().data(), bytes);
  }
  const std::vector<int> children = tree::children(v, procs);
  for (auto c = children.rbegin(); c != children.rend(); ++c) {  // farthest (largest subtree) first
    const int j = plan::distance_index(*c - v);
    await(ctx, window, slots, Kind::ready, j, call);
    window.put_notify(rank_of(*c), 0, buffer, bytes, slots.id(Kind::data, j), call);
    // One write at a time (table I: the producer waits until its write is done): the farthest
    // child gets the whole link first, as in a binomial tree; writes issued together would
    // share it and every child would wait for all of them.
    window.flush();
  }
  if (v != 0 && children.empty()) notify(window, slots, rank_of(tree::parent(v)), Kind::ack, up, call);
  for (const int c : children) {
    if (plan::is_leaf(c, procs)) await(ctx, window, slots, Kind::ack, plan::distance_index(c - v), call);
  }
}

void reduce_threshold_binomial(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t elements, DataType type,
                               const ReduceOp& op, int root, int contributors) {
  const int procs = ctx.size();
  const std::size_t bytes = elements * size_of(type);
  const Slots slots{tree::rounds(procs)};
  // Every rank takes the window, those outside the kept stages too: the cache is collective.
  const CachedWindow cached =
      cached_window(ctx, "reduce_threshold", static_cast<std::size_t>(slots.rounds) * bytes, kinds * slots.rounds);
  Window& window = cached.window;
  const std::uint64_t call = cached.call;
  const int v = tree::relative(ctx.rank(), root, procs);
  if (!plan::contributes(v, contributors)) return;
  const auto rank_of = [&](int relative) { return tree::absolute(relative, root, procs); };

  const std::vector<int> children = tree::children(v, contributors);  // nearest first
  for (const int c : children) notify(window, slots, rank_of(c), Kind::ready, plan::distance_index(c - v), call);

  std::byte* const area = window.local().data();
  const void* acc = sendbuf;
  if (v == 0) {
    copy_bytes(recvbuf, sendbuf, bytes);  // a no-op in place
    acc = recvbuf;
  }
  for (const int c : children) {
    const int j = plan::distance_index(c - v);
    await(ctx, window, slots, Kind::data, j, call);
    std::byte* const slot = area + static_cast<std::size_t>(j) * bytes;
    if (v == 0) {
      reduce_local(op, type, slot, recvbuf, elements);  // recvbuf = child ∘ recvbuf
    } else {
      reduce_local(op, type, acc, slot, elements);  // slot = acc ∘ child, the new partial result
      acc = slot;
    }
    ctx.runtime().charge(static_cast<double>(elements));
    notify(window, slots, rank_of(c), Kind::ack, j, call);
  }
  if (v != 0) {
    const int j = plan::distance_index(tree::lowest_bit(v));
    const int parent = rank_of(tree::parent(v));
    await(ctx, window, slots, Kind::ready, j, call);
    window.put_notify(parent, static_cast<std::size_t>(j) * bytes, acc, bytes, slots.id(Kind::data, j), call);
    await(ctx, window, slots, Kind::ack, j, call);
  }
}

}  // namespace ragged::internal
