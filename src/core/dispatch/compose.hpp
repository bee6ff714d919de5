// Composition through dispatch: an algorithm that runs another collective as one of its parts
// (allgather "lnbc" and "bslb" broadcast what they gathered) asks dispatch for the algorithm
// that a call of that collective would select, instead of naming one. So a better broadcast
// in the list, a RAGGED_BCAST setting or a rules file reaches those algorithms too.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "ragged/comm.hpp"
#include "ragged/context.hpp"
#include "ragged/datatype.hpp"
#include "ragged/registry.hpp"

namespace ragged::internal {

/// A hint for a broadcast composed into another collective whose root buffer still fills while
/// the broadcast runs (allgather lnbc gathers into it). At the root, a bcast whose entry streams
/// its source (Restrictions::streams_source) calls wait_source(ctx, begin, end) before it sends
/// bytes [begin, end), and asks for the ranges in the order it sends them, so the source can
/// fill them in that order; dispatch_bcast waits for the whole buffer before any other bcast.
/// The hint also changes `auto`'s choice (CallInfo::source_fills), so every rank of the bcast
/// must carry it, not only the root; the other ranks' is never called.
struct SourceProgress {
  /// Returns once bytes [begin, end) of the root's buffer hold their final values.
  std::function<void(std::size_t begin, std::size_t end)> wait;
  /// Tells the source that the root will send bytes [begin, end) to no one, so it may fill
  /// them last (a chain's root never sends its successor the block that one holds). Optional.
  std::function<void(std::size_t begin, std::size_t end)> unsent;
  /// Tells the source, before the first wait, the ranges the root will wait for in the order it
  /// will ask for them, so it may bring them in that order from the start. Optional.
  std::function<void(const std::vector<std::pair<std::size_t, std::size_t>>& ranges)> plan;
};

/// At the root of a bcast: waits until bytes [begin, end) of the buffer are in (a no-op without
/// a SourceProgress hint or for an empty range).
inline void wait_source(const Context& ctx, std::size_t begin, std::size_t end) {
  if (begin >= end) return;
  if (const SourceProgress* source = ctx.hints().get<SourceProgress>()) source->wait(begin, end);
}

/// A hint for a composed bcast in which every rank r already holds bytes [r block, (r + 1) block)
/// of the buffer (allgather lnbc: each rank's own block). A bcast whose entry streams its source
/// (Restrictions::streams_source) sends a rank only the bytes it lacks (send_lacking,
/// receive_lacking); any other sends everything, which rewrites those bytes with the values they
/// hold. It changes the messages, so every rank of the bcast carries the same hint.
struct HeldBlocks {
  std::size_t block = 0;  ///< bytes; 0 holds nothing
};

/// A hint for a composed bcast under HeldBlocks whose non-root ranks also send their held block
/// to the root (allgather lnbc's gather): the bcast decides when that send starts. A bcast whose
/// entry streams its source (Restrictions::streams_source) calls start() itself, at a moment of
/// its choosing and at the latest before its first wait: the owner-first chain when the root
/// asks for that block, with its own sends held back meanwhile (wait()), so the block has the
/// rank's link to itself; the double tree at once. dispatch_bcast starts it before any other
/// bcast. Both are idempotent; wait() starts the send if it has not started.
struct OwnBlockSend {
  std::function<void()> start;  ///< starts this rank's send of its block to the root
  std::function<void()> wait;   ///< starts it if need be, and returns once it is done
};

/// On a rank that is not the bcast's root: starts its own block's send to the root (a no-op
/// without an OwnBlockSend hint).
inline void start_own_block(const Context& ctx) {
  if (const OwnBlockSend* own = ctx.hints().get<OwnBlockSend>()) own->start();
}

/// Up to two byte ranges [first, second), in buffer order; empty ones have first == second.
using Ranges = std::array<std::pair<std::size_t, std::size_t>, 2>;

/// The bytes of [begin, end) that `rank` lacks under the call's HeldBlocks hint (all of them
/// without one): [begin, end) less rank's block, at most two ranges.
inline Ranges lacking(const Context& ctx, int rank, std::size_t begin, std::size_t end) {
  const HeldBlocks* held = ctx.hints().get<HeldBlocks>();
  if (held == nullptr || held->block == 0) return {{{begin, end}, {end, end}}};
  const std::size_t lo = static_cast<std::size_t>(rank) * held->block;
  const std::size_t hi = lo + held->block;
  if (hi <= begin || lo >= end) return {{{begin, end}, {end, end}}};
  return {{{begin, std::max(begin, lo)}, {std::min(end, hi), end}}};
}

/// At the root of a bcast: tells a filling source that the root sends bytes [begin, end) to no
/// one (SourceProgress::unsent; a no-op without one).
inline void source_unsent(const Context& ctx, std::size_t begin, std::size_t end) {
  const SourceProgress* source = ctx.hints().get<SourceProgress>();
  if (source != nullptr && source->unsent && begin < end) source->unsent(begin, end);
}

/// At the root of a bcast: tells a filling source the ranges it will wait for, in that order
/// (SourceProgress::plan; a no-op without one).
inline void source_plan(const Context& ctx, const std::vector<std::pair<std::size_t, std::size_t>>& ranges) {
  const SourceProgress* source = ctx.hints().get<SourceProgress>();
  if (source != nullptr && source->plan) source->plan(ranges);
}

/// At the root of a bcast: waits until the bytes of both ranges are in, the first first (see
/// the other overload).
inline void wait_source(const Context& ctx, const Ranges& r) {
  for (const auto& [begin, end] : r) wait_source(ctx, begin, end);
}

/// Starts the sends of the bytes of [begin, end) of `data` that `to` lacks: a message per
/// non-empty range, in buffer order (MPI keeps them in order on one tag).
inline std::array<Request, 2> send_lacking(const Context& ctx, int to, int tag, const std::byte* data,
                                           std::size_t begin, std::size_t end) {
  std::array<Request, 2> out;
  const Ranges r = lacking(ctx, to, begin, end);
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r[i].first < r[i].second) {
      out[i] = ctx.comm().isend(to, tag, data + r[i].first, r[i].second - r[i].first);
    }
  }
  return out;
}

