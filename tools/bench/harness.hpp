// ragged-bench's harness: what every experiment shares (docs/bench.md).
//
//   backend   BackendScope, run_ranks, message_gap: the one way to run rank code, on sim
//             (inside SimGrid, with an optional per-message gap) or on mpi (the job's ranks)
//   collect   collect_to_root: every rank's sample vector on rank 0, after the timed region
//   timing    timed_loop: warm-up and measured rounds, each started by a barrier or by the
//             experiment's own start, with per-round prepare and verify hooks
//   output    report.hpp (rows, table/csv/json); figures: plot.hpp (gnuplot); options:
//             experiments.hpp (Command)
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ragged/arrival.hpp"
#include "ragged/collectives.hpp"
#include "ragged/comm.hpp"

namespace ragged::bench {

struct BackendOptions {
  std::string backend = "sim";
  std::string platform = "cluster-1gbe-48";
  int procs = 0;  ///< 0: the platform's default on sim, the job's size on mpi
  /// sim only: the LogGP per-message gap (seconds) of every rank's messages, overriding the
  /// platform's (sim::Config::message_gap); negative: the platform's own. Rejected on mpi
  /// (as "--message-gap"), where the library's own costs are measured.
  double message_gap_s = -1;
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

/// "4m05s" or "1h02m": a wall time for progress lines.
std::string clock_label(double seconds);

/// One line of progress on stderr, redrawn in place: a bar, done/total `unit`, what runs now, the
/// wall time so far and an estimate of what is left. Silent when not `enabled`.
class ProgressBar {
 public:
  ProgressBar(std::size_t total, bool enabled, std::string unit);
  void show(std::size_t done, const std::string& what) const;

