// ragged-bench pap --sweep: the grid of tables 3 and 4 of Proficz 2021 (P = 4..48,
// 128K..2M floats, maxDelay 0..500 ms), each cell one `pap` run of every
// algorithm; per cell the fastest algorithm and, when it is arrival-aware, its
// speedup over the best regular one (the paper's "BDR1.90"). Writes the
// paper-style grid (markdown), every measurement (csv) and figure 8 (e-bar
// against maxDelay, drawn by gnuplot) on request, with a progress bar on stderr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pap.hpp"

namespace ragged::bench {

struct PapSweepOptions {
  /// "table3" (the whole grid of tables 3 and 4 of Proficz 2021), "figure8" (P = 32, 256K floats, every
  /// maxDelay), or Proficz 2018's allreduce tables: "allreduce-table3" (P = 48, 1M floats, onelate,
  /// maxDelay 0..1000 ms; e-bar and speedup over the ring per algorithm) and "allreduce-table4"
  /// (P = 48, 128K..8M floats, onelate and randlate; each algorithm against the ring).
  std::string name = "table3";
  /// The delay modes to run (empty: the base options' mode, or the sweep's).
  std::vector<std::string> modes;
  std::vector<int> procs;
  std::vector<std::uint64_t> sizes;  ///< floats
  std::vector<double> delays;        ///< seconds
  /// Files to write ("" for none): the paper-style grid (markdown), every (cell, algorithm)
  /// measurement (csv), the figure (.svg or .png, gnuplot): e-bar against maxDelay for
  /// figure_procs and figure_size, or against P for figure_size when there is one maxDelay.
  std::string grid_file;
  std::string raw_file;
  std::string figure_file;
  int figure_procs = 32;
  std::uint64_t figure_size = 256 * 1024;
  bool progress = true;
};

/// Fills the defaults of `sweep.name` into the lists left empty; throws InvalidArgument("--sweep").
void complete_sweep(PapSweepOptions& sweep);

/// True for Proficz 2018's allreduce sweeps ("allreduce-table3", "allreduce-table4").
bool allreduce_sweep(const std::string& name);

/// The algorithms an allreduce sweep runs when none are given: Proficz 2018's ring, rabenseifner,
/// slt and prr, ragged's prd (only ring, prr and prd for table 4), and native on mpi.
std::vector<std::string> allreduce_sweep_algorithms(const std::string& name, const std::string& backend);

/// Runs the sweep; its report has one row per cell.
Report run_pap_sweep(const PapOptions& base, PapSweepOptions sweep, const BackendOptions& backend);

}  // namespace ragged::bench
