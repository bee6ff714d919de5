// libragged_pmpi.so: waiting for the library's own requests without spinning (docs/pmpi.md,
// "Nonblocking collectives", "Waiting").
//
//   MPI_Wait(r) / MPI_Waitall / MPI_Waitany / MPI_Waitsome   (the program's thread)
//     none of the requests is the library's, or the caller is a worker  -> PMPI_Wait...
//     else: sleep on a condition variable until the library's requests among them are done
//           (all of them; for Waitany/Waitsome: one, and only when every active request is
//           the library's), then PMPI_Wait... (which finds them complete)
//
// Why: the MPI library's MPI_Wait polls. A thread polling for a request that a worker completes
// holds a core the worker needs; where a node has fewer cores than threads (oversubscribed) the
// collective then advances one algorithm step per time slice. Asleep, the waiting thread gives its
// core to the worker. MPI_Test and its siblings stay the MPI library's: they never block.
//
//   MPI_Type_free(t) / MPI_Op_free(o)
//     no job or persistent request of the library's alive   -> PMPI_..._free
//     else: *t = null now; PMPI_..._free once the last of them has ended (the worker may still
//           use it: MPI lets the program free a datatype or an operator after the post)
#pragma once

#include <mpi.h>

#include <memory>

namespace ragged::pmpi::completion {

/// Whether one tracked request has completed (or can: its completion is under way).
struct Flag {
  bool done = false;  ///< guarded by the table's mutex
};
using Token = std::shared_ptr<Flag>;

/// Tracks `request` (a generalized request just made, a persistent request just started) until
/// done() or untrack(); a request tracked again gets a new flag. Called in the program's thread.
[[nodiscard]] Token track(MPI_Request request);

/// The worker: `token`'s request has completed (MPI_Grequest_complete returned, the persistent
/// request's receive matched). Wakes the threads waiting for it.
void done(const Token& token);

/// `request` was freed: forgets it if its flag is `flag` (any flag when null).
void untrack(MPI_Request request, const Flag* flag);

/// Whether any request is tracked (a relaxed look: await() checks again).
[[nodiscard]] bool tracking();

/// Blocks until the tracked requests among `requests[0..count)` are done: all of them (`all`), or
/// one of them when every active request among them is tracked (Waitany, Waitsome). Returns at
/// once when none is tracked, or on a worker.
void await(int count, const MPI_Request* requests, bool all);

/// The program's datatypes and operators outlive the calls that use them (MPI lets a program free
/// them once the call is posted, or once a persistent request is made): pin() when a job or a
/// persistent request begins, unpin() when it ends. MPI_Type_free and MPI_Op_free (defined by the
/// library) free at once while nothing is pinned, else when the last pin goes: the program's
/// handle becomes null at once either way.
void pin();
void unpin();

}  // namespace ragged::pmpi::completion
