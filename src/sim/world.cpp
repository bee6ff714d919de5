#include "world.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <simgrid/Exception.hpp>
#include <sstream>
#include <utility>

#include "backend.hpp"

namespace ragged::sim::detail {

namespace {

std::string what_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
}

std::string describe_message(const Message& m) {
  std::ostringstream os;
  if (m.kind == Message::Kind::send) {
    os << "send(dest=" << m.peer << ", tag=" << m.tag << ", " << m.bytes << " bytes)";
  } else {
    os << "recv(source=";
    if (m.peer == any_source) {
      os << "any";
    } else {
      os << m.peer;
    }
    os << ", tag=" << m.tag << ", capacity " << m.bytes << " bytes)";
  }
  if (m.tag == internal_tag) os << " [backend-internal barrier]";
  return os.str();
}

}  // namespace

double quantize(double seconds) { return std::nearbyint(seconds * 1e9) / 1e9; }

namespace {

/// vm.max_map_count (65530 when it cannot be read).
long max_map_count() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  long value = 0;
  return in >> value && value > 0 ? value : 65530;
}

/// The memory mappings this process has now.
long mappings_now() {
  std::ifstream in("/proc/self/maps");
  long lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

/// How many transfer actors this process can still map: each takes two mappings (its stack, and
/// the guard page that SimGrid protects below it, which splits the stack's mapping), with 4096
/// mappings kept for everything else (the heap's arenas, libraries) and four for each rank (its
/// main actor and a daemon).
std::size_t transfer_budget(int procs) {
  const long left = max_map_count() - mappings_now() - 4096 - 4L * procs;  // the ranks' and daemons' stacks
  return left > 0 ? static_cast<std::size_t>(left / 2) : 0;
}

}  // namespace

World::World(int procs, std::vector<sg4::Host*> rank_hosts, double start_clock, double message_gap, Protocol protocol)
    : procs_(procs),
      rank_hosts_(std::move(rank_hosts)),
      start_clock_(start_clock),
      gap_(message_gap),
      protocol_(protocol),
      next_send_(static_cast<std::size_t>(procs), 0.0),
      next_recv_(static_cast<std::size_t>(procs), 0.0),
      queues_(static_cast<std::size_t>(procs)),
      transfer_budget_(transfer_budget(procs)),
      windows_created_(static_cast<std::size_t>(procs), 0) {
  comms_.reserve(static_cast<std::size_t>(procs));
  for (int r = 0; r < procs; ++r) comms_.push_back(std::make_unique<SimComm>(*this, r));
}

World::~World() = default;

// ------------------------------------------------------------------ actors

void World::spawn(const std::string& name, sg4::Host* host, int rank, std::string role,
                  std::function<void(ActorCtl&)> fn) {
  ++live_;
  sg4::Actor::create(name, host, [this, rank, role = std::move(role), fn = std::move(fn)]() {
    ActorCtl ctl;
    ctl.pid = sg4::this_actor::get_pid();
    ctl.rank = rank;
    ctl.role = role;
    const aid_t pid = sg4::this_actor::get_pid();
    actors_[pid] = &ctl;
    try {
      fn(ctl);
    } catch (const simgrid::ForcefulKillException&) {
      // SimGrid is killing every actor (a deadlock it detected): let the exception unwind the actor.
      actors_.erase(pid);
      throw;
    } catch (...) {
      fail(std::current_exception());
    }
    actors_.erase(pid);
    actor_exit(ctl);
  });
}

ActorCtl& World::self() {
  ActorCtl* me = self_or_null();
  if (me == nullptr) throw Error("sim backend: called from outside the actors of the run");
  return *me;
}

ActorCtl* World::self_or_null() {
  if (!sg4::Actor::is_maestro()) {
    auto it = actors_.find(sg4::this_actor::get_pid());
    if (it != actors_.end()) return it->second;
  }
  return nullptr;
}

void World::actor_exit(ActorCtl& /*me*/) {
  --live_;
  if (!aborting_ && live_ > 0 && parked_untimed_ == live_) detect_deadlock(nullptr);
}

// ------------------------------------------------------------------ blocking

double World::deadline_for(Timeout timeout) {
  if (!timeout) return -1.0;
  return sg4::Engine::get_clock() + std::max(0.0, *timeout);
}

