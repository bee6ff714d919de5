// ragged-bench pap --sweep: the grid of tables 3 and 4 of seed 000 (P = 4..48,
// 128K..2M floats, maxDelay 0..500 ms), each cell one `pap` run of every
// algorithm; per cell the fastest algorithm and, when it is arrival-aware, its
// speedup over the best regular one (the paper's "BDR1.90"). Writes the
// paper-style grid (markdown), every measurement (csv) and figure 8 (e-bar
// against maxDelay, SVG) on request, with a progress bar on stderr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pap.hpp"

namespace ragged::bench {

struct PapSweepOptions {
  /// "table3" (the whole grid of tables 3 and 4) or "figure8" (P = 32, 256K floats, every maxDelay).
  std::string name = "table3";
  std::vector<int> procs;
  std::vector<std::uint64_t> sizes;  ///< floats
  std::vector<double> delays;        ///< seconds
  /// Files to write ("" for none): the paper-style grid (markdown), every (cell, algorithm)
  /// measurement (csv), the figure (SVG: e-bar against maxDelay for figure_procs, figure_size).
  std::string grid_file;
  std::string raw_file;
  std::string figure_file;
  int figure_procs = 32;
  std::uint64_t figure_size = 256 * 1024;
  bool progress = true;
};

/// Fills the defaults of `sweep.name` into the lists left empty; throws InvalidArgument("--sweep").
void complete_sweep(PapSweepOptions& sweep);

/// Runs the sweep; its report has one row per cell.
Report run_pap_sweep(const PapOptions& base, PapSweepOptions sweep, const BackendOptions& backend);

/// The SVG of e-bar (ms) against maxDelay, one line per algorithm; maxDelays equally spaced.
std::string pap_figure_svg(const std::string& title, const std::vector<double>& delays_s,
                           const std::vector<std::string>& algorithms,
                           const std::vector<std::vector<double>>& elapsed_s /* [algorithm][delay] */);

}  // namespace ragged::bench
