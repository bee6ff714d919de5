// The state the arrival Monitor's foreground (monitor.cpp) shares with its agent
// (monitor_agent.cpp), and the agent protocol's message. The protocol is described at the
// top of monitor.cpp.
#pragma once

#include <cstdint>
#include <exception>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "arrival/background.hpp"
#include "internal/common.hpp"
#include "ragged/arrival.hpp"
#include "ragged/clock.hpp"

namespace ragged::internal {

enum class WireKind : std::uint32_t { record = 1, bye = 2, publish = 10, cancel = 11, stop = 12 };

/// Every message of the agent protocol (fixed size, sent as bytes).
struct Wire {
  std::uint32_t kind = 0;
  std::uint32_t source = 0;  ///< ArrivalSource
  std::uint64_t epoch = 0;
  double time = 0;       ///< arrival on rank 0's clock
  double published = 0;  ///< when the record was published, on rank 0's clock
  std::uint32_t plan_kind = 0;
  std::int32_t plan_root = 0;
  std::uint64_t plan_bytes = 0;
};

inline PlanKey plan_of(const Wire& w) {
  return PlanKey{static_cast<BackgroundKind>(w.plan_kind), w.plan_bytes, w.plan_root};
}

/// A record as it came from another agent (or from this process's foreground), made safe to plan
/// with: times that are not finite count as arriving when published (or at 0), an unknown source
/// as an estimate; everything else is kept.
Wire received_record(Wire w);

/// What every process builds from the P records of one epoch (records[r]: rank r's, each through
/// received_record): the arrivals and sources, the latest publication, and the plan they agreed
/// on: the one every record names, when it is runnable, its root a rank and its kind a known
/// background part, and, for a part skipped on a balanced pattern (with `balanced_fallback`),
/// the pattern is not balanced; otherwise kind none.
struct EpochRecords {
  std::vector<double> arrivals;
  std::vector<ArrivalSource> sources;
  double last_published = 0;
  PlanKey agreed;
};
EpochRecords combine_records(std::span<const Wire> records, const LinkModel& link, bool balanced_fallback);

/// A send whose buffer lives as long as the request.
struct PendingSend {
  Wire wire;
  Request request;
};

/// The longest sleep between two polls of the mpi backend's agent while it expects a message
/// soon (a round's records are coming in, a background part runs) ...
constexpr double busy_pause = 100e-6;
/// ... and while it only waits for the next call: its polls would take the cores from the
/// ranks' own communication (8 agents polling every 100 us cost the 8-host testbed's balanced
/// allgather 10%, docs/arrival.md). The foreground rings the doorbell when it sends its agent
/// a message, so only another process's record may come up to this much later, and this
/// process's round cannot complete before its own record is in anyway.
constexpr double idle_pause = 5e-3;

/// Wakes the mpi backend's agent from its sleep between polls when the foreground sent it a
/// message (Monitor::State::send_local).
struct Doorbell {
  explicit Doorbell(Runtime& rt) : mutex(rt.make_mutex()), cv(rt.make_condition_variable()) {}
  void ring() {
    {
      std::lock_guard<Mutex> lock(*mutex);
      rung = true;
    }
    cv->notify_one();
  }
  /// Sleeps up to `seconds` unless rung; true when it was (and clears it).
  bool sleep(double seconds) {
    std::unique_lock<Mutex> lock(*mutex);
    if (!rung) cv->wait_for(lock, seconds);
    return std::exchange(rung, false);
  }
  std::unique_ptr<Mutex> mutex;
  std::unique_ptr<ConditionVariable> cv;
  bool rung = false;
};

/// Waits until one active, incomplete request of `requests` completes (TimeoutError after
/// `timeout`). On the mpi backend a blocking MPI_Waitany would spin a core for as long as the
/// computation phase lasts; the agent polls with sleeps instead, doubling from 1 us up to
/// `most`, and leaves the cores to the computation; a ring of `bell` ends a sleep and starts
/// the doubling again.
std::size_t agent_wait_any(Comm& comm, std::span<Request> requests, Doorbell& bell, Timeout timeout = {},
                           double most = busy_pause);

/// Runs this process's agent on `state` until it is told to stop (the body of its daemon).
void run_agent(std::shared_ptr<Monitor::State> state);

}  // namespace ragged::internal