void World::park(ActorCtl& me, double deadline, AbortMode /*mode*/) {
  me.parked = true;
  me.untimed = deadline < 0;
  if (me.untimed) {
    ++parked_untimed_;
    if (parked_untimed_ == live_ && !aborting_) {
      // Every live actor is blocked with no deadline and nobody left to wake it.
      me.parked = false;
      --parked_untimed_;
      detect_deadlock(&me);
      return;
    }
    me.sem->acquire();
  } else {
    const double left = deadline - sg4::Engine::get_clock();
    if (left > 0) me.sem->acquire_timeout(left);
  }
  if (me.parked) {  // woke by its deadline, not by wake()
    me.parked = false;
    if (me.untimed) --parked_untimed_;
  }
}

bool World::wait_until(std::initializer_list<WaitQueue*> queues, double deadline, const std::function<bool()>& ready,
                       WaitInfo info, AbortMode mode) {
  return wait_until(std::vector<WaitQueue*>(queues), deadline, ready, info, mode);
}

namespace {

/// Takes an actor out of the queues it waits in when the wait ends, however it ends.
struct QueueExit {
  const std::vector<WaitQueue*>& queues;
  ActorCtl& me;
  ~QueueExit() {
    for (WaitQueue* q : queues) q->remove(&me);
  }
};

}  // namespace

bool World::wait_until(const std::vector<WaitQueue*>& queues, double deadline, const std::function<bool()>& ready,
                       WaitInfo info, AbortMode mode) {
  ActorCtl& me = self();
  for (;;) {
    if (ready()) return true;
    if (aborting_ && mode == AbortMode::throw_aborted) throw Aborted(abort_reason_);
    if (deadline >= 0 && sg4::Engine::get_clock() >= deadline) return false;
    for (WaitQueue* q : queues) q->add(&me);
    // Leave the queues also when park() unwinds (SimGrid killing the actor while a failed run
    // aborts): `me` lives on the actor's stack, and a queue must not keep a dangling pointer
    // that a later wake() would read (UBSan caught it in sim.Detecting/IrregularDisagreement).
    const QueueExit leave{queues, me};
    me.info = info;
    park(me, deadline, mode);
  }
}

void World::wake(ActorCtl* actor) {
  if (!actor->parked) return;
  actor->parked = false;
  if (actor->untimed) --parked_untimed_;
  if (killing_) return;
  // Hold a reference for the simcall: the actor may have timed out at this same instant, run
  // before the simcall is handled, throw Aborted and exit, destroying its ActorCtl and with it
  // the last reference to the semaphore (a segfault in SemaphoreImpl::release when the ranks of a
  // mismatched collective all timed out together).
  const sg4::SemaphorePtr sem = actor->sem;
  sem->release();
}

void World::wake(aid_t pid) {
  auto it = actors_.find(pid);
  if (it != actors_.end()) wake(it->second);
}

void World::wake_all(WaitQueue& queue) {
  for (aid_t pid : queue.take()) wake(pid);
}

// ------------------------------------------------------------------ failure

void World::throw_if_aborting() const {
  if (aborting_) throw Aborted(abort_reason_);
}

void World::fail(const std::exception_ptr& error) {
  if (!first_error_) first_error_ = error;
  abort_run(what_of(error));
}

void World::abort_run(const std::string& why) {
  if (aborting_) return;
  aborting_ = true;
  abort_reason_ = why;
  // By pid, not by pointer: waking an actor is a simcall, and other actors may run and exit
  // (destroying their ActorCtl, which lives on their stack) before this loop goes on.
  std::vector<aid_t> parked;
  for (const auto& [pid, a] : actors_) {
    if (a->parked) parked.push_back(pid);
  }
  for (aid_t pid : parked) wake(pid);
}

std::string World::describe(const ActorCtl& a) const {
  std::ostringstream os;
  os << "rank " << a.rank << " (" << a.role << ") blocked in " << a.info.op;
  if (a.info.message != nullptr) {
    os << " on " << describe_message(*a.info.message);
  } else if (std::strcmp(a.info.op, "Comm::wait_any") == 0) {
    os << " on " << a.info.count << " requests";
  } else if (std::strcmp(a.info.op, "Window::notify_wait_some") == 0) {
    os << "(first=" << a.info.first << ", count=" << a.info.count << ")";
  }
  return os.str();
}

