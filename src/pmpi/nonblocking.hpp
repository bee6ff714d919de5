// libragged_pmpi.so: nonblocking collectives through ragged's algorithms (docs/pmpi.md,
// "Nonblocking collectives").
//
//   MPI_Ixxx(args, &request)           (the program's thread)
//     RAGGED_XXX unset or native, MPI_COMM_NULL, an intercommunicator, or MPI did not grant
//     MPI_THREAD_MULTIPLE                                     -> PMPI_Ixxx(args, &request)
//     else: the communicator's worker (made at its first such call: MPI_Comm_idup of the
//     communicator, a thread), the time of the post, and
//       request = a generalized request (MPI_Grequest_start)
//       the worker's queue <- job: the blocking routing of the same call on the copy
//     returns at once
//
//   the worker (one thread per communicator, jobs in the order they were posted, which MPI
//   makes the same on every rank)
//     job(copy): selection, ragged's algorithm (or the MPI library's blocking function)
//     the report's record: entry = the time of the post, exit = now
//     MPI_Grequest_complete(request)
//
//   MPI_Wait / MPI_Test / MPI_Waitall / MPI_Testany ... (the MPI library's): the query callback
//   gives the job's MPI code and tells the waiting thread what ran (ragged_pmpi_last_algorithm).
//
// The collective progresses on the worker whatever the program does between the post and the
// wait: computation, other MPI calls, nothing. A worker per communicator keeps the collectives of
// two communicators independent, as MPI requires (a rank may post them in either order); on one
// communicator they run in the order of their posts, the same on every rank. The copy keeps their
// messages apart from the program's and from the blocking collectives on the communicator.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

#include "report.hpp"

namespace ragged::pmpi::nonblocking {

/// One nonblocking call's work, run on its communicator's worker: the blocking routing of the
/// call on the worker's copy `shadow` of the communicator. Returns an MPI code.
using Job = std::function<int(MPI_Comm shadow)>;
/// What the report says of the call (its entry point's describe function).
using Describe = std::function<void(report::CallRecord&)>;

/// What a worker does once a job returned (`code`: its MPI code, `outcome`: what ran): completes
/// the program's request.
using Finish = std::function<void(int code, const std::string& outcome)>;
/// Made in the program's thread when the call is posted (it may make the request): the Finish.
using Start = std::function<Finish()>;

/// Whether a call that the environment routes to ragged can run on a worker: MPI granted
/// MPI_THREAD_MULTIPLE (said once, on every rank, when it did not: such calls go to the MPI library).
[[nodiscard]] bool available();

/// Whether the calling thread is a worker.
[[nodiscard]] bool on_worker();

/// Whether `comm` can have a worker: not MPI_COMM_NULL, not an intercommunicator.
[[nodiscard]] bool takes(MPI_Comm comm);

/// Posts `job` on `comm`'s worker (made at the first post on `comm`, collective over it as
/// MPI_Comm_idup is) and sets `*request` to a generalized request that completes when the job
/// has returned. `kind` and `describe` are the report's. Returns MPI_SUCCESS, or an MPI error
/// class (through `comm`'s error handler) when the request or the worker could not be made.
int post(MPI_Comm comm, report::Kind kind, Job job, Describe describe, MPI_Request* request);

/// post() with another completion: `start()` runs in the program's thread, after the worker is
/// there, and the Finish it returns runs on the worker (persistent.cpp: a persistent request).
int post_then(MPI_Comm comm, report::Kind kind, Job job, Describe describe, const Start& start);

/// Waits until every worker has run every job posted so far (ragged_pmpi_reread_environment:
/// no job may select under settings that change while it runs).
void quiesce();

/// MPI_Finalize, first: every worker runs what is left, frees its copy and is joined.
void finalize_all();

}  // namespace ragged::pmpi::nonblocking
