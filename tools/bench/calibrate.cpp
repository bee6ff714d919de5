// ragged-bench calibrate: measures what a real MPI adds to the wire and writes a SimGrid
// platform that has it (issue 15, item 4; docs/calibration.md). Ping-pongs from rank 0:
//
//   connect    the first 0-byte round trip with each rank against the second: the connection's
//              set-up (Open MPI over TCP connects a pair at its first message)
//   alpha      half the 0-byte round trip with rank 1
//   sizes      half the round trip per size: below the eager limit alpha + s beta, above it one
//              handshake more; the size whose time jumps most is the limit, the median extra
//              above the line from there on the handshake
//   beta       the slope between the two largest sizes
//   gap        N small messages rank 0 sends back to back, as rank 1 completes them: (last -
//              first) / (N - 1), LogGP's g
//   loaded     every rank sends the largest size to its right neighbour and receives from its
//              left at once (a ring step, what collectives do): (time - alpha) / size is the
//              beta of a loaded network. On a testbed whose hosts share the machine's cores it
//              is well above the ping-pong's (CPU, not wire); the platform then gives the
//              cluster a shared backbone of P / loaded_beta bytes per second.
//
// The platform: one switch, a link per host of 1/beta bytes per second and alpha/2 latency
// (a route crosses two), a shared backbone when the loaded ring step is slower, and the zone properties of
// docs/backends/sim.md ("Protocol"); the handshake and the set-up in round trips of the route, so that they grow with a
// backbone. On sim it recovers the properties of the platform it runs on (ctest sim.bench.calibrate).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "harness.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "report.hpp"

