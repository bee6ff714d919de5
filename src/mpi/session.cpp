// Session: MPI initialization with MPI_THREAD_MULTIPLE.
#include <string>

#include "internal.hpp"
#include "ragged/mpi.hpp"

namespace ragged::mpi {

namespace {

std::string missing_multiple(int provided) {
  return std::string(
             "ragged::mpi needs MPI_THREAD_MULTIPLE (its arrival agent is a thread that communicates "
             "while the application computes), but MPI provides ") +
         thread_level_name(provided) + " (" + std::to_string(provided) +
         "); initialize MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) (a ragged::mpi::Session does) "
         "and use an MPI library that grants it";
}

}  // namespace

const char* thread_level_name(int level) {
  if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "an unknown thread level";
}

Session::Session(int* argc, char*** argv) {
  int initialized = 0;
  check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized == 0) {
    int provided = MPI_THREAD_SINGLE;
    check(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    if (provided < MPI_THREAD_MULTIPLE) {
      // The Session does not come into being: give MPI back before saying why.
      MPI_Finalize();
      throw UnsupportedError(missing_multiple(provided));
    }
    owns_mpi_ = true;
  } else {
    int finalized = 0;
    check(MPI_Finalized(&finalized), "MPI_Finalized");
    if (finalized != 0) throw UnsupportedError("ragged::mpi::Session: MPI has already been finalized");
    require_thread_multiple();
  }
  register_native_algorithms();
}

Session::~Session() {
  if (!owns_mpi_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

void require_thread_multiple() {
  int initialized = 0;
  check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized == 0) {
    throw UnsupportedError("ragged::mpi: MPI is not initialized (create a ragged::mpi::Session first)");
  }
  int provided = MPI_THREAD_SINGLE;
  check(MPI_Query_thread(&provided), "MPI_Query_thread");
  if (provided < MPI_THREAD_MULTIPLE) throw UnsupportedError(missing_multiple(provided));
}

}  // namespace ragged::mpi
