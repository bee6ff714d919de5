// The PAT_* calls of Proficz 2021 (listing 4; include/ragged/pat.h) exported from
// libragged_pmpi.so, so that a C program linked with (or preloaded by) the library can make them.
// PAT_Init binds the monitor to a private copy of MPI_COMM_WORLD; an MPI_Allgather, MPI_Gather
// or MPI_Allreduce on MPI_COMM_WORLD of the collective PAT_UseAlg named, after a computation
// phase, then runs the named algorithm with the monitor's snapshot (Call::selects_ragged).
// MPI_Finalize stops a monitor the program did not stop. docs/pmpi.md, "PAT_* from C".
#include "ragged/pat.h"

#include <memory>
#include <mutex>
#include <string>

#include "pmpi.hpp"
#include "ragged/arrival.hpp"
#include "ragged/mpi.hpp"

namespace ragged::pmpi {

namespace {

struct PatWorld {
  std::mutex mutex;
  std::unique_ptr<Comm> comm;  ///< the monitor's private copy of MPI_COMM_WORLD
};

PatWorld& pat_world() {
  static PatWorld w;
  return w;
}

/// Binds the monitor to MPI_COMM_WORLD before its first PAT_Init (collective, as PAT_Init is).
int bind_world() {
  PatWorld& w = pat_world();
  const std::lock_guard<std::mutex> lock(w.mutex);
  if (w.comm || pat_monitor() != nullptr) return PAT_SUCCESS;  // bound; PAT_Init says if it runs twice
  int initialized = 0;
  int finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (initialized == 0 || finalized != 0) {
    return pat::fail(PAT_ERR_STATE, initialized == 0 ? "PAT_Init: MPI is not initialized (call MPI_Init first)"
                                                     : "PAT_Init: MPI is finalized");
  }
  ensure_initialized();
  // The agent thread communicates on its own: the private communicator needs MPI_THREAD_MULTIPLE.
  w.comm = mpi::make_comm(MPI_COMM_WORLD, mpi::CommOptions{.require_thread_multiple = true, .copy_attributes = false});
  MonitorOptions options;
  options.timeout = call_timeout();
  pat_bind(*w.comm, options);
  return PAT_SUCCESS;
}

}  // namespace

void pat_before_finalize() {
  if (pat_monitor() != nullptr && pat::finalize() != PAT_SUCCESS) {
    say_once("PAT_Finalize at MPI_Finalize",
             std::string("ragged pmpi: stopping the PAT monitor at MPI_Finalize: ") + pat::last_error());
  }
  PatWorld& w = pat_world();
  const std::lock_guard<std::mutex> lock(w.mutex);
  if (!w.comm) return;
  pat_unbind();
  w.comm.reset();
}

}  // namespace ragged::pmpi

extern "C" {

RAGGED_PMPI_EXPORT int PAT_Init(void) {
  try {
    if (const int code = ragged::pmpi::bind_world(); code != PAT_SUCCESS) return code;
  } catch (const std::exception& e) {
    return ragged::pat::fail(PAT_ERR_INTERNAL, std::string("PAT_Init: ") + e.what());
  }
  return ragged::pat::init();
}
RAGGED_PMPI_EXPORT int PAT_ProcessingStart(void) { return ragged::pat::processing_start(); }
RAGGED_PMPI_EXPORT int PAT_Edge(double fraction) { return ragged::pat::edge(fraction); }
RAGGED_PMPI_EXPORT int PAT_ProcessingEnd(void) { return ragged::pat::processing_end(); }
RAGGED_PMPI_EXPORT int PAT_UseAlg(const char* algorithm) { return ragged::pat::use_alg(algorithm, 0, 0); }
RAGGED_PMPI_EXPORT int PAT_UseAlgFor(const char* algorithm, size_t count, size_t element_size) {
  return ragged::pat::use_alg(algorithm, count, element_size);
}
RAGGED_PMPI_EXPORT int PAT_Finalize(void) { return ragged::pat::finalize(); }
RAGGED_PMPI_EXPORT const char* PAT_LastError(void) { return ragged::pat::last_error(); }

}  // extern "C"
