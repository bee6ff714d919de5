// ragged: the arrival runtime (layer 4). A Monitor watches the computation
// phase of an iterative program (processing_start, edge(fraction),
// processing_end), estimates when this process will arrive at the next
// collective, and a background agent exchanges the estimates among the
// processes. Every iteration (epoch) ends in an immutable ArrivalSnapshot that
// arrival-aware algorithms (allgather "bdr" and "bslb", gather "bsls" and
// "sls") read from CollectiveOptions::arrival. The agent also runs their
// background parts (BDR's early receives, BSLS's root loop) while the process
// still computes. Proficz 2021 (§2.2, listing 1) and Proficz 2018 (§3); see docs/arrival.md.
//
//   Monitor monitor(comm);                       // collective: starts the agent
//   monitor.use({Collective::allgather, "bdr", count, DataType::float32});
//   for (...) {
//     monitor.processing_start();
//     compute_first_half();  monitor.edge(0.5);  compute_second_half();
//     monitor.processing_end();
//     CollectiveOptions o;  o.hints.set(monitor.arrive());
//     Registry::instance().allgather("bdr")(comm, in, out, count, DataType::float32, o);
//   }
//   monitor.finalize();                          // collective
//
// Tests and tools may also build an ArrivalSnapshot by hand and pass it
// directly: then no agent runs and the algorithms do all their work in the
// foreground. Every rank of one call must pass a snapshot with the same
// arrival times and link model (the agent guarantees it for its snapshots).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/registry.hpp"

namespace ragged {

/// How a rank's arrival time in a snapshot was obtained.
enum class ArrivalSource : std::uint8_t {
  none = 0,       ///< nothing known (a synthetic snapshot left it out)
  estimated = 1,  ///< predicted before the arrival (edge extrapolation or moving average)
  measured = 2,   ///< the actual arrival (processing_end or the collective call)
};
[[nodiscard]] const char* name_of(ArrivalSource source);

/// Hockney model of one point-to-point transfer: tau(bytes) = alpha + beta * bytes.
struct LinkModel {
  double alpha = 0;  ///< seconds
  double beta = 0;   ///< seconds per byte
  [[nodiscard]] double tau(std::size_t bytes) const { return alpha + beta * static_cast<double>(bytes); }
  /// False for the default (all zero) model: algorithms then plan no pre-steps.
  [[nodiscard]] bool known() const { return alpha > 0 || beta > 0; }
};

namespace internal {
class BackgroundSlot;
}

/// The arrival estimates of every rank for one epoch plus the link model. Immutable.
class ArrivalSnapshot {
 public:
  /// `sources` may be empty (then every rank counts as estimated). Throws InvalidArgument on an
  /// empty or non-finite arrival vector or a sources vector of another size.
  ArrivalSnapshot(std::vector<double> arrivals, LinkModel link, std::uint64_t epoch = 0,
                  std::vector<ArrivalSource> sources = {});
  /// Used by the agent: the same, plus when the last record was published (plus one latency)
  /// and the background work it prepared for this epoch.
  ArrivalSnapshot(std::vector<double> arrivals, LinkModel link, std::uint64_t epoch, std::vector<ArrivalSource> sources,
                  double known_at, std::shared_ptr<internal::BackgroundSlot> background, bool regular_fallback = true);

  /// Every rank arriving at time 0.
  static std::shared_ptr<const ArrivalSnapshot> flat(int procs, LinkModel link = {});

  [[nodiscard]] int size() const { return static_cast<int>(arrivals_.size()); }
  [[nodiscard]] double arrival(int rank) const;
  [[nodiscard]] std::span<const double> arrivals() const { return arrivals_; }
  [[nodiscard]] ArrivalSource source(int rank) const;
  [[nodiscard]] const LinkModel& link() const { return link_; }
  [[nodiscard]] std::uint64_t epoch() const { return epoch_; }
  [[nodiscard]] double earliest() const;
  [[nodiscard]] double latest() const;
  /// Worst imbalance omega = latest() - earliest().
  [[nodiscard]] double imbalance() const { return latest() - earliest(); }
  /// When every rank could know the whole snapshot: the last record's publication plus one
  /// latency (on rank 0's clock). No rank can act on the snapshot before, so BDR counts an
  /// earlier arrival as this time. The lowest double for snapshots built by hand (known ahead).
  [[nodiscard]] double known_at() const { return known_at_; }
  /// Whether the pattern is balanced for blocks of `block_bytes` (Proficz 2021, §2: omega < tau),
  /// with arrivals before known_at() counted as known_at(). False when the link model is
  /// unknown. BDR and BGD then run as the ring, BSLB runs the ring and BSLS skips its background.
  [[nodiscard]] bool balanced(std::size_t block_bytes) const;
  /// Whether the arrival-aware algorithms fall back to a regular one on a balanced pattern
  /// (MonitorOptions::balanced_fallback). When false, balanced() is false and BGD runs its own
  /// (ring) program instead of NEX.
  [[nodiscard]] bool regular_fallback() const { return regular_fallback_; }
  /// Internal: background work of the agent (null for snapshots built by hand).
  [[nodiscard]] const std::shared_ptr<internal::BackgroundSlot>& background() const { return background_; }

