#include "two_cluster.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <string>

#include "options.hpp"
#include "plot.hpp"
#include "ragged/alltoall.hpp"
#include "ragged/bounds.hpp"
#include "ragged/clock.hpp"
#include "ragged/counting_comm.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/selection.hpp"
#include "ragged/topology.hpp"
#include "ragged/window.hpp"
#ifdef RAGGED_BENCH_WITH_SIM
#include "ragged/sim.hpp"
#endif

namespace ragged::bench {

namespace {

// Tags of the benchmark's own traffic (outside the measured calls).
constexpr int tag_start = 30200;
constexpr int tag_results = 30201;
constexpr int tag_clock = 30202;
constexpr int tag_link = 30203;
constexpr int tag_latency = 30205;  // tag_link + 1 is measure_link's

/// One configuration: the size of every cluster (two, or k with --clusters).
struct Config {
  std::vector<int> sizes;
  [[nodiscard]] int procs() const { return std::accumulate(sizes.begin(), sizes.end(), 0); }
};

std::string sizes_label(const std::vector<int>& sizes) {
  std::string s;
  for (const int n : sizes) {
    // Appended piece by piece: "+" + std::to_string(n) trips GCC 12's -Wrestrict at -O3.
    if (!s.empty()) s += '+';
    s += std::to_string(n);
  }
  return s;
}

/// The platform label of a generated platform: generated-two-clusters-30-20,
/// generated-clusters-3-5-2.
std::string generated_name(const std::vector<int>& sizes) {
  std::string s = sizes.size() == 2 ? "generated-two-clusters" : "generated-clusters";
  for (const int n : sizes) s += "-" + std::to_string(n);
  return s;
}

/// What one rank measured in one call, on rank 0's clock.
struct Sample {
  double start = 0;
  double end = 0;
  double late = 0;  ///< 1 when the start instant had passed before this rank learned it
  double backbone_messages = 0;
  double backbone_bytes = 0;
  double local_messages = 0;
};

/// One (configuration, size) run: real bytes per message, and the scale they stand for.
struct Point {
  std::uint64_t bytes = 0;
  std::uint64_t real = 0;
  double scale = 1;
};

std::uint8_t payload(int src, int dst, std::uint64_t e) {
  return static_cast<std::uint8_t>(
      (static_cast<std::uint64_t>(src) * 131 + static_cast<std::uint64_t>(dst) * 71 + e * 7) % 251);
}

std::vector<Config> configs_of(const TwoClusterOptions& o) {
  std::vector<Config> out;
  if (!o.clusters.empty()) {
    out.push_back({o.clusters});
  } else if (o.scaling.empty()) {
    out.push_back({{o.n1, o.n2}});
  } else {
    for (int n : o.scaling_n1) out.push_back({{n, o.scaling == "equal" ? n : 2 * n}});
  }
  return out;
}

void validate(const TwoClusterOptions& o, const BackendOptions& b) {
  if (o.collective != "alltoall" && o.collective != "alltoallv") {
    throw InvalidArgument("--collective", "two-cluster measures alltoall or alltoallv, not '" + o.collective + "'");
  }
  if (!o.scaling.empty() && o.scaling != "equal" && o.scaling != "double") {
    throw InvalidArgument("--scaling", "expected equal or double, not '" + o.scaling + "'");
  }
  if (!o.scaling.empty() && b.backend == "mpi") {
    throw InvalidArgument("--scaling", "a scaling sweep needs one job per size on mpi: run --n1/--n2 jobs instead");
  }
  if (!o.clusters.empty()) {
    if (!o.scaling.empty()) throw InvalidArgument("--clusters", "cannot be combined with --scaling");
    if (o.clusters.size() < 2) throw InvalidArgument("--clusters", "name the sizes of at least two clusters");
    for (const int n : o.clusters) {
      if (n < 1)
        throw InvalidArgument("--clusters", "every cluster needs a rank (got " + sizes_label(o.clusters) + ")");
    }
  }
  for (const Config& c : configs_of(o)) {
    if (c.sizes[0] < 1 || (c.sizes[1] < 1 && b.backend == "sim")) {
      throw InvalidArgument("--n1/--n2", "both clusters need a rank");
    }
  }
  if (o.sizes.empty()) throw InvalidArgument("--sizes", "name at least one size");
  if (o.layout != "auto" && o.layout != "zones" && o.layout != "ranks" && o.layout != "hosts") {
    throw InvalidArgument("--layout", "expected auto, zones, ranks or hosts, not '" + o.layout + "'");
  }
  if (o.distribution != "uniform" && o.distribution != "skewed") {
    throw InvalidArgument("--distribution", "expected uniform or skewed, not '" + o.distribution + "'");
  }
  if (o.iterations < 0) throw InvalidArgument("--iterations", "must be >= 0");
  check_algorithms(o.collective, o.algorithms, b);
}

std::vector<std::string> algorithms_of(const TwoClusterOptions& o, const BackendOptions& b) {
  if (!o.algorithms.empty()) return o.algorithms;
  std::vector<std::string> out;
  // The Iakymchuk et al. 2021 one-sided alltoall only when named: over the emulated window (TCP, where MPI
  // has no RMA under MPI_THREAD_MULTIPLE) it took 82 s for 64 KiB blocks at 16 ranks on the
  // testbed, and it is not a two-cluster algorithm (`consistency --experiment alltoall` runs it).
  for (const Algorithm* a : Registry::instance().list(parse_collective(o.collective), b.backend)) {
    if (a->name.rfind("onesided", 0) != 0) out.push_back(a->name);
  }
  return out;
}

/// Renumbers the ranks of a Comm so that cluster 0's ranks come first (ranks 0..n1-1),
/// then cluster 1's, and so on, as when mpirun is given each cluster's hosts in turn; the
/// simulated placement of a sweep interleaves the clusters' hosts. logical rank l is inner
/// rank order[l].
class ClusterOrderComm final : public Comm {
 public:
  ClusterOrderComm(Comm& inner, const ClusterLayout& layout) : inner_(inner) {
    for (int c = 0; c < layout.clusters(); ++c) {
      const std::vector<int> members = layout.members(c);
      order_.insert(order_.end(), members.begin(), members.end());
    }
    logical_.assign(order_.size(), 0);
    for (std::size_t l = 0; l < order_.size(); ++l) logical_[static_cast<std::size_t>(order_[l])] = static_cast<int>(l);
  }
  [[nodiscard]] int rank() const override { return logical_[static_cast<std::size_t>(inner_.rank())]; }
  [[nodiscard]] int size() const override { return inner_.size(); }
  [[nodiscard]] Runtime& runtime() override { return inner_.runtime(); }
  [[nodiscard]] std::string backend() const override { return inner_.backend(); }
  Request isend(int dest, int tag, const void* data, std::size_t bytes) override {
    check_rank(*this, dest, "dest");
    return wrap(inner_.isend(order_[static_cast<std::size_t>(dest)], tag, data, bytes));
  }
  Request irecv(int source, int tag, void* data, std::size_t capacity) override {
    if (source != any_source) check_rank(*this, source, "source");
    const int from = source == any_source ? any_source : order_[static_cast<std::size_t>(source)];
    return wrap(inner_.irecv(from, tag, data, capacity));
  }
  /// The inner window, its puts addressed in the new numbering (notification ids are not ranks).
  std::unique_ptr<Window> create_window(std::size_t bytes, int notifications) override {
    return std::make_unique<RenumberedWindow>(inner_.create_window(bytes, notifications), order_);
  }
  [[nodiscard]] bool has_windows() const override { return inner_.has_windows(); }

