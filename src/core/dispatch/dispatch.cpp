// Dispatch: the one place between every caller and the algorithms (docs/design.md, "Dispatch").
//
//   caller (C++ API, typed API, benchmarks, tests, PMPI)
//     -> validate the arguments once (InvalidArgument names the argument)
//     -> select (call, RAGGED_<COLLECTIVE>, rules file, auto), enforce restrictions (fallback, said once)
//     -> resolve in_place, copy the caller's own block, stop here for P = 1 or count 0
//     -> build the Context (tag block, timeout, workspace, hints) and run the algorithm
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "arrival/background.hpp"
#include "dispatch/call.hpp"
#include "dispatch/compose.hpp"
#include "dispatch/state.hpp"
#include "internal/common.hpp"
#include "internal/sub_comm.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/registry.hpp"
#include "ragged/selection.hpp"
#include "ragged/topology.hpp"

namespace ragged {

namespace {

using internal::bytes;
using internal::check_buffer;
using internal::copy_bytes;
using internal::is_in_place;

using internal::check_count;
using internal::check_vector;
using internal::extent;
using internal::reject_in_place;
using internal::tags_of;

constexpr int tag_block_first = 10000;
constexpr int tag_block_size = 64;

/// Says once per communicator and (collective, requested name) that a fallback runs.
void report_fallback(Comm& comm, Collective collective, const Selection& s) {
  if (s.fallback_reason.empty()) return;
  internal::DispatchState& state = internal::dispatch_state(comm);
  if (state.reported.emplace(static_cast<int>(collective), s.requested).second && comm.rank() == 0) {
    std::fprintf(stderr, "ragged: %s '%s' %s; running '%s' instead (said once per communicator)\n", name_of(collective),
                 s.requested.c_str(), s.fallback_reason.c_str(), s.algorithm->name.c_str());
  }
}

/// Selects the algorithm of a call (or of a sub-call: `sub_call`) and reports a fallback once.
/// `element`: a reduction's element size in bytes (CallInfo::element_bytes; 0 for the others).
const Algorithm& choose(Comm& comm, Collective collective, std::size_t bytes, bool commutative, const Hints& hints,
                        std::string_view requested, bool sub_call = false, bool source_fills = false,
                        std::size_t largest = 0, std::size_t element = 0) {
  CallInfo call;
  call.collective = collective;
  call.procs = comm.size();
  call.bytes = bytes;
  call.largest = largest;
  call.commutative = commutative;
  call.element_bytes = element;
  call.hints = &hints;
  call.backend = comm.backend();
  call.windows = comm.has_windows();
  call.max_message_bytes = comm.max_message_bytes();
  call.sub_call = sub_call;
  call.source_fills = source_fills;
  call.layout = layout_of(comm, hints);
  call.network = network_of(comm, hints);
  Selection s = select(call, requested);
  // A part on a sub-communicator cannot run a backend's own algorithm (it needs the backend's
  // communicator): `auto` instead.
  if (!s.algorithm->restrictions.backend.empty() && dynamic_cast<internal::SubComm*>(&comm) != nullptr) {
    s = internal::selection_for(call, Requested{"auto", "auto"});
  }
  report_fallback(comm, collective, s);
  return *s.algorithm;
}

/// The algorithm of a call: the selection it carries (made once, before the call, by its
/// caller), or dispatch's own.
const Algorithm& choose(Comm& comm, Collective collective, std::size_t bytes, bool commutative,
                        const CollectiveOptions& options, std::size_t largest = 0, std::size_t element = 0) {
  if (const Selection* made = options.selection) {
    if (made->algorithm == nullptr || made->algorithm->collective != collective) {
      throw InvalidArgument("options", std::string("carries a selection that is not a ") + name_of(collective) + "'s");
    }
    report_fallback(comm, collective, *made);
    return *made->algorithm;
  }
  return choose(comm, collective, bytes, commutative, options.hints, options.algorithm, false, false, largest, element);
}

template <Collective C, class... Args>
void run(Comm& comm, const Algorithm& algorithm, const CollectiveOptions& options, Args... args) {
  Context context = internal::call_context(comm, tags_of(C), options, &algorithm);
  std::get<static_cast<std::size_t>(C)>(algorithm.fn)(context, args...);
}

/// A call that ends in dispatch (P = 1, count 0) gives up the background the arrival agent may
/// be running for it, as the algorithm's own claim would have.
const Algorithm& done_early(const Algorithm& algorithm, const CollectiveOptions& options) {
  if (const ArrivalSnapshot* snapshot = options.hints.get<ArrivalSnapshot>()) {
    if (internal::BackgroundSlot* slot = snapshot->background().get()) slot->abandon();
  }
  return algorithm;
}

}  // namespace

namespace internal {

TagBlock tags_of(Collective collective) {
  return TagBlock(tag_block_first + tag_block_size * static_cast<int>(collective), tag_block_size);
}

TagBlock tags_of(Unlisted collective) {
  constexpr int after_registry = static_cast<int>(std::size(all_collectives));
  return TagBlock(tag_block_first + tag_block_size * (after_registry + static_cast<int>(collective)), tag_block_size);
}

const Algorithm& choose_for_call(Comm& comm, Collective collective, std::size_t bytes, bool commutative,
                                 const CollectiveOptions& options, std::size_t largest, std::size_t element) {
  return choose(comm, collective, bytes, commutative, options, largest, element);
}

const Algorithm& ends_early(const Algorithm& algorithm, const CollectiveOptions& options) {
  return done_early(algorithm, options);
}

Context call_context(Comm& comm, TagBlock tags, const CollectiveOptions& options, const Algorithm* algorithm) {
  return Context(comm, tags, options.timeout, dispatch_state(comm).workspace, options.hints, algorithm);
}

void reject_in_place(const void* buffer, const char* argument, const char* where) {
  if (is_in_place(buffer)) throw InvalidArgument(argument, std::string("in_place is allowed only ") + where);
}

const Algorithm& dispatch_bcast(const Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  Comm& comm = ctx.comm();
  const bool source_fills = ctx.hints().get<SourceProgress>() != nullptr;
  const Algorithm& algorithm =
      choose(comm, Collective::bcast, count * size_of(type), true, ctx.hints(), {}, true, source_fills);
  if (comm.size() == 1 || count == 0) return algorithm;
  // A bcast that does not stream its source gets the whole buffer from the start.
  // And the other ranks' own blocks go to the root before it (OwnBlockSend).
  if (!algorithm.restrictions.streams_source) {
    if (comm.rank() == root) {
      wait_source(ctx, 0, count * size_of(type));
    } else {
      start_own_block(ctx);
    }
  }
  Context sub(comm, ctx.tags(), ctx.timeout(), ctx.workspace(), ctx.hints(), &algorithm);
  std::get<static_cast<std::size_t>(Collective::bcast)>(algorithm.fn)(sub, buffer, count, type, root);
  return algorithm;
}

namespace {

/// The regular algorithm that replaces the running arrival-aware one on balanced arrivals.
const Algorithm& balanced_choice(const Context& ctx, Collective collective, std::size_t bytes, bool commutative,
                                 std::size_t element = 0) {
  const Algorithm* running = ctx.algorithm();
  if (running == nullptr || running->collective != collective || running->restrictions.balanced.empty()) {
    throw InvalidArgument("algorithm", std::string(name_of(collective)) + " '" +
                                           (running != nullptr ? running->name : std::string("?")) +
                                           "' names no regular algorithm for balanced arrivals");
  }
  CallInfo call;
  call.collective = collective;
  call.procs = ctx.size();
  call.bytes = bytes;
  call.commutative = commutative;
  call.element_bytes = element;
  call.hints = &ctx.hints();
  call.backend = ctx.comm().backend();
  call.windows = ctx.comm().has_windows();
  call.max_message_bytes = ctx.comm().max_message_bytes();
  call.layout = ctx.layout();
  call.network = network_of(ctx.comm(), ctx.hints());
  call.sub_call = true;  // `auto` among the regular algorithms; the snapshot lends its link model
  const Selection s = selection_for(call, Requested{running->restrictions.balanced, "balanced"});
  return *s.algorithm;
}

}  // namespace

const Algorithm& run_balanced(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const Algorithm& algorithm = balanced_choice(ctx, Collective::allgather, count * size_of(type), true);
  Context sub(ctx.comm(), ctx.tags(), ctx.timeout(), ctx.workspace(), ctx.hints(), &algorithm);
  std::get<static_cast<std::size_t>(Collective::allgather)>(algorithm.fn)(sub, sendbuf, recvbuf, count, type);
  return algorithm;
}

const Algorithm& run_balanced(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                              const ReduceOp& op) {
  const Algorithm& algorithm =
      balanced_choice(ctx, Collective::allreduce, count * size_of(type), op.commutative, size_of(type));
  Context sub(ctx.comm(), ctx.tags(), ctx.timeout(), ctx.workspace(), ctx.hints(), &algorithm);
  std::get<static_cast<std::size_t>(Collective::allreduce)>(algorithm.fn)(sub, sendbuf, recvbuf, count, type, op);
  return algorithm;
}

const Algorithm& dispatch_allreduce(const Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count,
                                    DataType type, const ReduceOp& op) {
  Comm& comm = ctx.comm();
  const Algorithm& algorithm = choose(comm, Collective::allreduce, count * size_of(type), op.commutative, ctx.hints(),
                                      {}, true, false, 0, size_of(type));
  if (sendbuf != recvbuf) copy_bytes(recvbuf, sendbuf, count * size_of(type));
  if (comm.size() == 1 || count == 0) return algorithm;
  // On the allreduce's own block of tags, whole: the sub-call may compose further (reduce_bcast
  // splits its block in two), and no allreduce of this communicator runs meanwhile (its
  // collectives run one at a time, each done with its messages before it returns).
  Context sub(comm, tags_of(Collective::allreduce), ctx.timeout(), ctx.workspace(), ctx.hints(), &algorithm);
  std::get<static_cast<std::size_t>(Collective::allreduce)>(algorithm.fn)(sub, recvbuf, recvbuf, count, type, op);
  return algorithm;
}

const Algorithm& choose_for_part(Comm& comm, Collective collective, std::size_t bytes, bool commutative,
                                 const Hints& hints, bool sub_call, std::size_t largest, std::size_t element) {
  return choose(comm, collective, bytes, commutative, hints, {}, sub_call, false, largest, element);
}

}  // namespace internal

const Algorithm& allgather(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                           const CollectiveOptions& options) {
  const std::size_t block = count * size_of(type);
  const auto p = static_cast<std::size_t>(comm.size());
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, block, "sendbuf");
  reject_in_place(recvbuf, "recvbuf", "as sendbuf");
  check_buffer(recvbuf, p * block, "recvbuf");
  const Algorithm& algorithm = choose(comm, Collective::allgather, block, true, options);
  std::byte* own = bytes(recvbuf) + static_cast<std::size_t>(comm.rank()) * block;
  if (!is_in_place(sendbuf)) copy_bytes(own, sendbuf, block);
  if (p == 1 || block == 0) return done_early(algorithm, options);
  run<Collective::allgather>(comm, algorithm, options, static_cast<const void*>(own), recvbuf, count, type);
  return algorithm;
}

