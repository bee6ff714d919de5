// ragged-bench calibrate: measures what a real MPI adds to the wire and writes a SimGrid
// platform that has it, so that the simulator ranks algorithms as the testbed does
// (docs/calibration.md). Ping-pongs from rank 0:
//
//   connect    the first 0-byte round trip with each rank against the second: the connection's
//              set-up (Open MPI over TCP connects a pair at its first message), in round trips of
//              that pair (the largest over the peers), so that it scales with a route's latency
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
//   exchange   per size of --exchange-sizes: six ring steps against six steps in which each
//              rank exchanges with a neighbour, the left and the right one in turn (neighbour
//              exchange, recursive doubling, Bruck's last step), every rank at once. Open MPI
//              over TCP moves both directions of a pair on one connection, and a rendezvous'
//              reply can wait behind the data already queued the other way: an exchange then
//              goes at a fraction of the ring's rate. The factor is (ring - fixed) / (exchange
//              - fixed) per size, fixed = six times alpha + handshake, median over the sizes at
//              or above the eager limit (1 below it, and at most 1).
//
// With --n1 N the ranks 0..N-1 are one cluster and N..P-1 another, joined by a backbone (the
// two-cluster testbed). The ring step then runs inside each cluster, and three more figures
// come from rank 0 against rank N:
//
//   cross alpha   half the 0-byte round trip across: the backbone adds cross alpha - alpha
//   cross beta    the slope of the two largest sizes across: one flow's rate over the long
//                 path, which TCP's window bounds (SimGrid: TCP-gamma / (2 route latency))
//   backbone      min(N, P-N) pairs exchange the largest size across at once: their bytes per
//                 second together are what the backbone carries
//
//   rank:  0 1 .. N-1 | N N+1 .. P-1        ring steps inside each side; ping-pongs 0<->1 and
//          cluster a  | cluster b            0<->N; pairs k<->N+k for the backbone
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
constexpr int tag_release = 30031;

