// ragged-bench consistency: Iakymchuk et al. 2021's experiments (§V).
//
//   --experiment ssp        the stale-synchronous allreduce (SspAllreduce) at every slack of
//                           --slacks, beside the consistent allreduce algorithms of --algorithms,
//                           under a model of uneven workers (below): collective time per call and
//                           the time it waited for fresh data (fig. 7)
//   --experiment allreduce  registered allreduce algorithms at every count of --elements (doubles,
//                           sum): the one-sided ring against the two-sided ones and native
//                           (figs. 11-12)
//   --experiment alltoall   registered alltoall algorithms, --elements bytes per block (fig. 13)
//   --experiment bcast-threshold, reduce-threshold
//                           the threshold broadcast and reduce (by data and by processes) at every
//                           fraction of --thresholds, beside the exact registered algorithms
//                           (figs. 8-10)
//   --experiment mf-sgd     matrix factorisation by SGD, the workers' models averaged with
//                           SspAllreduce at every slack of --slacks: error against time and
//                           iterations, and the time each slack takes to reach the error slack 0
//                           reaches after --iterations (fig. 6; mf_sgd.hpp has the data)
//
// Workers of the ssp experiment compute between calls for --compute seconds times (1 + X), X
// exponential with mean --jitter, drawn per rank and iteration from --seed: a shared cluster's
// uneven speeds, the same on both backends (on mpi the real machine's own noise comes on top).
//
// Rows: experiment, algorithm, procs, elements, threshold, slack, time_s, wait_s (the csv
// contract tests/CMakeLists.txt checks), plus min_clock_lag (ssp: clock - min_clock, mean per call) and, for
// mf-sgd, time_to_target_s, iterations_to_target and error (the final test RMSE).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "harness.hpp"
#include "mf_sgd.hpp"
#include "options.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/onesided.hpp"
#include "ragged/registry.hpp"
#include "ragged/ssp.hpp"
#include "ragged/threshold.hpp"
#include "report.hpp"

