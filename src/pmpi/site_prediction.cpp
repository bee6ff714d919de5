// libragged_pmpi.so: arrival prediction per call site for `auto` (site_prediction.hpp, docs/pmpi.md).
#include "site_prediction.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "pmpi.hpp"
#include "ragged/mpi.hpp"
#include "ragged/selection.hpp"
#include "settings.hpp"

namespace ragged::pmpi::prediction {

std::atomic<int> communicators{0};

namespace {

/// Call sites a communicator remembers, and how many of them get a monitor (an agent thread and
/// a private communicator each). Both limits count in the order the sites first came, which is
/// the same on every rank.
constexpr std::size_t max_sites = 64;
constexpr std::size_t max_tracked = 4;
constexpr int idle_limit = 2;
constexpr int first_pause = 8;
constexpr int max_pause = 64;

/// One call site: its position in the communicator's sequence of calls and its monitor.
struct Site {
  int calls = 0;                 ///< calls of the site so far
  long long exits_at_entry = 0;  ///< the communicator's exits when the site was last entered
  long long gap = 0;             ///< exits between its last two entries (0: not known yet)
  bool started = false;          ///< processing_start() ran in the current epoch
  std::size_t segment = 0;       ///< bytes of the segment whose tau the balance test uses
  /// This rank's own view of the monitor's estimator, to judge it: the phase before the site
  /// (entry minus start) and how far its last predictions of it missed (a ring).
  MovingAverage phase{0.5};
  std::array<double, 4> misses{};
  int missed = 0;  ///< predictions judged so far
  double start = 0;
  bool has_start = false;
  /// Idling: after `idle_limit` calls in a row whose snapshot gave `auto` nothing (every rank
  /// published at its arrival, or the predicted imbalance was below the floor), the site skips
  /// the exchange for `dormant` calls, then tries again; the pause doubles up to max_pause.
  /// Counted from the snapshots, which every rank shares, so every rank pauses in the same calls.
  int idle = 0;
  int dormant = 0;
  int pause = first_pause;
  /// The spread of the arrivals (latest minus earliest) in the site's last snapshot, with its
  /// link model: from the snapshots only, so the same on every rank. `auto` acts on it only in
  /// calls without a usable snapshot (the dormant ones, or when nobody predicted).
  double spread = 0;
  LinkModel spread_link{};
  std::unique_ptr<Comm> comm;  ///< the monitor's private copy of the communicator
  std::unique_ptr<Monitor> monitor;
};

/// Every monitor of the process in the order they were made (MPI_Finalize stops them so).
struct Registry {
  std::mutex mutex;
  std::vector<Monitor*> monitors;
};

Registry& registry() {
  static auto* r = new Registry();  // never destroyed: a delete callback may run at exit
  return *r;
}

using Key = std::tuple<int, std::size_t>;  // (collective, bytes)

/// RAGGED_ARRIVAL_MIN_OMEGA (seconds, default 1 ms): the least predicted imbalance that `auto`
/// acts on. Proficz 2021's test, omega >= tau, is what `auto` applies; on shared memory tau is a few
/// microseconds, less than the scheduling noise of one process on a loaded machine, which the
/// cross-iteration estimator cannot predict.
double min_omega() {
  const std::string* set = ragged::environment().find("RAGGED_ARRIVAL_MIN_OMEGA");  // read once per process
  const char* value = set != nullptr ? set->c_str() : nullptr;
  if (value == nullptr || *value == '\0') return 1e-3;
  const std::optional<double> seconds = parse_min_omega(value);
  if (!seconds) {
    say_once(std::string("RAGGED_ARRIVAL_MIN_OMEGA=") + value,
             std::string("ragged pmpi: RAGGED_ARRIVAL_MIN_OMEGA='") + value +
                 "' is not a number of seconds from 0 to 3600: the default, 0.001, applies");
    return 1e-3;
  }
  return *seconds;
}

/// The imbalance `auto` sees in `snapshot`: arrivals before known_at() counted as known_at()
/// (nobody can act on a prediction before every rank has it), latest minus earliest.
double predicted_imbalance(const ArrivalSnapshot& snapshot) {
  double first = std::numeric_limits<double>::infinity();
  double last = -std::numeric_limits<double>::infinity();
  for (double a : snapshot.arrivals()) {
    const double effective = std::max(a, snapshot.known_at());
    first = std::min(first, effective);
    last = std::max(last, effective);
  }
  return last - first;
}

/// Whether the site's predictions are good enough to publish: before the first miss is known,
/// yes; then while the median of the last (up to 4) misses stays below what the schedules
/// resolve, tau of a segment, or 5 RAGGED_ARRIVAL_MIN_OMEGA (5 ms). The median, lower of an even
/// count, because a loaded machine's process oversleeps by tens of ms now and then, which must
/// not silence a rank that is late by the same delay every time.
bool predicts(const Site& site) {
  if (site.missed == 0) return true;
  const auto n = static_cast<std::size_t>(std::min<int>(site.missed, static_cast<int>(site.misses.size())));
  std::vector<double> last(site.misses.begin(), site.misses.begin() + static_cast<std::ptrdiff_t>(n));
  std::sort(last.begin(), last.end());
  const double miss = last[(n - 1) / 2];
  const double resolution = std::max(5 * min_omega(), site.monitor->link().tau(site.segment));
  return miss < resolution;
}

}  // namespace

struct State {
  std::map<Key, Site> sites;
  std::vector<Site*> tracked;  ///< in the order their monitors were made
  long long exits = 0;         ///< collectives on the communicator that returned since the state was made
  double last_exit = 0;        ///< when the last of them returned (the mpi runtime's clock)
  bool exited = false;
  std::optional<LinkModel> link;  ///< measured by the first monitor, given to the next ones
};

void destroy(State* state) {
  // In the order they were made, the same on every rank (each stop is collective).
  for (Site* tracked : state->tracked) {
    Site& site = *tracked;
    {
      const std::lock_guard<std::mutex> lock(registry().mutex);
      auto& all = registry().monitors;
      all.erase(std::remove(all.begin(), all.end(), site.monitor.get()), all.end());
    }
    try {
      site.monitor->finalize();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ragged pmpi: stopping an arrival monitor: %s\n", e.what());
    }
    site.monitor.reset();
    site.comm.reset();
  }
  delete state;
  communicators.fetch_sub(1);
}

namespace {
thread_local bool off_here = false;
}  // namespace

void off_on_this_thread() { off_here = true; }

bool applies(Collective collective) {
  if (off_here) return false;
  // The collectives with arrival-aware algorithms; a gather's or scatter's segment is a rank's
  // block, a bcast's or reduce's the whole message (the size the call passes, as select.cpp takes it).
  if (collective != Collective::allgather && collective != Collective::allreduce && collective != Collective::bcast &&
      collective != Collective::reduce && collective != Collective::gather && collective != Collective::scatter) {
    return false;
  }
  const std::string* set = ragged::environment().find("RAGGED_ARRIVAL");  // read once per process
  const char* value = set != nullptr ? set->c_str() : nullptr;
  if (value != nullptr && *value != '\0' && std::strcmp(value, "auto") != 0) {
    if (std::strcmp(value, "off") != 0) {
      say_once(std::string("RAGGED_ARRIVAL=") + value, std::string("ragged pmpi: RAGGED_ARRIVAL='") + value +
                                                           "' is neither 'auto' nor 'off': arrival awareness is off");
    }
    return false;
  }
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    say_once("arrival thread level",
             "ragged pmpi: no MPI_THREAD_MULTIPLE: auto sees no arrival snapshot (the arrival agent is a thread)");
    return false;
  }
  return true;
}