void World::detect_deadlock(const ActorCtl* trigger) {
  std::ostringstream os;
  os << "sim::run: deadlock at simulated time " << quantize(sg4::Engine::get_clock() - start_clock_)
     << " s: every live actor is blocked and none can wake another";
  for (const auto& [pid, a] : actors_) {
    if ((a->parked && a->untimed) || a == trigger) os << "\n  " << describe(*a);
  }
  fail(std::make_exception_ptr(Error(os.str())));
}

void World::on_simgrid_deadlock() {
  killing_ = true;
  aborting_ = true;
  if (abort_reason_.empty()) abort_reason_ = "SimGrid detected a deadlock";
  if (!first_error_) {
    std::ostringstream os;
    os << "sim::run: SimGrid detected a deadlock at simulated time "
       << quantize(sg4::Engine::get_clock() - start_clock_) << " s";
    for (const auto& [pid, a] : actors_) {
      if (a->parked) os << "\n  " << describe(*a);
    }
    first_error_ = std::make_exception_ptr(Error(os.str()));
  }
}

// ------------------------------------------------------------------ transfers

bool World::route_is_empty(sg4::Host* host) {
  auto it = empty_self_route_.find(host);
  if (it != empty_self_route_.end()) return it->second;
  std::vector<sg4::Link*> links;
  double latency = 0;
  host->route_to(host, links, &latency);
  const bool empty = links.empty() && latency <= 0;
  empty_self_route_.emplace(host, empty);
  return empty;
}

double World::book(std::vector<double>& next, int rank) {
  double& slot = next[static_cast<std::size_t>(rank)];
  const double at = std::max(sg4::Engine::get_clock(), slot);
  slot = at + gap_;
  return at;
}

void World::transfer(int sender, int receiver, std::size_t bytes, double start_at, std::function<void()> done,
                     std::function<void()> arrived, std::function<void()> started) {
  sg4::Host* from = host_of(sender);
  sg4::Host* to = host_of(receiver);
  if (from == to && route_is_empty(from)) {
    if (started) started();
    done();
    return;
  }
  if (idle_workers_.empty() && workers_.size() >= transfer_budget_ &&
      !(protocol_.pair_fifo && busy_pairs_.count({sender, receiver}) != 0)) {
    // SimGrid would abort the whole process ("Failed to protect stack"): fail this run instead.
    std::ostringstream os;
    os << "sim backend: rank " << sender << "'s message to rank " << receiver << " would be transfer "
       << workers_.size() + 1 << " in flight at once, more than the " << transfer_budget_
       << " this run allows (every transfer in flight is a SimGrid actor with a stack of its own, and the kernel "
       << "lets a process map vm.max_map_count = " << max_map_count() << " areas): this algorithm cannot be "
       << "simulated with " << procs_
       << " ranks here; simulate fewer ranks, or raise vm.max_map_count (sysctl -w vm.max_map_count=N)";
    throw Error(os.str());
  }
  ++live_;  // a busy or queued transfer is live: it will complete without help
  TransferWorker::Job job{bytes, start_at, std::move(started), std::move(arrived), std::move(done)};
  if (protocol_.pair_fifo && !busy_pairs_.emplace(sender, receiver).second) {
    pending_[{sender, receiver}].push_back(std::move(job));
    return;
  }
  TransferWorker* worker = nullptr;
  bool fresh = false;
  if (idle_workers_.empty()) {
    workers_.push_back(std::make_unique<TransferWorker>());
    worker = workers_.back().get();
    fresh = true;
  } else {
    worker = idle_workers_.back();
    idle_workers_.pop_back();
  }
  worker->from = from;
  worker->to = to;
  worker->sender = sender;
  worker->receiver = receiver;
  worker->job = std::move(job);
  if (fresh) {
    sg4::Actor::create("transfer", from, [this, worker] { run_worker(*worker); })->daemonize();
  }
  worker->sem->release();
}

