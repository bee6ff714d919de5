// The Monitor (foreground calls) and its agent (a daemon: a thread on mpi, an
// actor on sim).
//
// Records, not clocks: in every epoch each process publishes exactly one record
// {epoch, arrival time on rank 0's clock, estimated or measured, planned call}
// at the first of processing_start (a moving-average prediction, only when the
// previous epoch made no edge call), edge (linear extrapolation), and
// processing_end / arrive (the measured arrival). The foreground hands it to its
// own agent (a message to itself on tag_agent_local); the agent sends it to every
// other agent (tag_agent) and collects theirs. With all P records in, the epoch's
// snapshot is complete: every process builds it from the same P records, so
// every process computes the same schedules, even when estimates are wrong or
// missing. A process that never calls edge publishes when it arrives, so nobody
// waits for a record that never comes.
//
// When all P records name the same runnable plan, the agent runs this process's
// background part of it at once (BDR: the receives before its first send; BSLS:
// the root's loop) and hands the results over through the snapshot's slot.
//
// Shutdown is collective: each agent, told to stop, sends "bye" to every other
// agent and keeps serving until it has a bye from each; since messages between
// two ranks do not overtake, every record it sent has been received by then.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "arrival/background.hpp"
#include "internal/common.hpp"
#include "ragged/arrival.hpp"
#include "ragged/clock.hpp"
#include "ragged/error.hpp"

namespace ragged {

namespace {

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

internal::PlanKey plan_of(const Wire& w) {
  return internal::PlanKey{static_cast<internal::BackgroundKind>(w.plan_kind), w.plan_bytes, w.plan_root};
}

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
                           double most = busy_pause) {
  if (comm.backend() != "mpi") return comm.wait_any(requests, timeout);
  const double deadline = timeout ? comm.runtime().now() + *timeout : 0.0;
  double pause = 1e-6;
  for (;;) {
    bool any = false;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (!requests[i].active()) continue;
      any = true;
      if (requests[i].test()) return i;
    }
    if (!any) return Comm::npos;
    if (timeout && comm.runtime().now() >= deadline) throw TimeoutError("arrival agent: no message in time");
    pause = bell.sleep(pause) ? 1e-6 : std::min(pause * 2, most);
  }
}

}  // namespace