std::shared_ptr<const ArrivalSnapshot> at_call(CommAttribute& state, Collective collective, std::size_t bytes,
                                               Comm*& site_comm) {
  if (!state.prediction) {
    state.prediction = std::shared_ptr<State>(new State(), &destroy);
    communicators.fetch_add(1);
  }
  State& a = *state.prediction;
  const Key key{static_cast<int>(collective), bytes};
  auto it = a.sites.find(key);
  if (it == a.sites.end()) {
    if (a.sites.size() >= max_sites) return nullptr;
    it = a.sites.try_emplace(key).first;
  }
  Site& site = it->second;
  const double entry = state.comm->runtime().now();
  double setup = 0;  // time spent making the monitor in this call
  if (!site.started && a.exited) {
    site.start = a.last_exit;
    site.has_start = true;
  }
  if (site.has_start) {
    const double sample = entry - site.start;
    if (const std::optional<double> predicted = site.phase.predict()) {
      site.misses[static_cast<std::size_t>(site.missed) % site.misses.size()] = std::abs(sample - *predicted);
      ++site.missed;
    }
    site.phase.add(sample);
    site.has_start = false;
  }
  if (site.calls > 0) site.gap = a.exits - site.exits_at_entry;
  site.exits_at_entry = a.exits;
  ++site.calls;
  // A site gets its monitor at its second call: a call made once (set-up, a final check) costs
  // nothing, and by then the phase before the site can be measured (below).
  if (!site.monitor && site.calls >= 2 && a.tracked.size() < max_tracked) {
    MonitorOptions options;
    options.link = a.link;
    // tau of the site's own segments is what the balance test needs: probe near that size.
    site.segment =
        collective == Collective::allreduce ? bytes / static_cast<std::size_t>(std::max(1, state.comm->size())) : bytes;
    options.probe_bytes = std::clamp<std::size_t>(site.segment, 4096, std::size_t{1} << 20);
    site.comm = mpi::make_comm(state.user, mpi::CommOptions{.require_thread_multiple = true, .copy_attributes = false});
    site.monitor = std::make_unique<Monitor>(*site.comm, options);
    if (!a.link) a.link = site.monitor->link();
    setup = state.comm->runtime().now() - entry;
    a.tracked.push_back(&site);
    const std::lock_guard<std::mutex> lock(registry().mutex);
    registry().monitors.push_back(site.monitor.get());
  }
  if (!site.monitor) return nullptr;
  if (site.dormant > 0) {
    --site.dormant;
    site.started = false;
    return nullptr;
  }
  // The exit hook did not start this epoch's phase (the site's position was not known yet, or
  // the sequence changed): the phase began when the last collective on the communicator returned.
  // Making the monitor (collective: it waits for every rank) is no part of the phase: the start
  // moves by its duration, so that the estimator's sample is this rank's entry minus the exit.
  if (!site.started && a.exited) site.monitor->processing_started_at(a.last_exit + setup);
  site.started = false;
  std::shared_ptr<const ArrivalSnapshot> snapshot = site.monitor->arrive();
  // Pauses: counted from the snapshot, which every rank shares.
  bool predicted = false;
  for (int r = 0; r < snapshot->size(); ++r) predicted |= snapshot->source(r) == ArrivalSource::estimated;
  {
    const auto [first, last] = std::minmax_element(snapshot->arrivals().begin(), snapshot->arrivals().end());
    site.spread = *last - *first;
    site.spread_link = snapshot->link();
  }
  const bool useful = predicted && predicted_imbalance(*snapshot) >= min_omega();
  if (useful) {
    site.idle = 0;
    site.pause = first_pause;
  } else if (++site.idle >= idle_limit) {
    site.idle = 0;
    site.dormant = site.pause;
    site.pause = std::min(2 * site.pause, max_pause);
  }
  // Below the noise floor the prediction says nothing: `auto` sees no snapshot (a background part
  // the agent may have started for the previous call's algorithm is given up at the next epoch).
  if (predicted_imbalance(*snapshot) < min_omega()) return nullptr;
  site_comm = site.comm.get();
  return snapshot;
}

