// RAGGED_REPORT (docs/pmpi.md, "Report"): what libragged_pmpi.so records per call site while a
// program runs, and the report that MPI_Finalize writes. The hot path is here (inline): with the
// variable unset, an intercepted call pays one load and one branch; everything else is in
// report_record.cpp, report_merge.cpp and report_write.cpp (report_internal.hpp).
//
//   MPI_Xxx(args)  ->  recorded(kind, comm, body, describe)
//     report off: body()
//     report on:  entry = now(); rc = body(); exit = now();
//                 rc == MPI_SUCCESS: record(kind, comm, entry, exit, describe)
//
// A call site is (communicator, collective, bytes, root); on every rank the calls of a site come
// in the same order (MPI orders the collectives of a communicator), so the k-th call of a site on
// one rank is the k-th on every other. Each rank keeps per-site aggregates (calls, bytes, waits,
// the algorithms that ran and why) and the entry times of the last `cap` calls of each site; at
// MPI_Finalize rank 0 gathers them over a private communicator (PMPI only), aligns the clocks and
// computes the imbalance and the stragglers.
#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>

namespace ragged::pmpi::report {

/// The calls a report knows: the collectives the library defines.
enum class Kind : std::uint8_t {
  allgather,
  allgatherv,
  allreduce,
  alltoall,
  alltoallv,
  bcast,
  reduce,
  gather,
  gatherv,
  scatter,
  scatterv,
  barrier,
  scan,
  exscan,
  reduce_scatter_block,
  reduce_scatter,
  alltoallw,
  // The nonblocking forms (MPI_Ixxx), in the same order: iallgather = allgather + blocking_kinds.
  iallgather,
  iallgatherv,
  iallreduce,
  ialltoall,
  ialltoallv,
  ibcast,
  ireduce,
  igather,
  igatherv,
  iscatter,
  iscatterv,
  ibarrier,
  iscan,
  iexscan,
  ireduce_scatter_block,
  ireduce_scatter,
  ialltoallw,
  // The persistent forms (MPI_Xxx_init), in the same order: allgather_init = allgather + 2 * blocking_kinds.
  allgather_init,
  allgatherv_init,
  allreduce_init,
  alltoall_init,
  alltoallv_init,
  bcast_init,
  reduce_init,
  gather_init,
  gatherv_init,
  scatter_init,
  scatterv_init,
  barrier_init,
  scan_init,
  exscan_init,
  reduce_scatter_block_init,
  reduce_scatter_init,
  alltoallw_init,
};
[[nodiscard]] const char* name_of(Kind kind);
/// How many blocking kinds there are: Kind(k + blocking_kinds) is the nonblocking form of Kind(k).
inline constexpr int blocking_kinds = 17;
/// The nonblocking form of a blocking kind.
[[nodiscard]] constexpr Kind nonblocking_of(Kind kind) {
  return static_cast<Kind>(static_cast<int>(kind) + blocking_kinds);
}
/// The persistent form of a blocking kind.
[[nodiscard]] constexpr Kind persistent_of(Kind kind) {
  return static_cast<Kind>(static_cast<int>(kind) + 2 * blocking_kinds);
}
/// The blocking form of a kind (itself when blocking): its RAGGED_<COLLECTIVE> variable.
[[nodiscard]] constexpr Kind blocking_of(Kind kind) {
  return static_cast<Kind>(static_cast<int>(kind) % blocking_kinds);
}

/// How the environment routed a call before it ran.
enum class Mode : std::uint8_t {
  unset,      ///< neither RAGGED_<COLLECTIVE> nor a rules file: the MPI library's
  native,     ///< RAGGED_<COLLECTIVE>=native
  named,      ///< RAGGED_<COLLECTIVE>=<an algorithm's name>
  automatic,  ///< RAGGED_<COLLECTIVE>=auto
  rules,      ///< RAGGED_TUNING_FILE, the collective's variable unset
};

/// Whether RAGGED_REPORT is set (read when the library is loaded and again at MPI_Init).
extern std::atomic<bool> recording;
[[nodiscard]] inline bool enabled() { return recording.load(std::memory_order_relaxed); }

/// Seconds on the steady clock: the mpi backend's Runtime clock, which measure_clock_offset
/// compares between ranks.
[[nodiscard]] inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// What an entry point tells about a completed call (its describe function fills the last
/// three fields; rank, size and inter are the communicator's, filled before).
struct CallRecord {
  int rank = 0;
  int size = 1;        ///< blocks per call: the group size (the remote group's for an intercommunicator)
  bool inter = false;  ///< intercommunicator: the site is (communicator, collective), bytes and root unknown
  /// The site's size, the same on every rank: one rank's block (allgather, alltoall, gather,
  /// scatter), the message (bcast) or the vector (reduce, allreduce); 0 for a barrier; -1 where
  /// the ranks' sizes differ (the v-collectives).
  long long bytes = -1;
  int root = -1;  ///< rooted collectives; -1 otherwise
  /// Bytes this rank handed in (its send side): summed over ranks and calls as the site's bytes.
  unsigned long long contributed = 0;
};

/// Notes how route() (or MPI_Barrier) routed the calling thread's current call;
/// `requested` is the variable's value (the rules file's path for Mode::rules), or null.
void note_route(Mode mode, const char* requested);

/// Called by MPI_Init and MPI_Init_thread (after MPI is up): reads RAGGED_REPORT again and, when
/// set, makes the private communicator and measures the clock offsets a first time.
void at_init();
/// Called by MPI_Finalize first: gathers the records to rank 0, which writes the report and
/// prints the table. Collective over MPI_COMM_WORLD. Does nothing when the report is off.
void at_finalize();

/// The bytes of `count` elements of `type` (0 for a count <= 0: the datatype is not looked at).
[[nodiscard]] long long bytes_of(long long count, MPI_Datatype type);

namespace detail {
/// The report's lock: recording a call takes it once.
std::mutex& mutex();
/// With the lock held: the communicator's record (made at its first call: rank, size, group);
/// false when recording stopped. Fills rank, size, inter.
bool begin(MPI_Comm comm, CallRecord& info, std::size_t& record);
/// With the lock held: adds the call to its site.
void commit(std::size_t record, Kind kind, CallRecord& info, double entry, double exit);
/// Says what failed (once) and stops recording; takes the lock.
void failed(const char* what);
}  // namespace detail

/// Records one completed call. Never throws.
template <class Describe>
void record(Kind kind, MPI_Comm comm, double entry, double exit, Describe&& describe) {
  if (comm == MPI_COMM_NULL) return;
  try {
    const std::lock_guard<std::mutex> lock(detail::mutex());
    CallRecord info;
    std::size_t index = 0;
    if (!detail::begin(comm, info, index)) return;
    describe(info);  // MPI_Type_size_x only: runs no callback that could take the lock
    detail::commit(index, kind, info, entry, exit);
  } catch (const std::exception& e) {
    detail::failed(e.what());
  } catch (...) {
    detail::failed("unknown exception");
  }
}

/// Runs `body` (the entry point's work, returning an MPI code) and, when the report is on,
/// records the call.
template <class Body, class Describe>
int recorded(Kind kind, MPI_Comm comm, Body&& body, Describe&& describe) {
  if (!enabled()) [[likely]]
    return body();
  const double entry = now();
  const int rc = body();
  const double exit = now();
  if (rc == MPI_SUCCESS) record(kind, comm, entry, exit, describe);
  return rc;
}

}  // namespace ragged::pmpi::report
