// Soak: the pap loop of Proficz 2021 (compute, a late process, edge, arrive,
// the collective) run for many iterations with every arrival-aware algorithm, each behind
// one Monitor and its agent thread, under mpirun. Every result is checked exactly on integer
// data. After each algorithm, on every rank:
//  * the resident set size grew by less than 1% between the end of the warm-up (a tenth of
//    the iterations, at least 100) and the last iteration;
//  * the mpi backend holds as many requests and windows as before the Monitor was made.
//
//   mpirun -np 4 test_soak [--iterations 10000] [--algorithms bdr,prr,...] [--max-growth 0.01]
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "mpi/harness.hpp"
#include "ragged/arrival.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"

namespace {

using namespace ragged;

/// Resident set size in KiB (the second field of /proc/self/statm, in pages).
long rss_kib() {
  std::ifstream statm("/proc/self/statm");
  long size = 0;
  long resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

struct Soaked {
  bool exact = true;
  long rss_warm = 0;
  long rss_end = 0;
  mpi::Resources before;
  mpi::Resources after;
  double seconds = 0;
};

/// One algorithm for `iterations` iterations of the pap loop.
Soaked soak(const Algorithm& algorithm, long iterations, long warm_up) {
  Soaked out;
  out.before = mpi::live_resources();
  const auto start = std::chrono::steady_clock::now();
  {
    auto comm = mpi::make_comm(MPI_COMM_WORLD);
    const int procs = comm->size();
    const int me = comm->rank();
    const std::size_t count = 257;  // odd: uneven segments for the allreduce plans
    const int root = procs - 1;
    Monitor monitor(*comm);
    monitor.use(PlannedCall{algorithm.collective, algorithm.name, count, DataType::int32, root});
    std::vector<int> in(count);
    std::vector<int> out_buf(count * static_cast<std::size_t>(procs));
    std::mt19937 rng(12345);  // the same draws on every rank
    for (long it = 0; it < iterations; ++it) {
      const int late = static_cast<int>(rng() % static_cast<unsigned>(procs));
      const auto delay_us = static_cast<unsigned>(rng() % 200);
      monitor.processing_start();
      if (me == late) std::this_thread::sleep_for(std::chrono::microseconds(delay_us / 2));
      monitor.edge(0.5);
      if (me == late) std::this_thread::sleep_for(std::chrono::microseconds(delay_us / 2));
      monitor.processing_end();
      CollectiveOptions o;
      o.algorithm = algorithm.name;
      o.timeout = 60.0;
      o.hints.set(monitor.arrive());
      for (std::size_t i = 0; i < count; ++i)
        in[i] = static_cast<int>((it % 1000) * 7 + me * 1000003 + static_cast<long>(i));
      switch (algorithm.collective) {
        case Collective::allgather:
          allgather(*comm, in.data(), out_buf.data(), count, DataType::int32, o);
          for (int r = 0; r < procs; ++r) {
            for (std::size_t i = 0; i < count; ++i) {
              const int want = static_cast<int>((it % 1000) * 7 + r * 1000003 + static_cast<long>(i));
              if (out_buf[static_cast<std::size_t>(r) * count + i] != want) out.exact = false;
            }
          }
          break;
        case Collective::gather:
          gather(*comm, in.data(), out_buf.data(), count, DataType::int32, root, o);
          if (me == root) {
            for (int r = 0; r < procs; ++r) {
              for (std::size_t i = 0; i < count; ++i) {
                const int want = static_cast<int>((it % 1000) * 7 + r * 1000003 + static_cast<long>(i));
                if (out_buf[static_cast<std::size_t>(r) * count + i] != want) out.exact = false;
              }
            }
          }
          break;
        case Collective::allreduce:
          allreduce(*comm, in.data(), out_buf.data(), count, DataType::int32, ReduceOp::sum(), o);
          for (std::size_t i = 0; i < count; ++i) {
            long want = 0;
            for (int r = 0; r < procs; ++r) want += (it % 1000) * 7 + r * 1000003 + static_cast<long>(i);
            if (out_buf[i] != static_cast<int>(want)) out.exact = false;
          }
          break;
        case Collective::bcast: {
          // The root's vector of this iteration; every rank ends with it.
          for (std::size_t i = 0; i < count; ++i) {
            out_buf[i] = me == root ? in[i] : -1;
          }
          bcast(*comm, out_buf.data(), count, DataType::int32, root, o);
          for (std::size_t i = 0; i < count; ++i) {
            const int want = static_cast<int>((it % 1000) * 7 + root * 1000003 + static_cast<long>(i));
            if (out_buf[i] != want) out.exact = false;
          }
          break;
        }
        case Collective::reduce:
          reduce(*comm, in.data(), out_buf.data(), count, DataType::int32, ReduceOp::sum(), root, o);
          for (std::size_t i = 0; i < count && me == root; ++i) {
            long want = 0;
            for (int r = 0; r < procs; ++r) want += (it % 1000) * 7 + r * 1000003 + static_cast<long>(i);
            if (out_buf[i] != static_cast<int>(want)) out.exact = false;
          }
          break;
        case Collective::scatter: {
          // The root scatters block r = what rank r contributes in the other loops.
          std::vector<int> all(me == root ? count * static_cast<std::size_t>(procs) : 0);
          for (std::size_t k = 0; k < all.size(); ++k) {
            const long r = static_cast<long>(k / count);
            all[k] = static_cast<int>((it % 1000) * 7 + r * 1000003 + static_cast<long>(k % count));
          }
          scatter(*comm, all.data(), out_buf.data(), count, DataType::int32, root, o);
          for (std::size_t i = 0; i < count; ++i) {
            if (out_buf[i] != in[i]) out.exact = false;
          }
          break;
        }
        default:
          throw InvalidArgument("algorithm", "no soak loop for " + std::string(name_of(algorithm.collective)));
      }
      if (it + 1 == warm_up) out.rss_warm = rss_kib();
      if (me == 0 && (it + 1) % 2000 == 0) {
        std::printf("  %s %s: %ld/%ld iterations\n", name_of(algorithm.collective), algorithm.name.c_str(), it + 1,
                    iterations);
        std::fflush(stdout);
      }
    }
    out.rss_end = rss_kib();
    monitor.finalize();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.after = mpi::live_resources();
  return out;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= list.size()) {
    const std::size_t comma = std::min(list.find(',', from), list.size());
    if (comma > from) out.push_back(list.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  ragged::mpi::Session session(&argc, &argv);
  try {
    long iterations = 10000;
    double max_growth = 0.01;
    std::vector<std::string> names;
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string flag = argv[i];
      if (flag == "--iterations")
        iterations = std::atol(argv[i + 1]);
      else if (flag == "--algorithms")
        names = split(argv[i + 1]);
      else if (flag == "--max-growth")
        max_growth = std::atof(argv[i + 1]);
      else
        throw InvalidArgument("argv", "unknown flag " + flag);
    }
    std::vector<const Algorithm*> algorithms;
    for (Collective c : all_collectives) {
      for (const Algorithm* a : Registry::instance().list(c, "mpi")) {
        if (!a->restrictions.needs_arrival) continue;
        if (!names.empty() && std::find(names.begin(), names.end(), a->name) == names.end()) continue;
        algorithms.push_back(a);
      }
    }
    if (algorithms.empty()) throw InvalidArgument("--algorithms", "names no arrival-aware algorithm");
    const long warm_up = std::max(100L, iterations / 10);
    mpitest::Tally tally;
    for (const Algorithm* a : algorithms) {
      const Soaked s = soak(*a, iterations, warm_up);
      const double growth =
          s.rss_warm > 0 ? static_cast<double>(s.rss_end - s.rss_warm) / static_cast<double>(s.rss_warm) : 1.0;
      const bool leaks = s.after.requests != s.before.requests || s.after.windows != s.before.windows;
      const bool ok = s.exact && growth < max_growth && !leaks;
      char line[512];
      std::snprintf(line, sizeof line,
                    "%s %s: %ld iterations in %.1f s, %s; RSS %ld KiB after %ld, %ld KiB at the end (%+.3f%%); "
                    "requests %ld -> %ld, windows %ld -> %ld",
                    name_of(a->collective), a->name.c_str(), iterations, s.seconds, s.exact ? "exact" : "WRONG RESULTS",
                    s.rss_warm, warm_up, s.rss_end, 100 * growth, s.before.requests, s.after.requests, s.before.windows,
                    s.after.windows);
      if (!ok || mpitest::world_rank() == 0) mpitest::say(line);
      mpitest::tally_step(tally, a->name, ok, 600.0);
    }
    return mpitest::ranks_verdict("soak", tally);
  } catch (const std::exception& e) {
    mpitest::abort_job("test_soak", e);
  }
}
