// ragged-bench pap: the mini-benchmark of listing 4 in seed 000 (and §5.1 of
// seed 002): per iteration a double barrier, an emulated computation whose
// length carries the injected arrival delay, then the collective, timed on
// every process; the average elapsed time over processes and iterations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.hpp"
#include "report.hpp"

namespace ragged::bench {

struct PapOptions {
  std::string collective = "allgather";
  std::vector<std::string> algorithms{"ring", "nex", "lnbc"};
  /// Total gathered (allgather) or reduced (allreduce) vector, in floats.
  std::uint64_t size = 256 * 1024;
  double max_delay_s = 5e-3;
  /// "randlate": every process delayed by U(0, maxDelay); "onelate": process 1 by maxDelay.
  std::string mode = "randlate";
  int iterations = 32;
  /// Each half of the emulated computation lasts base_compute_s + delay/2 (listing 4: 100 ms).
  double base_compute_s = 0.1;
  std::uint64_t seed = 1;
  /// Check every result exactly (listing 4's checkCorrectness).
  bool check = true;
};

/// The injected delay of `rank` in `iteration` (deterministic in the seed).
double pap_delay(const PapOptions& options, int procs, int rank, int iteration);

Report run_pap(const PapOptions& options, const BackendOptions& backend);

}  // namespace ragged::bench
