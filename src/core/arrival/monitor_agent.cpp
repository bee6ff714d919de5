// The arrival Monitor's agent: a daemon (a thread on mpi, an actor on sim) that exchanges
// the records of every epoch with the other processes' agents, builds each epoch's snapshot
// and runs this process's background part of an agreed plan. The protocol is described at
// the top of monitor.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "arrival/monitor_state.hpp"
#include "ragged/error.hpp"

namespace ragged::internal {

// The poll of the mpi backend (see monitor_state.hpp).
std::size_t agent_wait_any(Comm& comm, std::span<Request> requests, Doorbell& bell, Timeout timeout, double most) {
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

Wire received_record(Wire w) {
  if (!std::isfinite(w.published)) w.published = 0;
  if (!std::isfinite(w.time)) w.time = w.published;
  if (w.source > static_cast<std::uint32_t>(ArrivalSource::measured)) {
    w.source = static_cast<std::uint32_t>(ArrivalSource::estimated);
  }
  return w;
}

EpochRecords combine_records(std::span<const Wire> records, const LinkModel& link, bool balanced_fallback) {
  const auto procs = static_cast<int>(records.size());
  EpochRecords e;
  e.arrivals.resize(records.size());
  e.sources.resize(records.size());
  PlanKey agreed = plan_of(records[0]);
  e.last_published = records[0].published;
  for (std::size_t r = 0; r < records.size(); ++r) {
    e.arrivals[r] = records[r].time;
    e.last_published = std::max(e.last_published, records[r].published);
    e.sources[r] = static_cast<ArrivalSource>(records[r].source);
    if (!(plan_of(records[r]) == agreed)) agreed = PlanKey{};
  }
  if (!agreed.runnable() || agreed.root < 0 || agreed.root >= procs) agreed = PlanKey{};
  // A part that is skipped on a balanced pattern (BSLB runs NEX, BSLS serves in the foreground).
  const Background* part = background_of(agreed.kind);
  if (part == nullptr) agreed = PlanKey{};
  if (part != nullptr && part->skip_when_balanced && balanced_fallback &&
      balanced_pattern(e.arrivals, e.last_published + link.alpha, link, agreed.block_bytes)) {
    agreed = PlanKey{};
  }
  e.agreed = agreed;
  return e;
}

namespace {

class Agent final : public BackgroundContext {
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
        throw BackgroundCancelled{};
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
  void post_remote() { requests_[0] = comm_.irecv(any_source, tag_agent, &remote_in_, sizeof remote_in_); }
  void post_local() { requests_[1] = comm_.irecv(me_, tag_agent_local, &local_in_, sizeof local_in_); }

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
      s.request = comm_.isend(dest, tag_agent, &s.wire, sizeof s.wire);
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
    w = received_record(w);  // a record comes from the network
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
    EpochRecords e = combine_records(p.records, st_->link, st_->options.balanced_fallback);
    const PlanKey agreed = e.agreed;
    const double last_published = e.last_published;
    const Background* part = background_of(agreed.kind);
    auto slot = std::make_shared<BackgroundSlot>(st_->rt, agreed);
    const std::weak_ptr<Monitor::State> weak = st_;
    slot->doorbell = [weak] {
      if (auto s = weak.lock()) {
        Wire w;
        w.kind = static_cast<std::uint32_t>(WireKind::cancel);
        s->send_local(w);
      }
    };
    slot->on_use = [weak](const PlanKey& key) {
      if (auto s = weak.lock()) s->learned = key;
    };
    auto snapshot =
        std::make_shared<const ArrivalSnapshot>(std::move(e.arrivals), st_->link, epoch, std::move(e.sources),
                                                last_published + st_->link.alpha, slot, st_->options.balanced_fallback);
    {
      std::lock_guard<Mutex> lock(*st_->mutex);
      st_->ready[epoch] = snapshot;
      st_->changed->notify_all();
    }
    const bool takes_part = agreed.kind != BackgroundKind::none && (!part->root_only || agreed.root == me_);
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
      if (const Background* part = background_of(slot->agreed().kind)) {
        part->run(comm_, *snapshot, *slot, *this);
      }
    } catch (const BackgroundCancelled&) {
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
  std::deque<std::pair<std::shared_ptr<const ArrivalSnapshot>, std::shared_ptr<BackgroundSlot>>> to_run_;
  BackgroundSlot* running_ = nullptr;
  int byes_ = 0;
  std::vector<char> bye_from_ = std::vector<char>(static_cast<std::size_t>(procs_), 0);
  bool stopping_ = false;
  double stop_deadline_ = 0;
};

}  // namespace

void run_agent(std::shared_ptr<Monitor::State> state) { Agent(std::move(state)).run(); }

}  // namespace ragged::internal
