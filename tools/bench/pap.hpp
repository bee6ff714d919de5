// ragged-bench pap: the mini-benchmark of listing 4 in Proficz 2021 (and §5.1 of
// Proficz 2018): per iteration a double barrier, an emulated computation whose
// length carries the injected arrival delay, then the collective, timed on
// every process; the average elapsed time over processes and iterations.
//
// Arrival-aware algorithms (Restrictions::needs_arrival) get listing 4's monitor
// calls: a Monitor per rank (PAT_Init), PAT_UseAlg with the algorithm and size,
// processing_start, edge(0.5) between the two halves of the computation,
// processing_end, and the snapshot from arrive() in the collective's options.
// The arrive() wait counts as part of the collective's elapsed time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness.hpp"
#include "ragged/arrival.hpp"
#include "ragged/bounds.hpp"
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
  /// Iterations of the extra flat-PAP run (maxDelay 0) that gives r' for the absorption time;
  /// -1: a quarter of `iterations` (at least 1); 0: no extra run (absorption left out). When
  /// maxDelay is 0 the measured run is the flat one and no extra run is made.
  int flat_iterations = -1;
  /// r' of some algorithms measured elsewhere (the sweep's maxDelay-0 cell, for the regular
  /// algorithms): no extra run for them. An arrival-aware algorithm's r' is its own schedule's
  /// flat run (MonitorOptions::balanced_fallback = false), not its fallback's.
  std::map<std::string, double> flat_run_time;
  /// The link model (tau = alpha + beta bytes) for the monitors and the lower bound; when
  /// unset it is measured once at start-up (measure_link: 0 B and 1 MiB ping-pongs).
  std::optional<LinkModel> link;
  /// run_pap draws e-bar per algorithm into this figure (.svg or .png, gnuplot) when set.
  std::string plot;
  /// The bound model of every row (--bound-model); unset: each row's own (PapMeasurement).
  std::optional<bound::Model> bound_model;
  /// --check-bounds: a row whose e-bar is below its lower bound (one level, and two levels where
  /// nodes hold several ranks) fails the run (Report::failures).
  bool check_bounds = false;
};

/// The injected delay of `rank` in `iteration` (deterministic in the seed).
double pap_delay(const PapOptions& options, int procs, int rank, int iteration);

/// What one algorithm measured (seconds, averaged over the iterations).
struct PapMeasurement {
  std::string algorithm;
  std::string selected;  ///< what ran: the algorithm, its fallback, or `auto`'s choices ('+'-separated)
  bool arrival_aware = false;
  int procs = 0;
  std::int64_t bytes = 0;     ///< the whole gathered or reduced vector
  double avg_elapsed = 0;     ///< e-bar: mean of f_i - a_i over processes and iterations
  double stddev_elapsed = 0;  ///< over processes and iterations
  double run_time = 0;        ///< r = max f - min a
  /// The slowest rank's mean f_i - a_i over the iterations: what SMPI's and OSU-style timings
  /// report (each rank times its own calls, the maximum over ranks; tools/smpi/collective.c).
  double slowest_elapsed = 0;
  double imbalance = 0;              ///< omega = max a - min a (measured)
  std::optional<double> flat_run;    ///< r', the run time with maxDelay 0
  std::optional<double> absorption;  ///< A = r' - r + omega
  /// Mean over ranks and iterations of the per-rank bound on f_i - a_i from what each rank's
  /// links must carry after the arrivals (plans/lower_bound.hpp), in the row's own model.
  double lower_bound = 0;
  /// That model: background when what ran has a background part (its agent receives while the
  /// rank computes, docs/bounds.md "Two models"), foreground otherwise.
  bound::Model bound_model = bound::Model::foreground;
  /// The same with each node's card (bound::two_level, docs/bounds.md "Two levels"); unset when
  /// every node holds one rank, where it is the one-level bound.
  std::optional<double> two_level_bound;
  /// e-bar of the best regular algorithm of the same run over this row's (unset without one).
  std::optional<double> speedup;
};

struct PapResult {
  std::vector<PapMeasurement> rows;
  LinkModel link;
  LinkModel bound_link;  ///< the lower bound's (bound_link(): beta at most the link's capacity)
  int procs = 0;
  std::string layout;             ///< NodeLayout::describe() of the communicator as dispatch sees it
  std::vector<int> node_of_rank;  ///< the layout's node of each rank; empty with one rank per node
  LinkModel card_link;            ///< a node's card for the two-level bound (the platform's inter-node link)
  double node_beta = 0;           ///< a node's memory, s per byte for all its ranks (0: unknown, left out)
  std::string best_regular;       ///< the reference of `speedup` ("" when the run has no regular algorithm)
};

/// Runs the benchmark; the result is filled on the printing process (procs == 0 elsewhere).
PapResult measure_pap(const PapOptions& options, const BackendOptions& backend);

/// The rows of `result` as a report (the columns of `ragged-bench pap`).
Report pap_report(const PapOptions& options, const BackendOptions& backend, const PapResult& result);

/// The rows of `result` whose e-bar falls below their bound, one message each ("" prefix: none).
std::vector<std::string> bound_violations(const PapResult& result);

/// measure_pap, then the report (and the figure of options.plot).
Report run_pap(const PapOptions& options, const BackendOptions& backend);

}  // namespace ragged::bench
