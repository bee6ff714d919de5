// ragged-bench overhead: what the backend itself costs (whether a gap to the MPI library is
// ragged's own). A ping-pong between ranks 0 and 1 through ragged's Comm (isend/irecv/wait,
// what every algorithm uses) beside the same ping-pong in raw MPI (MPI_Send/MPI_Recv on the
// same communicator, mpi backend only) and through a Window's notified puts (put_notify,
// notify_wait_some, notify_reset: Iakymchuk et al. 2021's one-sided layer),
// with and without the arrival runtime's agent thread running on every rank (a Monitor, as an
// arrival-aware algorithm has). The other ranks only take part in the barriers. Per row: the
// half round trip (latency) and the bytes per second, medians over the iterations, and the
// ratio to raw MPI of the same size and agent setting.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "harness.hpp"
#include "ragged/arrival.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/window.hpp"
#include "report.hpp"
#ifdef RAGGED_BENCH_WITH_MPI
#include <mpi.h>

#include "ragged/mpi.hpp"
#endif

namespace ragged::bench {

namespace {

constexpr int tag_ping = 30020;

struct OverheadOptions {
  std::vector<std::uint64_t> sizes;
  int iterations = 100;
  int warmup = 10;
};

/// One round trip of `bytes` between ranks 0 and 1 through `path`: "comm" (send/recv), "raw"
/// (MPI_Send/MPI_Recv) or "window" (put_notify into the peer's window, notify_wait_some and
/// notify_reset there, the way Iakymchuk et al. 2021's collectives move data).
void round_trip(Comm& comm, const std::string& path, std::vector<std::byte>& buffer, std::size_t bytes,
                Window* window) {
  const int me = comm.rank();
  if (me > 1) return;
  const int peer = 1 - me;
  if (path == "window") {
    const auto bounce = [&] {
      window->notify_wait_some(0, 1);
      window->notify_reset(0);
    };
    if (me == 1) bounce();
    window->put_notify(peer, 0, buffer.data(), bytes, 0, 1);
    if (me == 0) bounce();
    return;
  }
#ifdef RAGGED_BENCH_WITH_MPI
  if (path == "raw") {
    MPI_Comm c = mpi::native_handle(comm);
    const int n = static_cast<int>(bytes);
    if (me == 0) {
      MPI_Send(buffer.data(), n, MPI_BYTE, peer, tag_ping, c);
      MPI_Recv(buffer.data(), n, MPI_BYTE, peer, tag_ping, c, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer.data(), n, MPI_BYTE, peer, tag_ping, c, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), n, MPI_BYTE, peer, tag_ping, c);
    }
    return;
  }
#endif
  if (me == 0) {
    comm.send(peer, tag_ping, buffer.data(), bytes);
    comm.recv(peer, tag_ping, buffer.data(), bytes);
  } else {
    comm.recv(peer, tag_ping, buffer.data(), bytes);
    comm.send(peer, tag_ping, buffer.data(), bytes);
  }
}

Report run_overhead(const OverheadOptions& o, const BackendOptions& b) {
  if (o.iterations <= 0) throw InvalidArgument("--iterations", "must be positive");
  for (std::uint64_t s : o.sizes) {
    if (s > (std::uint64_t{1} << 30)) throw InvalidArgument("--sizes", "at most 1 GiB per message");
  }
  std::vector<std::string> paths{"comm", "window"};
  if (b.backend == "mpi") paths.push_back("raw");
  struct Cell {
    std::string path;
    bool agent = false;
    std::uint64_t bytes = 0;
    double latency = 0;
  };
  std::vector<Cell> cells;
  bool printing = false;
  int procs = 0;
  std::string no_window;  // why windows are unavailable, on rank 0
  run_ranks(b, [&](Comm& comm) {
    if (comm.size() < 2) throw InvalidArgument("--procs", "the ping-pong needs at least 2 ranks");
    const std::uint64_t largest = o.sizes.empty() ? 0 : *std::max_element(o.sizes.begin(), o.sizes.end());
    std::vector<std::byte> buffer(static_cast<std::size_t>(largest));
    // Windows may be unavailable (Open MPI 4.1 over TCP under MPI_THREAD_MULTIPLE has no
    // one-sided component: osc/pt2pt refuses the thread level, osc/rdma needs an RDMA
    // transport); every rank fails alike, and the window rows are left out.
    std::unique_ptr<Window> window;
    try {
      window = comm.create_window(static_cast<std::size_t>(largest), 1);
    } catch (const Error& e) {
      if (comm.rank() == 0) no_window = e.what();
    }
    std::vector<Cell> mine;
    for (bool agent : {false, true}) {
      std::unique_ptr<Monitor> monitor;
      if (agent) {
        MonitorOptions mo;
        mo.link = LinkModel{1e-5, 1e-8};  // given: no probe traffic
        monitor = std::make_unique<Monitor>(comm, mo);
      }
      for (const std::string& path : paths) {
        if (path == "window" && !window) continue;
        for (std::uint64_t bytes : o.sizes) {
          std::vector<double> half;
          barrier(comm);
          for (int it = 0; it < o.warmup + o.iterations; ++it) {
            const double t0 = comm.runtime().now();
            round_trip(comm, path, buffer, static_cast<std::size_t>(bytes), window.get());
            if (it >= o.warmup) half.push_back((comm.runtime().now() - t0) / 2);
          }
          barrier(comm);
          if (comm.rank() == 0) mine.push_back({path, agent, bytes, median(half)});
        }
      }
      if (monitor) monitor->finalize();
    }
    if (comm.rank() == 0) {
      printing = true;
      procs = comm.size();
      cells = std::move(mine);
    }
  });
  Report report;
  report.experiment = "overhead";
  report.metadata = {{"iterations", std::to_string(o.iterations)},
                     {"warmup", std::to_string(o.warmup)},
                     {"backend", b.backend},
                     {"platform", platform_label(b)}};
  if (!printing) return report;
  report.metadata.emplace_back("procs", std::to_string(procs));
  if (!no_window.empty()) report.metadata.emplace_back("window", "unavailable: " + no_window);
  for (const Cell& c : cells) {
    double raw = 0;
    double two_sided = 0;
    for (const Cell& r : cells) {
      if (r.path == "raw" && r.agent == c.agent && r.bytes == c.bytes) raw = r.latency;
      if (r.path == "comm" && r.agent == c.agent && r.bytes == c.bytes) two_sided = r.latency;
    }
    Row row;
    row.set("experiment", std::string("overhead"))
        .set("backend", b.backend)
        .set("path", c.path)
        .set("agent", std::string(c.agent ? "yes" : "no"))
        .set("bytes", static_cast<std::int64_t>(c.bytes))
        .set("latency_s", c.latency)
        .set("bytes_per_s",
             c.latency > 0 && c.bytes > 0 ? Value(static_cast<double>(c.bytes) / c.latency) : Value(std::string()))
        .set("over_raw", raw > 0 ? Value(c.latency / raw) : Value(std::string()))
        .set("over_comm", two_sided > 0 ? Value(c.latency / two_sided) : Value(std::string()));
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace

CLI::App* add_overhead_command(CLI::App& app, Common& common, Runner& chosen) {
  Command cmd(app, "overhead",
              "The backend's own cost: ping-pong through ragged's Comm against raw MPI, with and without the "
              "arrival agent",
              common);
  auto o = std::make_shared<OverheadOptions>();
  cmd.counts("--sizes", o->sizes, "0,1Ki,64Ki,1Mi", "message sizes in bytes");
  cmd->add_option("--iterations", o->iterations, "measured round trips per cell")->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "unmeasured round trips first")->capture_default_str();
  cmd.runs(
      chosen, [o](const BackendOptions& backend) { return run_overhead(*o, backend); },
      [cmd, &common] {
        if (!cmd.given("--procs")) common.procs = common.backend == "mpi" ? 0 : 2;
      });
  return cmd.app();
}

}  // namespace ragged::bench