const Algorithm& allreduce(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                           const ReduceOp& op, const CollectiveOptions& options) {
  const std::size_t n = count * size_of(type);
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, n, "sendbuf");
  reject_in_place(recvbuf, "recvbuf", "as sendbuf");
  check_buffer(recvbuf, n, "recvbuf");
  const Algorithm& algorithm = choose(comm, Collective::allreduce, n, op.commutative, options, 0, size_of(type));
  const bool trivial = comm.size() == 1 || count == 0;
  // Algorithms run in place, on the caller's data copied into recvbuf, unless one reads sendbuf.
  const bool direct = algorithm.restrictions.reads_sendbuf && !is_in_place(sendbuf) && !trivial;
  if (!is_in_place(sendbuf) && !direct) copy_bytes(recvbuf, sendbuf, n);
  if (trivial) return done_early(algorithm, options);
  run<Collective::allreduce>(comm, algorithm, options, direct ? sendbuf : static_cast<const void*>(recvbuf), recvbuf,
                             count, type, std::cref(op));
  return algorithm;
}

const Algorithm& bcast(Comm& comm, void* buffer, std::size_t count, DataType type, int root,
                       const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  reject_in_place(buffer, "buffer", "as sendbuf or recvbuf");
  check_buffer(buffer, count * size_of(type), "buffer");
  const Algorithm& algorithm = choose(comm, Collective::bcast, count * size_of(type), true, options);
  if (comm.size() == 1 || count == 0) return done_early(algorithm, options);
  run<Collective::bcast>(comm, algorithm, options, buffer, count, type, root);
  return algorithm;
}

