// libragged_pmpi.so: persistent collectives through ragged's algorithms (docs/pmpi.md,
// "Persistent collectives"): MPI-4's MPI_Allreduce_init & co. (MPICH 4.0), Open MPI 4.1's
// MPIX_Allreduce_init & co. (its pcollreq extension).
//
//   MPI_Xxx_init(args, info, &request)
//     the same routes to the MPI library as MPI_Ixxx (nonblocking.hpp)  -> PMPI(X)_Xxx_init
//     else: request = a persistent zero-byte synchronous send (MPI_Ssend_init) to itself on the
//           library's private copy of MPI_COMM_SELF, with a tag of its own; the call (its blocking
//           routing) is kept with it, and the communicator's worker is made
//   MPI_Start(&request) / MPI_Startall    (the library defines them; others' go to PMPI_Start)
//     PMPI_Start(&request): the send is active; a synchronous send completes only once its
//     receive has started
//     the worker's queue <- the call; when it returned, the worker receives the zero-byte message
//   MPI_Wait / MPI_Test / ... (the MPI library's): the send completes; the request stays, inactive,
//     for the next MPI_Start, as a persistent request does
//   MPI_Request_free(&request): the call is forgotten, the send freed
//
// (A persistent receive completed by the worker's send would be simpler, but MPICH 4.0.2 never
// completes a receive whose message to the same process another thread sent; the synchronous
// send, received by another thread, completes under both MPI libraries.)
//
// Selection runs at every start (the settings may have changed between two), as for a
// nonblocking call; what it chose is ragged_pmpi_request_algorithm(request).
#pragma once

#include <mpi.h>

#include "nonblocking.hpp"

namespace ragged::pmpi::persistent {

/// Makes `*request` for a call of `comm` whose every start runs `job` on the communicator's
/// worker. Returns MPI_SUCCESS, or an error class through `comm`'s error handler.
int make(MPI_Comm comm, report::Kind kind, nonblocking::Job job, nonblocking::Describe describe, MPI_Request* request);

/// MPI_Start of `*request` when it is one of the library's: true, with the MPI code in `code`;
/// false for every other request (the caller starts it with PMPI_Start).
[[nodiscard]] bool start(MPI_Request* request, int& code);

/// MPI_Request_free: forgets `request` if it is one of the library's.
void forget(MPI_Request request);

/// What the last start of `request` ran ("none" before its first completion), or null when the
/// request is not one of the library's. The pointer stays valid until the next start.
[[nodiscard]] const char* outcome(MPI_Request request);

/// MPI_Finalize, after the workers ended: frees the private copy of MPI_COMM_SELF.
void finalize_all();

}  // namespace ragged::pmpi::persistent
