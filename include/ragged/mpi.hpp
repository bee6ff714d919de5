// ragged::mpi — the MPI backend: the real engine. Requires MPI_THREAD_MULTIPLE
// (the arrival agent is a std::thread that communicates while the application
// computes), works on a duplicate of the caller's communicator so that ragged's
// tags never meet the application's, and checks every MPI return code.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <memory>
#include <string>

#include "ragged/comm.hpp"
#include "ragged/datatype.hpp"
#include "ragged/error.hpp"

namespace ragged::mpi {

/// Initializes MPI with MPI_THREAD_MULTIPLE (or checks the level if MPI is already
/// initialized) and finalizes it on destruction if it initialized it. Throws
/// UnsupportedError naming the level it got when MPI provides less than MULTIPLE.
/// Registers the "native" algorithms of every collective in the Registry.
class Session {
 public:
  Session(int* argc, char*** argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  bool owns_mpi_ = false;
};

/// Throws UnsupportedError unless MPI is initialized with MPI_THREAD_MULTIPLE.
void require_thread_multiple();

/// The name of an MPI thread level ("MPI_THREAD_MULTIPLE"), or "an unknown thread level".
[[nodiscard]] const char* thread_level_name(int level);

/// How make_comm makes the Comm's private communicator.
struct CommOptions {
  /// Refuse to exist unless MPI provides MPI_THREAD_MULTIPLE (the arrival agent communicates from
  /// a thread of its own). Off for a Comm that only the threads calling its collectives use, as
  /// the PMPI library's Comms when MPI did not grant MULTIPLE: they need only the caller's level.
  bool require_thread_multiple = true;
  /// MPI_Comm_dup, which runs the user's attribute copy callbacks; off: MPI_Comm_split with one
  /// color and the ranks' order, which copies no attribute (the PMPI library's Comms must not
  /// show the program copies of its communicators that it did not make).
  bool copy_attributes = true;
};

/// A Comm over a private copy of `user` (MPI_Comm_dup by default; freed with the Comm).
/// Throws UnsupportedError before MPI_Init or after MPI_Finalize, or without MPI_THREAD_MULTIPLE
/// when `options` require it; InvalidArgument("comm") for MPI_COMM_NULL.
[[nodiscard]] std::unique_ptr<Comm> make_comm(MPI_Comm user = MPI_COMM_WORLD, CommOptions options = {});

/// The duplicated communicator behind a Comm made by make_comm(); throws
/// InvalidArgument("comm") for a Comm of another backend.
[[nodiscard]] MPI_Comm native_handle(Comm& comm);

/// MPI_Error_string of `code` (or a placeholder when MPI cannot name it).
[[nodiscard]] std::string error_text(int code);

/// Throws TransportError(code, MPI's text, `call`) unless `code` is MPI_SUCCESS.
inline void check(int code, const char* call) {
  if (code != MPI_SUCCESS) throw TransportError(code, error_text(code), call);
}

/// The largest element count one MPI call takes (MPI counts are int).
inline constexpr std::size_t max_count = static_cast<std::size_t>(INT_MAX);

/// The MPI datatype for a ragged DataType.
[[nodiscard]] MPI_Datatype to_mpi(DataType type);
/// The MPI operator for a built-in ReduceOp; throws InvalidArgument("op") for a custom one
/// that does not wrap an MPI_Op.
[[nodiscard]] MPI_Op to_mpi(const ReduceOp& op);
/// Wraps any MPI_Op (user-defined included) as a ReduceOp applied through MPI_Reduce_local.
[[nodiscard]] ReduceOp from_mpi(MPI_Op op);

/// What the mpi backend holds right now, for leak checks (the soak tests): its requests (from
/// isend/irecv until the Request is destroyed) and its windows (until freed). Both return to
/// their level once the Comm calls that made them have returned.
struct Resources {
  long requests = 0;
  long windows = 0;
};
[[nodiscard]] Resources live_resources();

/// Adds the "native" algorithm of each collective (the MPI library's own) to the Registry.
void register_native_algorithms();

/// Windows made on the calling thread from now on are emulated ones (notified puts over two-sided
/// messages, docs/backends/mpi.md), whatever RAGGED_WINDOW says: Open MPI 4.1's RMA windows used by
/// several threads at once hang (MPICH's test suite's coll/nonblocking3 under the PMPI library,
/// whose workers each run a communicator's collectives). Every rank of a communicator must call it
/// on the threads that run its collectives, or none (the kind of a window is collective).
void emulate_windows_on_this_thread();

}  // namespace ragged::mpi
