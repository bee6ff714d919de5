// ragged: the stale-synchronous allreduce of Iakymchuk et al. 2021 (§III-A, algorithm 1). Iterative,
// convergent programs (SGD) may reduce contributions up to `slack` iterations old: a rank waits
// for a peer only when the freshest data it holds from that peer is older than clock - slack.
//
//   SspAllreduce reduce(comm, count, DataType::float64, ReduceOp::sum(), {.slack = 2});
//   for (...) { compute(gradient); SspResult r = reduce(gradient.data(), model.data()); ... }
//   reduce.finish();
//
// It is stateful (each call is one iteration, with a logical clock; the receive slots keep the
// last data of every step from call to call), so it is an object of its own rather than an
// algorithm of `allreduce`. Design and protocol: docs/algorithms/ssp.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ragged/comm.hpp"
#include "ragged/datatype.hpp"
#include "ragged/window.hpp"

namespace ragged {

enum class SspTopology {
  hypercube,  ///< algorithm 1: log2 P steps over the whole vector (non-powers of two fold the extra ranks)
  ring,       ///< beyond the paper (its future work): the ring reduce-scatter and allgather, per segment
};

struct SspOptions {
  /// How many iterations old a contribution may be: 0 is the exact allreduce of this iteration.
  int slack = 0;
  SspTopology topology = SspTopology::hypercube;
  /// Bounds every call and finish() from its start: a peer that has stopped gives TimeoutError.
  Timeout timeout{};
};

struct SspResult {
  /// This call's logical clock: 1 for the first call, then 2, 3, ...
  std::uint64_t clock = 0;
  /// The oldest clock among the contributions in the result (>= clock - slack; == clock at slack 0).
  std::uint64_t min_clock = 0;
  /// Seconds this call waited for fresh data (the quantity of the paper's fig. 7).
  double wait_s = 0;
};

class SspAllreduce {
 public:
  /// Collective: every rank of `comm` constructs it with the same count, type, op and options.
  /// `op` must be commutative (contributions meet in an order that depends on arrival).
  SspAllreduce(Comm& comm, std::size_t count, DataType type, ReduceOp op, SspOptions options = {});
  /// Calls finish() if it was not called and no call failed (errors are swallowed there: call
  /// finish() yourself to see them).
  ~SspAllreduce();
  SspAllreduce(const SspAllreduce&) = delete;
  SspAllreduce& operator=(const SspAllreduce&) = delete;

  /// One iteration: contributes `count` elements of `contribution` at the next clock and writes
  /// the reduction into `result` (may equal `contribution`).
  SspResult operator()(const void* contribution, void* result);

  /// Collective end of the run: every rank has made the same number of calls. Keeps serving the
  /// peers still in their last call, then releases the window. TimeoutError after
  /// options.timeout if a peer never gets here.
  void finish();

  [[nodiscard]] std::uint64_t clock() const { return clock_; }
  [[nodiscard]] const SspOptions& options() const { return options_; }

 private:
  struct Channel;
  void drain();
  void send(int step, const std::byte* data, std::size_t bytes, std::uint64_t clock);
  void receive(int step, std::byte* work, std::size_t elements, double deadline, SspResult& result);
  void wait(double deadline, const char* what);
  void put_data(int step, int slot, const void* data, std::size_t bytes, std::uint64_t clock);

  Comm& comm_;
  std::size_t count_;
  DataType type_;
  ReduceOp op_;
  SspOptions options_;
  std::uint64_t clock_ = 0;
  bool finished_ = false;
  bool failed_ = false;
  int steps_ = 0;
  std::size_t slot_bytes_ = 0;
  std::unique_ptr<Window> window_;
  std::vector<Channel> channels_;
  std::vector<std::uint64_t> segment_clock_;
  std::vector<bool> done_;
};

}  // namespace ragged