/// Posts the receives, from `from`, of the bytes of [begin, end) this rank lacks: the
/// counterpart of the sender's send_lacking().
inline std::array<Request, 2> receive_lacking(const Context& ctx, int from, int tag, std::byte* data, std::size_t begin,
                                              std::size_t end) {
  std::array<Request, 2> out;
  const Ranges r = lacking(ctx, ctx.rank(), begin, end);
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r[i].first < r[i].second) {
      out[i] = ctx.comm().irecv(from, tag, data + r[i].first, r[i].second - r[i].first);
    }
  }
  return out;
}

/// Waits for both requests of a pair.
inline void wait_both(std::array<Request, 2>& requests, Timeout timeout) {
  for (Request& r : requests) r.wait(timeout);
}

/// The number of this call among the calls of the running algorithm (ctx.algorithm()) on this
/// communicator, 1 for the first: for algorithms whose consecutive calls must tell their
/// messages apart (allgather push: by the call's parity). Kept by dispatch per communicator.
[[nodiscard]] std::uint64_t call_number(const Context& ctx);

/// Runs the bcast of `count` elements of `type` from `root` that dispatch selects for it
/// (RAGGED_BCAST, the rules file of RAGGED_TUNING_FILE, else `auto`; the enclosing call's own
/// algorithm name is not a bcast's and plays no part) under `ctx`: its tags (give it a
/// sub-block, ctx.sub()), deadline, workspace and hints. An arrival snapshot among the hints
/// gives `auto` only its link model: every rank is already inside the enclosing call, so the
/// choice is among the regular algorithms (CallInfo::sub_call). The arguments are the
/// enclosing algorithm's and are not checked again; P = 1 and count 0 return at once. With a
/// SourceProgress hint the root's buffer may still be filling (see there).
/// Returns the algorithm that ran.
const Algorithm& dispatch_bcast(const Context& ctx, void* buffer, std::size_t count, DataType type, int root);