const Algorithm& reduce(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                        const ReduceOp& op, int root, const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  const std::size_t n = count * size_of(type);
  const bool at_root = comm.rank() == root;
  if (!at_root) reject_in_place(sendbuf, "sendbuf", "at the root");
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, n, "sendbuf");
  if (at_root) {
    reject_in_place(recvbuf, "recvbuf", "as sendbuf");
    check_buffer(recvbuf, n, "recvbuf");
  }
  const Algorithm& algorithm = choose(comm, Collective::reduce, n, op.commutative, options, 0, size_of(type));
  if (at_root && is_in_place(sendbuf)) sendbuf = recvbuf;
  if (comm.size() == 1) {
    copy_bytes(recvbuf, sendbuf, n);
    return algorithm;
  }
  if (count == 0) return done_early(algorithm, options);
  run<Collective::reduce>(comm, algorithm, options, sendbuf, recvbuf, count, type, std::cref(op), root);
  return algorithm;
}

const Algorithm& gather(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                        const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  const std::size_t block = count * size_of(type);
  const bool at_root = comm.rank() == root;
  if (!at_root) reject_in_place(sendbuf, "sendbuf", "at the root");
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, block, "sendbuf");
  if (at_root) {
    reject_in_place(recvbuf, "recvbuf", "as sendbuf");
    check_buffer(recvbuf, static_cast<std::size_t>(comm.size()) * block, "recvbuf");
  }
  const Algorithm& algorithm = choose(comm, Collective::gather, block, true, options);
  if (at_root) {
    std::byte* own = bytes(recvbuf) + static_cast<std::size_t>(root) * block;
    if (!is_in_place(sendbuf)) copy_bytes(own, sendbuf, block);
    sendbuf = own;
  }
  if (comm.size() == 1 || block == 0) return done_early(algorithm, options);
  run<Collective::gather>(comm, algorithm, options, sendbuf, recvbuf, count, type, root);
  return algorithm;
}

