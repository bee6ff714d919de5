// Time and concurrency on the simulator: the simulated clock, execute() for
// work, daemons as actors on the rank's host, and mutex / condition variable /
// semaphore built on the World's parking so that a deadlock among them is seen.
#include <cmath>
#include <list>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "backend.hpp"
#include "ragged/error.hpp"

namespace ragged::sim::detail {

namespace {

void check_non_negative(double value, const char* argument) {
  if (!(value >= 0) || !std::isfinite(value)) {
    throw InvalidArgument(argument, "must be a finite value >= 0, got " + std::to_string(value));
  }
}

class SimMutex final : public Mutex {
 public:
  explicit SimMutex(World& world) : world_(world) {}

  void lock() override {
    world_.wait_until(
        {&waiters_}, -1, [this] { return !locked_; }, WaitInfo{"Mutex::lock"});
    locked_ = true;
    owner_ = &world_.self();
  }

  void unlock() override {
    // Tolerant: unlocking a mutex this actor does not hold does nothing (a condition variable
    // wait that was abandoned leaves its lock released).
    if (!locked_ || owner_ != world_.self_or_null()) return;
    locked_ = false;
    owner_ = nullptr;
    world_.wake_all(waiters_);
  }

 private:
  World& world_;
  bool locked_ = false;
  ActorCtl* owner_ = nullptr;
  WaitQueue waiters_;
};

class SimConditionVariable final : public ConditionVariable {
 public:
  explicit SimConditionVariable(World& world) : world_(world) {}

  void wait(std::unique_lock<Mutex>& lock) override { (void)wait_until(lock, -1); }

  bool wait_for(std::unique_lock<Mutex>& lock, double seconds) override {
    check_non_negative(seconds, "seconds");
    return wait_until(lock, sg4::Engine::get_clock() + seconds);
  }

  void notify_one() override {
    if (waiters_.empty()) return;
    Waiter* w = waiters_.front();
    waiters_.pop_front();
    w->notified = true;
    world_.wake(w->actor);
  }

  void notify_all() override {
    std::list<Waiter*> all;
    all.swap(waiters_);
    // Each Waiter lives on its actor's stack: read them all before the first wake (a simcall
    // during which woken actors may run and return).
    std::vector<aid_t> pids;
    pids.reserve(all.size());
    for (Waiter* w : all) {
      w->notified = true;
      pids.push_back(w->actor->pid);
    }
    for (aid_t pid : pids) world_.wake(pid);
  }

 private:
  struct Waiter {
    ActorCtl* actor = nullptr;
    bool notified = false;
  };

  bool wait_until(std::unique_lock<Mutex>& lock, double deadline) {
    if (dynamic_cast<SimMutex*>(lock.mutex()) == nullptr || !lock.owns_lock()) {
      throw InvalidArgument("lock", "must hold a mutex made by the sim runtime");
    }
    Waiter me{&world_.self()};
    waiters_.push_back(&me);
    lock.unlock();
    bool notified = false;
    try {
      notified = world_.wait_until(
          {}, deadline, [&me] { return me.notified; }, WaitInfo{"ConditionVariable::wait"});
    } catch (...) {
      waiters_.remove(&me);
      throw;  // the run is being abandoned: the lock stays released
    }
    waiters_.remove(&me);
    lock.lock();
    return notified;
  }

  World& world_;
  std::list<Waiter*> waiters_;
};

class SimSemaphore final : public Semaphore {
 public:
  SimSemaphore(World& world, unsigned initial) : world_(world), count_(initial) {}

  void acquire() override {
    world_.wait_until(
        {&waiters_}, -1, [this] { return count_ > 0; }, WaitInfo{"Semaphore::acquire"});
    --count_;
  }

  bool try_acquire_for(double seconds) override {
    check_non_negative(seconds, "seconds");
    if (!world_.wait_until(
            {&waiters_}, sg4::Engine::get_clock() + seconds, [this] { return count_ > 0; },
            WaitInfo{"Semaphore::try_acquire_for"})) {
      return false;
    }
    --count_;
    return true;
  }

  void release() override {
    ++count_;
    world_.wake_all(waiters_);
  }

 private:
  World& world_;
  unsigned count_;
  WaitQueue waiters_;
};

struct DaemonState {
  bool finished = false;
  WaitQueue joiners;
};

class SimDaemon final : public Daemon {
 public:
  SimDaemon(World& world, std::shared_ptr<DaemonState> state) : world_(world), state_(std::move(state)) {}
  SimDaemon(const SimDaemon&) = delete;
  SimDaemon& operator=(const SimDaemon&) = delete;

  // Joins like a std::thread that must not outlive what it uses. While the run is being
  // abandoned it still waits: the daemon's own blocking calls throw, so it ends soon.
  ~SimDaemon() override {
    if (joined_ || current_world() != &world_ || world_.killing()) return;  // nothing to join after the run
    try {
      wait(AbortMode::keep_waiting);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
    }
  }

  void join() override {
    if (joined_) return;
    wait(AbortMode::throw_aborted);
  }

 private:
  void wait(AbortMode mode) {
    const DaemonState* st = state_.get();
    world_.wait_until(
        {&state_->joiners}, -1, [st] { return st->finished; }, WaitInfo{"Daemon::join"}, mode);
    joined_ = true;
  }

  World& world_;
  std::shared_ptr<DaemonState> state_;
  bool joined_ = false;
};

}  // namespace

double SimRuntime::now() const { return quantize(sg4::Engine::get_clock() - world_.start_clock()); }

void SimRuntime::sleep_for(double seconds) {
  check_non_negative(seconds, "seconds");
  world_.throw_if_aborting();
  sg4::this_actor::sleep_for(seconds);
  world_.throw_if_aborting();
}

void SimRuntime::compute(double flops) {
  check_non_negative(flops, "flops");
  world_.throw_if_aborting();
  if (flops > 0) sg4::this_actor::execute(flops);
  world_.throw_if_aborting();
}

void SimRuntime::charge(double flops) { compute(flops); }

std::unique_ptr<Daemon> SimRuntime::spawn_daemon(const std::string& name, std::function<void()> fn) {
  world_.throw_if_aborting();
  if (!fn) throw InvalidArgument("fn", "empty function");
  auto state = std::make_shared<DaemonState>();
  const std::string label = name.empty() ? "daemon" : name;
  World* world = &world_;
  world_.spawn("rank" + std::to_string(rank_) + ":" + label, world_.host_of(rank_), rank_, label,
               [world, state, fn = std::move(fn)](ActorCtl&) {
                 try {
                   fn();
                 } catch (const simgrid::ForcefulKillException&) {
                   state->finished = true;
                   throw;
                 } catch (...) {
                   world->fail(std::current_exception());  // recorded before a joiner can go on
                 }
                 state->finished = true;
                 world->wake_all(state->joiners);
               });
  return std::make_unique<SimDaemon>(world_, std::move(state));
}

std::unique_ptr<Mutex> SimRuntime::make_mutex() { return std::make_unique<SimMutex>(world_); }

std::unique_ptr<ConditionVariable> SimRuntime::make_condition_variable() {
  return std::make_unique<SimConditionVariable>(world_);
}

std::unique_ptr<Semaphore> SimRuntime::make_semaphore(unsigned initial) {
  return std::make_unique<SimSemaphore>(world_, initial);
}

}  // namespace ragged::sim::detail