/// Runs, as a part of the running algorithm, the allreduce that dispatch selects for it (as
/// dispatch_bcast: RAGGED_ALLREDUCE, the rules file, else `auto` among the regular algorithms)
/// under `ctx`'s deadline, workspace and hints, on the allreduce's own whole block of tags (the
/// enclosing call's tags stay its own; whatever allreduce runs may split the block further). In place: `sendbuf` may
/// equal `recvbuf`, which holds this rank's operand on entry. A non-commutative `op` gets reduce_bcast as a call would.
/// Returns the algorithm that ran.
const Algorithm& dispatch_allreduce(const Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count,
                                    DataType type, const ReduceOp& op);

/// The running arrival-aware algorithm (ctx.algorithm()) found the call's arrivals balanced:
/// runs, under the same context and arguments, the regular algorithm its list entry names for
/// that case (Restrictions::balanced; "auto": the best regular one by the cost models), with
/// that one's restrictions and fallback. The choice is the list's, not the algorithm's code.
/// Returns the algorithm that ran.
const Algorithm& run_balanced(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type);
const Algorithm& run_balanced(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                              const ReduceOp& op);

// ------------------------------------------------------------------ parts on other communicators
// A composing algorithm (the hierarchical family, docs/algorithms/hierarchical.md) runs each of its
// phases as a collective of its own on a communicator of its own (a SubComm of the caller's, or the
// caller's): part_context() gives the part its Context, and dispatch_part() (or the typed part_*
// below, which do what the front door does: the own-block copy, P = 1, count 0) selects the part's
// algorithm as a call would (RAGGED_<COLLECTIVE>, the rules file, else `auto` among the regular
// algorithms, CallInfo::sub_call) and runs it.

/// A Context for a part of the running algorithm on `on` (ctx.comm() or a SubComm of it) with tags
/// `tags` (a sub-block of the caller's: parts that may overlap on one rank, or that exchange
/// between the same ranks, take disjoint ones), the caller's deadline and workspace (the part may
/// overwrite every slot: keep no data of the caller's there across it) and hints. On another
/// communicator the NodeLayout hint is `on`'s own layout (Comm::layout(), which a SubComm always
/// has), not the caller's, which describes other ranks. `storage` holds those hints and must
/// outlive the context.
[[nodiscard]] Context part_context(const Context& ctx, Comm& on, TagBlock tags, Hints& storage);

/// The algorithm of collective `collective` that dispatch selects for a part under `part` (its
/// Comm, hints and layout), `bytes`, `commutative` and a reduction's `element` size as CallInfo has
/// them. On a SubComm an algorithm of one backend ("native") is replaced by `auto`'s choice: it
/// needs the backend's own communicator.
[[nodiscard]] const Algorithm& select_part(const Context& part, Collective collective, std::size_t bytes,
                                           bool commutative, std::size_t element = 0);

/// Selects (select_part) and runs collective C under `part`, with C's algorithm arguments (the
/// front door's work done by the caller), a reduction's `element` size naming its gamma
/// (CallInfo::element_bytes). Returns the algorithm that ran.
template <Collective C, class... Args>
const Algorithm& dispatch_reduction_part(const Context& part, std::size_t bytes, bool commutative, std::size_t element,
                                         Args&&... args) {
  const Algorithm& algorithm = select_part(part, C, bytes, commutative, element);
  Context sub(part.comm(), part.tags(), part.timeout(), part.workspace(), part.hints(), &algorithm);
  std::get<static_cast<std::size_t>(C)>(algorithm.fn)(sub, std::forward<Args>(args)...);
  return algorithm;
}
/// The same for a collective that reduces nothing.
template <Collective C, class... Args>
const Algorithm& dispatch_part(const Context& part, std::size_t bytes, bool commutative, Args&&... args) {
  return dispatch_reduction_part<C>(part, bytes, commutative, 0, std::forward<Args>(args)...);
}