// ===================================================================== state

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
  Doorbell bell;                               ///< rung by send_local (under its own mutex)
  bool agent_polls = comm.backend() == "mpi";  ///< see agent_wait_any

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
  std::list<PendingSend> local_sends;
  std::shared_ptr<internal::BackgroundSlot> last_slot;
  std::unique_ptr<Daemon> agent;
  bool finalized = false;

  void send_local(const Wire& w) {
    local_sends.emplace_back();
    PendingSend& s = local_sends.back();
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
    Wire w;
    w.kind = static_cast<std::uint32_t>(WireKind::publish);
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

// ===================================================================== agent

namespace {

class Agent final : public internal::BackgroundContext {
  struct Pending {
    std::vector<Wire> records;
    std::vector<char> have;
    int count = 0;
  };

 public:
  explicit Agent(std::shared_ptr<Monitor::State> state)
      : st_(std::move(state)), comm_(st_->comm), procs_(st_->procs), me_(st_->me) {}

  void run() {
    post_remote();
    post_local();
    while (!(stopping_ && byes_ == procs_ - 1)) {
      if (stopping_) to_run_.clear();  // nobody will send for a background any more
      if (!to_run_.empty()) {
        run_background();
        continue;
      }
      try {
        // No round under way: only the next call's first record can come.
        const double most = pending_.empty() && !stopping_ ? idle_pause : busy_pause;
        const std::size_t i = agent_wait_any(comm_, std::span<Request>(requests_.data(), 2), st_->bell, left(), most);
        serve(i);
      } catch (const TimeoutError&) {
        if (!stopping_) throw;
        break;  // some agents are gone (or never stop): give up on their goodbyes
      }
    }
    requests_ = {};  // cancels the posted receives
    for (PendingSend& s : sends_) {
      try {
        s.request.wait(left());
      } catch (const TimeoutError&) {
        break;  // a stopped peer never receives: the requests' destructors cancel them
      }
    }
    sends_.clear();
    if (byes_ < procs_ - 1) {
      std::vector<int> silent;
      for (int r = 0; r < procs_; ++r) {
        if (r != me_ && bye_from_[static_cast<std::size_t>(r)] == 0) silent.push_back(r);
      }
      std::lock_guard<Mutex> lock(*st_->mutex);
      st_->silent = std::move(silent);
    }
  }

  // BackgroundContext: wait for `data` while serving the agent's own messages.
  void wait(Request& data) override {
    requests_[2] = std::move(data);
    for (;;) {
      const std::size_t i = agent_wait_any(comm_, requests_, st_->bell);
      if (i == 2) {
        data = std::move(requests_[2]);
        return;
      }
      if (i == Comm::npos) throw Error("arrival agent: nothing to wait for");
      const WireKind kind = serve(i);
      if (kind == WireKind::stop || (kind == WireKind::cancel && running_ != nullptr && running_->cancel_requested())) {
        throw internal::BackgroundCancelled{};
      }
    }
  }

 private:
  /// The time left to stop once told to (MonitorOptions::timeout from the stop); unset before.
  [[nodiscard]] Timeout left() const {
    if (!stopping_ || !st_->options.timeout) return {};
    return std::max(0.0, stop_deadline_ - st_->rt.now());
  }

  // requests_[0]: any agent's record or bye; [1]: this process's foreground; [2]: background data.
  void post_remote() { requests_[0] = comm_.irecv(any_source, internal::tag_agent, &remote_in_, sizeof remote_in_); }
  void post_local() { requests_[1] = comm_.irecv(me_, internal::tag_agent_local, &local_in_, sizeof local_in_); }

  /// Handles the message request `i` (0 or 1) received and reposts it; returns its kind.
  WireKind serve(std::size_t i) {
    if (i == 0) {
      const Wire w = remote_in_;
      const int source = requests_[0].status().source;
      post_remote();
      const auto kind = static_cast<WireKind>(w.kind);
      if (kind == WireKind::record) store(source, w);
      if (kind == WireKind::bye && bye_from_[static_cast<std::size_t>(source)] == 0) {
        bye_from_[static_cast<std::size_t>(source)] = 1;
        ++byes_;
      }
      return kind;
    }
    const Wire w = local_in_;
    post_local();
    const auto kind = static_cast<WireKind>(w.kind);
    if (kind == WireKind::publish) {
      Wire record = w;
      record.kind = static_cast<std::uint32_t>(WireKind::record);
      broadcast(record);
      store(me_, record);
    } else if (kind == WireKind::stop && !stopping_) {
      stopping_ = true;
      if (st_->options.timeout) stop_deadline_ = st_->rt.now() + *st_->options.timeout;
      Wire bye;
      bye.kind = static_cast<std::uint32_t>(WireKind::bye);
      broadcast(bye);
    }
    return kind;
  }

  void broadcast(const Wire& w) {
    for (int k = 1; k < procs_; ++k) {
      const int dest = (me_ + k) % procs_;
      sends_.emplace_back();
      PendingSend& s = sends_.back();
      s.wire = w;
      s.request = comm_.isend(dest, internal::tag_agent, &s.wire, sizeof s.wire);
    }
    // Sends of long-past epochs have long been received: retire them without polling each one
    // (a poll of an incomplete request costs simulated time on sim).
    const auto limit = static_cast<std::size_t>(8 * procs_);
    while (sends_.size() > limit) {
      sends_.front().request.wait();
      sends_.pop_front();
    }
  }

  void store(int rank, Wire w) {
    // A record comes from the network: times that are not finite count as arriving when
    // published (or at 0), an unknown source as an estimate.
    if (!std::isfinite(w.published)) w.published = 0;
    if (!std::isfinite(w.time)) w.time = w.published;
    if (w.source > static_cast<std::uint32_t>(ArrivalSource::measured)) {
      w.source = static_cast<std::uint32_t>(ArrivalSource::estimated);
    }
    auto [it, fresh] = pending_.try_emplace(w.epoch);
    Pending& p = it->second;
    if (fresh) {
      p.records.resize(static_cast<std::size_t>(procs_));
      p.have.assign(static_cast<std::size_t>(procs_), 0);
    }
    auto r = static_cast<std::size_t>(rank);
    if (p.have[r]) throw Error("arrival agent: two records of rank " + std::to_string(rank) + " for one epoch");
    p.have[r] = 1;
    p.records[r] = w;
    if (++p.count == procs_) {
      complete(w.epoch, p);
      pending_.erase(it);
    }
  }

  void complete(std::uint64_t epoch, const Pending& p) {
    std::vector<double> arrivals(static_cast<std::size_t>(procs_));
    std::vector<ArrivalSource> sources(static_cast<std::size_t>(procs_));
    internal::PlanKey agreed = plan_of(p.records[0]);
    double last_published = p.records[0].published;
    for (std::size_t r = 0; r < arrivals.size(); ++r) {
      arrivals[r] = p.records[r].time;
      last_published = std::max(last_published, p.records[r].published);
      sources[r] = static_cast<ArrivalSource>(p.records[r].source);
      if (!(plan_of(p.records[r]) == agreed)) agreed = internal::PlanKey{};
    }
    if (!agreed.runnable() || agreed.root < 0 || agreed.root >= procs_) agreed = internal::PlanKey{};
    // A part that is skipped on a balanced pattern (BSLB runs NEX, BSLS serves in the foreground).
    const internal::Background* part = internal::background_of(agreed.kind);
    if (part == nullptr) agreed = internal::PlanKey{};
    if (part != nullptr && part->skip_when_balanced && st_->options.balanced_fallback &&
        internal::balanced_pattern(arrivals, last_published + st_->link.alpha, st_->link, agreed.block_bytes)) {
      agreed = internal::PlanKey{};
    }
    auto slot = std::make_shared<internal::BackgroundSlot>(st_->rt, agreed);
    const std::weak_ptr<Monitor::State> weak = st_;
    slot->doorbell = [weak] {
      if (auto s = weak.lock()) {
        Wire w;
        w.kind = static_cast<std::uint32_t>(WireKind::cancel);
        s->send_local(w);
      }
    };
    slot->on_use = [weak](const internal::PlanKey& key) {
      if (auto s = weak.lock()) s->learned = key;
    };
    auto snapshot =
        std::make_shared<const ArrivalSnapshot>(std::move(arrivals), st_->link, epoch, std::move(sources),
                                                last_published + st_->link.alpha, slot, st_->options.balanced_fallback);
    {
      std::lock_guard<Mutex> lock(*st_->mutex);
      st_->ready[epoch] = snapshot;
      st_->changed->notify_all();
    }
    const bool takes_part = agreed.kind != internal::BackgroundKind::none && (!part->root_only || agreed.root == me_);
    if (takes_part) to_run_.emplace_back(std::move(snapshot), std::move(slot));
  }

  void run_background() {
    auto [snapshot, slot] = std::move(to_run_.front());
    to_run_.pop_front();
    if (!slot->begin()) return;
    running_ = slot.get();
    bool cancelled = false;
    std::exception_ptr error;
    try {
      if (const internal::Background* part = internal::background_of(slot->agreed().kind)) {
        part->run(comm_, *snapshot, *slot, *this);
      }
    } catch (const internal::BackgroundCancelled&) {
      cancelled = true;
    } catch (const std::exception&) {
      error = std::current_exception();
    } catch (...) {  // not ours (e.g. the simulator killing its actors): hand over and pass on
      requests_[2] = Request{};
      running_ = nullptr;
      slot->finish(true, std::current_exception());
      throw;
    }
    requests_[2] = Request{};  // a receive the cancellation interrupted
    running_ = nullptr;
    slot->finish(cancelled, error);
  }

  std::shared_ptr<Monitor::State> st_;
  Comm& comm_;
  int procs_;
  int me_;
  std::array<Request, 3> requests_;
  Wire remote_in_;
  Wire local_in_;
  std::map<std::uint64_t, Pending> pending_;
  std::deque<PendingSend> sends_;
  std::deque<std::pair<std::shared_ptr<const ArrivalSnapshot>, std::shared_ptr<internal::BackgroundSlot>>> to_run_;
  internal::BackgroundSlot* running_ = nullptr;
  int byes_ = 0;
  std::vector<char> bye_from_ = std::vector<char>(static_cast<std::size_t>(procs_), 0);
  bool stopping_ = false;
  double stop_deadline_ = 0;
};

}  // namespace

// ===================================================================== monitor

Monitor::Monitor(Comm& comm, MonitorOptions options) : state_(std::make_shared<State>(comm, std::move(options))) {
  State& s = *state_;
  const int procs = s.procs;
  const int me = s.me;
  if (s.options.warm_up) {
    for (int k = 1; k < procs; ++k) {
      comm.sendrecv((me + k) % procs, internal::tag_agent_setup, nullptr, 0, (me - k + procs) % procs,
                    internal::tag_agent_setup, nullptr, 0);
    }
  }
  if (s.options.sync_clocks && comm.backend() == "mpi" && procs > 1) {
    s.offset = measure_clock_offset(comm, internal::tag_agent_setup).offset;
  }
  s.link = s.options.link ? *s.options.link : measure_link(comm, internal::tag_agent_setup + 1, s.options.probe_bytes);
  std::shared_ptr<State> shared = state_;
  s.agent = s.rt.spawn_daemon("arrival-agent", [shared] {
    try {
      Agent(shared).run();
    } catch (const Error&) {  // ragged's own (an MPI error is a TransportError): for the caller
      std::lock_guard<Mutex> lock(*shared->mutex);
      shared->agent_error = std::current_exception();
      shared->agent_done = true;
      shared->changed->notify_all();
      return;
    } catch (...) {  // not ours (the simulator ending its actors): recorded and passed on
      std::lock_guard<Mutex> lock(*shared->mutex);
      shared->agent_error = std::current_exception();
      shared->agent_done = true;
      shared->changed->notify_all();
      throw;
    }
    std::lock_guard<Mutex> lock(*shared->mutex);
    shared->agent_done = true;
    shared->changed->notify_all();
  });
}

Monitor::~Monitor() {
  try {
    finalize();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
  }
}

void Monitor::processing_start() {
  State& s = *state_;
  s.retire_last_slot();
  s.start = s.rt.now();
  s.ended = false;
  if (!s.published && s.options.predict_from_history && !s.edge_last) {
    if (const std::optional<double> length = s.history.predict())
      s.publish(*s.start + *length, ArrivalSource::estimated);
  }
}

void Monitor::processing_started_at(double at) {
  State& s = *state_;
  s.retire_last_slot();
  s.start = at;
  s.ended = false;
}

void Monitor::edge(double fraction) {
  State& s = *state_;
  if (!(fraction > 0) || fraction > 1) throw InvalidArgument("fraction", "must be in (0, 1]");
  s.retire_last_slot();
  s.edge_this = true;
  if (!s.start || s.published) return;  // without processing_start there is nothing to extrapolate from
  s.publish(extrapolate_arrival(*s.start, s.rt.now(), fraction), ArrivalSource::estimated);
}

void Monitor::processing_end() {
  State& s = *state_;
  s.retire_last_slot();
  const double t = s.rt.now();
  if (s.start && !s.ended) {
    s.history.add(t - *s.start);
    s.ended = true;
  }
  if (!s.published) s.publish(t, ArrivalSource::measured);
}

void Monitor::use(PlannedCall call) {
  if (call.collective == Collective::gather) check_rank(state_->comm, call.root, "root");
  state_->announced = internal::plan_key(call);
}

std::shared_ptr<const ArrivalSnapshot> Monitor::arrive() {
  State& s = *state_;
  if (s.finalized) throw InvalidArgument("monitor", "arrive() after finalize()");
  s.retire_last_slot();
  const double t = s.rt.now();
  if (!s.published) s.publish(t, ArrivalSource::measured);
  if (s.start && !s.ended) s.history.add(t - *s.start);

  std::shared_ptr<const ArrivalSnapshot> snapshot;
  {
    std::unique_lock<Mutex> lock(*s.mutex);
    const double deadline = s.options.timeout ? s.rt.now() + *s.options.timeout : 0.0;
    for (;;) {
      auto it = s.ready.find(s.epoch);
      if (it != s.ready.end()) {
        snapshot = std::move(it->second);
        s.ready.erase(it);
        break;
      }
      if (s.agent_error) std::rethrow_exception(s.agent_error);
      if (s.agent_done) throw Error("arrival agent ended before the snapshot of epoch " + std::to_string(s.epoch));
      if (!s.options.timeout) {
        s.changed->wait(lock);
      } else {
        const double left = deadline - s.rt.now();
        if (left <= 0 || !s.changed->wait_for(lock, left)) {
          if (s.ready.count(s.epoch) != 0) continue;
          throw TimeoutError("Monitor::arrive: the records of epoch " + std::to_string(s.epoch) +
                             " did not all come within " + std::to_string(*s.options.timeout) + " s");
        }
      }
    }
  }
  s.drain_local_sends();
  ++s.epoch;
  s.published = false;
  s.start.reset();
  s.ended = false;
  s.edge_last = s.edge_this;
  s.edge_this = false;
  s.last_slot = snapshot->background();
  return snapshot;
}

void Monitor::finalize() {
  State& s = *state_;
  if (s.finalized) return;
  s.finalized = true;
  s.retire_last_slot();
  Wire stop;
  stop.kind = static_cast<std::uint32_t>(WireKind::stop);
  bool agent_ran = false;
  {
    std::lock_guard<Mutex> lock(*s.mutex);
    agent_ran = !s.agent_done;
  }
  if (agent_ran) s.send_local(stop);
  if (s.agent) s.agent->join();
  std::exception_ptr error;
  std::vector<int> silent;
  {
    std::lock_guard<Mutex> lock(*s.mutex);
    error = s.agent_error;
    silent = s.silent;
  }
  // An agent that ended early received nothing more: its requests' destructors cancel them.
  if (!error) {
    for (PendingSend& p : s.local_sends) p.request.wait();
  }
  s.local_sends.clear();
  if (error) std::rethrow_exception(error);
  if (!silent.empty()) {
    std::string ranks;
    for (int r : silent) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    throw TimeoutError("Monitor::finalize: no goodbye from the agents of rank(s) " + ranks + " within " +
                       std::to_string(*s.options.timeout) + " s; this agent stopped without them");
  }
}

const LinkModel& Monitor::link() const { return state_->link; }
double Monitor::clock_offset() const { return state_->offset; }
std::uint64_t Monitor::epoch() const { return state_->epoch; }
Comm& Monitor::comm() const { return state_->comm; }

}  // namespace ragged