std::shared_ptr<const ArrivalSpread> spread(CommAttribute& state, Collective collective, std::size_t bytes) {
  if (!state.prediction) return nullptr;
  const auto it = state.prediction->sites.find(Key{static_cast<int>(collective), bytes});
  if (it == state.prediction->sites.end() || !it->second.monitor) return nullptr;
  const Site& site = it->second;
  // What the schedules resolve, as for the predictions (predicts()): a block's tau, or 5 ms.
  if (!(site.spread >= std::max(5 * min_omega(), site.spread_link.tau(site.segment)))) return nullptr;
  return std::make_shared<const ArrivalSpread>(ArrivalSpread{site.spread, site.spread_link});
}

void after_slow(MPI_Comm comm) {
  CommAttribute* state = find_state(comm);
  if (state == nullptr || !state->prediction) return;
  State& a = *state->prediction;
  ++a.exits;
  a.last_exit = state->comm->runtime().now();
  a.exited = true;
  for (Site* site : a.tracked) {
    // The collective that came right before the site's call last time has returned: the phase
    // before the site starts now, and the monitor publishes its prediction (start + the moving
    // average of the phase), which the agent sends to every other rank while this one computes.
    // Only while this rank's predictions of the phase hit: a rank whose phase changes at random
    // from call to call publishes at its arrival instead, so that the snapshot is complete only
    // when it arrives and nobody plans on a guess (if every rank does, `auto` sees a balanced
    // pattern and runs a regular algorithm).
    if (site->gap > 0 && a.exits == site->exits_at_entry + site->gap) {
      if (site->dormant > 0) {  // no exchange in the coming call: only this rank's own estimator
        site->start = a.last_exit;
        site->has_start = true;
        site->started = true;
        continue;
      }
      if (predicts(*site)) {
        site->monitor->processing_start();
      } else {
        site->monitor->processing_started_at(a.last_exit);
      }
      site->start = a.last_exit;
      site->has_start = true;
      site->started = true;
    }
  }
}

void finalize_all() {
  std::vector<Monitor*> monitors;
  {
    const std::lock_guard<std::mutex> lock(registry().mutex);
    monitors = registry().monitors;
  }
  for (Monitor* m : monitors) {
    try {
      m->finalize();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ragged pmpi: MPI_Finalize: stopping an arrival monitor: %s\n", e.what());
    }
  }
}

}  // namespace ragged::pmpi::prediction
