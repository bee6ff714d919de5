// The Runtime of the mpi backend: real time and real threads.
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <semaphore>
#include <thread>
#include <utility>

#include "internal.hpp"

namespace ragged::mpi::detail {

namespace {

using Clock = std::chrono::steady_clock;

Clock::duration to_duration(double seconds) {
  if (!(seconds > 0)) return Clock::duration::zero();
  // Clamp absurd values (a timeout of "forever" given as 1e300) to about a century.
  constexpr double century = 100.0 * 365 * 24 * 3600;
  if (seconds > century) seconds = century;
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

class ThreadMutex final : public Mutex {
 public:
  void lock() override { m_.lock(); }
  void unlock() override { m_.unlock(); }

 private:
  std::mutex m_;
};

class ThreadConditionVariable final : public ConditionVariable {
 public:
  void wait(std::unique_lock<Mutex>& lock) override { cv_.wait(lock); }
  bool wait_for(std::unique_lock<Mutex>& lock, double seconds) override {
    return cv_.wait_for(lock, to_duration(seconds)) == std::cv_status::no_timeout;
  }
  void notify_one() override { cv_.notify_one(); }
  void notify_all() override { cv_.notify_all(); }

 private:
  std::condition_variable_any cv_;
};

class ThreadSemaphore final : public Semaphore {
 public:
  explicit ThreadSemaphore(unsigned initial) : s_(static_cast<std::ptrdiff_t>(initial)) {}
  void acquire() override { s_.acquire(); }
  bool try_acquire_for(double seconds) override { return s_.try_acquire_for(to_duration(seconds)); }
  void release() override { s_.release(); }

 private:
  std::counting_semaphore<> s_;
};

// A daemon is a std::thread. An exception escaping its function is kept and rethrown
// by join() instead of terminating the process.
class ThreadDaemon final : public Daemon {
 public:
  explicit ThreadDaemon(std::function<void()> fn)
      : thread_([this, f = std::move(fn)] {
          try {
            f();
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}
  ~ThreadDaemon() override {
    if (thread_.joinable()) thread_.join();
  }
  ThreadDaemon(const ThreadDaemon&) = delete;
  ThreadDaemon& operator=(const ThreadDaemon&) = delete;

  void join() override {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  std::exception_ptr error_;  // written by the thread, read after join()
  std::thread thread_;
};

}  // namespace

double ThreadRuntime::now() const { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

void ThreadRuntime::sleep_for(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(to_duration(seconds));
}

void ThreadRuntime::compute(double flops) {
  if (!(flops > 0)) return;
  const Clock::time_point end = Clock::now() + to_duration(flops / compute_rate);
  // Busy: the emulated computation occupies the core as a real one would.
  while (Clock::now() < end) {
  }
}

void ThreadRuntime::charge(double /*flops*/) {}

std::unique_ptr<Daemon> ThreadRuntime::spawn_daemon(const std::string& /*name*/, std::function<void()> fn) {
  return std::make_unique<ThreadDaemon>(std::move(fn));
}

std::unique_ptr<Mutex> ThreadRuntime::make_mutex() { return std::make_unique<ThreadMutex>(); }

std::unique_ptr<ConditionVariable> ThreadRuntime::make_condition_variable() {
  return std::make_unique<ThreadConditionVariable>();
}

std::unique_ptr<Semaphore> ThreadRuntime::make_semaphore(unsigned initial) {
  return std::make_unique<ThreadSemaphore>(initial);
}

void Backoff::pause() {
  // Yield for the first polls (low latency when the peer is about to answer), then sleep
  // a little so that oversubscribed ranks leave the cores to the ranks doing the work.
  if (polls_ < 64) {
    ++polls_;
    std::this_thread::yield();
    return;
  }
  const int us = polls_ < 64 + 50 ? polls_++ - 63 : 50;
  std::this_thread::sleep_for(std::chrono::microseconds(us));
}

}  // namespace ragged::mpi::detail
