// Internals of the mpi backend shared by its source files: the Runtime over real threads, and the
// Comm and Window over MPI objects. Private to src/mpi: what other parts of ragged need of the
// backend (make_comm's options, check(), ...) is in include/ragged/mpi.hpp.
#pragma once

#include <mpi.h>

#include <atomic>
#include <climits>
#include <cstddef>
#include <memory>
#include <string>

#include "ragged/comm.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/mpi.hpp"
#include "ragged/runtime.hpp"
#include "ragged/window.hpp"

namespace ragged::mpi::detail {

/// What the backend holds (ragged::mpi::live_resources): requests between their MPI_Isend or
/// MPI_Irecv and their destruction, windows between MPI_Win_allocate and MPI_Win_free.
std::atomic<long>& live_requests();
std::atomic<long>& live_windows();

/// Emulated rate of Runtime::compute (flop/s): compute(f) busy-waits f / compute_rate seconds.
inline constexpr double compute_rate = 1e9;

/// The Runtime of the mpi backend: steady clock, std::thread daemons, std:: primitives.
class ThreadRuntime final : public Runtime {
 public:
  [[nodiscard]] double now() const override;
  void sleep_for(double seconds) override;
  void compute(double flops) override;
  void charge(double flops) override;
  std::unique_ptr<Daemon> spawn_daemon(const std::string& name, std::function<void()> fn) override;
  std::unique_ptr<Mutex> make_mutex() override;
  std::unique_ptr<ConditionVariable> make_condition_variable() override;
  std::unique_ptr<Semaphore> make_semaphore(unsigned initial) override;
  [[nodiscard]] std::string backend() const override { return "mpi"; }
};

/// Waits a little between two polls: yields at first, then sleeps up to 50 µs.
class Backoff {
 public:
  void pause();

 private:
  int polls_ = 0;
};

/// A Comm over a duplicate of the user's communicator.
class MpiComm final : public Comm {
 public:
  explicit MpiComm(MPI_Comm user, CommOptions options = {});
  ~MpiComm() override;
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] Runtime& runtime() override { return runtime_; }
  [[nodiscard]] std::string backend() const override { return "mpi"; }
  [[nodiscard]] std::size_t max_message_bytes() const override { return static_cast<std::size_t>(INT_MAX); }
  /// Which ranks share a node: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) and an allgather of
  /// each node's lowest rank, made when the Comm is created and checked equal on every rank
  /// (an Error naming the layout, on every rank, when they differ).
  [[nodiscard]] std::shared_ptr<const NodeLayout> layout() const override;

  Request isend(int dest, int tag, const void* data, std::size_t bytes) override;
  Request irecv(int source, int tag, void* data, std::size_t capacity) override;
  std::size_t wait_any(std::span<Request> requests, Timeout timeout = {}) override;
  std::unique_ptr<Window> create_window(std::size_t bytes, int notifications) override;

  [[nodiscard]] MPI_Comm handle() const noexcept { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
  ThreadRuntime runtime_;
  std::shared_ptr<const NodeLayout> layout_;
  std::string layout_error_;  ///< why the ranks' layouts differ, or empty
};

/// Throws InvalidArgument(argument) unless notification `id` is among a window's `notifications`.
void check_notification(int id, int notifications, const char* argument);
/// Throws InvalidArgument unless `first` and the `count` slots from it are among `notifications`.
void check_notifications(int first, int count, int notifications);

/// Creates the window of MpiComm::create_window (collective over `comm`): MPI-3 RMA, or the
/// emulated window when RMA is unavailable or RAGGED_WINDOW says so (docs/backends/mpi.md).
std::unique_ptr<Window> make_window(MpiComm& comm, std::size_t bytes, int notifications);
/// Notified puts over two-sided messages and a progress thread (window_emulated.cpp).
std::unique_ptr<Window> make_emulated_window(MpiComm& comm, std::size_t bytes, int notifications);

}  // namespace ragged::mpi::detail
