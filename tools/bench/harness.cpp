#include "harness.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#ifdef RAGGED_BENCH_WITH_SIM
#include "ragged/sim.hpp"
#endif
#ifdef RAGGED_BENCH_WITH_MPI
#include "ragged/mpi.hpp"
#endif

namespace ragged::bench {

struct BackendScope::State {
#ifdef RAGGED_BENCH_WITH_MPI
  std::unique_ptr<mpi::Session> session;
#endif
};

BackendScope::BackendScope(const std::string& backend, int* argc, char*** argv) : state_(std::make_unique<State>()) {
  if (backend == "mpi") {
#ifdef RAGGED_BENCH_WITH_MPI
    state_->session = std::make_unique<mpi::Session>(argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    prints_ = rank == 0;
#else
    (void)argc;
    (void)argv;
    throw InvalidArgument("--backend", "this ragged-bench was built without the mpi backend");
#endif
  } else if (backend == "sim") {
#ifndef RAGGED_BENCH_WITH_SIM
    throw InvalidArgument("--backend", "this ragged-bench was built without the sim backend");
#endif
  } else {
    throw InvalidArgument("--backend", "unknown backend '" + backend + "' (expected sim or mpi)");
  }
}

BackendScope::~BackendScope() = default;

namespace {

void check_gap(const BackendOptions& options) {
  if (options.backend != "sim" && options.message_gap_s >= 0) {
    throw InvalidArgument("--message-gap", "sets the simulated platform's per-message gap; the " + options.backend +
                                               " backend measures the library's own costs");
  }
}

#ifdef RAGGED_BENCH_WITH_SIM
sim::Config sim_config(const BackendOptions& options) {
  sim::Config config;
  config.platform = options.platform;
  config.procs = options.procs;
  if (options.message_gap_s >= 0) config.message_gap = options.message_gap_s;
  return config;
}
#endif

}  // namespace

void run_ranks(const BackendOptions& options, [[maybe_unused]] const std::function<void(Comm&)>& rank_main) {
  check_gap(options);
  if (options.backend == "sim") {
#ifdef RAGGED_BENCH_WITH_SIM
    sim::run(sim_config(options), rank_main);
    return;
#endif
  }
#ifdef RAGGED_BENCH_WITH_MPI
  if (options.backend == "mpi") {
    auto comm = mpi::make_comm(MPI_COMM_WORLD);
    if (options.procs != 0 && options.procs != comm->size()) {
      throw InvalidArgument("--procs", std::to_string(options.procs) + " given but the MPI job has " +
                                           std::to_string(comm->size()) + " ranks");
    }
    rank_main(*comm);
    return;
  }
#endif
  throw InvalidArgument("--backend", "backend '" + options.backend + "' is not available in this build");
}

double message_gap(const BackendOptions& options) {
  check_gap(options);
#ifdef RAGGED_BENCH_WITH_SIM
  if (options.backend == "sim") return sim::message_gap(sim_config(options));
#endif
  return 0;
}

std::string platform_label(const BackendOptions& options) {
  if (options.backend == "mpi") return "mpi";
  return std::filesystem::path(options.platform).stem().string();
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<std::vector<double>> group_latencies(Comm& comm, std::span<const int> group_of_rank, int tag) {
  int k = 0;
  for (const int g : group_of_rank) k = std::max(k, g + 1);
  std::vector<std::vector<int>> members(static_cast<std::size_t>(k));
  for (std::size_t r = 0; r < group_of_rank.size(); ++r) {
    members[static_cast<std::size_t>(group_of_rank[r])].push_back(static_cast<int>(r));
  }
  std::vector<std::vector<double>> latency(static_cast<std::size_t>(k),
                                           std::vector<double>(static_cast<std::size_t>(k), 0.0));
  Runtime& rt = comm.runtime();
  const int me = comm.rank();
  std::byte none{};
  for (int c = 0; c < k; ++c) {
    for (int d = c; d < k; ++d) {
      const std::vector<int>& of_c = members[static_cast<std::size_t>(c)];
      const std::vector<int>& of_d = members[static_cast<std::size_t>(d)];
      if (of_c.empty() || of_d.empty() || (c == d && of_c.size() < 2)) continue;
      const int a = of_c[0];
      const int b = c == d ? of_c[1] : of_d[0];
      double best = std::numeric_limits<double>::infinity();
      for (int round = 0; round < 8; ++round) {
        if (me == a) {
          const double t0 = rt.now();
          comm.send(b, tag, &none, 0);
          comm.recv(b, tag, &none, 0);
          best = std::min(best, (rt.now() - t0) / 2);
        } else if (me == b) {
          comm.recv(a, tag, &none, 0);
          comm.send(a, tag, &none, 0);
        }
      }
      // The measuring rank tells rank 0.
      if (me == a && a != 0) comm.send(0, tag, &best, sizeof best);
      if (me == 0 && a != 0) comm.recv(a, tag, &best, sizeof best);
      if (me == 0) {
        latency[static_cast<std::size_t>(c)][static_cast<std::size_t>(d)] = best;
        latency[static_cast<std::size_t>(d)][static_cast<std::size_t>(c)] = best;
      }
    }
  }
  return latency;
}

LinkModel bound_link(Comm& comm, int tag, const LinkModel& single, std::size_t probe_bytes) {
  const int p = comm.size();
  LinkModel link = single;
  if (p < 2 || probe_bytes == 0) return link;
  const auto others = static_cast<std::size_t>(p - 1);
  std::vector<std::byte> buffer(comm.rank() == 0 ? others * probe_bytes : probe_bytes);
  Runtime& rt = comm.runtime();
  for (int round = 0; round < 4; ++round) {
    const bool incast = round % 2 == 0;
    barrier(comm);
    const double t0 = rt.now();
    std::vector<Request> requests;
    if (comm.rank() == 0) {
      for (int j = 1; j < p; ++j) {
        std::byte* at = buffer.data() + static_cast<std::size_t>(j - 1) * probe_bytes;
        requests.push_back(incast ? comm.irecv(j, tag, at, probe_bytes) : comm.isend(j, tag, at, probe_bytes));
      }
    } else {
      requests.push_back(incast ? comm.isend(0, tag, buffer.data(), probe_bytes)
                                : comm.irecv(0, tag, buffer.data(), probe_bytes));
    }
    comm.wait_all(requests);
    if (comm.rank() == 0) {
      const double beta = std::max(0.0, rt.now() - t0 - single.alpha) / static_cast<double>(others * probe_bytes);
      link.beta = std::min(link.beta, beta);
    }
  }
  return link;
}

void check_algorithms(const std::string& collective, const std::vector<std::string>& names,
                      const BackendOptions& options, bool selector) {
  const Collective c = parse_collective(collective);
  for (const std::string& name : names) {
    if (selector && name == "auto") continue;
    const Algorithm& a = Registry::instance().find(c, name);
    if (!a.restrictions.backend.empty() && a.restrictions.backend != options.backend) {
      throw InvalidArgument("--algorithms", "'" + name + "' runs only on the " + a.restrictions.backend + " backend");
    }
  }
}

std::string clock_label(double seconds) {
  const auto total = static_cast<long>(seconds);
  char buf[32];
  if (total >= 3600) {
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", total / 3600, total / 60 % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ldm%02lds", total / 60, total % 60);
  }
  return buf;
}

ProgressBar::ProgressBar(std::size_t total, bool enabled, std::string unit)
    : total_(total), enabled_(enabled), unit_(std::move(unit)), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::show(std::size_t done, const std::string& what) const {
  if (!enabled_) return;
  constexpr std::size_t width = 30;
  const std::size_t filled = total_ == 0 ? width : std::min(done, total_) * width / total_;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string eta = "?";
  if (done > 0 && done <= total_) {
    eta = clock_label(elapsed / static_cast<double>(done) * static_cast<double>(total_ - done));
  }
  std::fprintf(stderr, "\r[%s%s] %zu/%zu %s | %s | %s elapsed, ~%s left   ", std::string(filled, '#').c_str(),
               std::string(width - filled, '.').c_str(), done, total_, unit_.c_str(), what.c_str(),
               clock_label(elapsed).c_str(), eta.c_str());
  if (done == total_) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

}  // namespace ragged::bench