 private:
  class RenumberedWindow final : public Window {
   public:
    RenumberedWindow(std::unique_ptr<Window> inner, std::vector<int> order)
        : inner_(std::move(inner)), order_(std::move(order)) {}
    std::span<std::byte> local() override { return inner_->local(); }
    [[nodiscard]] std::size_t bytes() const override { return inner_->bytes(); }
    [[nodiscard]] int notifications() const override { return inner_->notifications(); }
    void put_notify(int target, std::size_t offset, const void* data, std::size_t size, int id,
                    std::uint64_t value) override {
      if (target < 0 || static_cast<std::size_t>(target) >= order_.size()) {
        throw InvalidArgument("target", "rank " + std::to_string(target) + " is outside the communicator");
      }
      inner_->put_notify(order_[static_cast<std::size_t>(target)], offset, data, size, id, value);
    }
    int notify_wait_some(int first, int count, Timeout timeout) override {
      return inner_->notify_wait_some(first, count, timeout);
    }
    std::uint64_t notify_reset(int id) override { return inner_->notify_reset(id); }
    void flush() override { inner_->flush(); }

   private:
    std::unique_ptr<Window> inner_;
    std::vector<int> order_;
  };

  // Reports the sources of completed receives in the new numbering.
  class Impl final : public RequestImpl {
   public:
    Impl(Request inner, const std::vector<int>& logical) : inner_(std::move(inner)), logical_(logical) {}
    bool test() override { return inner_.test(); }
    bool wait_for(Timeout timeout) override {
      try {
        inner_.wait(timeout);
      } catch (const TimeoutError&) {
        return false;
      }
      return true;
    }
    [[nodiscard]] Status status() const override {
      Status s = inner_.status();
      if (s.source >= 0) s.source = logical_[static_cast<std::size_t>(s.source)];
      return s;
    }

