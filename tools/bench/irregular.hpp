// ragged-bench irregular: the experiment of Träff 2018, §5. Eight block-size problems
// (same, random, bucket, spikes, increasing, decreasing, alternating, two blocks)
// around an average block size b (MPI_INT elements), root floor(p/2); for each,
// every gatherv/scatterv algorithm is measured as §5 does: warm-up calls, then
// measured calls each after a barrier, a call's time being the slowest rank's; the
// minimum and the mean over the measured calls. Beside them, guideline GL2's
// right-hand side (allreduce of one element, then the regular gather/scatter of the
// padded problem) and the regular collective alone (GL1's left-hand side on `same`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness.hpp"
#include "report.hpp"

namespace ragged::bench {

struct IrregularOptions {
  std::vector<std::string> collectives{"gatherv", "scatterv"};
  std::vector<std::string> problems;  ///< empty: all eight
  std::vector<int> block_sizes{1, 10, 100, 1000, 10000};
  std::vector<std::string> algorithms;  ///< empty: traff, linear, binomial, padded (+ native on mpi)
  int warmup = -1;                      ///< -1: 10 on mpi, 1 on sim (deterministic)
  int repetitions = -1;                 ///< -1: 75 on mpi, 2 on sim
  double rho = 5.0;                     ///< spikes: blocks of rho*b with probability 1/rho
  std::uint64_t seed = 1;
  int root = -1;                  ///< -1: floor(p/2) as in §5
  std::string regular_gather;     ///< the regular gather/scatter of GL1/GL2; empty: native on mpi, binomial on sim
  std::string regular_allreduce;  ///< GL2's allreduce; empty: native on mpi, recursive_doubling on sim
  /// sim only: overrides the platform's LogGP per-message gap (seconds), which the sim
  /// backend applies to every rank's messages; negative: the platform's own (0.5 us on
  /// infiniband-qdr-560). Rejected on mpi, where the library's own costs are measured.
  double message_gap_s = -1;
  /// A time within this fraction above a guideline's right side still meets it (the
  /// simulator rounds to nanoseconds; the right side is itself a measurement).
  double gl_slack = 1e-3;
  bool check = true;          ///< check every algorithm's result once per problem
  bool check_bounds = false;  ///< fail (after the report) when a row is below its lower bound
  bool table = false;         ///< table format: times in microseconds, GL marks
};

/// The eight problems of §5, in the paper's order.
const std::vector<std::string>& irregular_problems();

/// Block sizes m_0..m_{p-1} of `problem` with average block size b (deterministic in seed).
std::vector<int> irregular_counts(const std::string& problem, int procs, int b, double rho, std::uint64_t seed);

Report run_irregular(const IrregularOptions& options, const BackendOptions& backend);

}  // namespace ragged::bench