struct CalibrateOptions {
  std::vector<std::uint64_t> sizes;
  std::vector<std::uint64_t> exchange_sizes;
  int iterations = 20;
  int burst = 100;
  int hosts = 0;  ///< hosts of the written platform (0: the job's ranks)
  int n1 = 0;     ///< ranks of the first cluster (0: one cluster)
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

/// Rank 0's median half round trips with `peer`: 0 bytes, then each size (after a warm-up).
struct Profile {
  double zero = 0;
  std::vector<double> half;
};

Profile profile(Comm& comm, int peer, const std::vector<std::uint64_t>& sizes, std::vector<std::byte>& buffer,
                int iterations) {
  Profile out;
  std::vector<double> zero;
  for (int it = 0; it < iterations; ++it) zero.push_back(round_trip(comm, peer, buffer, 0) / 2);
  out.zero = median(zero);
  for (std::uint64_t s : sizes) {
    std::vector<double> t;
    round_trip(comm, peer, buffer, static_cast<std::size_t>(s));  // warm-up
    for (int it = 0; it < iterations; ++it)
      t.push_back(round_trip(comm, peer, buffer, static_cast<std::size_t>(s)) / 2);
    out.half.push_back(median(t));
  }
  return out;
}

/// The slope between the two largest sizes, in seconds per byte.
double slope(const std::vector<std::uint64_t>& sizes, const std::vector<double>& half) {
  const std::size_t k = sizes.size();
  return std::max(0.0, (half[k - 1] - half[k - 2]) / static_cast<double>(sizes[k - 1] - sizes[k - 2]));
}

struct Measured {
  double connect = 0;              ///< connect_round_trips round trips of rank 0 and rank 1
  double connect_round_trips = 0;  ///< the largest (first - second) / second over the peers
  double alpha = 0;
  double beta = 0;
  double gap = 0;
  double loaded_beta = 0;
  int procs = 0;
  std::vector<double> half;  ///< per size
  std::size_t eager_limit = 0;
  double handshake = 0;                ///< the median extra of the sizes at or above the limit
  std::vector<double> ring_steps;      ///< per exchange size: six ring steps, median
  std::vector<double> exchange_steps;  ///< per exchange size: six neighbour exchanges, median
  double exchange_factor = 1;          ///< what an exchange of a rendezvous size gets of the ring's rate
  std::string exchange_sizes_factors;  ///< "bytes:factor,..." of the sizes that count
  /// The handshake in round trips of its route: near's, or across's with two clusters, where it
  /// is a whole backbone round trip and stands well above the shaper's noise.
  double rendezvous_round_trips = 0;
  // Two clusters (n1 > 0): rank 0 against rank n1, and the pairs across at once.
  int n1 = 0;
  double cross_alpha = 0;
  double cross_beta = 0;
  double backbone = 0;  ///< bytes per second of the pairs together
  std::vector<double> cross_half;
};

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// One cluster element of the platform: `hosts` hosts named prefix0.., a link each.
void write_cluster(std::ostream& out, const std::string& id, int hosts, double bandwidth, double latency,
                   double backbone, const std::string& router) {
  out << "    <cluster id=\"" << id << "\" prefix=\"" << id << "-\" suffix=\"\" radical=\"0-" << hosts - 1
      << "\" speed=\"1Gf\" bw=\"" << fmt(bandwidth) << "Bps\" lat=\"" << fmt(latency)
      << "s\" sharing_policy=\"SPLITDUPLEX\" loopback_bw=\"6GBps\" loopback_lat=\"0.5us\"";
  if (backbone > 0) out << " bb_bw=\"" << fmt(backbone) << "Bps\" bb_lat=\"0s\"";
  if (!router.empty()) out << " router_id=\"" << router << "\"";
  out << "/>\n";
}

void write_platform(const std::string& path, const Measured& m, int hosts) {
  std::ofstream out(path);
  if (!out) throw InvalidArgument("--platform-out", "cannot write '" + path + "'");
  const double link_latency = m.alpha / 2;
  // A link per host at the ping-pong's rate. When every rank at once gets less (the hosts
  // share the machine's cores, or a switch is oversubscribed), a shared backbone carries what
  // they got together: P flows at 1 / loaded_beta each.
  const double bandwidth = m.beta > 0 ? 1 / m.beta : 1e12;
  const bool shared = m.loaded_beta > 1.05 * m.beta && m.loaded_beta > 0;
  const double backbone = shared ? m.procs / m.loaded_beta : 0;
  const bool two = m.n1 > 0;
  // Hosts of the first cluster: its share of the ranks (one rank per host when hosts = P).
  const int hosts_a =
      two ? std::clamp(static_cast<int>(std::lround(static_cast<double>(hosts) * m.n1 / m.procs)), 1, hosts - 1)
          : hosts;
  // A flow across gets TCP-gamma / (2 route latency) from SimGrid: the window that gives the
  // measured cross beta over the measured cross alpha.
  const double gamma = two && m.cross_beta > 0 ? 2 * m.cross_alpha / m.cross_beta : 4194304;
  out << "<?xml version='1.0'?>\n"
      << "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<!-- Written by ragged-bench calibrate (docs/calibration.md) from ping-pongs on the network it ran on:\n"
      << "     alpha " << fmt(m.alpha) << " s (half the 0-byte round trip), beta " << fmt(m.beta)
      << " s/B (ping-pong), " << fmt(m.loaded_beta)
      << " s/B (every rank at once: a shared backbone of P flows at that rate),\n"
      << "     per-message gap " << fmt(m.gap) << " s,\n"
      << "     eager limit " << m.eager_limit << " B, rendezvous handshake " << fmt(m.handshake)
      << " s, connection set-up " << fmt(m.connect) << " s,\n"
      << "     an exchange of a rendezvous size at " << fmt(m.exchange_factor) << " of the ring's rate.";
  if (two) {
    out << "\n     Two clusters: ranks 0.." << m.n1 - 1 << " and " << m.n1 << ".." << m.procs - 1 << "; across, alpha "
        << fmt(m.cross_alpha) << " s, one flow's beta " << fmt(m.cross_beta) << " s/B (TCP-gamma " << fmt(gamma)
        << " B gives it), the pairs together " << fmt(m.backbone) << " B/s (the backbone link).";
  }
  out << " -->\n"
      << "<platform version=\"4.1\">\n"
      << "  <config>\n"
      << "    <prop id=\"network/model\" value=\"CM02\"/>\n"
      << "    <prop id=\"network/crosstraffic\" value=\"0\"/>\n"
      << "    <prop id=\"network/TCP-gamma\" value=\"" << fmt(std::round(gamma)) << "\"/>\n"
      << "  </config>\n"
      << "  <zone id=\"calibrated\" routing=\"Full\">\n"
      << "    <prop id=\"ragged/message_gap\" value=\"" << fmt(m.gap) << "s\"/>\n"
      << "    <prop id=\"ragged/eager_limit\" value=\"" << m.eager_limit << "\"/>\n"
      << "    <prop id=\"ragged/rendezvous_round_trips\" value=\"" << fmt(m.rendezvous_round_trips) << "\"/>\n"
      << "    <prop id=\"ragged/connect_round_trips\" value=\"" << fmt(m.connect_round_trips)
      << "\"/>\n"
      // Not measured: MPI over TCP (Open MPI's btl_tcp_links = 1) moves a pair's messages on one
      // connection, one after the other, and an eager send is complete once it is written to it.
      << "    <prop id=\"ragged/pair_fifo\" value=\"1\"/>\n"
      << "    <prop id=\"ragged/exchange_factor\" value=\"" << fmt(m.exchange_factor) << "\"/>\n";
  if (!two) {
    write_cluster(out, "host", hosts, bandwidth, link_latency, backbone, "");
  } else {
    // Each cluster's shared backbone carries its own hosts' share of the loaded flows.
    const auto share = [&](int h) { return shared ? backbone * h / hosts : 0.0; };
    write_cluster(out, "a", hosts_a, bandwidth, link_latency, share(hosts_a), "a-gw");
    write_cluster(out, "b", hosts - hosts_a, bandwidth, link_latency, share(hosts - hosts_a), "b-gw");
    const double across = std::max(m.backbone, m.cross_beta > 0 ? 1 / m.cross_beta : 0.0);
    out << "    <link id=\"backbone\" bandwidth=\"" << fmt(across) << "Bps\" latency=\""
        << fmt(std::max(0.0, m.cross_alpha - m.alpha)) << "s\" sharing_policy=\"SPLITDUPLEX\"/>\n"
        << "    <zoneRoute src=\"a\" dst=\"b\" gw_src=\"a-gw\" gw_dst=\"b-gw\" symmetrical=\"NO\">\n"
        << "      <link_ctn id=\"backbone\" direction=\"UP\"/>\n"
        << "    </zoneRoute>\n"
        << "    <zoneRoute src=\"b\" dst=\"a\" gw_src=\"b-gw\" gw_dst=\"a-gw\" symmetrical=\"NO\">\n"
        << "      <link_ctn id=\"backbone\" direction=\"DOWN\"/>\n"
        << "    </zoneRoute>\n";
  }
  out << "  </zone>\n"
      << "</platform>\n";
  if (!out) throw InvalidArgument("--platform-out", "cannot write '" + path + "'");
}

Report run_calibrate(const CalibrateOptions& o, const BackendOptions& b) {
  if (o.iterations <= 0) throw InvalidArgument("--iterations", "must be positive");
  if (o.burst < 2) throw InvalidArgument("--burst", "must be at least 2");
  if (o.sizes.size() < 3) throw InvalidArgument("--sizes", "name at least three sizes");
  for (std::uint64_t s : o.exchange_sizes)
    if (s == 0) throw InvalidArgument("--exchange-sizes", "sizes must be positive");
  std::vector<std::uint64_t> sizes = o.sizes;
  std::sort(sizes.begin(), sizes.end());
  Measured m;
  int procs = 0;
  bool printing = false;
  run_ranks(b, [&](Comm& comm) {
    const int p = comm.size();
    if (p < 2) throw InvalidArgument("--procs", "calibration needs at least 2 ranks");
    if (o.n1 < 0 || o.n1 == 1 || o.n1 >= p)
      throw InvalidArgument("--n1", "the first cluster needs at least 2 ranks and the second one (n1 " +
                                        std::to_string(o.n1) + ", " + std::to_string(p) + " ranks)");
    std::vector<std::byte> buffer(static_cast<std::size_t>(sizes.back()));
    // Connections first, before anything else talks: rank 0 with each rank in turn.
    double connect = 0;
    for (int j = 1; j < p; ++j) {
      const double first = round_trip(comm, j, buffer, 0);
      const double second = round_trip(comm, j, buffer, 0);
      if (second > 0) connect = std::max(connect, (first - second) / second);
    }
    // Rank 0 releases the ranks it measured (over connections that exist by now) before any of
    // them talks to another: a barrier's messages would arrive beside rank 0's first message to
    // the ranks still to measure and lengthen its round trip by their receive gap.
    if (comm.rank() == 0) {
      for (int j = 1; j < p; ++j) comm.send(j, tag_release, nullptr, 0);
    } else {
      comm.recv(0, tag_release, nullptr, 0);
    }
    barrier(comm);
    const Profile near = profile(comm, 1, sizes, buffer, o.iterations);
    Profile across;
    if (o.n1 > 0) {
      barrier(comm);
      across = profile(comm, o.n1, sizes, buffer, o.iterations);
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
    // A loaded ring step of the largest size, every rank at once (inside its cluster).
    std::vector<double> step;
    std::vector<std::byte> in(buffer.size());
    const bool in_a = o.n1 == 0 || comm.rank() < o.n1;
    const int base = in_a ? 0 : o.n1;
    const int members = o.n1 == 0 ? p : (in_a ? o.n1 : p - o.n1);
    const int right = base + (comm.rank() - base + 1) % members;
    const int left = base + (comm.rank() - base + members - 1) % members;
    const int loaded_steps = std::max(3, o.iterations / 4);
    for (int it = 0; it < loaded_steps; ++it) {
      barrier(comm);
      const double t0 = comm.runtime().now();
      comm.sendrecv(right, tag_ping, buffer.data(), buffer.size(), left, tag_ping, in.data(), in.size());
      step.push_back(comm.runtime().now() - t0);
    }
    // Six ring steps against six exchanges with the neighbours in turn, per exchange size.
    const int position = comm.rank() - base;
    std::vector<double> ring_steps;
    std::vector<double> exchange_steps;
    constexpr int steps = 6;
    for (std::uint64_t bytes : o.exchange_sizes) {
      const auto size = static_cast<std::size_t>(bytes);
      std::vector<std::byte> out(size);
      std::vector<std::byte> got(size);
      std::vector<double> ring;
      std::vector<double> exchange;
      for (int it = 0; it < 3; ++it) {
        barrier(comm);
        double t0 = comm.runtime().now();
        for (int k = 0; k < steps; ++k)
          comm.sendrecv(right, tag_ping, out.data(), size, left, tag_ping, got.data(), size);
        barrier(comm);  // the last rank's end, as below
        ring.push_back(comm.runtime().now() - t0);
        barrier(comm);
        t0 = comm.runtime().now();
        for (int k = 0; k < steps; ++k) {
          // Even steps pair 2i with 2i + 1, odd steps 2i - 1 with 2i, around the ring when the
          // ranks are even; when odd, the ends of the line sit out.
          int other = k % 2 == 0 ? (position ^ 1) : (position % 2 == 1 ? position + 1 : position - 1);
          if (members % 2 == 0) other = (other + members) % members;
          if (other < 0 || other >= members) continue;
          comm.sendrecv(base + other, tag_ping, out.data(), size, base + other, tag_ping, got.data(), size);
        }
        barrier(comm);  // a rank that sat out the last step waits for the others
        exchange.push_back(comm.runtime().now() - t0);
      }
      ring_steps.push_back(median(ring));
      exchange_steps.push_back(median(exchange));
    }
    // The pairs k <-> n1 + k exchange the largest size across at once.
    std::vector<double> pairs_time;
    if (o.n1 > 0) {
      const int pairs = std::min(o.n1, p - o.n1);
      const int me = comm.rank();
      const int partner = me < pairs ? o.n1 + me : (me >= o.n1 && me < o.n1 + pairs ? me - o.n1 : -1);
      for (int it = 0; it < loaded_steps; ++it) {
        barrier(comm);
        const double t0 = comm.runtime().now();
        if (partner >= 0)
          comm.sendrecv(partner, tag_ping, buffer.data(), buffer.size(), partner, tag_ping, in.data(), in.size());
        pairs_time.push_back(comm.runtime().now() - t0);
      }
    }
    barrier(comm);
    if (comm.rank() != 0) return;
    m.loaded_beta = std::max(0.0, median(step) - near.zero) / static_cast<double>(buffer.size());
    m.n1 = o.n1;
    if (o.n1 > 0) {
      const int pairs = std::min(o.n1, p - o.n1);
      // What one flow across pays besides its bytes (latency, handshake) is not the backbone's.
      const double bytes = static_cast<double>(buffer.size());
      const double fixed = across.half.back() - bytes * slope(sizes, across.half);
      m.backbone = pairs * bytes / std::max(1e-9, median(pairs_time) - fixed);
    }
    m.ring_steps = ring_steps;
    m.exchange_steps = exchange_steps;
    m.cross_alpha = across.zero;
    m.cross_half = across.half;
    if (o.n1 > 0) m.cross_beta = slope(sizes, across.half);
    m.procs = p;
    printing = true;
    procs = p;
    m.connect_round_trips = connect;
    m.connect = connect * 2 * near.zero;
    m.alpha = near.zero;
    m.half = near.half;
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
  m.beta = slope(sizes, m.half);
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
    m.rendezvous_round_trips = m.alpha > 0 ? m.handshake / (2 * m.alpha) : 0;
    // The exchange factor of the exchange sizes at or above the limit.
    std::vector<double> factors;
    const double fixed = 6 * (m.alpha + m.handshake);
    for (std::size_t i = 0; i < o.exchange_sizes.size(); ++i) {
      if (o.exchange_sizes[i] < m.eager_limit) continue;
      const double ring = m.ring_steps[i] - fixed;
      const double exchange = m.exchange_steps[i] - fixed;
      if (ring > 0 && exchange > 0) {
        factors.push_back(ring / exchange);
        m.exchange_sizes_factors += (m.exchange_sizes_factors.empty() ? "" : ",") +
                                    std::to_string(o.exchange_sizes[i]) + ":" + significant(ring / exchange);
      }
    }
    if (!factors.empty()) m.exchange_factor = std::clamp(median(factors), 0.01, 1.0);
    if (m.n1 > 0 && m.cross_alpha > 0) {
      std::vector<double> across;
      for (std::size_t i = first; i < k; ++i)
        across.push_back(m.cross_half[i] - (m.cross_alpha + m.cross_beta * static_cast<double>(sizes[i])));
      m.rendezvous_round_trips = std::max(0.0, median(across)) / (2 * m.cross_alpha);
    }
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
                     {"connect_s", significant(m.connect)},
                     {"rendezvous_round_trips", significant(m.rendezvous_round_trips)},
                     {"exchange_factor", significant(m.exchange_factor)},
                     {"exchange_factor_per_size", m.exchange_sizes_factors}};
  if (m.n1 > 0) {
    report.metadata.emplace_back("n1", std::to_string(m.n1));
    report.metadata.emplace_back("cross_alpha_s", significant(m.cross_alpha));
    report.metadata.emplace_back("cross_beta_s_per_byte", significant(m.cross_beta));
    report.metadata.emplace_back("backbone_bytes_per_s", significant(m.backbone));
  }
  for (std::size_t i = 0; i < k; ++i) {
    Row row;
    row.set("experiment", std::string("calibrate"))
        .set("backend", b.backend)
        .set("bytes", static_cast<std::int64_t>(sizes[i]))
        .set("half_round_trip_s", m.half[i])
        .set("eager_line_s", m.alpha + m.beta * static_cast<double>(sizes[i]))
        .set("extra_s", extra[i])
        .set("protocol", std::string(first < k && i >= first ? "rendezvous" : "eager"));
    if (m.n1 > 0) row.set("cross_half_round_trip_s", m.cross_half[i]);
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
              "Measure the network's latency, bandwidth, per-message gap, eager limit, rendezvous handshake, "
              "connection set-up and exchange factor, and write a sim platform with them (docs/calibration.md)",
              common);
  auto o = std::make_shared<CalibrateOptions>();
  cmd.counts("--sizes", o->sizes, "1Ki,4Ki,16Ki,32Ki,48Ki,60Ki,63Ki,64Ki,96Ki,128Ki,256Ki,1Mi,2Mi",
             "ping-pong sizes in bytes (the eager limit is searched among them; the two largest give beta)");
  cmd.counts("--exchange-sizes", o->exchange_sizes, "64Ki,128Ki,256Ki,512Ki",
             "sizes of the ring steps and neighbour exchanges that give the exchange factor (those at or above "
             "the eager limit count)");
  cmd->add_option("--iterations", o->iterations, "round trips per size (median)")->capture_default_str();
  cmd->add_option("--burst", o->burst, "messages of the per-message gap's burst")->capture_default_str();
  cmd->add_option("--hosts", o->hosts, "hosts of the written platform (default: the job's ranks)");
  cmd->add_option("--n1", o->n1,
                  "ranks 0..n1-1 are one cluster and the rest another, joined by a backbone: measure across too "
                  "and write a two-cluster platform (0: one cluster)")
      ->capture_default_str();
  cmd->add_option("--platform-out", o->platform_out, "write the calibrated platform (SimGrid XML) to this file");
  cmd.runs(
      chosen, [o](const BackendOptions& backend) { return run_calibrate(*o, backend); },
      [cmd, &common] {
        if (!cmd.given("--procs")) common.procs = common.backend == "mpi" ? 0 : 8;
      });
  return cmd.app();
}

}  // namespace ragged::bench
