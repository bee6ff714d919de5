// ragged-bench: runs rank code on the chosen backend (sim: inside SimGrid;
// mpi: on the ranks of the mpirun job this process belongs to).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "ragged/comm.hpp"

namespace ragged::bench {

struct BackendOptions {
  std::string backend = "sim";
  std::string platform = "cluster-1gbe-48";
  int procs = 0;  ///< 0: the platform's default on sim, the job's size on mpi
};

/// Starts whatever the backend needs for the whole run (MPI_Init_thread on mpi).
class BackendScope {
 public:
  BackendScope(const std::string& backend, int* argc, char*** argv);
  ~BackendScope();
  BackendScope(const BackendScope&) = delete;
  BackendScope& operator=(const BackendScope&) = delete;
  /// True on the process that prints the results (always on sim; world rank 0 on mpi).
  [[nodiscard]] bool prints() const { return prints_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  bool prints_ = true;
};

/// Runs rank_main on every rank; returns when this process's ranks are done.
void run_ranks(const BackendOptions& options, const std::function<void(Comm&)>& rank_main);

/// Human-readable platform label for reports ("cluster-1gbe-48" on sim, "mpi:<hosts>" on mpi).
std::string platform_label(const BackendOptions& options);

}  // namespace ragged::bench
