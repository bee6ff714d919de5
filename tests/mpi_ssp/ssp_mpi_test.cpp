// The stale-synchronous allreduce under mpirun (tests/sim/ssp_test.cpp is the deterministic twin):
//  1. slack 0 is exact, every iteration, both topologies, counts 0, 1, 7 and 100000, with ranks
//     that arrive in a different order every iteration;
//  2. slack 2 with a slow last rank: every element within the slack, every contribution once,
//     min_clock the oldest one, and the fast ranks used stale data at least once;
//  3. a rank that stops after one iteration: the others raise TimeoutError within the timeout.
// Every step ends with a verdict all ranks agree on (tests/mpi/harness.hpp).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mpi/harness.hpp"
#include "ragged/error.hpp"
#include "ragged/mpi.hpp"
#include "ragged/ssp.hpp"

namespace ragged {
namespace {

std::int64_t value(int rank, std::uint64_t clock, std::size_t j) {
  const std::uint64_t v = static_cast<std::uint64_t>(rank) * std::uint64_t{1000003} + clock * std::uint64_t{7919} +
                          static_cast<std::uint64_t>(j) * std::uint64_t{31};
  return static_cast<std::int64_t>(v % std::uint64_t{100000});
}

void pause_us(int us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }

std::string name_of(SspTopology t) { return t == SspTopology::ring ? "ring" : "hypercube"; }

bool exact(Comm& comm, SspTopology topology, std::size_t count) {
  const int me = comm.rank();
  const int procs = comm.size();
  SspOptions options;
  options.topology = topology;
  options.timeout = 60.0;
  SspAllreduce reduce(comm, count, DataType::int64, ReduceOp::sum(), options);
  bool ok = true;
  for (int it = 1; it <= 8; ++it) {
    pause_us(((me * 7 + it * 3) % 5) * 300);
    std::vector<std::int64_t> mine(count);
    for (std::size_t j = 0; j < count; ++j) mine[j] = value(me, static_cast<std::uint64_t>(it), j);
    std::vector<std::int64_t> out(count);
    const SspResult r = reduce(mine.data(), out.data());
    if (r.min_clock != r.clock || r.clock != static_cast<std::uint64_t>(it)) ok = false;
    for (std::size_t j = 0; j < count && ok; ++j) {
      std::int64_t want = 0;
      for (int q = 0; q < procs; ++q) want += value(q, static_cast<std::uint64_t>(it), j);
      if (out[j] != want) {
        mpitest::say(name_of(topology) + " count " + std::to_string(count) + " iteration " + std::to_string(it) +
                     " element " + std::to_string(j) + ": " + std::to_string(out[j]) + " != " + std::to_string(want));
        ok = false;
      }
    }
  }
  reduce.finish();
  return ok;
}

bool stale(Comm& comm, SspTopology topology, int slack, long& stale_calls) {
  const int me = comm.rank();
  const int procs = comm.size();
  const std::size_t count = 2 * static_cast<std::size_t>(procs) * static_cast<std::size_t>(procs) + 3;
  SspOptions options;
  options.topology = topology;
  options.slack = slack;
  options.timeout = 60.0;
  SspAllreduce reduce(comm, count, DataType::int64, ReduceOp::sum(), options);
  bool ok = true;
  for (int it = 1; it <= 30 && ok; ++it) {
    pause_us(me == procs - 1 ? 3000 : 100);
    std::vector<std::int64_t> mine(count, 0);
    for (std::size_t j = 0; j + 3 < count; ++j) {
      if (static_cast<int>(j % static_cast<std::size_t>(procs)) == me) mine[j] = it;
    }
    for (std::size_t j = count - 3; j < count; ++j) mine[j] = 1;
    std::vector<std::int64_t> out(count);
    const SspResult r = reduce(mine.data(), out.data());
    const auto c = static_cast<std::int64_t>(r.clock);
    std::int64_t oldest = c;
    for (std::size_t j = 0; j + 3 < count; ++j) {
      if (out[j] < c - slack) {
        mpitest::say(name_of(topology) + " clock " + std::to_string(c) + ": element " + std::to_string(j) +
                     " from clock " + std::to_string(out[j]));
        ok = false;
      }
      oldest = std::min(oldest, out[j]);
    }
    for (std::size_t j = count - 3; j < count; ++j) ok = ok && out[j] == procs;
    ok = ok && static_cast<std::int64_t>(r.min_clock) == oldest;
    if (r.min_clock < r.clock) ++stale_calls;
  }
  reduce.finish();
  return ok;
}

int run() {
  mpitest::Tally tally;
  const std::unique_ptr<Comm> comm = mpi::make_comm(MPI_COMM_WORLD);
  const int procs = comm->size();
  for (SspTopology topology : {SspTopology::hypercube, SspTopology::ring}) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{100000}}) {
      bool ok = false;
      try {
        ok = exact(*comm, topology, count);
      } catch (const std::exception& e) {
        mpitest::say(std::string("exact: ") + e.what());
      }
      mpitest::tally_step(tally, "slack 0 exact, " + name_of(topology) + ", count " + std::to_string(count), ok);
    }
    if (procs > 1) {
      long stale_calls = 0;
      bool ok = false;
      try {
        ok = stale(*comm, topology, 2, stale_calls);
      } catch (const std::exception& e) {
        mpitest::say(std::string("stale: ") + e.what());
      }
      long all_stale = 0;
      MPI_Allreduce(&stale_calls, &all_stale, 1, MPI_LONG, MPI_SUM, mpitest::verdict_comm());
      mpitest::tally_step(tally, "slack 2 within bounds, " + name_of(topology), ok);
      mpitest::tally_step(tally, "slack 2 used stale data, " + name_of(topology), all_stale > 0);
    }
  }
  if (procs > 1) {
    // A rank that stops: on a communicator of its own, kept to the end (what was sent to the
    // stopped rank stays on it).
    static std::unique_ptr<Comm> spare;
    spare = mpi::make_comm(MPI_COMM_WORLD);
    bool ok = true;
    {
      SspOptions options;
      options.timeout = 0.5;
      auto reduce = std::make_unique<SspAllreduce>(*spare, 64, DataType::int32, ReduceOp::sum(), options);
      std::vector<std::int32_t> in(64, 1);
      std::vector<std::int32_t> out(64);
      (void)(*reduce)(in.data(), out.data());
      if (spare->rank() != procs - 1) {
        const auto start = std::chrono::steady_clock::now();
        try {
          (void)(*reduce)(in.data(), out.data());
          ok = false;
        } catch (const TimeoutError&) {
          const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          ok = took < 0.5 + 0.5;
        }
      } else {
        try {
          reduce->finish();  // times out: nobody else finishes
          ok = false;
        } catch (const TimeoutError&) {
        }
      }
      reduce.reset();  // every rank frees the window (collective), the stopped one too
    }
    mpitest::tally_step(tally, "a stopped peer gives TimeoutError", ok);
  }
  if (comm->rank() == 0) {
    std::printf("ssp: %ld passed, %ld failed\n", tally.passed, tally.failed);
    std::fflush(stdout);
  }
  return tally.failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace ragged

int main(int argc, char** argv) { return ragged::mpitest::main_of(&argc, &argv, ragged::run); }
