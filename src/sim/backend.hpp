// The sim backend's Comm, Runtime and Window for one rank of a World.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "ragged/comm.hpp"
#include "world.hpp"

namespace ragged::sim::detail {

class SimRuntime final : public Runtime {
 public:
  SimRuntime(World& world, int rank) : world_(world), rank_(rank) {}

  [[nodiscard]] double now() const override;
  void sleep_for(double seconds) override;
  void compute(double flops) override;
  void charge(double flops) override;
  std::unique_ptr<Daemon> spawn_daemon(const std::string& name, std::function<void()> fn) override;
  std::unique_ptr<Mutex> make_mutex() override;
  std::unique_ptr<ConditionVariable> make_condition_variable() override;
  std::unique_ptr<Semaphore> make_semaphore(unsigned initial) override;
  [[nodiscard]] std::string backend() const override { return "sim"; }

 private:
  World& world_;
  int rank_;
};

class SimComm final : public Comm {
 public:
  SimComm(World& world, int rank) : world_(world), rank_(rank), runtime_(world, rank) {}

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return world_.procs(); }
  [[nodiscard]] Runtime& runtime() override { return runtime_; }
  [[nodiscard]] std::string backend() const override { return "sim"; }
  /// From the platform: ranks whose hosts are in one node share it (docs/backends/sim.md, "Layout").
  [[nodiscard]] std::shared_ptr<const NodeLayout> layout() const override { return world_.layout(); }
  /// The platform's links between two ranks of one node and of two nodes, and its message gap.
  [[nodiscard]] std::shared_ptr<const NetworkModel> network() const override { return world_.network(); }

  Request isend(int dest, int tag, const void* data, std::size_t bytes) override;
  Request irecv(int source, int tag, void* data, std::size_t capacity) override;
  std::size_t wait_any(std::span<Request> requests, Timeout timeout) override;
  std::unique_ptr<Window> create_window(std::size_t bytes, int notifications) override;

  /// Unchecked point-to-point for the backend's own traffic (tags above max_tag).
  Request post_send(int dest, int tag, const void* data, std::size_t bytes);
  Request post_recv(int source, int tag, void* data, std::size_t capacity);
  /// A dissemination barrier on internal_tag.
  void internal_barrier();

 private:
  World& world_;
  int rank_;
  SimRuntime runtime_;
};

}  // namespace ragged::sim::detail
