// libragged_pmpi.so: MPI_Init, MPI_Init_thread and MPI_Finalize, and the two functions a
// program (or a test) can look up with dlsym to see what the library did.
#include <cstdio>
#include <exception>
#include <string>

#include "nonblocking.hpp"
#include "persistent.hpp"
#include "pmpi.hpp"
#include "ragged/selection.hpp"

namespace pmpi = ragged::pmpi;

extern "C" {

/// Asks for MPI_THREAD_MULTIPLE (the arrival agent's level) unless RAGGED_PMPI_THREAD_MULTIPLE=0;
/// the program gets what MPI granted, which is at least what it asked for whenever MPI can.
RAGGED_PMPI_EXPORT int MPI_Init(int* argc, char*** argv) {
  int provided = MPI_THREAD_SINGLE;
  int rc = MPI_SUCCESS;
  if (pmpi::raise_thread_level()) {
    rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) PMPI_Query_thread(&provided);
  }
  if (rc == MPI_SUCCESS) {
    pmpi::after_init(provided);
    pmpi::agree_on_settings();
    pmpi::report::at_init();
  }
  return rc;
}

RAGGED_PMPI_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const bool valid = required >= MPI_THREAD_SINGLE && required <= MPI_THREAD_MULTIPLE;
  const int asked = pmpi::raise_thread_level() && valid ? MPI_THREAD_MULTIPLE : required;
  const int rc = PMPI_Init_thread(argc, argv, asked, provided);
  if (rc == MPI_SUCCESS) {
    pmpi::after_init(*provided);
    pmpi::agree_on_settings();
    pmpi::report::at_init();
  }
  return rc;
}

RAGGED_PMPI_EXPORT int MPI_Finalize(void) {
  try {
    pmpi::nonblocking::finalize_all();  // the workers' last calls, before the report gathers them
    pmpi::persistent::finalize_all();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ragged pmpi: MPI_Finalize: nonblocking collectives: %s\n", e.what());
  }
  try {
    pmpi::report::at_finalize();  // RAGGED_REPORT: collective, before anything is freed
  } catch (const ragged::TimeoutError& e) {
    // A rank that stopped (RAGGED_TIMEOUT): PMPI_Finalize would wait for it forever too. The
    // error handler of MPI_COMM_WORLD (fatal unless the program changed it) ends the job.
    const std::string what = std::string("RAGGED_TIMEOUT ran out: RAGGED_REPORT: ") + e.what();
    return pmpi::raise_error(MPI_COMM_WORLD, what.c_str(), "MPI_Finalize", MPI_ERR_OTHER);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ragged pmpi: MPI_Finalize: RAGGED_REPORT: %s\n", e.what());
  }
  try {
    pmpi::before_finalize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ragged pmpi: MPI_Finalize: %s\n", e.what());
  }
  return PMPI_Finalize();
}

/// What the calling thread's last collective ran: an algorithm's name, "native", or
/// "native (<why>)" when the library gave it to the MPI library (docs/pmpi.md).
RAGGED_PMPI_EXPORT const char* ragged_pmpi_last_algorithm(void) { return pmpi::last(); }

/// How many communicators carry the library's state (ragged's Comm) right now.
RAGGED_PMPI_EXPORT long ragged_pmpi_live_comms(void) { return pmpi::live_states(); }

/// How many times dispatch's selector ran in this process (one per collective ragged runs or
/// declines through selection; the tests prove there is never a second).
RAGGED_PMPI_EXPORT unsigned long long ragged_pmpi_selections(void) { return ragged::selections(); }

/// The library takes its RAGGED_* settings at MPI_Init, where the ranks compare them; a program
/// that changes them later calls this on every rank of MPI_COMM_WORLD (it is collective there):
/// the settings are read again and compared again (docs/pmpi.md).
RAGGED_PMPI_EXPORT void ragged_pmpi_reread_environment(void) {
  int initialized = 0;
  int finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (initialized == 0 || finalized != 0) {
    ragged::reread_environment();
    return;
  }
  pmpi::nonblocking::quiesce();                               // no posted collective selects under settings that change
  pmpi::agree_on_settings("ragged_pmpi_reread_environment");  // reads the environment again, then compares
}

}  // extern "C"