 private:
  std::size_t total_;
  bool enabled_;
  std::string unit_;
  std::chrono::steady_clock::time_point start_;
};

/// Runs rank_main on every rank; returns when this process's ranks are done.
void run_ranks(const BackendOptions& options, const std::function<void(Comm&)>& rank_main);

/// The per-message gap (seconds) a run with `options` gets: the override, or the platform's
/// own on sim (see docs/backends/sim.md); 0 on mpi.
double message_gap(const BackendOptions& options);

/// The median of `values` (0 for none).
double median(std::vector<double> values);

/// The link model for the lower bounds (plans/lower_bound.hpp), collectively: `single`'s alpha,
/// and the smallest beta among `single`'s, P - 1 ranks sending `probe_bytes` each to rank 0 at
/// once, and rank 0 sending them to all at once (two rounds each). A single ping-pong can take
/// a link below its capacity (a window-bound flow, a bandwidth factor), and a bound with that
/// beta would not be one. Meaningful on rank 0.
LinkModel bound_link(Comm& comm, int tag, const LinkModel& single, std::size_t probe_bytes = std::size_t{256} << 10);
/// Whether a measured time falls below its lower bound. The clocks tick in nanoseconds (the sim
/// backend rounds its clock to 1 ns, SimRuntime::now), so a time, and a bound's alpha measured by
/// ping-pong, are each exact to about 1 ns: a row that meets its bound exactly (allgather
/// spreading at P = 48 on cluster-1gbe-48, 51.5730 us against 51.5732) is not below it.
inline bool below_bound(double measured, double bound) { return measured < bound * (1 - 1e-9) - 2e-9; }

/// The latency between groups of ranks (clusters, nodes), for the bounds that charge each
/// message its own pair's (bound::alltoallv_clusters, the rooted bounds' latency_s), on rank 0:
/// entry [c][d] the one-way time of a zero-byte message, best of 8 ping-pongs, between the first
/// ranks of groups c and d, and [c][c] between the first two ranks of group c (0 for a group of
/// one rank). group_of_rank[r] in 0..k-1, every group used. Every rank takes part, the pairs one
/// after the other, on `tag`.
std::vector<std::vector<double>> group_latencies(Comm& comm, std::span<const int> group_of_rank, int tag);

/// Human-readable platform label for reports ("cluster-1gbe-48" on sim, "mpi" on mpi).
std::string platform_label(const BackendOptions& options);

/// Checks that every name is an algorithm of `collective` that runs on the backend, or with
/// `selector` "auto" (ragged/selection.hpp); throws InvalidArgument("--algorithms") otherwise.
void check_algorithms(const std::string& collective, const std::vector<std::string>& names,
                      const BackendOptions& options, bool selector = false);

/// collect_to_root's `max_count` when nothing bounds the ranks' counts.
inline constexpr std::size_t any_count = std::numeric_limits<std::size_t>::max();

/// Ships every rank's `mine` to rank 0 (rank by rank, one message each with tag `tag`) and
/// returns them there, indexed [rank][sample]; returns {} on the other ranks. The ranks'
/// vectors may differ in length: with `max_count` (a bound on every rank's count) each
/// message is received into that much room and trimmed to what came; without it every
/// rank sends its count first (a message more per rank). Call it outside timed regions.
template <class T>
std::vector<std::vector<T>> collect_to_root(Comm& comm, int tag, std::vector<T> mine,
                                            std::size_t max_count = any_count) {
  static_assert(std::is_trivially_copyable_v<T>, "samples travel as bytes");
  if (comm.rank() != 0) {
    if (max_count == any_count) {
      const auto count = static_cast<std::uint64_t>(mine.size());
      comm.send(0, tag, &count, sizeof count);
    }
    comm.send(0, tag, mine.data(), mine.size() * sizeof(T));
    return {};
  }
  std::vector<std::vector<T>> all(static_cast<std::size_t>(comm.size()));
  all[0] = std::move(mine);
  for (int r = 1; r < comm.size(); ++r) {
    std::vector<T>& theirs = all[static_cast<std::size_t>(r)];
    std::uint64_t count = max_count;
    if (max_count == any_count) comm.recv(r, tag, &count, sizeof count);
    theirs.resize(static_cast<std::size_t>(count));
    const Status got = comm.recv(r, tag, theirs.data(), theirs.size() * sizeof(T));
    theirs.resize(got.bytes / sizeof(T));
  }
  return all;
}

/// When timed_loop calls `verify`.
enum class VerifyOn { every_round, first_round, last_round };

/// One timed loop (timed_loop): `warmup` unmeasured rounds, then `iterations` measured ones.
template <class Sample>
struct TimedLoop {
  int warmup = 0;
  int iterations = 1;
  /// Before the round's start, outside the timed region: fills the buffers of round `round`
  /// (0 .. warmup + iterations - 1). Optional.
  std::function<void(int round)> prepare;
  /// Synchronizes the ranks and returns the instant the timed region starts on this rank.
  /// Empty: barrier(comm), then Runtime::now().
  std::function<double(int round)> start;
  /// The timed region: runs the call and returns this rank's sample of the round.
  std::function<Sample(int round, double start)> body;
  /// Checks the round's result, after its sample is kept, on the rounds `verify_on` names.
  /// Optional.
  std::function<void(int round)> verify;
  VerifyOn verify_on = VerifyOn::every_round;
};

/// Runs `loop` on this rank and returns the samples of its measured rounds, in order.
template <class Sample>
std::vector<Sample> timed_loop(Comm& comm, const TimedLoop<Sample>& loop) {
  std::vector<Sample> samples;
  samples.reserve(static_cast<std::size_t>(loop.iterations));
  const int rounds = loop.warmup + loop.iterations;
  for (int round = 0; round < rounds; ++round) {
    if (loop.prepare) loop.prepare(round);
    double start = 0;
    if (loop.start) {
      start = loop.start(round);
    } else {
      barrier(comm);
      start = comm.runtime().now();
    }
    Sample sample = loop.body(round, start);
    if (round >= loop.warmup) samples.push_back(std::move(sample));
    const bool verify_now = loop.verify_on == VerifyOn::every_round ||
                            (loop.verify_on == VerifyOn::first_round && round == 0) ||
                            (loop.verify_on == VerifyOn::last_round && round == rounds - 1);
    if (loop.verify && verify_now) loop.verify(round);
  }
  return samples;
}

}  // namespace ragged::bench