double World::exchange_penalty(int sender, int receiver, double start) {
  const double now = sg4::Engine::get_clock();
  auto& mine = rendezvous_on_wire_[{sender, receiver}];
  for (auto& interval : mine) {
    if (interval.first == start && interval.second < 0) {
      interval.second = now;
      break;
    }
  }
  // Keep what a transfer of the other direction still under way may overlap: the last few.
  std::size_t finished = 0;
  for (const auto& interval : mine) finished += interval.second >= 0 ? 1U : 0U;
  for (auto it = mine.begin(); it != mine.end() && finished > 8;) {
    if (it->second >= 0) {
      it = mine.erase(it);
      --finished;
    } else {
      ++it;
    }
  }
  double overlap = 0;
  for (const auto& [from, to] : rendezvous_on_wire_[{receiver, sender}]) {
    const double end = to < 0 ? now : to;
    overlap += std::max(0.0, std::min(now, end) - std::max(start, from));
  }
  return overlap * (1 / protocol_.exchange_factor - 1);
}

bool World::next_of_pair(TransferWorker& worker) {
  if (!protocol_.pair_fifo) return false;
  const std::pair<int, int> key{worker.sender, worker.receiver};
  auto it = pending_.find(key);
  if (it == pending_.end() || it->second.empty()) {
    busy_pairs_.erase(key);
    return false;
  }
  worker.job = std::move(it->second.front());
  it->second.pop_front();
  return true;
}

void World::run_worker(TransferWorker& worker) {
  // Idle workers wait outside the deadlock bookkeeping; SimGrid kills them (daemons) when the
  // last rank and daemon of the run ended.
  for (;;) {
    worker.sem->acquire();
    do {
      try {
        // The sender's gap: wait for the slot booked when the message was posted.
        TransferWorker::Job job = std::move(worker.job);
        if (const double wait = job.start_at - sg4::Engine::get_clock(); wait > 0) sg4::this_actor::sleep_for(wait);
        if (job.started) job.started();
        const bool rendezvous =
            protocol_.exchange_factor < 1 && protocol_.eager_limit > 0 && job.bytes >= protocol_.eager_limit;
        const double on_wire = sg4::Engine::get_clock();
        if (rendezvous) rendezvous_on_wire_[{worker.sender, worker.receiver}].emplace_back(on_wire, -1.0);
        sg4::Comm::sendto(worker.from, worker.to, static_cast<std::uint64_t>(job.bytes));
        if (rendezvous) {
          if (const double penalty = exchange_penalty(worker.sender, worker.receiver, on_wire); penalty > 0)
            sg4::this_actor::sleep_for(penalty);
        }
        // The receiver's gap: booked in arrival order.
        if (gap_ > 0) {
          if (const double wait = book(next_recv_, worker.receiver) - sg4::Engine::get_clock(); wait > 0) {
            if (job.arrived) job.arrived();
            sg4::this_actor::sleep_for(wait);
          }
        }
        job.done();
      } catch (const simgrid::ForcefulKillException&) {
        throw;
      } catch (...) {
        fail(std::current_exception());
      }
      --live_;
    } while (next_of_pair(worker));
    idle_workers_.push_back(&worker);
    if (!aborting_ && live_ > 0 && parked_untimed_ == live_) detect_deadlock(nullptr);
  }
}

// ------------------------------------------------------------------ matching

namespace {
bool recv_accepts(const Message& recv, const Message& send) {
  return (recv.peer == any_source || recv.peer == send.owner) && recv.tag == send.tag;
}
}  // namespace

void World::post(const MessagePtr& message) {
  if (message->kind == Message::Kind::send && message->bytes < protocol_.eager_limit) start_eager(message);
  if (message->kind == Message::Kind::send) {
    auto& q = queues_[static_cast<std::size_t>(message->peer)];
    for (auto it = q.posted_recvs.begin(); it != q.posted_recvs.end(); ++it) {
      if (recv_accepts(**it, *message)) {
        MessagePtr recv = *it;
        q.posted_recvs.erase(it);
        match(message, recv);
        return;
      }
    }
    q.unexpected_sends.push_back(message);
  } else {
    auto& q = queues_[static_cast<std::size_t>(message->owner)];
    for (auto it = q.unexpected_sends.begin(); it != q.unexpected_sends.end(); ++it) {
      if (recv_accepts(*message, **it)) {
        MessagePtr send = *it;
        q.unexpected_sends.erase(it);
        match(send, message);
        return;
      }
    }
    q.posted_recvs.push_back(message);
  }
}