const Algorithm& scatter(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                         const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  const std::size_t block = count * size_of(type);
  const bool at_root = comm.rank() == root;
  if (!at_root) reject_in_place(recvbuf, "recvbuf", "at the root");
  if (!is_in_place(recvbuf)) check_buffer(recvbuf, block, "recvbuf");
  if (at_root) {
    reject_in_place(sendbuf, "sendbuf", "as recvbuf");
    check_buffer(sendbuf, static_cast<std::size_t>(comm.size()) * block, "sendbuf");
  }
  const Algorithm& algorithm = choose(comm, Collective::scatter, block, true, options);
  if (at_root) {
    const std::byte* own = bytes(sendbuf) + static_cast<std::size_t>(root) * block;
    if (is_in_place(recvbuf)) {
      recvbuf = const_cast<std::byte*>(own);  // the algorithm's own-block copy is then a no-op
    } else {
      copy_bytes(recvbuf, own, block);
    }
  }
  if (comm.size() == 1 || block == 0) return done_early(algorithm, options);
  run<Collective::scatter>(comm, algorithm, options, sendbuf, recvbuf, count, type, root);
  return algorithm;
}

const Algorithm& gatherv(Comm& comm, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                         std::span<const int> displs, DataType type, int root, const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  check_count(sendcount, "sendcount");
  const std::size_t es = size_of(type);
  const bool at_root = comm.rank() == root;
  if (!at_root) reject_in_place(sendbuf, "sendbuf", "at the root");
  if (at_root) {
    check_vector(comm, recvcounts, "recvcounts");
    check_vector(comm, displs, "displs");
    reject_in_place(recvbuf, "recvbuf", "as sendbuf");
    check_buffer(recvbuf, extent(recvcounts, displs) * es, "recvbuf");
  }
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, static_cast<std::size_t>(sendcount) * es, "sendbuf");
  const Algorithm& algorithm = choose(comm, Collective::gatherv, 0, true, options);
  if (at_root) {
    const auto r = static_cast<std::size_t>(root);
    std::byte* own = bytes(recvbuf) + static_cast<std::size_t>(displs[r]) * es;
    if (is_in_place(sendbuf)) {
      sendcount = recvcounts[r];
    } else if (sendcount == recvcounts[r]) {
      copy_bytes(own, sendbuf, static_cast<std::size_t>(sendcount) * es);
    }
    if (sendcount == recvcounts[r]) sendbuf = own;
  }
  if (comm.size() == 1) {
    if (sendcount != recvcounts[0]) {
      throw InvalidArgument("sendcount", "is " + std::to_string(sendcount) + " but the root expects " +
                                             std::to_string(recvcounts[0]) + " elements from itself");
    }
    return algorithm;
  }
  run<Collective::gatherv>(comm, algorithm, options, sendbuf, sendcount, recvbuf, recvcounts, displs, type, root);
  return algorithm;
}