namespace ragged::bench {

namespace {

constexpr int tag_ping = 30030;

struct CalibrateOptions {
  std::vector<std::uint64_t> sizes;
  int iterations = 20;
  int burst = 100;
  int hosts = 0;  ///< hosts of the written platform (0: the job's ranks)
  std::string platform_out;
};

/// One round trip of `bytes` between rank 0 and `peer`, timed on rank 0 (the others return 0).
double round_trip(Comm& comm, int peer, std::vector<std::byte>& buffer, std::size_t bytes) {
  const int me = comm.rank();
  if (me == 0) {
    const double t0 = comm.runtime().now();
    comm.send(peer, tag_ping, buffer.data(), bytes);
    comm.recv(peer, tag_ping, buffer.data(), bytes);
    return comm.runtime().now() - t0;
  }
  if (me == peer) {
    comm.recv(0, tag_ping, buffer.data(), bytes);
    comm.send(0, tag_ping, buffer.data(), bytes);
  }
  return 0;
}

struct Measured {
  double connect = 0;  ///< the largest first-minus-second round trip over the peers
  double alpha = 0;
  double beta = 0;
  double gap = 0;
  double loaded_beta = 0;
  int procs = 0;
  std::vector<double> half;  ///< per size
  std::size_t eager_limit = 0;
  double handshake = 0;  ///< the median extra of the sizes at or above the limit
};

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void write_platform(const std::string& path, const Measured& m, int hosts) {
  std::ofstream out(path);
  if (!out) throw InvalidArgument("--platform-out", "cannot write '" + path + "'");
  const double link_latency = m.alpha / 2;
  const double rtt = 2 * m.alpha;
  // A link per host at the ping-pong's rate. When every rank at once gets less (the hosts
  // share the machine's cores, or a switch is oversubscribed), a shared backbone carries what
  // they got together: P flows at 1 / loaded_beta each.
  const double bandwidth = m.beta > 0 ? 1 / m.beta : 1e12;
  const bool shared = m.loaded_beta > 1.05 * m.beta && m.loaded_beta > 0;
  const double backbone = shared ? m.procs / m.loaded_beta : 0;
  out << "<?xml version='1.0'?>\n"
      << "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<!-- Written by ragged-bench calibrate (docs/calibration.md) from ping-pongs on the network it ran on:\n"
      << "     alpha " << fmt(m.alpha) << " s (half the 0-byte round trip), beta " << fmt(m.beta)
      << " s/B (ping-pong), " << fmt(m.loaded_beta)
      << " s/B (every rank at once: a shared backbone of P flows at that rate),\n"
      << "     per-message gap " << fmt(m.gap) << " s,\n"
      << "     eager limit " << m.eager_limit << " B, rendezvous handshake " << fmt(m.handshake)
      << " s, connection set-up " << fmt(m.connect) << " s. -->\n"
      << "<platform version=\"4.1\">\n"
      << "  <config>\n"
      << "    <prop id=\"network/model\" value=\"CM02\"/>\n"
      << "    <prop id=\"network/crosstraffic\" value=\"0\"/>\n"
      << "    <prop id=\"network/TCP-gamma\" value=\"4194304\"/>\n"
      << "  </config>\n"
      << "  <zone id=\"calibrated\" routing=\"Full\">\n"
      << "    <prop id=\"ragged/message_gap\" value=\"" << fmt(m.gap) << "s\"/>\n"
      << "    <prop id=\"ragged/eager_limit\" value=\"" << m.eager_limit << "\"/>\n"
      << "    <prop id=\"ragged/rendezvous_round_trips\" value=\"" << fmt(rtt > 0 ? m.handshake / rtt : 0) << "\"/>\n"
      << "    <prop id=\"ragged/connect_round_trips\" value=\"" << fmt(rtt > 0 ? m.connect / rtt : 0) << "\"/>\n"
      << "    <cluster id=\"calibrated-cluster\" prefix=\"host-\" suffix=\"\" radical=\"0-" << hosts - 1
      << "\" speed=\"1Gf\" bw=\"" << fmt(bandwidth) << "Bps\" lat=\"" << fmt(link_latency)
      << "s\" sharing_policy=\"SPLITDUPLEX\" loopback_bw=\"6GBps\" loopback_lat=\"0.5us\"";
  if (shared) out << " bb_bw=\"" << fmt(backbone) << "Bps\" bb_lat=\"0s\"";
  out << "/>\n"
      << "  </zone>\n"
      << "</platform>\n";
  if (!out) throw InvalidArgument("--platform-out", "cannot write '" + path + "'");
}

Report run_calibrate(const CalibrateOptions& o, const BackendOptions& b) {
  if (o.iterations <= 0) throw InvalidArgument("--iterations", "must be positive");
  if (o.burst < 2) throw InvalidArgument("--burst", "must be at least 2");
  if (o.sizes.size() < 3) throw InvalidArgument("--sizes", "name at least three sizes");
  std::vector<std::uint64_t> sizes = o.sizes;
  std::sort(sizes.begin(), sizes.end());
  Measured m;
  int procs = 0;
  bool printing = false;
  run_ranks(b, [&](Comm& comm) {
    const int p = comm.size();
    if (p < 2) throw InvalidArgument("--procs", "calibration needs at least 2 ranks");
    std::vector<std::byte> buffer(static_cast<std::size_t>(sizes.back()));
    // Connections first, before anything else talks: rank 0 with each rank in turn.
    double connect = 0;
    for (int j = 1; j < p; ++j) {
      const double first = round_trip(comm, j, buffer, 0);
      const double second = round_trip(comm, j, buffer, 0);
      connect = std::max(connect, first - second);
    }
    barrier(comm);
    std::vector<double> zero;
    for (int it = 0; it < o.iterations; ++it) zero.push_back(round_trip(comm, 1, buffer, 0) / 2);
    std::vector<double> half;
    for (std::uint64_t s : sizes) {
      std::vector<double> t;
      round_trip(comm, 1, buffer, static_cast<std::size_t>(s));  // warm-up
      for (int it = 0; it < o.iterations; ++it)
        t.push_back(round_trip(comm, 1, buffer, static_cast<std::size_t>(s)) / 2);
      half.push_back(median(t));
    }
    // The gap: a burst of 8-byte messages rank 1 has posted receives for.
    barrier(comm);
    double gap = 0;
    const auto n = static_cast<std::size_t>(o.burst);
    std::vector<std::byte> small(8 * n);
    if (comm.rank() == 1) {
      std::vector<Request> receives;
      for (std::size_t k = 0; k < n; ++k) receives.push_back(comm.irecv(0, tag_ping, small.data() + 8 * k, 8));
      comm.send(0, tag_ping, nullptr, 0);  // posted: rank 0 may go
      double first = -1;
      double last = 0;
      while (comm.wait_any(receives) != Comm::npos) {
        last = comm.runtime().now();
        if (first < 0) first = last;
      }
      gap = (last - first) / static_cast<double>(n - 1);
      comm.send(0, tag_ping, &gap, sizeof gap);
    } else if (comm.rank() == 0) {
      comm.recv(1, tag_ping, nullptr, 0);
      std::vector<Request> sends;
      for (std::size_t k = 0; k < n; ++k) sends.push_back(comm.isend(1, tag_ping, small.data() + 8 * k, 8));
      comm.wait_all(sends);
      comm.recv(1, tag_ping, &gap, sizeof gap);
    }
    // A loaded ring step of the largest size, every rank at once.
    std::vector<double> step;
    std::vector<std::byte> in(buffer.size());
    const int right = (comm.rank() + 1) % p;
    const int left = (comm.rank() + p - 1) % p;
    for (int it = 0; it < std::max(3, o.iterations / 4); ++it) {
      barrier(comm);
      const double t0 = comm.runtime().now();
      comm.sendrecv(right, tag_ping, buffer.data(), buffer.size(), left, tag_ping, in.data(), in.size());
      step.push_back(comm.runtime().now() - t0);
    }
    barrier(comm);
    if (comm.rank() != 0) return;
    m.loaded_beta = std::max(0.0, median(step) - median(zero)) / static_cast<double>(buffer.size());
    m.procs = p;
    printing = true;
    procs = p;
    m.connect = connect;
    m.alpha = median(zero);
    m.half = half;
    m.gap = gap;
  });
  Report report;
  report.experiment = "calibrate";
  if (!printing) return report;
  // beta from the two largest sizes, alpha from 0 bytes: the eager line alpha + s beta. The
  // limit is the size where the time jumps most above what beta gives for the step from the
  // size before (a handshake, and on a token-bucket shaper the end of its burst credit); the
  // handshake is the median of the sizes at or above it over the eager line.
  const std::size_t k = sizes.size();
  m.beta = std::max(0.0, (m.half[k - 1] - m.half[k - 2]) / static_cast<double>(sizes[k - 1] - sizes[k - 2]));
  std::vector<double> extra(k);
  for (std::size_t i = 0; i < k; ++i) extra[i] = m.half[i] - (m.alpha + m.beta * static_cast<double>(sizes[i]));
  const double threshold = std::max(m.alpha / 2, 1e-6);
  std::size_t first = k;
  double largest = threshold;
  for (std::size_t i = 1; i < k; ++i) {
    const double jump = m.half[i] - m.half[i - 1] - m.beta * static_cast<double>(sizes[i] - sizes[i - 1]);
    if (jump > largest) {
      largest = jump;
      first = i;
    }
  }
  if (first < k) {
    m.eager_limit = static_cast<std::size_t>(sizes[first]);
    std::vector<double> above(extra.begin() + static_cast<std::ptrdiff_t>(first), extra.end());
    m.handshake = std::max(0.0, median(above));
  }
  report.metadata = {{"backend", b.backend},
                     {"platform", platform_label(b)},
                     {"procs", std::to_string(procs)},
                     {"iterations", std::to_string(o.iterations)},
                     {"alpha_s", significant(m.alpha)},
                     {"beta_s_per_byte", significant(m.beta)},
                     {"loaded_beta_s_per_byte", significant(m.loaded_beta)},
                     {"message_gap_s", significant(m.gap)},
                     {"eager_limit_bytes", std::to_string(m.eager_limit)},
                     {"rendezvous_s", significant(m.handshake)},
                     {"connect_s", significant(m.connect)}};
  for (std::size_t i = 0; i < k; ++i) {
    Row row;
    row.set("experiment", std::string("calibrate"))
        .set("backend", b.backend)
        .set("bytes", static_cast<std::int64_t>(sizes[i]))
        .set("half_round_trip_s", m.half[i])
        .set("eager_line_s", m.alpha + m.beta * static_cast<double>(sizes[i]))
        .set("extra_s", extra[i])
        .set("protocol", std::string(first < k && i >= first ? "rendezvous" : "eager"));
    report.rows.push_back(std::move(row));
  }
  if (!o.platform_out.empty()) {
    write_platform(o.platform_out, m, o.hosts > 0 ? o.hosts : procs);
    report.metadata.emplace_back("platform_out", o.platform_out);
  }
  return report;
}

}  // namespace

CLI::App* add_calibrate_command(CLI::App& app, Common& common, Runner& chosen) {
  Command cmd(app, "calibrate",
              "Measure the network's latency, bandwidth, per-message gap, eager limit, rendezvous handshake and "
              "connection set-up, and write a sim platform with them (docs/calibration.md)",
              common);
  auto o = std::make_shared<CalibrateOptions>();
  cmd.counts("--sizes", o->sizes, "1Ki,4Ki,16Ki,32Ki,48Ki,60Ki,63Ki,64Ki,96Ki,128Ki,256Ki,1Mi,2Mi",
             "ping-pong sizes in bytes (the eager limit is searched among them; the two largest give beta)");
  cmd->add_option("--iterations", o->iterations, "round trips per size (median)")->capture_default_str();
  cmd->add_option("--burst", o->burst, "messages of the per-message gap's burst")->capture_default_str();
  cmd->add_option("--hosts", o->hosts, "hosts of the written platform (default: the job's ranks)");
  cmd->add_option("--platform-out", o->platform_out, "write the calibrated platform (SimGrid XML) to this file");
  cmd.runs(
      chosen, [o](const BackendOptions& backend) { return run_calibrate(*o, backend); },
      [cmd, &common] {
        if (!cmd.given("--procs")) common.procs = common.backend == "mpi" ? 0 : 8;
      });
  return cmd.app();
}

}  // namespace ragged::bench