namespace ragged {

struct Monitor::State {
  State(Comm& c, MonitorOptions o)
      : comm(c),
        rt(c.runtime()),
        options(std::move(o)),
        procs(c.size()),
        me(c.rank()),
        mutex(rt.make_mutex()),
        changed(rt.make_condition_variable()),
        bell(rt),
        history(options.history_weight) {}

  Comm& comm;
  Runtime& rt;
  MonitorOptions options;
  int procs;
  int me;
  LinkModel link;
  double offset = 0;

  // ---- shared between the foreground and the agent, under `mutex`
  std::unique_ptr<Mutex> mutex;
  std::unique_ptr<ConditionVariable> changed;
  std::map<std::uint64_t, std::shared_ptr<const ArrivalSnapshot>> ready;
  std::exception_ptr agent_error;
  bool agent_done = false;
  std::vector<int> silent;                     ///< ranks whose agents said no goodbye within the timeout
  internal::Doorbell bell;                     ///< rung by send_local (under its own mutex)
  bool agent_polls = comm.backend() == "mpi";  ///< see internal::agent_wait_any

  // ---- foreground only
  std::uint64_t epoch = 0;
  bool published = false;
  std::optional<double> start;
  bool ended = false;
  bool edge_this = false;
  bool edge_last = false;
  MovingAverage history;
  std::optional<internal::PlanKey> announced;  // Monitor::use
  internal::PlanKey learned;                   // the previous call
  std::list<internal::PendingSend> local_sends;
  std::shared_ptr<internal::BackgroundSlot> last_slot;
  std::unique_ptr<Daemon> agent;
  bool finalized = false;

  void send_local(const internal::Wire& w) {
    local_sends.emplace_back();
    internal::PendingSend& s = local_sends.back();
    s.wire = w;
    s.request = comm.isend(me, internal::tag_agent_local, &s.wire, sizeof s.wire);
    if (agent_polls) bell.ring();  // only the mpi backend's agent sleeps between polls
  }

  /// The plan this process's record names.
  [[nodiscard]] internal::PlanKey plan() const {
    if (!announced) return learned;
    internal::PlanKey p = *announced;
    const internal::Background* part = internal::background_of(p.kind);
    if (p.block_bytes == 0 && learned.kind == p.kind &&
        (part == nullptr || !part->root_only || learned.root == p.root)) {
      p.block_bytes = learned.block_bytes;
    }
    return p;
  }

  void publish(double time, ArrivalSource source) {
    const double now = rt.now();
    // Absurd estimates (NaN, in the past, far ahead) are clamped: the process arrives no
    // earlier than now, and no later than the horizon.
    time = clamp_estimate(time, now, options.horizon_s);
    const internal::PlanKey p = plan();
    internal::Wire w;
    w.kind = static_cast<std::uint32_t>(internal::WireKind::publish);
    w.source = static_cast<std::uint32_t>(source);
    w.epoch = epoch;
    w.time = time - offset;
    w.published = now - offset;
    w.plan_kind = static_cast<std::uint32_t>(p.kind);
    w.plan_root = p.root;
    w.plan_bytes = p.block_bytes;
    send_local(w);
    published = true;
  }

  /// Gives up the previous epoch's background if the collective did not claim it.
  void retire_last_slot() {
    if (!last_slot) return;
    last_slot->abandon();
    last_slot.reset();
  }

  /// Forgets local sends that completed (all of them up to the last publish, once its
  /// snapshot is complete: the agent received them in order).
  void drain_local_sends() {
    for (auto it = local_sends.begin(); it != local_sends.end();) {
      it = it->request.test() ? local_sends.erase(it) : std::next(it);
    }
  }
};

}  // namespace ragged
