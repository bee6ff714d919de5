// The arrival-aware algorithms under mpirun, every result compared with the
// native MPI collective on the same data:
//  1. hand-built snapshots (flat, random, reversed, one far behind, none): allgather bdr, bgd,
//     bslb and early_late, allreduce early_late, gather bsls and sls at every root, several
//     counts and datatypes;
//  2. a Monitor with its agent thread over iterations with injected delays (the
//     background parts run on a real thread while the main thread sleeps),
//     announced and learned plans, a plan change, a rank without edge calls;
//  3. the C API of listing 4 (pat_bind, PAT_Init ... PAT_Finalize).
// Every step ends with a verdict all ranks agree on (mpi/harness.hpp).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "mpi/harness.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"
#include "ragged/mpi.hpp"
#include "ragged/pat.h"
#include "ragged/registry.hpp"
#include "support/patterns.hpp"

namespace {

using namespace ragged;
using Bytes = std::vector<std::byte>;

Bytes block_of(int rank, DataType type, std::size_t count) {
  return test::make_buffer(type, count, [rank](std::size_t i) { return test::pattern(rank, i); });
}

std::shared_ptr<const ArrivalSnapshot> snapshot_for(int kind, int procs) {
  if (kind == 0) return nullptr;
  std::vector<double> a(static_cast<std::size_t>(procs), 0.0);
  std::mt19937_64 rng(static_cast<std::uint64_t>(procs) * 31 + static_cast<std::uint64_t>(kind));
  std::uniform_real_distribution<double> u(0.0, 5e-3);
  if (kind >= 2) {
    for (double& x : a) x = u(rng);
  }
  if (kind == 3) {
    const double top = *std::max_element(a.begin(), a.end());
    for (double& x : a) x = top - x;
  }
  if (kind == 4) a[static_cast<std::size_t>(procs / 2)] = 2.0;  // one rank far behind: early_late splits
  return std::make_shared<const ArrivalSnapshot>(std::move(a), LinkModel{50e-6, 1e-8});
}

/// One allgather by `name`, compared with MPI_Allgather; true when identical.
bool allgather_matches(Comm& comm, const std::string& name, std::size_t count, DataType type,
                       const CollectiveOptions& options) {
  const int procs = comm.size();
  const Bytes mine = block_of(comm.rank(), type, count);
  const std::size_t total = static_cast<std::size_t>(procs) * count * size_of(type);
  Bytes got(total, std::byte{0xA5});
  Bytes want(total);
  Registry::instance().allgather(name)(comm, mine.data(), got.data(), count, type, options);
  const int bytes = static_cast<int>(count * size_of(type));
  MPI_Allgather(mine.data(), bytes, MPI_BYTE, want.data(), bytes, MPI_BYTE, MPI_COMM_WORLD);
  return got == want;
}

/// One allreduce (sum) by `name`, compared with MPI_Allreduce; true when identical (the pattern's
/// small integers sum exactly in float64 too, in any order).
bool allreduce_matches(Comm& comm, const std::string& name, std::size_t count, DataType type,
                       const CollectiveOptions& options) {
  const Bytes mine = block_of(comm.rank(), type, count);
  Bytes got(mine.size(), std::byte{0xA5});
  Bytes want(mine.size());
  Registry::instance().allreduce(name)(comm, mine.data(), got.data(), count, type, ReduceOp::sum(), options);
  MPI_Allreduce(mine.data(), want.data(), static_cast<int>(count), type == DataType::int32 ? MPI_INT32_T : MPI_DOUBLE,
                MPI_SUM, MPI_COMM_WORLD);
  return got == want;
}

/// One gather by `name` at `root`, compared with MPI_Gather at the root; true when identical.
bool gather_matches(Comm& comm, const std::string& name, std::size_t count, DataType type, int root,
                    const CollectiveOptions& options) {
  const int procs = comm.size();
  const Bytes mine = block_of(comm.rank(), type, count);
  const std::size_t total = static_cast<std::size_t>(procs) * count * size_of(type);
  Bytes got(comm.rank() == root ? total : 0, std::byte{0xA5});
  Bytes want(comm.rank() == root ? total : 0);
  Registry::instance().gather(name)(comm, mine.data(), got.data(), count, type, root, options);
  const int bytes = static_cast<int>(count * size_of(type));
  MPI_Gather(mine.data(), bytes, MPI_BYTE, want.data(), bytes, MPI_BYTE, root, MPI_COMM_WORLD);
  return comm.rank() != root || got == want;
}

/// Runs `step`, turning exceptions into a failed verdict; returns whether every rank passed.
template <class F>
bool check(mpitest::Tally& tally, const std::string& what, F&& step) {
  bool ok = false;
  try {
    ok = step();
  } catch (const std::exception& e) {
    mpitest::say(what + ": " + e.what());
  }
  return mpitest::tally_step(tally, what, ok);
}

void hand_built_snapshots(Comm& comm, mpitest::Tally& tally) {
  const int procs = comm.size();
  for (int kind = 0; kind < 5; ++kind) {
    CollectiveOptions options;
    options.hints.set<ArrivalSnapshot>(snapshot_for(kind, procs));
    for (std::size_t count :
         {std::size_t{0}, std::size_t{1}, static_cast<std::size_t>(procs + 1), std::size_t{20011}}) {
      for (DataType type : {DataType::int32, DataType::float64}) {
        const std::string where = " snapshot " + std::to_string(kind) + " count " + std::to_string(count);
        for (const char* name : {"bdr", "bgd", "bslb", "early_late"}) {
          check(tally, std::string(name) + where, [&] { return allgather_matches(comm, name, count, type, options); });
        }
        check(tally, "allreduce early_late" + where,
              [&] { return allreduce_matches(comm, "early_late", count, type, options); });
        for (int root = 0; root < procs; ++root) {
          for (const char* name : {"bsls", "sls"}) {
            check(tally, std::string(name) + " root " + std::to_string(root) + where,
                  [&] { return gather_matches(comm, name, count, type, root, options); });
          }
        }
      }
    }
  }
}

void with_monitor(Comm& comm, mpitest::Tally& tally) {
  const int procs = comm.size();
  const int me = comm.rank();
  Runtime& rt = comm.runtime();
  const std::size_t count = 30000;  // 120 KB blocks: large enough for a rendezvous protocol
  // The switch from bdr to bgd cancels a bdr background (receives only); bgd's own
  // backgrounds then run as planned (a bgd background that forwards must not be cancelled
  // under MPI, see docs/algorithms/bgd.md).
  const std::vector<std::string> program{"bdr",  "bdr",  "bdr", "bslb", "bslb", "ring", "bdr",
                                         "bsls", "bsls", "bdr", "bgd",  "bgd",  "bgd"};
  bool constructed = check(tally, "monitor start-up", [&] {
    Monitor monitor(comm);  // measures the link model and the clock offsets
    const bool sane = monitor.link().alpha > 0 && monitor.link().beta > 0;
    monitor.finalize();
    return sane;
  });
  if (!constructed) return;
  Monitor monitor(comm);
  monitor.use({Collective::allgather, "bdr", count, DataType::int32, 0});
  for (int it = 0; it < static_cast<int>(program.size()); ++it) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(it) * 7919 + static_cast<std::uint64_t>(me));
    const double half = 5e-3 + std::uniform_real_distribution<double>(0.0, 10e-3)(rng) / 2;
    MPI_Barrier(MPI_COMM_WORLD);
    monitor.processing_start();
    rt.sleep_for(half);
    if (!(it == 4 && me == procs - 1)) monitor.edge(0.5);  // one rank without an estimate
    rt.sleep_for(half);
    monitor.processing_end();
    const std::string& name = program[static_cast<std::size_t>(it)];
    const std::string what = "monitor iteration " + std::to_string(it) + " " + name;
    check(tally, what, [&] {
      CollectiveOptions options;
      options.hints.set<ArrivalSnapshot>(monitor.arrive());
      if (options.hints.get<ArrivalSnapshot>()->size() != procs) return false;
      if (name == "bsls") return gather_matches(comm, name, count, DataType::int32, it % procs, options);
      return allgather_matches(comm, name, count, DataType::int32, options);
    });
  }
  check(tally, "monitor finalize", [&] {
    monitor.finalize();
    return true;
  });
}

