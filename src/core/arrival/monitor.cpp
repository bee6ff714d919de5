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
//
// This file is the foreground; monitor_agent.cpp is the agent, monitor_state.hpp what the two share.
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "arrival/monitor_state.hpp"
#include "ragged/error.hpp"

namespace ragged {

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
      internal::run_agent(shared);
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
  internal::Wire stop;
  stop.kind = static_cast<std::uint32_t>(internal::WireKind::stop);
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
    for (internal::PendingSend& p : s.local_sends) p.request.wait();
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