void World::cancel(const MessagePtr& message) {
  // An eager send is on its way (or there) once posted: like MPI's, it stays for its receive.
  if (message->matched || message->eager) return;
  std::list<MessagePtr>& list = message->kind == Message::Kind::send
                                    ? queues_[static_cast<std::size_t>(message->peer)].unexpected_sends
                                    : queues_[static_cast<std::size_t>(message->owner)].posted_recvs;
  list.remove(message);
}

double World::round_trip(int a, int b) {
  sg4::Host* from = host_of(a);
  sg4::Host* to = host_of(b);
  const auto key = std::make_pair(from, to);
  if (auto it = round_trips_.find(key); it != round_trips_.end()) return it->second;
  std::vector<sg4::Link*> links;
  double latency = 0;
  from->route_to(to, links, &latency);
  return round_trips_[key] = 2 * latency;
}

double World::connected(int a, int b, double start_at) {
  if ((protocol_.connect_delay <= 0 && protocol_.connect_round_trips <= 0) || a == b) return start_at;
  if (!connected_.emplace(std::min(a, b), std::max(a, b)).second) return start_at;
  return std::max(start_at, sg4::Engine::get_clock()) + protocol_.connect_delay +
         protocol_.connect_round_trips * round_trip(a, b);
}

void World::start_eager(const MessagePtr& send) {
  send->eager = true;
  if (send->bytes != 0) {
    send->eager_copy.resize(send->bytes);
    std::memcpy(send->eager_copy.data(), send->send_data, send->bytes);
  }
  const auto finish = [this, send] {
    send->arrived = true;
    send->complete = true;
    wake_all(send->waiters);
    if (MessagePtr recv = std::exchange(send->eager_match, nullptr)) {
      recv->complete = true;
      wake_all(recv->waiters);
    }
  };
  const auto sent = [this, send] {
    send->complete = true;
    wake_all(send->waiters);
  };
  transfer(send->owner, send->peer, send->bytes, connected(send->owner, send->peer, send->start_at), finish,
           // The receiver's gap holds the receive back; the send is complete once its bytes arrived,
           // or with pair_fifo once they are on the pair's connection.
           sent, protocol_.pair_fifo ? std::function<void()>(sent) : std::function<void()>{});
}

void World::match(const MessagePtr& send, const MessagePtr& recv) {
  send->matched = true;
  recv->matched = true;
  const std::size_t n = std::min(send->bytes, recv->bytes);
  if (n != 0) std::memcpy(recv->recv_data, send->eager ? send->eager_copy.data() : send->send_data, n);
  recv->truncated = send->bytes > recv->bytes;
  recv->sent_bytes = send->bytes;
  recv->status = Status{send->owner, send->tag, n};
  send->status = Status{};
  if (send->eager) {
    // The bytes travel since the post: the receive completes with them (now, if they are there).
    if (send->arrived) {
      recv->complete = true;
      wake_all(recv->waiters);
    } else {
      send->eager_match = recv;
    }
    return;
  }
  double start_at = send->start_at;
  if (protocol_.eager_limit > 0) {
    const double handshake =
        protocol_.rendezvous_delay + protocol_.rendezvous_round_trips * round_trip(send->owner, recv->owner);
    start_at = std::max(start_at, sg4::Engine::get_clock() + handshake);
  }
  transfer(
      send->owner, recv->owner, send->bytes, connected(send->owner, recv->owner, start_at),
      [this, send, recv] {
        send->complete = true;
        recv->complete = true;
        wake_all(send->waiters);
        wake_all(recv->waiters);
      },
      // The receiver's gap holds the receive back; the send is complete once its bytes arrived.
      [this, send] {
        send->complete = true;
        wake_all(send->waiters);
      });
}

// ------------------------------------------------------------------ windows

std::shared_ptr<WindowGroup> World::join_window_group(int rank) {
  const std::size_t k = windows_created_[static_cast<std::size_t>(rank)]++;
  if (window_groups_.size() <= k) window_groups_.resize(k + 1);
  std::shared_ptr<WindowGroup>& slot = window_groups_[k];
  if (!slot) slot = std::make_shared<WindowGroup>(procs_);
  std::shared_ptr<WindowGroup> group = slot;
  if (++group->joined == procs_) slot.reset();  // every rank has it: the windows own it from now on
  return group;
}

}  // namespace ragged::sim::detail