const Algorithm& scatterv(Comm& comm, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                          void* recvbuf, int recvcount, DataType type, int root, const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  check_count(recvcount, "recvcount");
  const std::size_t es = size_of(type);
  const bool at_root = comm.rank() == root;
  if (!at_root) reject_in_place(recvbuf, "recvbuf", "at the root");
  if (at_root) {
    check_vector(comm, sendcounts, "sendcounts");
    check_vector(comm, displs, "displs");
    reject_in_place(sendbuf, "sendbuf", "as recvbuf");
    check_buffer(sendbuf, extent(sendcounts, displs) * es, "sendbuf");
  }
  if (!is_in_place(recvbuf)) check_buffer(recvbuf, static_cast<std::size_t>(recvcount) * es, "recvbuf");
  const Algorithm& algorithm = choose(comm, Collective::scatterv, 0, true, options);
  if (at_root) {
    const auto r = static_cast<std::size_t>(root);
    const std::byte* own = bytes(sendbuf) + static_cast<std::size_t>(displs[r]) * es;
    if (is_in_place(recvbuf)) {
      recvcount = sendcounts[r];
    } else if (recvcount == sendcounts[r]) {
      copy_bytes(recvbuf, own, static_cast<std::size_t>(recvcount) * es);
    }
    if (recvcount == sendcounts[r]) recvbuf = const_cast<std::byte*>(own);
  }
  if (comm.size() == 1) {
    if (recvcount != sendcounts[0]) {
      throw InvalidArgument("recvcount", "is " + std::to_string(recvcount) + " but the root sends " +
                                             std::to_string(sendcounts[0]) + " elements to itself");
    }
    return algorithm;
  }
  run<Collective::scatterv>(comm, algorithm, options, sendbuf, sendcounts, displs, recvbuf, recvcount, type, root);
  return algorithm;
}

const Algorithm& alltoall(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                          const CollectiveOptions& options) {
  const std::size_t block = count * size_of(type);
  const std::size_t total = static_cast<std::size_t>(comm.size()) * block;
  reject_in_place(recvbuf, "recvbuf", "as sendbuf");
  check_buffer(recvbuf, total, "recvbuf");
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, total, "sendbuf");
  const Algorithm& algorithm = choose(comm, Collective::alltoall, block, true, options);
  std::vector<std::byte> copy;
  if (is_in_place(sendbuf)) {
    copy.assign(bytes(recvbuf), bytes(recvbuf) + total);
    sendbuf = copy.data();
  }
  const std::size_t own = static_cast<std::size_t>(comm.rank()) * block;
  copy_bytes(bytes(recvbuf) + own, bytes(sendbuf) + own, block);
  if (comm.size() == 1 || block == 0) return done_early(algorithm, options);
  run<Collective::alltoall>(comm, algorithm, options, sendbuf, recvbuf, count, type);
  return algorithm;
}

const Algorithm& alltoallv(Comm& comm, const void* sendbuf, std::span<const int> sendcounts,
                           std::span<const int> sdispls, void* recvbuf, std::span<const int> recvcounts,
                           std::span<const int> rdispls, DataType type, const CollectiveOptions& options) {
  const std::size_t es = size_of(type);
  check_vector(comm, recvcounts, "recvcounts");
  check_vector(comm, rdispls, "rdispls");
  reject_in_place(recvbuf, "recvbuf", "as sendbuf");
  check_buffer(recvbuf, extent(recvcounts, rdispls) * es, "recvbuf");
  std::vector<std::byte> copy;
  if (is_in_place(sendbuf)) {  // MPI: the receive counts and displacements describe what is sent
    copy.assign(bytes(recvbuf), bytes(recvbuf) + extent(recvcounts, rdispls) * es);
    sendbuf = copy.data();
    sendcounts = recvcounts;
    sdispls = rdispls;
  } else {
    check_vector(comm, sendcounts, "sendcounts");
    check_vector(comm, sdispls, "sdispls");
    check_buffer(sendbuf, extent(sendcounts, sdispls) * es, "sendbuf");
  }
  const Algorithm& algorithm = choose(comm, Collective::alltoallv, 0, true, options);
  const auto r = static_cast<std::size_t>(comm.rank());
  if (sendcounts[r] != recvcounts[r]) {  // MPI: what a rank sends itself is what it receives from itself
    throw InvalidArgument("sendcounts", "rank " + std::to_string(r) + " sends itself " + std::to_string(sendcounts[r]) +
                                            " elements but expects " + std::to_string(recvcounts[r]));
  }
  copy_bytes(bytes(recvbuf) + static_cast<std::size_t>(rdispls[r]) * es,
             bytes(sendbuf) + static_cast<std::size_t>(sdispls[r]) * es, static_cast<std::size_t>(sendcounts[r]) * es);
  if (comm.size() == 1) return algorithm;
  run<Collective::alltoallv>(comm, algorithm, options, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls,
                             type);
  return algorithm;
}

}  // namespace ragged