 private:
  std::vector<double> arrivals_;
  std::vector<ArrivalSource> sources_;
  LinkModel link_;
  std::uint64_t epoch_ = 0;
  double known_at_ = 0;
  std::shared_ptr<internal::BackgroundSlot> background_;
  bool regular_fallback_ = true;
};

/// A hint for `auto` (CollectiveOptions::hints.set): the arrivals at this call were spread by
/// about `omega` seconds (latest minus earliest, measured at earlier calls of the same site) but
/// could not be predicted, so no snapshot says who will be late. `auto` then runs an
/// arrival-reactive algorithm (allgather push) when omega is at least tau of a block under
/// `link` (any omega > 0 when the link is unknown). Every rank of the call must pass the same.
struct ArrivalSpread {
  double omega = 0;
  LinkModel link{};
};

// ------------------------------------------------------------------ estimators

/// Linear extrapolation inside an iteration (listing 1 of Proficz 2021): a computation that
/// started at `start` and has done `fraction` (0 < fraction <= 1) of its work at `now`
/// ends at start + (now - start) / fraction.
[[nodiscard]] double extrapolate_arrival(double start, double now, double fraction);

/// An estimate made at `now`, as the monitor publishes it: not before `now` (the process has
/// not arrived yet), at most `horizon_s` ahead, and `now` when it is not a number.
[[nodiscard]] double clamp_estimate(double estimate, double now, double horizon_s);

/// Exponential moving average of the computation length across iterations (the papers'
/// future work): predicts an iteration's length before any edge call.
class MovingAverage {
 public:
  /// `weight` of the newest sample, in (0, 1]; 1 keeps only the last iteration.
  explicit MovingAverage(double weight = 0.5);
  void add(double duration);
  /// The average, or nothing before the first sample.
  [[nodiscard]] std::optional<double> predict() const;
  [[nodiscard]] int samples() const { return samples_; }

 private:
  double weight_;
  double value_ = 0;
  int samples_ = 0;
};

// ---------------------------------------------------------------------- monitor

/// A collective the agent should prepare in the background (see Monitor::use).
struct PlannedCall {
  Collective collective = Collective::allgather;
  std::string algorithm;  ///< the registry name: allgather "bdr" or "bslb", gather "bsls"
  std::size_t count = 0;  ///< elements per rank (allgather, gather)
  DataType type = DataType::byte;
  int root = 0;  ///< gather only
};

struct MonitorOptions {
  /// The link model tau = alpha + beta * bytes. When unset the agent measures it at start-up
  /// (ping-pongs of 0 bytes and of `probe_bytes` between neighbouring ranks, the slowest pair).
  std::optional<LinkModel> link;
  std::size_t probe_bytes = std::size_t{1} << 20;
  /// Weight of the newest iteration in the moving average of the computation length.
  double history_weight = 0.5;
  /// At processing_start, publish a prediction from the moving average when the previous
  /// iteration made no edge call (a program that calls edge gets the better in-iteration estimate).
  bool predict_from_history = true;
  /// Measure this process's clock offset to rank 0 at start-up (mpi only; the simulator's
  /// clock is global).
  bool sync_clocks = true;
  /// Exchange a zero-byte message with every rank at start-up (connection warm-up).
  bool warm_up = true;
  /// Limit on arrive()'s wait for the other ranks' records, and on finalize()'s wait for the
  /// other agents' goodbyes; unset waits forever. With it, a rank that never arrives (or has
  /// stopped) makes the others raise TimeoutError instead of hanging, and their agents still stop.
  Timeout timeout;
  /// Estimates are clamped to [now, now + horizon_s] when published (an estimate in the past is
  /// the process arriving now; NaN counts as now); records of other ranks with non-finite times
  /// are taken as arriving when published. Seconds.
  double horizon_s = 3600;
  /// On a balanced pattern (omega < tau) the arrival-aware algorithms run a regular fallback
  /// (BGD and BSLB: NEX; BSLS serves in the foreground). False makes them run their own
  /// schedules whatever the pattern: the benchmark's flat run of an algorithm, for its absorption.
  bool balanced_fallback = true;
};

/// Per-process monitor of the computation phase, with its background agent. Every rank of
/// `comm` constructs one (collectively) and calls finalize() (collectively) before `comm` goes.
/// The foreground calls (processing_start ... arrive) come from one thread.
class Monitor {
 public:
  explicit Monitor(Comm& comm, MonitorOptions options = {});
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  /// The computation phase of the current epoch starts.
  void processing_start();
  /// The computation phase of the current epoch started earlier, at `at` (the runtime's clock):
  /// what processing_start() would have recorded then, for the cross-iteration estimator, without
  /// publishing anything (the PMPI library learns only at a call when the phase before it began).
  void processing_started_at(double at);
  /// `fraction` (0 < fraction <= 1) of the computation is done.
  void edge(double fraction);
  /// The computation phase ends (the measured arrival, unless a collective call follows later).
  void processing_end();
  /// Announces the next collective (PAT_UseAlg) so that the agent prepares its background part.
  /// Without it the agent prepares the call the previous epoch made.
  void use(PlannedCall call);
  /// This process arrives at the collective: publishes its measured arrival if nothing was
  /// published in this epoch, waits until every rank's record of the epoch is in, closes the
  /// epoch and returns its snapshot (pass it as CollectiveOptions::arrival).
  std::shared_ptr<const ArrivalSnapshot> arrive();
  /// Stops the agent (collective). Called by the destructor if not done before. The agent has
  /// stopped when it returns or throws: TimeoutError when some agents said no goodbye within
  /// MonitorOptions::timeout (they are named), or the error that ended the agent before (an MPI
  /// error in the agent is a TransportError, also raised by the arrive() that follows it).
  void finalize();

