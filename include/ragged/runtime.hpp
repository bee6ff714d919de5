// ragged: the Runtime seam. It owns time and concurrency so that the same
// algorithm code runs on real threads (mpi backend) and on simulated actors
// (sim backend). Never hold a std::mutex across a blocking call: on the
// simulator that stalls every actor; use the runtime's primitives instead.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace ragged {

/// A timeout in seconds; std::nullopt waits forever.
using Timeout = std::optional<double>;

/// BasicLockable, so std::unique_lock<Mutex> and std::lock_guard<Mutex> work.
class Mutex {
 public:
  virtual ~Mutex() = default;
  virtual void lock() = 0;
  virtual void unlock() = 0;
};

class ConditionVariable {
 public:
  virtual ~ConditionVariable() = default;
  virtual void wait(std::unique_lock<Mutex>& lock) = 0;
  /// Returns false when `seconds` passed without a notification.
  virtual bool wait_for(std::unique_lock<Mutex>& lock, double seconds) = 0;
  virtual void notify_one() = 0;
  virtual void notify_all() = 0;
};

class Semaphore {
 public:
  virtual ~Semaphore() = default;
  virtual void acquire() = 0;
  /// Returns false when `seconds` passed without acquiring.
  virtual bool try_acquire_for(double seconds) = 0;
  virtual void release() = 0;
};

/// A background agent started with Runtime::spawn_daemon.
class Daemon {
 public:
  virtual ~Daemon() = default;
  /// Blocks until the daemon's function returned.
  virtual void join() = 0;
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  /// Seconds since an arbitrary origin (simulated clock on sim, steady clock on mpi).
  [[nodiscard]] virtual double now() const = 0;
  virtual void sleep_for(double seconds) = 0;
  /// Emulates a computation of `flops` floating-point operations (busy on mpi, simulated on sim).
  virtual void compute(double flops) = 0;
  /// Accounts for local work that has already been done for real (e.g. a reduction loop):
  /// costs simulated time on sim, nothing on mpi where the real time was already spent.
  virtual void charge(double flops) = 0;
  /// Starts `fn` concurrently with the caller (a std::thread on mpi, an actor on the same host on sim).
  virtual std::unique_ptr<Daemon> spawn_daemon(const std::string& name, std::function<void()> fn) = 0;
  virtual std::unique_ptr<Mutex> make_mutex() = 0;
  virtual std::unique_ptr<ConditionVariable> make_condition_variable() = 0;
  virtual std::unique_ptr<Semaphore> make_semaphore(unsigned initial) = 0;
  /// "mpi" or "sim".
  [[nodiscard]] virtual std::string backend() const = 0;
};

}  // namespace ragged
