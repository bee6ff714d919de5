// allreduce onesided_ring and alltoall onesided under mpirun, on the window RAGGED_WINDOW picks:
// consecutive calls on one communicator with staggered arrivals (each rank sleeps a different
// few milliseconds before each call, so a fast rank starts call k+1 while a neighbour still
// reads call k), counts that change from call to call (the cached window re-created larger,
// reused when smaller), inputs that differ per call, small segments and few slots. Exit 77
// (skipped) when RAGGED_WINDOW=rma and the library has no RMA window.
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "mpi/harness.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/mpi.hpp"
#include "ragged/onesided.hpp"

namespace ragged {
namespace {

std::int64_t value(int rank, std::size_t index, int call) {
  return static_cast<std::int64_t>(rank + 1) * 1000003 + static_cast<std::int64_t>(index % 9973) * 7 + call * 131;
}

void stagger(int rank, int call) { std::this_thread::sleep_for(std::chrono::milliseconds((rank * 5 + call * 3) % 7)); }

std::vector<std::size_t> call_counts(int procs, std::size_t segment_bytes = 0) {
  const auto p = static_cast<std::size_t>(procs);
  // The large counts give the default 64 KiB segments several segments per block. Small segments
  // get there at a tenth of it (20000 int64 at 256 bytes: 125 segments per block at np 5), and a
  // put per 256 bytes of 1.6 MB is slow where ranks outnumber cores and the MPI library spins in
  // MPI_Win_flush (MPICH, docs/portability.md).
  const std::size_t large = segment_bytes != 0 && segment_bytes < 4096 ? 20000 : 200000;
  return {1000, 5, 0, large, 1, p - 1, 20000, 3 * p + 1, 0, 777, large};
}

CollectiveOptions options(const std::string& algorithm, std::size_t segment_bytes, int slots) {
  CollectiveOptions o;
  o.algorithm = algorithm;
  o.timeout = 60.0;
  o.hints.set(std::make_shared<OneSidedTuning>(OneSidedTuning{.segment_bytes = segment_bytes, .slots = slots}));
  return o;
}

/// Empty, or what went wrong on this rank.
std::string allreduce_calls(Comm& comm, std::size_t segment_bytes, int slots) {
  const int me = comm.rank();
  const int procs = comm.size();
  const CollectiveOptions o = options("onesided_ring", segment_bytes, slots);
  const std::vector<std::size_t> counts = call_counts(procs, segment_bytes);
  for (std::size_t c = 0; c < counts.size(); ++c) {
    const int call = static_cast<int>(c);
    const std::size_t n = counts[c];
    stagger(me, call);
    std::vector<std::int64_t> in(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = value(me, i, call);
    std::vector<std::int64_t> out(n + 1, -1);
    const bool inplace = c % 2 == 1;
    if (inplace) std::copy(in.begin(), in.end(), out.begin());
    (void)allreduce(comm, inplace ? in_place : in.data(), out.data(), n, DataType::int64, ReduceOp::sum(), o);
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t expected = 0;
      for (int r = 0; r < procs; ++r) expected += value(r, i, call);
      if (out[i] != expected) {
        return "call " + std::to_string(call) + " count " + std::to_string(n) + " element " + std::to_string(i) + ": " +
               std::to_string(out[i]) + ", expected " + std::to_string(expected);
      }
    }
    if (out[n] != -1) return "call " + std::to_string(call) + " wrote past the end";
  }
  return "";
}

std::string alltoall_calls(Comm& comm) {
  const int me = comm.rank();
  const auto p = static_cast<std::size_t>(comm.size());
  const CollectiveOptions o = options("onesided", 0, 1);
  const std::vector<std::size_t> counts = call_counts(comm.size());
  for (std::size_t c = 0; c < counts.size(); ++c) {
    const int call = static_cast<int>(c);
    const std::size_t n = counts[c] / 10 + (counts[c] != 0 ? 1 : 0);
    stagger(me, call);
    std::vector<std::int64_t> in(p * n);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = value(me, i, call);
    std::vector<std::int64_t> out(p * n + 1, -1);
    const bool inplace = c % 2 == 1;
    if (inplace) std::copy(in.begin(), in.end(), out.begin());
    (void)alltoall(comm, inplace ? in_place : in.data(), out.data(), n, DataType::int64, o);
    for (std::size_t from = 0; from < p; ++from) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t expected = value(static_cast<int>(from), static_cast<std::size_t>(me) * n + i, call);
        if (out[from * n + i] != expected) {
          return "call " + std::to_string(call) + " block of " + std::to_string(from) + " element " +
                 std::to_string(i) + ": " + std::to_string(out[from * n + i]) + ", expected " +
                 std::to_string(expected);
        }
      }
    }
    if (out[p * n] != -1) return "call " + std::to_string(call) + " wrote past the end";
  }
  return "";
}

/// Whether the library refused the RMA window that RAGGED_WINDOW=rma demands (every rank alike).
bool no_rma(const TransportError& e) {
  const char* env = std::getenv("RAGGED_WINDOW");
  return env != nullptr && std::string_view(env) == "rma" &&
         std::string_view(e.what()).find("MPI_Win_allocate") != std::string_view::npos;
}

int run() {
  mpitest::Tally tally;
  std::unique_ptr<Comm> comm = mpi::make_comm();
  const auto step = [&](const std::string& what, const auto& body) {
    std::string error;
    int skip = 0;
    try {
      error = body();
    } catch (const TransportError& e) {
      if (no_rma(e)) {
        skip = 2;
      } else {
        error = e.what();
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) mpitest::say(what + ": " + error);
    const int flags = mpitest::agree_flags((error.empty() ? 0 : 1) | skip, what);
    if ((flags & 2) != 0) return 77;
    mpitest::tally_step(tally, what, (flags & 1) == 0);
    return 0;
  };
  const struct {
    std::size_t segment;
    int slots;
  } tunings[] = {{256, 2}, {4096, 1}, {OneSidedTuning::default_segment_bytes, OneSidedTuning::default_slots}};
  for (const auto& t : tunings) {
    const std::string what =
        "allreduce onesided_ring segment " + std::to_string(t.segment) + " slots " + std::to_string(t.slots);
    if (step(what, [&] { return allreduce_calls(*comm, t.segment, t.slots); }) == 77) {
      if (mpitest::world_rank() == 0) mpitest::say("SKIPPED: RAGGED_WINDOW=rma and this MPI has no RMA window");
      return 77;
    }
  }
  if (step("alltoall onesided", [&] { return alltoall_calls(*comm); }) == 77) return 77;
  comm.reset();
  if (mpitest::world_rank() == 0) {
    mpitest::say("passed " + std::to_string(tally.passed) + ", failed " + std::to_string(tally.failed));
  }
  return tally.failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace ragged

int main(int argc, char** argv) { return ragged::mpitest::main_of(&argc, &argv, ragged::run); }