void c_api(Comm& comm, mpitest::Tally& tally) {
  check(tally, "C API", [&] {
    pat_bind(comm);
    bool ok = PAT_Init() == PAT_SUCCESS;
    ok = ok && PAT_UseAlg("bdr") == PAT_SUCCESS;
    for (int it = 0; ok && it < 4; ++it) {
      ok = PAT_ProcessingStart() == PAT_SUCCESS;
      comm.runtime().sleep_for(2e-3 * (comm.rank() + 1));
      ok = ok && PAT_Edge(0.5) == PAT_SUCCESS;
      comm.runtime().sleep_for(2e-3 * (comm.rank() + 1));
      ok = ok && PAT_ProcessingEnd() == PAT_SUCCESS;
      CollectiveOptions options;
      options.hints.set<ArrivalSnapshot>(pat_monitor()->arrive());
      ok = ok && allgather_matches(comm, "bdr", 5000, DataType::float32, options);
    }
    ok = PAT_Finalize() == PAT_SUCCESS && ok;
    if (!ok) mpitest::say(std::string("PAT: ") + PAT_LastError());
    return ok;
  });
}

}  // namespace

int main(int argc, char** argv) {
  try {
    ragged::mpi::Session session(&argc, &argv);
    auto comm = ragged::mpi::make_comm(MPI_COMM_WORLD);
    mpitest::Tally tally;
    hand_built_snapshots(*comm, tally);
    with_monitor(*comm, tally);
    c_api(*comm, tally);
    if (mpitest::world_rank() == 0) {
      std::printf("mpi arrival tests on %d ranks: %ld passed, %ld failed\n", comm->size(), tally.passed, tally.failed);
    }
    const int failed = tally.failed != 0 ? 1 : 0;
    comm.reset();
    return failed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "test_mpi_arrival: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return 2;
}