   private:
    Request inner_;
    const std::vector<int>& logical_;
  };
  Request wrap(Request r) { return Request(std::make_unique<Impl>(std::move(r), logical_)); }

  Comm& inner_;
  std::vector<int> order_;
  std::vector<int> logical_;
};

/// Per-rank buffers of one run, sized for the largest point.
struct Buffers {
  std::vector<std::byte> send;
  std::vector<std::byte> recv;
  std::vector<int> sendcounts, sdispls, recvcounts, rdispls;
};

/// Fills the send side for `point` and returns the receive size.
void prepare(const TwoClusterOptions& o, const Point& point, int p, int me, Buffers& buf) {
  const auto P = static_cast<std::size_t>(p);
  if (o.collective == "alltoall") {
    buf.send.resize(point.real * P);
    buf.recv.assign(point.real * P, std::byte{0});
    if (o.check) {
      for (int j = 0; j < p; ++j) {
        for (std::uint64_t e = 0; e < point.real; ++e) {
          buf.send[static_cast<std::size_t>(j) * point.real + e] = static_cast<std::byte>(payload(me, j, e));
        }
      }
    }
    return;
  }
  buf.sendcounts.assign(P, 0);
  buf.recvcounts.assign(P, 0);
  buf.sdispls.assign(P, 0);
  buf.rdispls.assign(P, 0);
  std::uint64_t s_total = 0;
  std::uint64_t r_total = 0;
  for (int j = 0; j < p; ++j) {
    const auto k = static_cast<std::size_t>(j);
    const std::uint64_t out = alltoallv_block(o, point.bytes, me, j) / static_cast<std::uint64_t>(point.scale);
    const std::uint64_t in = alltoallv_block(o, point.bytes, j, me) / static_cast<std::uint64_t>(point.scale);
    if (s_total + out > 0x7fffffffU || r_total + in > 0x7fffffffU) {
      throw InvalidArgument("--sizes", "an alltoallv buffer would exceed 2 GiB");
    }
    buf.sendcounts[k] = static_cast<int>(out);
    buf.recvcounts[k] = static_cast<int>(in);
    buf.sdispls[k] = static_cast<int>(s_total);
    buf.rdispls[k] = static_cast<int>(r_total);
    s_total += out;
    r_total += in;
  }
  buf.send.resize(s_total);
  buf.recv.assign(r_total, std::byte{0});
  if (o.check) {
    for (int j = 0; j < p; ++j) {
      const auto k = static_cast<std::size_t>(j);
      for (int e = 0; e < buf.sendcounts[k]; ++e) {
        buf.send[static_cast<std::size_t>(buf.sdispls[k] + e)] =
            static_cast<std::byte>(payload(me, j, static_cast<std::uint64_t>(e)));
      }
    }
  }
}

void verify(const TwoClusterOptions& o, const Point& point, int p, int me, const Buffers& buf,
            const std::string& algorithm) {
  for (int i = 0; i < p; ++i) {
    std::uint64_t n = point.real;
    std::size_t at = static_cast<std::size_t>(i) * point.real;
    if (o.collective == "alltoallv") {
      n = static_cast<std::uint64_t>(buf.recvcounts[static_cast<std::size_t>(i)]);
      at = static_cast<std::size_t>(buf.rdispls[static_cast<std::size_t>(i)]);
    }
    for (std::uint64_t e = 0; e < n; ++e) {
      if (buf.recv[at + e] != static_cast<std::byte>(payload(i, me, e))) {
        throw Error("two-cluster: " + algorithm + " " + o.collective + " gave a wrong byte (rank " +
                    std::to_string(me) + ", block from " + std::to_string(i) + ", byte " + std::to_string(e) + ")");
      }
    }
  }
}

/// The common start of every timed call. Rank 0 names an instant `lead` seconds ahead on
/// its clock and sends it to every rank; each rank starts when its own clock reads that
/// instant plus its offset from rank 0's clock. sim: one global clock (offset 0), lead
/// 0.1 s. mpi: offsets measured once (measure_clock_offset), lead four times the longest
/// round trip to rank 0, and at least 5 ms. All times are then on rank 0's clock, and
/// a call's time is the last rank's end minus the common start, on both backends.
struct StartClock {
  double offset = 0;
  double lead = 0.1;
};

StartClock start_clock(Comm& comm, bool global_clock) {
  StartClock clock;
  if (global_clock || comm.size() == 1) return clock;
  const ClockOffset mine = measure_clock_offset(comm, tag_clock);
  clock.offset = mine.offset;
  if (comm.rank() == 0) {
    double longest = 0;
    for (int q = 1; q < comm.size(); ++q) {
      double round_trip = 0;
      comm.recv(q, tag_clock, &round_trip, sizeof round_trip);
      longest = std::max(longest, round_trip);
    }
    clock.lead = std::max(0.005, 4 * longest);
  } else {
    comm.send(0, tag_clock, &mine.round_trip, sizeof mine.round_trip);
  }
  return clock;
}

/// Measures every algorithm at every point on this rank; rank 0 collects every rank's samples
/// into samples[point][algorithm][rank][iteration], and the lower bound of each point's call
/// into bounds[point] (plans/lower_bound.hpp: every rank starting together, each host's link,
/// each message its pair's latency; neither the backbone's capacity nor TCP windows, so the bound
/// is far below what crosses a backbone).
void measure(Comm& comm, const TwoClusterOptions& o, const std::vector<std::string>& algorithms,
             const std::vector<Point>& points, const std::shared_ptr<const ClusterLayout>& layout, int iterations,
             int warmup, bool global_clock, std::vector<std::vector<std::vector<std::vector<Sample>>>>& samples,
             std::vector<double>& bounds) {
  const int p = comm.size();
  const int me = comm.rank();
  const LinkModel link = bound_link(comm, tag_link, measure_link(comm, tag_link));
  // Each message pays its own pair's latency (the backbone's only across it): with the slowest
  // pair's on every message, linear's alltoall of 64 KiB on 8 + 8 ranks took 20.1 ms against a
  // "bound" of 21.4, its local blocks arriving while the remote ones crossed.
  const std::vector<std::vector<double>> latency = group_latencies(comm, layout->cluster, tag_latency);
  if (me == 0) {
    bounds.clear();
    const auto n = static_cast<std::size_t>(p);
    for (const Point& point : points) {
      std::vector<std::vector<double>> bytes(n, std::vector<double>(n, 0.0));
      for (int i = 0; i < p; ++i) {
        for (int j = 0; j < p; ++j) {
          bytes[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] =
              o.collective == "alltoall" ? static_cast<double>(point.real)
                                         : static_cast<double>(alltoallv_block(o, point.bytes, i, j) /
                                                               static_cast<std::uint64_t>(point.scale));
        }
      }
      const std::vector<double> per_rank =
          bound::alltoallv_clusters(std::vector<double>(n, 0.0), bytes, layout->cluster, latency, {0.0, link.beta});
      bounds.push_back(*std::max_element(per_rank.begin(), per_rank.end()));
    }
  }
  Runtime& rt = comm.runtime();
  const StartClock clock = start_clock(comm, global_clock);
  CountingComm counting(comm, layout);
  CollectiveOptions copts;
  copts.hints.set<ClusterLayout>(layout);
  const Collective collective = parse_collective(o.collective);
  Buffers buf;
  if (me == 0) samples.assign(points.size(), std::vector<std::vector<std::vector<Sample>>>(algorithms.size()));
  for (std::size_t pi = 0; pi < points.size(); ++pi) {
    const Point& point = points[pi];
    prepare(o, point, p, me, buf);
    for (std::size_t ai = 0; ai < algorithms.size(); ++ai) {
      const Algorithm& algorithm = Registry::instance().find(collective, algorithms[ai]);
      // Backend algorithms ("native") need the backend's own Comm, not the counting one.
      const bool countable = algorithm.restrictions.backend.empty();
      Comm& target = countable ? static_cast<Comm&>(counting) : comm;
      copts.algorithm = algorithm.name;
      double late = 0;  // of the round under way
      TimedLoop<Sample> loop;
      loop.warmup = warmup;
      loop.iterations = iterations;
      loop.start = [&](int) {
        barrier(comm);
        double start = 0;  // on rank 0's clock
        if (me == 0) {
          start = rt.now() + clock.lead;
          std::vector<Request> r;
          for (int q = 1; q < p; ++q) r.push_back(comm.isend(q, tag_start, &start, sizeof start));
          comm.wait_all(r);
        } else {
          comm.recv(0, tag_start, &start, sizeof start);
        }
        const double wait = start + clock.offset - rt.now();
        late = wait < 0 ? 1 : 0;
        rt.sleep_for(std::max(0.0, wait));
        counting.reset();
        return rt.now() - clock.offset;
      };
      loop.body = [&](int, double start) {
        if (collective == Collective::alltoall) {
          ragged::alltoall(target, buf.send.data(), buf.recv.data(), point.real, DataType::byte, copts);
        } else {
          ragged::alltoallv(target, buf.send.data(), buf.sendcounts, buf.sdispls, buf.recv.data(), buf.recvcounts,
                            buf.rdispls, DataType::byte, copts);
        }
        Sample s;
        s.start = start;
        s.end = rt.now() - clock.offset;
        s.late = late;
        // The MPI library's own collectives cannot be counted from outside: -1.
        s.backbone_messages = countable ? static_cast<double>(counting.backbone().messages) : -1;
        s.backbone_bytes = countable ? static_cast<double>(counting.backbone().bytes) : -1;
        s.local_messages = countable ? static_cast<double>(counting.local().messages) : -1;
        return s;
      };
      if (o.check) loop.verify = [&](int) { verify(o, point, p, me, buf, algorithms[ai]); };
      loop.verify_on = VerifyOn::last_round;
      auto all = collect_to_root(comm, tag_results, timed_loop(comm, loop), static_cast<std::size_t>(iterations));
      if (me == 0) samples[pi][ai] = std::move(all);
    }
  }
}

/// What dispatch runs for `name` with clusters of these sizes: itself, or its fallback.
std::string selected_algorithm(const TwoClusterOptions& o, const BackendOptions& b, const std::string& name,
                               const std::vector<int>& sizes) {
  CallInfo call;
  call.collective = parse_collective(o.collective);
  call.procs = std::accumulate(sizes.begin(), sizes.end(), 0);
  Hints hints;
  if (sizes.size() >= 2 && std::all_of(sizes.begin(), sizes.end(), [](int n) { return n > 0; })) {
    hints.set(std::make_shared<const ClusterLayout>(ClusterLayout::from_sizes(sizes)));
  }
  call.hints = &hints;
  call.backend = b.backend;
  return ragged::select(call, name).algorithm->name;
}

std::string host_label() {
  if (const char* h = std::getenv("RAGGED_HOST"); h != nullptr && *h != '\0') return h;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) throw Error("two-cluster: gethostname failed");
  return name;
}

std::string size_label(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (bytes >= 1024 && u < 3) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g %s", bytes, units[u]);
  return buf;
}

/// The figures of Jeannot & Steffenel 2007 (Fig. 4 to 6): time_s (log scale) against the message size (log2
/// scale), one line per algorithm and cluster pair; or, for a scaling sweep, against the
/// processes n1 + n2, one line per algorithm and size.
Figure two_cluster_figure(const Report& report, bool against_bytes) {
  std::map<std::string, std::vector<PlotPoint>> lines;
  for (const Row& row : report.rows) {
    const double t = row.number("time_s");
    if (t <= 0) continue;
    const double bytes = row.number("bytes");
    if (against_bytes) {
      lines[row.text("algorithm") + " (" + row.text("clusters") + ")"].push_back({std::max(1.0, bytes), t});
    } else {
      lines[row.text("algorithm") + " " + size_label(bytes)].push_back({row.number("n1") + row.number("n2"), t});
    }
  }
  Figure f;
  f.title = (report.rows.empty() ? std::string() : report.rows.front().text("collective")) +
            " between clusters: time of one call";
  f.x_label = against_bytes ? "message size M(i,j)" : "processes n1 + n2";
  f.y_label = "time";
  f.log_y = 10;
  f.y_format = "10^{%L} s";
  double lo = INFINITY;
  double hi = -INFINITY;
  for (auto& [title, points] : lines) {
    std::sort(points.begin(), points.end(), [](const PlotPoint& a, const PlotPoint& b) { return a.x < b.x; });
    lo = std::min(lo, points.front().x);
    hi = std::max(hi, points.back().x);
    f.series.push_back({title, points});
  }
  if (against_bytes && !lines.empty()) {
    // Ticks at powers of two, at most about eight of them.
    f.log_x = 2;
    const double x0 = std::log2(lo);
    const double x1 = std::log2(hi);
    const double step = std::max(1.0, std::ceil((x1 - x0) / 8));
    for (double v = x0; v <= x1 + 1e-9; v += step) f.x_tics.emplace_back(std::exp2(v), size_label(std::exp2(v)));
  }
  return f;
}

}  // namespace

