// ragged: a Comm decorator that counts the messages and bytes crossing between
// the clusters of a ClusterLayout (the backbone), so that benchmarks and
// tests measure the backbone traffic of an algorithm instead of computing it.
// It counts the point-to-point sends this rank starts; one-sided puts through
// its windows are not counted.
#pragma once

#include <cstdint>
#include <memory>

#include "ragged/comm.hpp"
#include "ragged/topology.hpp"

namespace ragged {

class CountingComm final : public Comm {
 public:
  struct Counts {
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
  };

  /// Wraps `inner` (which must outlive this); `layout` must describe inner's ranks.
  CountingComm(Comm& inner, std::shared_ptr<const ClusterLayout> layout);

  [[nodiscard]] int rank() const override { return inner_.rank(); }
  [[nodiscard]] int size() const override { return inner_.size(); }
  [[nodiscard]] Runtime& runtime() override { return inner_.runtime(); }
  [[nodiscard]] std::string backend() const override { return inner_.backend(); }
  /// The wrapped communicator's layout and links: counting changes neither.
  [[nodiscard]] std::shared_ptr<const NodeLayout> layout() const override { return inner_.layout(); }
  [[nodiscard]] std::shared_ptr<const NetworkModel> network() const override { return inner_.network(); }
  Request isend(int dest, int tag, const void* data, std::size_t bytes) override;
  Request irecv(int source, int tag, void* data, std::size_t capacity) override;
  std::size_t wait_any(std::span<Request> requests, Timeout timeout = {}) override;
  std::unique_ptr<Window> create_window(std::size_t bytes, int notifications) override;
  [[nodiscard]] bool has_windows() const override { return inner_.has_windows(); }

  /// Sends this rank started to another cluster since construction or the last reset().
  [[nodiscard]] Counts backbone() const { return backbone_; }
  /// Sends this rank started inside its own cluster (self-sends included).
  [[nodiscard]] Counts local() const { return local_; }
  void reset() { backbone_ = local_ = Counts{}; }

 private:
  Comm& inner_;
  std::shared_ptr<const ClusterLayout> layout_;
  Counts backbone_;
  Counts local_;
};

}  // namespace ragged