  [[nodiscard]] const LinkModel& link() const;
  /// This process's clock minus rank 0's (0 on sim or without sync_clocks).
  [[nodiscard]] double clock_offset() const;
  /// Epochs closed so far (arrive() calls).
  [[nodiscard]] std::uint64_t epoch() const;
  [[nodiscard]] Comm& comm() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// Measures the link model collectively: every rank ping-pongs 0 and `probe_bytes` bytes with
/// its neighbour (pairs (0,1),(2,3),... then (1,2),(3,4),...), best of `rounds` (of at least 16
/// for the zero-byte one); the result is
/// the largest alpha and beta over all pairs, the same on every rank. Uses `tag` (and tag+1).
/// `timeout` bounds each send and receive (TimeoutError names the peer).
LinkModel measure_link(Comm& comm, int tag, std::size_t probe_bytes = std::size_t{1} << 20, int rounds = 3,
                       Timeout timeout = {});

// The arrival-aware algorithms (allgather bdr, bgd, bslb, early_late; gather bsls, sls; allreduce slt, prr, prd) are
// entries of the algorithm list (src/core/algorithms/list.def) and run through dispatch with the snapshot as a
// hint: CollectiveOptions::hints.set(monitor.arrive()). Without it they still give exact results
// (BDR runs as the ring, BSLS/SLS serve the ranks in rank order). docs/algorithms/{bdr,bgd,bsls,sls,bslb}.md.

// ------------------------------------------------------------------ C API (pat.h)

/// Chooses the communicator (and options) of the monitor that PAT_Init() starts. On the mpi
/// backend, bind e.g. `*ragged::mpi::make_comm(MPI_COMM_WORLD)` kept alive until PAT_Finalize.
/// One monitor per OS process: the C API is for MPI programs (one rank per process).
void pat_bind(Comm& comm, MonitorOptions options = {});
/// The monitor PAT_Init() started; null before PAT_Init() and after PAT_Finalize().
[[nodiscard]] Monitor* pat_monitor();
/// Forgets the communicator of pat_bind() (before it goes); refused while the monitor runs.
void pat_unbind();

// For a library that runs the program's collectives itself (libragged_pmpi.so: its PAT_Init
// binds MPI_COMM_WORLD, so that a C program needs no pat_bind()):

/// Whether the running monitor has a planned call (PAT_UseAlg) of `collective`; lock-free.
[[nodiscard]] bool pat_plans(Collective collective) noexcept;
/// A collective call's share of the monitor: the planned call and, after a computation phase,
/// the snapshot and the monitor's communicator, on which the call must then run (the agent's
/// background part talks there).
struct PatArrival {
  PlannedCall call;
  std::shared_ptr<const ArrivalSnapshot> snapshot;  ///< null: no phase since the last snapshot
  Comm* comm = nullptr;                             ///< with the snapshot
};
/// When the monitor runs and PAT_UseAlg named a call of `collective`: the planned call, and, if a
/// computation phase began (PAT_ProcessingStart or PAT_ProcessingEnd) since the last call that
/// got one, Monitor::arrive()'s snapshot for this call. Otherwise nothing. Every rank must make
/// the same calls, as with the monitor itself. Throws what arrive() throws.
[[nodiscard]] std::optional<PatArrival> pat_arrival(Collective collective);

/// The functions of pat.h by C++ name (PAT_Init is pat::init, PAT_UseAlgFor is pat::use_alg).
namespace pat {
int init();
int processing_start();
int edge(double fraction);
int processing_end();
int use_alg(const char* algorithm, std::size_t count, std::size_t element_size);
int finalize();
const char* last_error();
/// Sets the text PAT_LastError() returns and returns `code` (for a library's own PAT_Init).
int fail(int code, const std::string& text);
}  // namespace pat

}  // namespace ragged
