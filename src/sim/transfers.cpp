// The sim backend's transfers: how World moves a message's simulated bytes between two hosts,
// with no actor of its own (docs/backends/sim.md, "Point-to-point").
//
//   transfer()  -> [pair_fifo: behind the pair's transfer under way]
//   launch()    -> the timer at the sender's slot (start_at)      -> begin()
//   begin()     -> an actor-free SimGrid comm between the hosts   -> on_activity_done() -> landed()
//   landed()    -> [rendezvous: the timer after its exchange penalty] -> receive_gap()
//   receive_gap -> [a gap: `arrived`, the timer at the receiver's slot] -> finish()
//   finish()    -> `done`, then the next transfer of the pair (launch()) or none
//
// One SimGrid kernel timer serves every step due later; steps due at the same instant run in the
// order they were set. Everything runs in SimGrid's kernel (maestro), between the actors' rounds.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <utility>
#include <vector>

// (Its Boost heap uses a fence that GCC's thread sanitizer does not model: CMakeLists.txt, -Wno-tsan.)
#include <simgrid/kernel/Timer.hpp>

#include "world.hpp"

namespace ragged::sim::detail {

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
  ++live_;  // a transfer in flight or queued is live: it will complete without help
  TransferJob job{bytes, start_at, std::move(started), std::move(arrived), std::move(done)};
  if (protocol_.pair_fifo && !busy_pairs_.emplace(sender, receiver).second) {
    pending_[{sender, receiver}].push_back(std::move(job));
    return;
  }
  auto owned = std::make_unique<Transfer>();
  Transfer* t = owned.get();
  t->world = this;
  t->from = from;
  t->to = to;
  t->sender = sender;
  t->receiver = receiver;
  t->job = std::move(job);
  transfers_.emplace(t, std::move(owned));
  launch(t);
}

void World::on_activity_done(const sg4::Activity& activity) {
  auto* t = activity.get_data<Transfer>();
  if (t == nullptr) return;  // not a transfer's comm (or an orphan's)
  t->world->landed(t);
}

void World::at_clock(double at, Transfer* t, void (World::*step)(Transfer*)) {
  at = std::max(at, sg4::Engine::get_clock());
  t->step = step;
  due_.emplace(at, t);  // after those due at the same clock: first come, first served
  if (running_due_ || (timer_ != nullptr && timer_->get_date() <= at)) return;
  if (timer_ != nullptr) timer_->remove();
  timer_ = simgrid::kernel::timer::Timer::set(at, [this, at] { run_due(at); });
}

void World::run_due(double date) {
  timer_ = nullptr;
  running_due_ = true;
  finished_comms_.clear();
  const double now = std::max(date, sg4::Engine::get_clock());  // the timer's date, whatever the rounding
  while (!due_.empty() && due_.begin()->first <= now) {
    Transfer* t = due_.begin()->second;
    due_.erase(due_.begin());
    try {
      (this->*(t->step))(t);
    } catch (...) {
      fail(std::current_exception());
    }
  }
  running_due_ = false;
  if (!due_.empty()) {
    const double next = due_.begin()->first;
    timer_ = simgrid::kernel::timer::Timer::set(next, [this, next] { run_due(next); });
  }
}

void World::launch(Transfer* t) {
  // The sender's gap: wait for the slot booked when the message was posted. Always through a
  // timer: a comm that an actor starts completes only in that actor's wait, one that SimGrid's
  // kernel starts signals its completion by itself.
  at_clock(t->job.start_at, t, &World::begin);
}

void World::begin(Transfer* t) {
  static const bool registered = [] {
    sg4::Activity::on_completion_cb(&World::on_activity_done);
    return true;
  }();
  (void)registered;
  if (t->job.started) t->job.started();
  t->rendezvous = protocol_.exchange_factor < 1 && protocol_.eager_limit > 0 && t->job.bytes >= protocol_.eager_limit;
  t->on_wire = sg4::Engine::get_clock();
  if (t->rendezvous) rendezvous_on_wire_[{t->sender, t->receiver}].emplace_back(t->on_wire, -1.0);
  t->comm = sg4::Comm::sendto_init(t->from, t->to);
  t->comm->set_payload_size(static_cast<std::uint64_t>(t->job.bytes));
  t->comm->set_data(t);
  t->comm->start();
}

void World::landed(Transfer* t) {
  // Inside the comm's completion: SimGrid still uses the comm, free it at the next step.
  t->comm->set_data(nullptr);
  finished_comms_.push_back(std::move(t->comm));
  try {
    if (t->rendezvous) {
      if (const double penalty = exchange_penalty(t->sender, t->receiver, t->on_wire); penalty > 0) {
        at_clock(sg4::Engine::get_clock() + penalty, t, &World::receive_gap);
        return;
      }
    }
    receive_gap(t);
  } catch (...) {
    fail(std::current_exception());
  }
}

void World::receive_gap(Transfer* t) {
  // The receiver's gap: booked in arrival order.
  if (gap_ > 0) {
    if (const double at = book(next_recv_, t->receiver); at > sg4::Engine::get_clock()) {
      if (t->job.arrived) t->job.arrived();
      at_clock(at, t, &World::finish);
      return;
    }
  }
  finish(t);
}

void World::finish(Transfer* t) {
  TransferJob job = std::move(t->job);
  --live_;
  if (next_of_pair(*t)) {
    launch(t);
  } else {
    transfers_.erase(t);
  }
  job.done();
  if (!aborting_ && live_ > 0 && parked_untimed_ == live_) detect_deadlock(nullptr);
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

bool World::next_of_pair(Transfer& t) {
  if (!protocol_.pair_fifo) return false;
  const std::pair<int, int> key{t.sender, t.receiver};
  auto it = pending_.find(key);
  if (it == pending_.end() || it->second.empty()) {
    busy_pairs_.erase(key);
    return false;
  }
  t.job = std::move(it->second.front());
  it->second.pop_front();
  return true;
}

}  // namespace ragged::sim::detail
