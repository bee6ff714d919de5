// libragged_pmpi.so: arrival prediction per call site, without source changes (docs/pmpi.md, "Arrival awareness").
//
// For every call site (communicator, collective, bytes) of an allgather or allreduce that
// selection runs as `auto`, the library keeps a Monitor of the arrival runtime (ragged/arrival.hpp)
// on a private copy of the communicator, and plays the program's part of Proficz 2021's monitor calls
// itself, from the collectives it sees:
//
//   a collective on the communicator returns         the exit hook (after())
//     it is the one that preceded the site's call     monitor.processing_start(): the agent
//     last time (counted in calls on the communicator) publishes start + the moving average
//                                                     of the phase before the site
//   the site's call                                   at_call()
//     no processing_start in this epoch               monitor.processing_started_at(last exit)
//     snapshot = monitor.arrive()                     every rank's record, exchanged by the agent
//     CollectiveOptions::hints.set(snapshot)          `auto` reads it: imbalanced -> bdr, bgd, ...
//     the algorithm runs on the monitor's Comm        (its background part runs on the agent)
//
// Every decision (which sites are tracked, when a monitor is made, which exit starts the phase)
// rests on the sequence of collective calls on the communicator, which MPI makes the same on
// every rank, and on the environment; so every rank makes its monitors in the same calls and
// the agents exchange one record per rank and call.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <memory>

#include "ragged/arrival.hpp"
#include "ragged/registry.hpp"

namespace ragged::pmpi {

struct CommAttribute;

namespace prediction {

/// How many communicators have an arrival State: the exit hook does nothing while it is 0.
extern std::atomic<int> communicators;

/// Whether a call of `collective` may carry an arrival snapshot: an allgather, allreduce, bcast,
/// reduce, gather or scatter (the collectives with arrival-aware algorithms),
/// RAGGED_ARRIVAL unset or "auto" (not "off"), and MPI granted MPI_THREAD_MULTIPLE (the agent is
/// a thread that communicates). Read at every call, like RAGGED_<COLLECTIVE>.
[[nodiscard]] bool applies(Collective collective);

/// Arrival awareness off for every call made on the calling thread (a nonblocking collective's
/// worker, nonblocking.hpp: the monitors follow the program's own sequence of calls).
void off_on_this_thread();

/// The snapshot of this call of the site (`collective`, `bytes`) of `state`'s communicator, or
/// null while the site is not tracked (its first call; or the communicator has its maximum of
/// tracked sites). Collective over the communicator: it may make the site's monitor. When it
/// returns a snapshot, `site_comm` is the Comm the call must run on.
[[nodiscard]] std::shared_ptr<const ArrivalSnapshot> at_call(CommAttribute& state, Collective collective,
                                                             std::size_t bytes, Comm*& site_comm);

/// The spread hint of the site (`collective`, `bytes`) for `auto` (ArrivalSpread): the arrivals
/// of its last exchanged snapshot were spread by at least a block's tau (and 5 ms); null
/// otherwise. The same on every rank (it comes from the snapshots). Call after at_call();
/// `auto` acts on it only when the call has no usable (imbalanced) snapshot.
[[nodiscard]] std::shared_ptr<const ArrivalSpread> spread(CommAttribute& state, Collective collective,
                                                          std::size_t bytes);

/// The exit hook of every collective the library defines: `comm`'s collective returned `rc`.
void after_slow(MPI_Comm comm);
inline int after(MPI_Comm comm, int rc) {
  if (communicators.load(std::memory_order_relaxed) != 0 && rc == MPI_SUCCESS) [[unlikely]]
    after_slow(comm);
  return rc;
}

/// MPI_Finalize: stops every monitor of the process in the order they were made (each stop is
/// collective over its communicator; the order is the same on every rank of it).
void finalize_all();

/// The communicator's arrival state: its sites and their monitors (site_prediction.cpp).
struct State;
/// Frees `state` (its monitors first, collectively); used by CommAttribute's shared_ptr.
void destroy(State* state);

}  // namespace prediction
}  // namespace ragged::pmpi