std::uint64_t alltoallv_block(const TwoClusterOptions& o, std::uint64_t mean, int src, int dst) {
  Rng rng = rng_for(o.seed, static_cast<std::uint64_t>(src), static_cast<std::uint64_t>(dst));
  if (o.distribution == "skewed") {
    return rng.next() % 8 == 0 ? mean * 8 : mean / 8;
  }
  return static_cast<std::uint64_t>(std::floor(rng.uniform() * static_cast<double>(2 * mean + 1)));
}

Report run_two_cluster(const TwoClusterOptions& o, const BackendOptions& backend) {
  validate(o, backend);
  const std::vector<std::string> algorithms = algorithms_of(o, backend);
  const bool sim = backend.backend == "sim";
  const int iterations = o.iterations > 0 ? o.iterations : (sim ? 1 : 5);
  const int warmup = o.warmup >= 0 ? o.warmup : (sim ? 0 : 1);
  std::vector<Config> configs = configs_of(o);

  Report report;
  report.experiment = "two-cluster";
  report.metadata = {{"collective", o.collective},
                     {"backend", backend.backend},
                     {"iterations", std::to_string(iterations)},
                     {"warmup", std::to_string(warmup)},
                     {"scaling", o.scaling.empty() ? "none" : o.scaling}};
  if (o.collective == "alltoallv") {
    report.metadata.emplace_back("distribution", o.distribution);
    report.metadata.emplace_back("seed", std::to_string(o.seed));
  }

  BackendOptions b = backend;
  b.procs = 0;  // the clusters' sizes set the ranks (on mpi: the job's)
  std::filesystem::path generated;
  std::string platform_name = "mpi";
  if (sim) {
    // The platform: as given, a shipped one with these sizes, or one generated for them.
    int hosts = 0;
    for (const Config& c : configs) hosts = std::max(hosts, c.procs());
    // The shipped platforms, by the sizes of their clusters in rank order.
    const std::vector<std::pair<std::vector<int>, const char*>> shipped{{{30, 30}, "two-clusters-30-30"},
                                                                        {{20, 40}, "two-clusters-20-40"},
                                                                        {{18, 30, 12}, "three-clusters-18-30-12"},
                                                                        {{16, 4, 24, 12}, "four-clusters-16-4-24-12"}};
    const auto match = std::find_if(shipped.begin(), shipped.end(),
                                    [&](const auto& s) { return configs.size() == 1 && configs[0].sizes == s.first; });
    if (!o.platform.empty()) {
      b.platform = o.platform;
    } else if (match != shipped.end()) {
      b.platform = match->second;
    } else {
      // Hosts in placement order: for a sweep, a repeating pattern (one of cluster 0, then
      // one or two of cluster 1) so that the first n1+n2 hosts of every point split right.
      std::vector<int> pattern;
      if (configs.size() == 1) {
        for (std::size_t c = 0; c < configs[0].sizes.size(); ++c) {
          pattern.insert(pattern.end(), static_cast<std::size_t>(configs[0].sizes[c]), static_cast<int>(c));
        }
      } else {
        const int per = o.scaling == "equal" ? 1 : 2;
        while (static_cast<int>(pattern.size()) < hosts) {
          pattern.push_back(0);
          for (int k = 0; k < per; ++k) pattern.push_back(1);
        }
      }
      generated = std::filesystem::temp_directory_path() /
                  ("ragged-two-cluster-" + std::to_string(static_cast<long>(getpid())) + ".xml");
      std::ofstream(generated) << two_cluster_platform_xml(pattern);
      b.platform = generated.string();
    }
    platform_name = generated.empty() ? platform_label(b)
                                      : (configs.size() == 1 ? generated_name(configs[0].sizes)
                                                             : "generated-two-clusters-" + o.scaling);
  }
  report.metadata.emplace_back("platform", platform_name);

  struct Cleanup {
    std::filesystem::path path;
    ~Cleanup() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove(path, ec);
    }
  } cleanup{generated};

  double late_starts = 0;  // mpi: rank-calls that began after the common start
  for (const Config& config : configs) {
    // The layout of this configuration's ranks.
    std::shared_ptr<const ClusterLayout> layout;
    int procs = config.procs();
    const std::string how = o.layout == "auto" ? (sim ? "zones" : "ranks") : o.layout;
#ifdef RAGGED_BENCH_WITH_SIM
    if (sim) {
      sim::Config sc;
      sc.platform = b.platform;
      sc.procs = procs;
      const sim::Placement placed = sim::placement(sc);
      if (how == "zones") {
        layout = std::make_shared<ClusterLayout>(ClusterLayout::from_labels(placed.zone));
      } else if (how == "hosts") {
        layout = std::make_shared<ClusterLayout>(ClusterLayout::from_host_prefixes(placed.host));
      }
    }
#endif
    if (how == "ranks") layout = std::make_shared<ClusterLayout>(ClusterLayout::from_sizes(config.sizes));

    // Scale: the largest real message that keeps every rank's buffers within the budget
    // (send + receive + about as much again inside the algorithms).
    std::uint64_t max_real = std::uint64_t{1} << 40;
    if (sim) {
      const auto P = static_cast<std::uint64_t>(procs);
      const std::uint64_t per_message = std::max<std::uint64_t>(1, o.memory / (4 * P * P));
      max_real = std::uint64_t{1};
      while (max_real * 2 <= per_message) max_real *= 2;
      if (o.collective == "alltoallv") max_real = std::max<std::uint64_t>(1, max_real / 8);  // skewed blocks are 8m
    }
    std::vector<Point> points;
    for (const std::uint64_t bytes : o.sizes) {
      Point pt;
      pt.bytes = bytes;
      pt.real = bytes;
      while (pt.real > max_real && pt.real % 2 == 0) {
        pt.real /= 2;
        pt.scale *= 2;
      }
      points.push_back(pt);
    }

    // On sim the ranks are renumbered cluster by cluster (ClusterOrderComm).
    std::shared_ptr<const ClusterLayout> ordered_layout;
    if (sim) ordered_layout = std::make_shared<ClusterLayout>(ClusterLayout::from_sizes(layout->sizes()));
    std::vector<std::vector<std::vector<std::vector<Sample>>>> samples;  // [point][algorithm][rank][iteration]
    std::vector<std::vector<std::vector<std::vector<Sample>>>> collected(points.size());
    std::vector<double> bounds;  // per point, on rank 0
    std::vector<double> collected_bounds(points.size(), 0.0);
    std::vector<int> cluster_sizes = layout ? layout->sizes() : config.sizes;
    if (sim) {
#ifdef RAGGED_BENCH_WITH_SIM
      // One simulation per point: its bandwidth scale applies between runs.
      for (std::size_t pi = 0; pi < points.size(); ++pi) {
        scale_sim_bandwidth(points[pi].scale);
        BackendOptions run = b;
        run.procs = procs;
        run_ranks(run, [&](Comm& comm) {
          ClusterOrderComm ordered(comm, *layout);
          measure(ordered, o, algorithms, {points[pi]}, ordered_layout, iterations, warmup, true, samples, bounds);
          if (comm.rank() == 0) {
            collected[pi] = std::move(samples[0]);
            collected_bounds[pi] = bounds[0];
          }
        });
      }
      scale_sim_bandwidth(1);
#endif
    } else {
      bool printing = false;
      run_ranks(b, [&](Comm& comm) {
        if (how == "hosts") {
          layout = std::make_shared<ClusterLayout>(exchange_labels(comm, host_prefix(host_label())));
        } else if (!o.clusters.empty() && config.procs() != comm.size()) {
          throw InvalidArgument("--clusters", "the clusters have " + std::to_string(config.procs()) +
                                                  " ranks, the job " + std::to_string(comm.size()));
        } else if (!layout || layout->size() != comm.size()) {
          const int n2 = comm.size() - config.sizes[0];
          layout = std::make_shared<ClusterLayout>(ClusterLayout::split_at(config.sizes[0], n2));
        }
        cluster_sizes = layout->sizes();
        measure(comm, o, algorithms, points, layout, iterations, warmup, false, samples, bounds);
        if (comm.rank() == 0) {
          printing = true;
          collected_bounds = bounds;
          for (std::size_t pi = 0; pi < points.size(); ++pi) collected[pi] = std::move(samples[pi]);
        }
      });
      if (!printing) return report;
    }

    for (std::size_t pi = 0; pi < points.size(); ++pi) {
      for (std::size_t ai = 0; ai < algorithms.size(); ++ai) {
        const auto& per_rank = collected[pi][ai];
        std::vector<double> times;
        double messages = 0;
        double bytes = 0;
        double local = 0;
        for (int it = 0; it < iterations; ++it) {
          double first = INFINITY;
          double last = -INFINITY;
          double m = 0;
          double by = 0;
          double l = 0;
          for (const auto& rank_samples : per_rank) {
            const Sample& s = rank_samples[static_cast<std::size_t>(it)];
            first = std::min(first, s.start);
            last = std::max(last, s.end);
            late_starts += s.late;
            m += s.backbone_messages;
            by += s.backbone_bytes;
            l += s.local_messages;
          }
          // From the common start to the last rank's end, on rank 0's clock (see StartClock).
          times.push_back(last - first);
          messages = m;
          bytes = by;
          local = l;
        }
        const Point& pt = points[pi];
        const bool counted = per_rank.front().front().backbone_messages >= 0;
        Row row;
        row.set("experiment", std::string("two-cluster"))
            .set("backend", backend.backend)
            .set("platform", platform_name)
            .set("collective", o.collective)
            .set("algorithm", algorithms[ai])
            .set("selected", selected_algorithm(o, backend, algorithms[ai], cluster_sizes))
            .set("n1", std::int64_t{cluster_sizes.empty() ? 0 : cluster_sizes[0]})
            .set("n2", std::int64_t{cluster_sizes.size() < 2 ? 0 : cluster_sizes[1]})
            .set("clusters", sizes_label(cluster_sizes))
            .set("bytes", static_cast<std::int64_t>(pt.bytes))
            .set("time_s", median(times))
            .set("bound_s", collected_bounds[pi])
            .set("bound_ratio",
                 collected_bounds[pi] > 0 ? Value(median(times) / collected_bounds[pi]) : Value(std::string()))
            .set("backbone_messages", counted ? static_cast<std::int64_t>(messages) : std::int64_t{-1})
            .set("backbone_bytes", counted ? static_cast<std::int64_t>(bytes * pt.scale) : std::int64_t{-1})
            .set("local_messages", counted ? static_cast<std::int64_t>(local) : std::int64_t{-1})
            .set("iterations", std::int64_t{iterations})
            .set("sim_scale", pt.scale)
            .set("checked", std::string(o.check ? "yes" : "no"));
        if (o.check_bounds && collected_bounds[pi] > 0 && below_bound(median(times), collected_bounds[pi])) {
          report.failures.push_back(algorithms[ai] + " at " + std::to_string(pt.bytes) + " bytes on " +
                                    sizes_label(cluster_sizes) + ": " + std::to_string(median(times)) +
                                    " s is below its lower bound " + std::to_string(collected_bounds[pi]) + " s");
        }
        report.rows.push_back(std::move(row));
      }
    }
  }
  if (late_starts > 0) {
    // The start message took longer than the lead: those calls began late on some ranks.
    std::cerr << "two-cluster: " << late_starts
              << " rank-calls learned the start instant after it had passed; their times include the delay\n";
  }
  if (!sim) report.metadata.emplace_back("late_starts", std::to_string(static_cast<std::int64_t>(late_starts)));
  if (!o.plot.empty()) draw(two_cluster_figure(report, o.scaling.empty()), o.plot, "--plot");
  return report;
}

}  // namespace ragged::bench
