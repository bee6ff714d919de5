#include "backend.hpp"

#include <filesystem>

#include "ragged/error.hpp"
#ifdef RAGGED_BENCH_WITH_SIM
#include "ragged/sim.hpp"
#endif
#ifdef RAGGED_BENCH_WITH_MPI
#include "ragged/mpi.hpp"
#endif

namespace ragged::bench {

struct BackendScope::State {
#ifdef RAGGED_BENCH_WITH_MPI
  std::unique_ptr<mpi::Session> session;
#endif
};

BackendScope::BackendScope(const std::string& backend, int* argc, char*** argv) : state_(std::make_unique<State>()) {
  if (backend == "mpi") {
#ifdef RAGGED_BENCH_WITH_MPI
    state_->session = std::make_unique<mpi::Session>(argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    prints_ = rank == 0;
#else
    (void)argc;
    (void)argv;
    throw InvalidArgument("--backend", "this ragged-bench was built without the mpi backend");
#endif
  } else if (backend == "sim") {
#ifndef RAGGED_BENCH_WITH_SIM
    throw InvalidArgument("--backend", "this ragged-bench was built without the sim backend");
#endif
  } else {
    throw InvalidArgument("--backend", "unknown backend '" + backend + "' (expected sim or mpi)");
  }
}

BackendScope::~BackendScope() = default;

void run_ranks(const BackendOptions& options, [[maybe_unused]] const std::function<void(Comm&)>& rank_main) {
  if (options.backend == "sim") {
#ifdef RAGGED_BENCH_WITH_SIM
    sim::Config config;
    config.platform = options.platform;
    config.procs = options.procs;
    sim::run(config, rank_main);
    return;
#endif
  }
#ifdef RAGGED_BENCH_WITH_MPI
  if (options.backend == "mpi") {
    auto comm = mpi::make_comm(MPI_COMM_WORLD);
    if (options.procs != 0 && options.procs != comm->size()) {
      throw InvalidArgument("--procs", std::to_string(options.procs) + " given but the MPI job has " +
                                           std::to_string(comm->size()) + " ranks");
    }
    rank_main(*comm);
    return;
  }
#endif
  throw InvalidArgument("--backend", "backend '" + options.backend + "' is not available in this build");
}

std::string platform_label(const BackendOptions& options) {
  if (options.backend == "mpi") return "mpi";
  return std::filesystem::path(options.platform).stem().string();
}

}  // namespace ragged::bench