/// The part collectives, each with the front door's own work: allreduce in place on `buffer`.
const Algorithm& part_allreduce(const Context& part, void* buffer, std::size_t count, DataType type,
                                const ReduceOp& op);
/// Allreduce in place on `buffer` as part_allreduce, for a part whose hints carry an ArrivalSnapshot
/// of the part's own ranks (set by the caller after part_context(), which drops the caller's):
/// `auto` weighs it as it weighs a call's own snapshot, among the arrival-aware algorithms when it
/// is imbalanced (allreduce hierarchical_arrival's allreduce among the node representatives, with
/// the nodes' arrivals). The snapshot must have no background part (built by the caller, not the
/// agent): no agent prepared this part.
const Algorithm& part_allreduce_arrival(const Context& part, void* buffer, std::size_t count, DataType type,
                                        const ReduceOp& op);
/// Reduce: `recvbuf` matters at the root only and may equal `sendbuf` there (in place).
const Algorithm& part_reduce(const Context& part, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                             const ReduceOp& op, int root);
/// Reduce-scatter of `sendbuf` (the sum of `recvcounts` elements) into each rank's `recvbuf`
/// (recvcounts[rank()] elements; not in place); selected on all the elements' bytes.
const Algorithm& part_reduce_scatter(const Context& part, const void* sendbuf, void* recvbuf,
                                     std::span<const int> recvcounts, DataType type, const ReduceOp& op);
/// Gather of `count` elements from every rank into the root's `recvbuf` (rank order).
const Algorithm& part_gather(const Context& part, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                             int root);
/// Scatter of the root's `sendbuf`, block r to rank r's `recvbuf`.
const Algorithm& part_scatter(const Context& part, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                              int root);
/// Allgather into `recvbuf`, whose block rank() already holds this rank's own block.
const Algorithm& part_allgather(const Context& part, void* recvbuf, std::size_t count, DataType type);
/// Allgatherv into `recvbuf` (counts and displacements in elements, one per rank), whose block
/// rank() already holds this rank's own block; selected on all the blocks' bytes and the largest.
const Algorithm& part_allgatherv(const Context& part, void* recvbuf, std::span<const int> recvcounts,
                                 std::span<const int> displs, DataType type);
/// Alltoallv of MPI's arguments (counts and displacements in elements, one per rank).
const Algorithm& part_alltoallv(const Context& part, const void* sendbuf, std::span<const int> sendcounts,
                                std::span<const int> sdispls, void* recvbuf, std::span<const int> recvcounts,
                                std::span<const int> rdispls, DataType type);

/// Runs the listed algorithm `name` of collective C as a part of the running one, under `ctx`
/// (its tags, deadline, workspace and hints), with the arguments of C's signature as the
/// algorithm takes them (dispatch's checks and own-block copy already done by the caller). For
/// compositions that define an algorithm, where the part is the paper's and not a choice: bslb
/// is Proficz 2021's BSLS gather then a broadcast; reduce_bcast a binomial reduce in rank order
/// then a binomial bcast; gatherv and scatterv `padded` the binomial gather and scatter of padded
/// blocks. Through the list, as every composition goes through dispatch: no algorithm calls
/// another's function. Returns the algorithm that ran.
template <Collective C, class... Args>
const Algorithm& run_listed(const Context& ctx, std::string_view name, Args&&... args) {
  const Algorithm& part = Registry::instance().find(C, name);
  Context sub(ctx.comm(), ctx.tags(), ctx.timeout(), ctx.workspace(), ctx.hints(), &part);
  std::get<static_cast<std::size_t>(C)>(part.fn)(sub, std::forward<Args>(args)...);
  return part;
}

}  // namespace ragged::internal
