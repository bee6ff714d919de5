#include "world.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
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

World::World(int procs, std::vector<sg4::Host*> rank_hosts, double start_clock, double message_gap, Protocol protocol)
    : procs_(procs),
      rank_hosts_(std::move(rank_hosts)),
      start_clock_(start_clock),
      gap_(message_gap),
      protocol_(protocol),
      next_send_(static_cast<std::size_t>(procs), 0.0),
      next_recv_(static_cast<std::size_t>(procs), 0.0),
      queues_(static_cast<std::size_t>(procs)),
      windows_created_(static_cast<std::size_t>(procs), 0) {
  comms_.reserve(static_cast<std::size_t>(procs));
  for (int r = 0; r < procs; ++r) comms_.push_back(std::make_unique<SimComm>(*this, r));
}

World::~World() {
  // A run ends when SimGrid has no event left, so nothing is in flight here, unless SimGrid threw
  // out of its run: then stop what could still fire into this World in the next run.
  static std::vector<sg4::CommPtr> orphans;  // a comm must not be freed on the wire
  if (timer_ != nullptr) timer_->remove();
  for (auto& [key, transfer] : transfers_) {
    if (transfer->comm) {
      transfer->comm->set_data(nullptr);
      orphans.push_back(std::move(transfer->comm));
    }
  }
}

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