namespace ragged::bench {

namespace {

constexpr int tag_collect = 30040;

struct ConsistencyOptions {
  std::string experiment = "ssp";
  std::vector<std::uint64_t> elements;
  std::vector<std::string> thresholds;
  std::vector<int> slacks;
  std::vector<std::string> algorithms;
  int iterations = 0;  // 0: the experiment's default
  int warmup = 1;
  std::uint64_t segment_bytes = 0;  // allreduce onesided_ring: OneSidedTuning (0: its default)
  int slots = 0;
  double compute_s = 2e-3;
  double jitter = 0.5;
  unsigned seed = 1;
  // mf-sgd
  std::string ratings_path;
  std::uint32_t users = 1000;
  std::uint32_t per_user = 50;
  int rank = 8;
  double noise = 0.5;
  double lr = 0.001;
  double reg = 0.05;
  int batch = 1000;
  std::string curve_path;
};

/// Seconds rank `rank` computes before iteration `it` (see the top of this file).
double compute_time(const ConsistencyOptions& o, int rank, int it) {
  const std::uint64_t key = std::uint64_t{o.seed} * std::uint64_t{1000003} +
                            static_cast<std::uint64_t>(rank) * std::uint64_t{7919} + static_cast<std::uint64_t>(it);
  std::mt19937_64 rng(key);
  const double x = o.jitter > 0 ? std::exponential_distribution<double>(1.0 / o.jitter)(rng) : 0.0;
  return o.compute_s * (1.0 + x);
}

struct Cell {
  std::string algorithm;
  std::uint64_t elements = 0;
  std::string slack;
  double time_s = 0;
  double wait_s = 0;
  double lag = 0;
  // mf-sgd
  double time_to_target = -1;
  int iterations_to_target = -1;
  double error = 0;
  std::string threshold;
};

Cell make_cell(std::string algorithm, std::uint64_t elements, std::string slack, double time_s, double wait_s = 0,
               double lag = 0, std::string threshold = {}) {
  Cell c;
  c.algorithm = std::move(algorithm);
  c.elements = elements;
  c.slack = std::move(slack);
  c.time_s = time_s;
  c.wait_s = wait_s;
  c.lag = lag;
  c.threshold = std::move(threshold);
  return c;
}

/// Means over ranks of per-rank means, on rank 0.
std::vector<double> mean_over_ranks(Comm& comm, std::vector<double> mine) {
  const auto all = collect_to_root(comm, tag_collect, std::move(mine), 3);
  std::vector<double> out(3, 0.0);
  if (comm.rank() != 0) return out;
  for (const auto& r : all) {
    for (std::size_t i = 0; i < 3 && i < r.size(); ++i) out[i] += r[i] / static_cast<double>(all.size());
  }
  return out;
}

void run_ssp(Comm& comm, const ConsistencyOptions& o, std::vector<Cell>& cells) {
  const int iterations = o.iterations > 0 ? o.iterations : 100;
  const int me = comm.rank();
  for (std::uint64_t n : o.elements) {
    const auto count = static_cast<std::size_t>(n);
    std::vector<double> grad(count, 1.0);
    std::vector<double> model(count, 0.0);
    // Consistent algorithms under the same workers: one allreduce per iteration.
    for (const std::string& name : o.algorithms) {
      CollectiveOptions options;
      options.algorithm = name;
      double total = 0;
      barrier(comm);
      for (int it = 0; it < iterations; ++it) {
        comm.runtime().sleep_for(compute_time(o, me, it));
        const double t0 = comm.runtime().now();
        allreduce(comm, grad.data(), model.data(), count, DataType::float64, ReduceOp::sum(), options);
        total += comm.runtime().now() - t0;
      }
      const std::vector<double> m = mean_over_ranks(comm, {total / iterations, 0.0, 0.0});
      if (me == 0) cells.push_back(make_cell(name, n, "", m[0]));
    }
    for (const char* topology : {"ssp", "ssp_ring"}) {
      for (int slack : o.slacks) {
        SspOptions options;
        options.slack = slack;
        options.topology = std::string(topology) == "ssp_ring" ? SspTopology::ring : SspTopology::hypercube;
        options.timeout = 600.0;
        SspAllreduce reduce(comm, count, DataType::float64, ReduceOp::sum(), options);
        double total = 0;
        double waited = 0;
        double lag = 0;
        for (int it = 0; it < iterations; ++it) {
          comm.runtime().sleep_for(compute_time(o, me, it));
          const double t0 = comm.runtime().now();
          const SspResult r = reduce(grad.data(), model.data());
          total += comm.runtime().now() - t0;
          waited += r.wait_s;
          lag += static_cast<double>(r.clock - r.min_clock);
        }
        reduce.finish();
        const std::vector<double> m =
            mean_over_ranks(comm, {total / iterations, waited / iterations, lag / iterations});
        if (me == 0) cells.push_back(make_cell(topology, n, std::to_string(slack), m[0], m[1], m[2]));
      }
    }
  }
}

/// One registered collective timed: per round the slowest rank's time, median over rounds.
template <class Call>
double time_collective(Comm& comm, int warmup, int iterations, Call call) {
  TimedLoop<double> loop;
  loop.warmup = warmup;
  loop.iterations = iterations;
  loop.body = [&](int, double start) {
    call();
    return comm.runtime().now() - start;
  };
  const std::vector<double> mine = timed_loop(comm, loop);
  const auto all = collect_to_root(comm, tag_collect, mine, static_cast<std::size_t>(iterations));
  if (comm.rank() != 0) return 0;
  std::vector<double> slowest(static_cast<std::size_t>(iterations), 0.0);
  for (const auto& r : all) {
    for (std::size_t i = 0; i < r.size() && i < slowest.size(); ++i) slowest[i] = std::max(slowest[i], r[i]);
  }
  return median(slowest);
}

void run_allreduce(Comm& comm, const ConsistencyOptions& o, std::vector<Cell>& cells) {
  const int iterations = o.iterations > 0 ? o.iterations : 5;
  for (std::uint64_t n : o.elements) {
    const auto count = static_cast<std::size_t>(n);
    std::vector<double> in(count, 1.0);
    std::vector<double> out(count, 0.0);
    for (const std::string& name : o.algorithms) {
      CollectiveOptions options;
      options.algorithm = name;
      if (name == "onesided_ring" && (o.segment_bytes != 0 || o.slots != 0)) {
        OneSidedTuning tuning;
        if (o.segment_bytes != 0) tuning.segment_bytes = static_cast<std::size_t>(o.segment_bytes);
        if (o.slots != 0) tuning.slots = o.slots;
        options.hints.set(std::make_shared<OneSidedTuning>(tuning));
      }
      const double t = time_collective(comm, o.warmup, iterations, [&] {
        allreduce(comm, in.data(), out.data(), count, DataType::float64, ReduceOp::sum(), options);
      });
      if (comm.rank() == 0) cells.push_back(make_cell(name, n, "", t));
    }
  }
}

void run_alltoall(Comm& comm, const ConsistencyOptions& o, std::vector<Cell>& cells) {
  const int iterations = o.iterations > 0 ? o.iterations : 10;
  const auto procs = static_cast<std::size_t>(comm.size());
  for (std::uint64_t n : o.elements) {
    const auto count = static_cast<std::size_t>(n);
    std::vector<std::byte> in(count * procs, std::byte{1});
    std::vector<std::byte> out(count * procs);
    for (const std::string& name : o.algorithms) {
      CollectiveOptions options;
      options.algorithm = name;
      const double t = time_collective(comm, o.warmup, iterations,
                                       [&] { alltoall(comm, in.data(), out.data(), count, DataType::byte, options); });
      if (comm.rank() == 0) cells.push_back(make_cell(name, n, "", t));
    }
  }
}

/// The thresholds of --thresholds as fractions in (0, 1].
std::vector<double> fractions(const std::vector<std::string>& texts) {
  std::vector<double> out;
  for (const std::string& t : texts) {
    double v = 0;
    try {
      std::size_t used = 0;
      v = std::stod(t, &used);
      if (used != t.size()) throw std::invalid_argument(t);
    } catch (const std::exception&) {
      throw InvalidArgument("--thresholds", "'" + t + "' is not a number");
    }
    if (v > 1) v /= 100;  // 25 means 25 %
    if (!(v > 0 && v <= 1)) throw InvalidArgument("--thresholds", "'" + t + "' is not in (0, 1] (or 0-100 %)");
    out.push_back(v);
  }
  return out;
}

/// bcast-threshold and reduce-threshold (figs. 8-10): the threshold variants at every threshold,
/// beside the exact registered algorithms of --algorithms, root 0, doubles, sum.
void run_threshold(Comm& comm, const ConsistencyOptions& o, bool reduce_side, std::vector<Cell>& cells) {
  const int iterations = o.iterations > 0 ? o.iterations : 5;
  const std::vector<double> levels = fractions(o.thresholds);
  for (std::uint64_t n : o.elements) {
    const auto count = static_cast<std::size_t>(n);
    std::vector<double> data(count, 1.0);
    std::vector<double> out(count, 0.0);
    const auto type = DataType::float64;
    const ReduceOp sum = ReduceOp::sum();
    for (double t : levels) {
      const std::string level = significant(t);
      if (!reduce_side) {
        const double s = time_collective(comm, o.warmup, iterations,
                                         [&] { (void)bcast_threshold(comm, data.data(), count, type, 0, t); });
        if (comm.rank() == 0) cells.push_back(make_cell("threshold", n, "", s, 0, 0, level));
        continue;
      }
      for (ThresholdBy by : {ThresholdBy::data, ThresholdBy::processes}) {
        const double s = time_collective(comm, o.warmup, iterations, [&] {
          (void)reduce_threshold(comm, data.data(), out.data(), count, type, sum, 0, t, by);
        });
        if (comm.rank() == 0) {
          cells.push_back(
              make_cell(by == ThresholdBy::data ? "threshold_data" : "threshold_processes", n, "", s, 0, 0, level));
        }
      }
    }
    for (const std::string& name : o.algorithms) {
      CollectiveOptions options;
      options.algorithm = name;
      const double s = time_collective(comm, o.warmup, iterations, [&] {
        if (reduce_side) {
          reduce(comm, data.data(), out.data(), count, type, sum, 0, options);
        } else {
          bcast(comm, data.data(), count, type, 0, options);
        }
      });
      if (comm.rank() == 0) cells.push_back(make_cell(name, n, "", s));
    }
  }
}

/// Per-iteration averages over the workers of one slack's run (fig. 6).
struct Curve {
  int slack = 0;
  std::vector<double> time_s;
  std::vector<double> error;
};

void run_mf_sgd(Comm& comm, const ConsistencyOptions& o, const mf::Ratings& data, std::vector<Cell>& cells,
                std::vector<Curve>& curves) {
  const int me = comm.rank();
  const int procs = comm.size();
  const int base_iterations = o.iterations > 0 ? o.iterations : 500;
  std::vector<mf::Rating> shard;
  for (std::size_t i = static_cast<std::size_t>(me); i < data.train.size(); i += static_cast<std::size_t>(procs)) {
    shard.push_back(data.train[i]);
  }
  for (int slack : o.slacks) {
    // Slack 0 sets the target; the others get half as many iterations again to reach it.
    const int iterations = slack == 0 ? base_iterations : base_iterations + base_iterations / 2;
    // Each worker contributes the sum of every update it made (its delta from the common start):
    // a stale delta leaves out recent updates but never undoes any, and using one twice is
    // harmless; model = start + the reduced deltas. At slack 0 this is synchronous SGD whose
    // updates of one iteration add up.
    const mf::Model start_model = mf::initial_model(data, o.rank, o.seed);
    mf::Model model = start_model;
    std::vector<double> delta(model.factors.size(), 0.0);
    std::vector<double> sum(model.factors.size(), 0.0);
    std::vector<double> before(model.factors.size());
    std::uint64_t rng = std::uint64_t{o.seed} * 7919U + static_cast<std::uint64_t>(me);
    SspOptions options;
    options.slack = slack;
    options.timeout = 3600.0;
    SspAllreduce reduce(comm, model.factors.size(), DataType::float64, ReduceOp::sum(), options);
    std::vector<double> samples;  // time, error per iteration
    samples.reserve(2 * static_cast<std::size_t>(iterations));
    double in_calls = 0;
    double waited = 0;
    barrier(comm);
    const double start = comm.runtime().now();
    for (int it = 0; it < iterations; ++it) {
      comm.runtime().sleep_for(compute_time(o, me, it));
      before = model.factors;
      mf::sgd(model, shard, o.batch, o.lr, o.reg, rng);
      for (std::size_t i = 0; i < delta.size(); ++i) delta[i] += model.factors[i] - before[i];
      const double t0 = comm.runtime().now();
      const SspResult r = reduce(delta.data(), sum.data());
      in_calls += comm.runtime().now() - t0;
      waited += r.wait_s;
      for (std::size_t i = 0; i < sum.size(); ++i) model.factors[i] = start_model.factors[i] + sum[i];
      samples.push_back(comm.runtime().now() - start);
      samples.push_back(mf::rmse(model, data.test));
    }
    reduce.finish();
    const auto all = collect_to_root(comm, tag_collect, samples, samples.size());
    const std::vector<double> m = mean_over_ranks(comm, {in_calls / iterations, waited / iterations, 0.0});
    if (me != 0) continue;
    Curve curve;
    curve.slack = slack;
    curve.time_s.assign(static_cast<std::size_t>(iterations), 0.0);
    curve.error.assign(static_cast<std::size_t>(iterations), 0.0);
    for (const auto& r : all) {
      for (std::size_t i = 0; i < curve.time_s.size(); ++i) {
        curve.time_s[i] += r[2 * i] / procs;
        curve.error[i] += r[2 * i + 1] / procs;
      }
    }
    Cell c = make_cell("ssp", model.factors.size(), std::to_string(slack), m[0], m[1]);
    c.error = curve.error.back();
    cells.push_back(c);
    curves.push_back(std::move(curve));
  }
  if (me != 0 || curves.empty()) return;
  // The target: slack 0's error after its iterations (the first slack's when 0 is not run).
  const auto zero = std::find_if(curves.begin(), curves.end(), [](const Curve& c) { return c.slack == 0; });
  const Curve& reference = zero != curves.end() ? *zero : curves.front();
  const double target = reference.error.back();
  for (std::size_t k = 0; k < curves.size(); ++k) {
    const Curve& c = curves[k];
    for (std::size_t i = 0; i < c.error.size(); ++i) {
      if (c.error[i] <= target) {
        cells[cells.size() - curves.size() + k].time_to_target = c.time_s[i];
        cells[cells.size() - curves.size() + k].iterations_to_target = static_cast<int>(i) + 1;
        break;
      }
    }
  }
}

Report run_consistency(ConsistencyOptions o, const BackendOptions& b) {
  const std::string& e = o.experiment;
  const bool thresholds = e == "bcast-threshold" || e == "reduce-threshold";
  if (e != "ssp" && e != "allreduce" && e != "alltoall" && e != "mf-sgd" && !thresholds) {
    throw InvalidArgument("--experiment", "'" + e +
                                              "' is not one of ssp, allreduce, alltoall, bcast-threshold, "
                                              "reduce-threshold, mf-sgd");
  }
  if (thresholds && o.thresholds.empty()) o.thresholds = {"0.25", "0.5", "0.75", "1"};
  (void)fractions(o.thresholds);
  if (o.batch < 0) throw InvalidArgument("--batch", "must be >= 0");
  if (o.rank <= 0) throw InvalidArgument("--rank", "must be > 0");
  if (o.users == 0) throw InvalidArgument("--users", "must be > 0");
  if (o.iterations < 0) throw InvalidArgument("--iterations", "must be >= 0");
  if (o.compute_s < 0) throw InvalidArgument("--compute", "must be >= 0");
  if (o.jitter < 0) throw InvalidArgument("--jitter", "must be >= 0");
  for (int s : o.slacks) {
    if (s < 0) throw InvalidArgument("--slacks", "a slack must be >= 0");
  }
  const std::string collective = e == "alltoall"           ? "alltoall"
                                 : e == "bcast-threshold"  ? "bcast"
                                 : e == "reduce-threshold" ? "reduce"
                                                           : "allreduce";
  if (thresholds && o.algorithms.empty()) {
    o.algorithms = {"binomial"};
    if (b.backend == "mpi") o.algorithms.emplace_back("native");
  }
  if (o.algorithms.empty() && e != "mf-sgd") {
    if (e == "ssp") {
      o.algorithms = {"ring"};
    } else if (e == "allreduce") {
      o.algorithms = {"ring", "rabenseifner", "pipelined_linear"};
    } else {
      o.algorithms = {"pairwise", "linear", "bruck"};
    }
    // The one-sided algorithms and native, where they exist.
    for (const Algorithm* a :
         Registry::instance().list(e == "alltoall" ? Collective::alltoall : Collective::allreduce, b.backend)) {
      if (a->name.rfind("onesided", 0) == 0 || a->name == "native") o.algorithms.push_back(a->name);
    }
  }
  check_algorithms(collective, o.algorithms, b);
  mf::Ratings data;
  if (e == "mf-sgd") {
    try {
      data = o.ratings_path.empty() ? mf::synthetic(o.users, o.per_user, o.rank, o.noise, o.seed)
                                    : mf::load_movielens(o.ratings_path);
    } catch (const std::exception& x) {
      throw InvalidArgument("--ratings", x.what());
    }
  }
  std::vector<Cell> cells;
  std::vector<Curve> curves;
  int procs = 0;
  run_ranks(b, [&](Comm& comm) {
    std::vector<Cell> mine;
    std::vector<Curve> mine_curves;
    if (e == "mf-sgd") {
      run_mf_sgd(comm, o, data, mine, mine_curves);
    } else if (thresholds) {
      run_threshold(comm, o, e == "reduce-threshold", mine);
    } else if (e == "ssp") {
      run_ssp(comm, o, mine);
    } else if (e == "allreduce") {
      run_allreduce(comm, o, mine);
    } else {
      run_alltoall(comm, o, mine);
    }
    if (comm.rank() == 0) {
      cells = std::move(mine);
      curves = std::move(mine_curves);
      procs = comm.size();
    }
  });
  if (!o.curve_path.empty() && !curves.empty()) {
    std::ofstream out(o.curve_path);
    if (!out) throw InvalidArgument("--curve", "cannot write " + o.curve_path);
    out << "slack,iteration,time_s,error\n";
    for (const Curve& c : curves) {
      for (std::size_t i = 0; i < c.error.size(); ++i) {
        out << c.slack << ',' << i + 1 << ',' << c.time_s[i] << ',' << c.error[i] << '\n';
      }
    }
  }
  Report report;
  report.experiment = "consistency";
  report.metadata = {{"experiment", e},
                     {"backend", b.backend},
                     {"platform", platform_label(b)},
                     {"iterations", std::to_string(o.iterations)}};
  if (e == "ssp" || e == "mf-sgd") {
    report.metadata.emplace_back("compute", significant(o.compute_s));
    report.metadata.emplace_back("jitter", significant(o.jitter));
  }
  if (e == "allreduce") {
    const OneSidedTuning defaults;
    report.metadata.emplace_back("segment",
                                 std::to_string(o.segment_bytes != 0 ? o.segment_bytes : defaults.segment_bytes));
    report.metadata.emplace_back("slots", std::to_string(o.slots != 0 ? o.slots : defaults.slots));
  }
  if (e == "mf-sgd") {
    report.metadata.emplace_back("ratings", data.source);
    report.metadata.emplace_back("train", std::to_string(data.train.size()));
    report.metadata.emplace_back("test", std::to_string(data.test.size()));
  }
  for (const Cell& c : cells) {
    Row row;
    row.set("experiment", e)
        .set("algorithm", c.algorithm)
        .set("procs", static_cast<std::int64_t>(procs))
        .set("elements", static_cast<std::int64_t>(c.elements))
        .set("threshold", c.threshold)
        .set("slack", c.slack)
        .set("time_s", c.time_s)
        .set("wait_s", c.wait_s);
    if (e == "ssp") row.set("min_clock_lag", c.lag);
    if (e == "mf-sgd") {
      row.set("time_to_target_s", c.time_to_target >= 0 ? Value(c.time_to_target) : Value(std::string()))
          .set("iterations_to_target",
               c.iterations_to_target >= 0 ? Value(std::int64_t{c.iterations_to_target}) : Value(std::string()))
          .set("error", c.error);
    }
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace

CLI::App* add_consistency_command(CLI::App& app, Common& common, Runner& chosen) {
  Command cmd(app, "consistency",
              "Eventually consistent and one-sided collectives of Iakymchuk et al. 2021: ssp, allreduce, alltoall",
              common);
  auto o = std::make_shared<ConsistencyOptions>();
  cmd->add_option("--experiment", o->experiment,
                  "ssp | allreduce | alltoall | bcast-threshold | reduce-threshold | mf-sgd")
      ->capture_default_str();
  cmd.counts("--elements", o->elements, "100Ki",
             "vector lengths (doubles; alltoall: bytes per block), with K, Ki, M, Mi suffixes");
  cmd.list("--thresholds", o->thresholds, "", "fractions of the data or processes (threshold experiments)");
  cmd.counts("--slacks", o->slacks, "0,2,32,64", "slacks of the ssp experiment");
  cmd.list("--algorithms", o->algorithms, "",
           "registered algorithms to compare (default: the experiment's two-sided set, the one-sided ones, native)");
  cmd->add_option("--iterations", o->iterations, "measured calls per cell (0: 100 for ssp, 5 allreduce, 10 alltoall)")
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "unmeasured calls first (allreduce, alltoall)")->capture_default_str();
  cmd.count("--segment", o->segment_bytes, "",
            "allreduce: onesided_ring's segment in bytes, with K, Ki, M, Mi suffixes (default: OneSidedTuning's)");
  cmd->add_option("--slots", o->slots, "allreduce: onesided_ring's receive slots (0: OneSidedTuning's default)")
      ->check(CLI::NonNegativeNumber);
  cmd.duration("--compute", o->compute_s, "2ms", "ssp: a worker's computation per iteration, before jitter");
  cmd->add_option("--jitter", o->jitter, "ssp: mean of the exponential extra computation, in units of --compute")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "ssp: seed of the workers' speeds")->capture_default_str();
  cmd->add_option("--ratings", o->ratings_path, "mf-sgd: MovieLens ratings.csv (default: a synthetic matrix)");
  cmd->add_option("--users", o->users, "mf-sgd: users of the synthetic matrix")->capture_default_str();
  cmd->add_option("--per-user", o->per_user, "mf-sgd: ratings per user of the synthetic matrix")->capture_default_str();
  cmd->add_option("--rank", o->rank, "mf-sgd: factors per user and item")->capture_default_str();
  cmd->add_option("--noise", o->noise, "mf-sgd: noise of the synthetic ratings (stars)")->capture_default_str();
  cmd->add_option("--lr", o->lr, "mf-sgd: learning rate")->capture_default_str();
  cmd->add_option("--reg", o->reg, "mf-sgd: L2 regularisation")->capture_default_str();
  cmd->add_option("--batch", o->batch, "mf-sgd: SGD updates per worker and iteration")->capture_default_str();
  cmd->add_option("--curve", o->curve_path, "mf-sgd: csv of the error against time and iterations per slack");
  cmd.runs(
      chosen, [o](const BackendOptions& backend) { return run_consistency(*o, backend); },
      [cmd, &common] {
        if (!cmd.given("--procs") && common.backend == "mpi") common.procs = 0;
        if (!cmd.given("--procs") && common.backend == "sim") common.procs = 32;
      });
  return cmd.app();
}

}  // namespace ragged::bench
