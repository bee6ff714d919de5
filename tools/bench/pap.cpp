#include "pap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <span>

#include "options.hpp"
#include "plot.hpp"
#include "ragged/arrival.hpp"
#include "ragged/bounds.hpp"
#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/registry.hpp"

namespace ragged::bench {

namespace {

// Message tag for shipping the per-rank measurements to rank 0 (after every algorithm's
// iterations, outside the timed region), and the two of the start-up link measurement.
constexpr int tag_results = 30000;
constexpr int tag_link = 30002;
constexpr int tag_latency = 30004;  // tag_link + 1 is measure_link's

struct Sample {
  double arrival;  // a_i, relative to the end of the double barrier
  double exit;     // f_i, same origin
};

float allgather_value(int rank, std::size_t i, int iteration) {
  return static_cast<float>((static_cast<std::size_t>(rank) * 131 + i * 7 + static_cast<std::size_t>(iteration)) %
                            4093);
}

float allreduce_value(int rank, std::size_t i, int iteration) {
  return static_cast<float>((static_cast<std::size_t>(rank) + i + static_cast<std::size_t>(iteration)) % 7);
}

/// The broadcast's vector (root 0) in iteration `iteration`; the other ranks start from -1.
float bcast_value(std::size_t i, int iteration) { return allgather_value(0, i, iteration); }

void validate(const PapOptions& o, const BackendOptions& b) {
  if (o.collective != "allgather" && o.collective != "allreduce" && o.collective != "bcast") {
    throw InvalidArgument("--collective", "pap measures allgather, allreduce or bcast, not '" + o.collective + "'");
  }
  if (o.mode != "randlate" && o.mode != "onelate") {
    throw InvalidArgument("--mode", "unknown mode '" + o.mode + "' (expected randlate or onelate)");
  }
  if (o.iterations <= 0) throw InvalidArgument("--iterations", "must be positive");
  if (o.algorithms.empty()) throw InvalidArgument("--algorithms", "name at least one algorithm");
  check_algorithms(o.collective, o.algorithms, b, true);
}

/// Listing 4's monitor calls around the emulated computation, for arrival-aware algorithms.
class Phase {
 public:
  /// `own_schedule`: no regular fallback on balanced patterns (MonitorOptions::balanced_fallback).
  Phase(Comm& comm, const std::string& algorithm, Collective collective, std::size_t count, const LinkModel& link,
        bool own_schedule) {
    // `auto` gets the monitor too: its choice depends on the arrival snapshot. It announces no
    // plan; the agent learns the chosen algorithm from the previous call.
    const bool selector = algorithm == "auto";
    if (!selector && !Registry::instance().find(collective, algorithm).restrictions.needs_arrival) return;
    MonitorOptions mo;
    mo.link = link;
    mo.balanced_fallback = !own_schedule;
    monitor_ = std::make_unique<Monitor>(comm, mo);                                                 // PAT_Init
    if (!selector) monitor_->use(PlannedCall{collective, algorithm, count, DataType::float32, 0});  // PAT_UseAlg
  }
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;
  ~Phase() {
    if (monitor_) monitor_->finalize();  // PAT_Finalize
  }
  /// The computation phase: two halves of `half` seconds with an edge call between them.
  void compute(Runtime& rt, double half) {
    if (monitor_) monitor_->processing_start();
    rt.sleep_for(half);
    if (monitor_) monitor_->edge(0.5);
    rt.sleep_for(half);
    if (monitor_) monitor_->processing_end();
  }
  /// The collective's options: the algorithm, and the arrival snapshot for an arrival-aware one.
  CollectiveOptions arrive(const std::string& algorithm) {
    CollectiveOptions options;
    options.algorithm = algorithm;
    if (monitor_) options.hints.set<ArrivalSnapshot>(monitor_->arrive());
    return options;
  }

 private:
  std::unique_ptr<Monitor> monitor_;
};

/// Adds `name` to the '+'-separated list `selected` unless it is there already.
void note_selected(std::string& selected, const std::string& name) {
  std::size_t at = 0;
  while (at <= selected.size()) {
    const std::size_t end = std::min(selected.find('+', at), selected.size());
    if (selected.compare(at, end - at, name) == 0) return;
    at = end + 1;
  }
  selected += (selected.empty() ? "" : "+") + name;
}

/// One rank's side of the measured collective: its buffers, the values of each iteration,
/// the call, and listing 4's checkCorrectness.
class PapCall {
 public:
  PapCall(Comm& comm, const PapOptions& o)
      : comm_(comm), collective_(parse_collective(o.collective)), p_(comm.size()), me_(comm.rank()) {
    const auto p = static_cast<std::size_t>(p_);
    // allgather: each rank's block of the vector; allreduce and bcast: the whole vector (bcast:
    // out_ is the buffer, from root 0).
    count_ = collective_ == Collective::allgather ? o.size / p : o.size;
    if (collective_ != Collective::bcast) in_.resize(count_);
    out_.resize(collective_ == Collective::allgather ? count_ * p : count_);
  }
  [[nodiscard]] Collective collective() const { return collective_; }
  [[nodiscard]] std::size_t count() const { return count_; }

  void fill(int it) {
    if (collective_ == Collective::bcast) {
      for (std::size_t i = 0; i < count_; ++i) out_[i] = me_ == 0 ? bcast_value(i, it) : -1.0F;
      return;
    }
    for (std::size_t i = 0; i < count_; ++i) {
      in_[i] = collective_ == Collective::allgather ? allgather_value(me_, i, it) : allreduce_value(me_, i, it);
    }
  }
  /// Runs the collective; returns the name of the algorithm that ran.
  const std::string& run(const CollectiveOptions& copts) {
    if (collective_ == Collective::bcast) {
      return ragged::bcast(comm_, out_.data(), count_, DataType::float32, 0, copts).name;
    }
    if (collective_ == Collective::allgather) {
      return ragged::allgather(comm_, in_.data(), out_.data(), count_, DataType::float32, copts).name;
    }
    return ragged::allreduce(comm_, in_.data(), out_.data(), count_, DataType::float32, ReduceOp::sum(), copts).name;
  }
  void check(int it, const std::string& algorithm) const {
    if (collective_ == Collective::bcast) {
      for (std::size_t i = 0; i < count_; ++i) {
        if (out_[i] != bcast_value(i, it)) {
          throw Error("pap: " + algorithm + " bcast gave a wrong element (rank " + std::to_string(me_) + ", index " +
                      std::to_string(i) + ")");
        }
      }
      return;
    }
    if (collective_ == Collective::allgather) {
      for (int r = 0; r < p_; ++r) {
        for (std::size_t i = 0; i < count_; ++i) {
          if (out_[static_cast<std::size_t>(r) * count_ + i] != allgather_value(r, i, it)) {
            throw Error("pap: " + algorithm + " allgather gave a wrong element (rank " + std::to_string(me_) +
                        ", block " + std::to_string(r) + ", index " + std::to_string(i) + ")");
          }
        }
      }
      return;
    }
    float expected[7];
    for (int k = 0; k < 7; ++k) {
      float s = 0;
      for (int r = 0; r < p_; ++r) s += static_cast<float>((r + k) % 7);
      expected[k] = s;
    }
    for (std::size_t i = 0; i < count_; ++i) {
      if (out_[i] != expected[(i + static_cast<std::size_t>(it)) % 7]) {
        throw Error("pap: " + algorithm + " allreduce gave a wrong element (rank " + std::to_string(me_) + ", index " +
                    std::to_string(i) + ")");
      }
    }
  }

 private:
  Comm& comm_;
  Collective collective_;
  int p_;
  int me_;
  std::size_t count_ = 0;
  std::vector<float> in_;
  std::vector<float> out_;
};

// One algorithm's iterations on this rank; returns this rank's samples. `selected` gets the
// algorithms that actually ran (itself, its fallback, or what `auto` chose), '+'-separated.
// Per iteration: a double barrier, the emulated computation (a_i at its end), the collective
// (f_i at its end), both from the end of the double barrier. `own_schedule`: an arrival-aware
// algorithm runs its own schedule even on a balanced pattern (its flat run, for the absorption).
std::vector<Sample> measure(Comm& comm, const PapOptions& o, const std::string& algorithm, int iterations,
                            const LinkModel& link, std::string& selected, bool own_schedule = false) {
  const int p = comm.size();
  const int me = comm.rank();
  Runtime& rt = comm.runtime();
  PapCall call(comm, o);
  Phase phase(comm, algorithm, call.collective(), call.count(), link, own_schedule);
  double half = 0;
  TimedLoop<Sample> loop;
  loop.iterations = iterations;
  loop.prepare = [&](int it) {
    call.fill(it);
    half = o.base_compute_s + pap_delay(o, p, me, it) / 2;
  };
  loop.start = [&](int) {
    barrier(comm);
    barrier(comm);
    return rt.now();
  };
  loop.body = [&](int, double t0) {
    phase.compute(rt, half);
    const double a = rt.now() - t0;
    const CollectiveOptions copts = phase.arrive(algorithm);
    note_selected(selected, call.run(copts));
    return Sample{a, rt.now() - t0};
  };
  if (o.check) loop.verify = [&](int it) { call.check(it, algorithm); };
  return timed_loop(comm, loop);
}

}  // namespace

double pap_delay(const PapOptions& o, int procs, int rank, int iteration) {
  (void)procs;
  if (o.mode == "onelate") return rank == 1 ? o.max_delay_s : 0.0;
  Rng rng = rng_for(o.seed, static_cast<std::uint64_t>(iteration), static_cast<std::uint64_t>(rank));
  return rng.uniform() * o.max_delay_s;
}

namespace {

/// The bound model of a row (docs/bounds.md, "Two models"): background when the algorithm, or
/// any of what ran for it (`auto`'s choices, '+'-separated), has a background part, whose agent
/// receives for its rank before the rank arrives; `auto` with nothing recorded too (the weaker
/// bound is a bound of both).
bound::Model bound_model_of(Collective c, const std::string& algorithm, const std::string& selected) {
  const Registry& registry = Registry::instance();
  const auto background = [&](const std::string& name) {
    return registry.contains(c, name) && registry.find(c, name).background != nullptr;
  };
  if (background(algorithm) || (algorithm == "auto" && selected.empty())) return bound::Model::background;
  for (std::size_t from = 0; from <= selected.size();) {
    const std::size_t plus = std::min(selected.find('+', from), selected.size());
    if (background(selected.substr(from, plus - from))) return bound::Model::background;
    from = plus + 1;
  }
  return bound::Model::foreground;
}

/// Mean run time max f - min a over the iterations.
double mean_run_time(const std::vector<std::vector<Sample>>& s, int iterations) {
  double total = 0;
  for (int it = 0; it < iterations; ++it) {
    double first_arrival = INFINITY;
    double last_exit = -INFINITY;
    for (const auto& rank : s) {
      first_arrival = std::min(first_arrival, rank[static_cast<std::size_t>(it)].arrival);
      last_exit = std::max(last_exit, rank[static_cast<std::size_t>(it)].exit);
    }
    total += last_exit - first_arrival;
  }
  return total / iterations;
}

int flat_iterations_of(const PapOptions& o) {
  if (o.flat_iterations >= 0) return o.flat_iterations;
  return std::max(1, o.iterations / 4);
}

}  // namespace

PapResult measure_pap(const PapOptions& o, const BackendOptions& b) {
  validate(o, b);
  const Collective c = parse_collective(o.collective);
  const bool flat_measured = o.max_delay_s == 0;
  const int flat_iterations = flat_iterations_of(o);

  struct Raw {
    std::vector<std::vector<Sample>> samples;
    std::vector<std::vector<Sample>> flat;
    std::string selected;  ///< rank 0's (every rank selects the same)
  };
  std::vector<Raw> raw(o.algorithms.size());
  PapResult result;
  run_ranks(b, [&](Comm& comm) {
    const LinkModel link = o.link ? *o.link : measure_link(comm, tag_link);
    LinkModel for_bound = o.link ? *o.link : bound_link(comm, tag_link, link);
    // A message inside a node arrives sooner than one between nodes, whose latency measure_link's
    // slowest pair gives: the bound takes the smallest pair latency (between the nodes' first
    // ranks, and a node's first two), or a rank that gets its block from a node-mate is done
    // before its "bound" (bcast linear of 8 B on infiniband-qdr-560 at P = 64 without the gap: e-bar
    // 1.52 us against 1.70).
    if (const std::shared_ptr<const NodeLayout> nodes = layout_of(comm, Hints{}); !o.link && !nodes->flat()) {
      const std::vector<std::vector<double>> between = group_latencies(comm, nodes->node, tag_latency);
      for (const std::vector<double>& row : between) {
        for (const double l : row) {
          if (l > 0) for_bound.alpha = std::min(for_bound.alpha, l);
        }
      }
    }
    if (comm.rank() == 0) {
      result.procs = comm.size();
      result.link = link;
      result.bound_link = for_bound;
      const std::shared_ptr<const NodeLayout> layout = layout_of(comm, Hints{});
      result.layout = layout->describe();
      if (!layout->flat()) {
        // Where the backend knows no inter-node link (mpi), the card is as fast as the measured link.
        const std::shared_ptr<const NetworkModel> network = network_of(comm, Hints{});
        result.node_of_rank = layout->node;
        result.card_link = network && network->inter.known() ? network->inter : for_bound;
        if (network && network->node_bandwidth > 0) result.node_beta = 1 / network->node_bandwidth;
      }
    }
    for (std::size_t a = 0; a < o.algorithms.size(); ++a) {
      const std::string& name = o.algorithms[a];
      std::string selected;
      raw[a].samples = collect_to_root(comm, tag_results, measure(comm, o, name, o.iterations, link, selected),
                                       static_cast<std::size_t>(o.iterations));
      if (comm.rank() == 0) raw[a].selected = selected;
      // r' is the algorithm's own run with maxDelay 0: an arrival-aware algorithm (not `auto`)
      // runs its own schedule there, not the regular fallback a balanced pattern gets (BSLB's
      // would be NEX's). With maxDelay 0 the measured run is r' (A = omega, about 0).
      const bool own = name != "auto" && Registry::instance().find(c, name).restrictions.needs_arrival;
      if (!flat_measured && flat_iterations > 0 && o.flat_run_time.count(name) == 0) {
        PapOptions flat = o;
        flat.max_delay_s = 0;
        std::string flat_selected;
        raw[a].flat =
            collect_to_root(comm, tag_results, measure(comm, flat, name, flat_iterations, link, flat_selected, own),
                            static_cast<std::size_t>(flat_iterations));
      }
    }
  });
  if (result.procs == 0) return result;  // not the printing process of an mpi job

  const int procs = result.procs;
  const auto p = static_cast<std::size_t>(procs);
  const std::size_t count = c == Collective::allgather ? o.size / p * p : o.size;
  // Per-rank bounds from what each rank's link must carry (plans/lower_bound.hpp): its block
  // (allgather) or the whole vector (allreduce, bcast from root 0) per transfer.
  const std::size_t block_bytes = c == Collective::allgather ? count / p * sizeof(float) : count * sizeof(float);
  const bound::Link link{result.bound_link.alpha, result.bound_link.beta};
  for (std::size_t a = 0; a < o.algorithms.size(); ++a) {
    const auto& s = raw[a].samples;
    PapMeasurement m;
    m.algorithm = o.algorithms[a];
    m.selected = raw[a].selected;
    m.arrival_aware = m.algorithm == "auto" || Registry::instance().find(c, m.algorithm).restrictions.needs_arrival;
    m.procs = procs;
    m.bytes = static_cast<std::int64_t>(count * sizeof(float));
    m.bound_model = o.bound_model ? *o.bound_model : bound_model_of(c, m.algorithm, m.selected);
    double sum = 0;
    double sum_sq = 0;
    double imbalance = 0;
    double bound = 0;
    double two_level = 0;
    std::vector<double> arrivals(p);
    std::vector<double> per_rank_sum(p, 0.0);
    for (int it = 0; it < o.iterations; ++it) {
      const auto i = static_cast<std::size_t>(it);
      for (std::size_t r = 0; r < p; ++r) {
        const double e = s[r][i].exit - s[r][i].arrival;
        sum += e;
        sum_sq += e * e;
        per_rank_sum[r] += e;
        arrivals[r] = s[r][i].arrival;
      }
      imbalance +=
          *std::max_element(arrivals.begin(), arrivals.end()) - *std::min_element(arrivals.begin(), arrivals.end());
      const auto bytes = static_cast<double>(block_bytes);
      const bound::Model model = m.bound_model;
      const std::vector<double> per_rank = c == Collective::allgather ? bound::allgather(arrivals, bytes, link, model)
                                           : c == Collective::bcast   ? bound::bcast(arrivals, 0, bytes, link, model)
                                                                      : bound::allreduce(arrivals, bytes, link, model);
      for (double e : per_rank) bound += e;
      if (!result.node_of_rank.empty()) {
        const bound::Link card{result.card_link.alpha, result.card_link.beta};
        const std::span<const int> node(result.node_of_rank);
        const double beta = result.node_beta;
        const double deep = c == Collective::allgather
                                ? bound::two_level::allgather_mean(arrivals, bytes, node, link, card, beta, model)
                            : c == Collective::bcast
                                ? bound::two_level::bcast_mean(arrivals, 0, bytes, node, link, card, beta, model)
                                : bound::two_level::allreduce_mean(arrivals, bytes, node, link, card, beta, model);
        two_level += deep * static_cast<double>(p);
      }
    }
    const auto n = static_cast<double>(procs) * o.iterations;
    m.avg_elapsed = sum / n;
    m.stddev_elapsed = std::sqrt(std::max(0.0, sum_sq / n - m.avg_elapsed * m.avg_elapsed));
    m.run_time = mean_run_time(s, o.iterations);
    m.slowest_elapsed = *std::max_element(per_rank_sum.begin(), per_rank_sum.end()) / o.iterations;
    m.imbalance = imbalance / o.iterations;
    m.lower_bound = bound / n;
    if (!result.node_of_rank.empty()) m.two_level_bound = two_level / n;
    if (flat_measured) {
      m.flat_run = m.run_time;
    } else if (auto it = o.flat_run_time.find(m.algorithm); it != o.flat_run_time.end()) {
      m.flat_run = it->second;
    } else if (!raw[a].flat.empty()) {
      m.flat_run = mean_run_time(raw[a].flat, flat_iterations);
    }
    if (m.flat_run) m.absorption = *m.flat_run - m.run_time + m.imbalance;
    result.rows.push_back(std::move(m));
  }
  // The headline figure of every paper: the best regular algorithm's e-bar over each row's.
  double best_regular = INFINITY;
  for (const PapMeasurement& m : result.rows) {
    if (!m.arrival_aware && m.avg_elapsed < best_regular) {
      best_regular = m.avg_elapsed;
      result.best_regular = m.algorithm;
    }
  }
  for (PapMeasurement& m : result.rows) {
    if (std::isfinite(best_regular) && m.avg_elapsed > 0) m.speedup = best_regular / m.avg_elapsed;
  }
  return result;
}

Report pap_report(const PapOptions& o, const BackendOptions& b, const PapResult& result) {
  Report report;
  report.experiment = "pap";
  report.metadata = {{"collective", o.collective},
                     {"size_floats", std::to_string(o.size)},
                     {"mode", o.mode},
                     {"iterations", std::to_string(o.iterations)},
                     {"seed", std::to_string(o.seed)},
                     {"backend", b.backend},
                     {"platform", platform_label(b)},
                     {"layout", result.layout},
                     {"link_alpha_s", significant(result.link.alpha)},
                     {"link_beta_s_per_byte", significant(result.link.beta)},
                     {"bound_beta_s_per_byte", significant(result.bound_link.beta)},
                     {"speedup_over", result.best_regular}};
  for (const PapMeasurement& m : result.rows) {
    Row row;
    row.set("experiment", std::string("pap"))
        .set("backend", b.backend)
        .set("platform", platform_label(b))
        .set("collective", o.collective)
        .set("algorithm", m.algorithm)
        .set("selected", m.selected)
        .set("procs", std::int64_t{m.procs})
        .set("bytes", m.bytes)
        .set("max_delay_s", o.max_delay_s)
        .set("mode", o.mode)
        .set("iterations", std::int64_t{o.iterations})
        .set("avg_elapsed_s", m.avg_elapsed)
        .set("stddev_elapsed_s", m.stddev_elapsed)
        .set("run_time_s", m.run_time)
        .set("imbalance_s", m.imbalance)
        .set("flat_run_time_s", m.flat_run ? Value(*m.flat_run) : Value(std::string()))
        .set("absorption_s", m.absorption ? Value(*m.absorption) : Value(std::string()))
        .set("lower_bound_s", m.lower_bound)
        .set("bound_model", std::string(bound::name_of(m.bound_model)))
        .set("bound_ratio", m.lower_bound > 0 ? Value(m.avg_elapsed / m.lower_bound) : Value(std::string()))
        .set("two_level_bound_s", m.two_level_bound ? Value(*m.two_level_bound) : Value(std::string()))
        .set("two_level_ratio", m.two_level_bound && *m.two_level_bound > 0 ? Value(m.avg_elapsed / *m.two_level_bound)
                                                                            : Value(std::string()))
        .set("speedup", m.speedup ? Value(*m.speedup) : Value(std::string()))
        .set("slowest_elapsed_s", m.slowest_elapsed);
    report.rows.push_back(std::move(row));
  }
  return report;
}

Figure pap_figure(const PapOptions& o, const BackendOptions& b, const PapResult& result) {
  Figure f;
  f.style = Figure::Style::bars;
  char delay[32];
  std::snprintf(delay, sizeof delay, "%g ms", o.max_delay_s * 1e3);
  f.title = "Average elapsed time per algorithm (" + o.collective + ", P = " + std::to_string(result.procs) + ", " +
            std::to_string(o.size) + " floats, " + o.mode + " " + delay + ", " + platform_label(b) + ")";
  f.x_label = "algorithm";
  f.y_label = "average elapsed time [ms] (bar: +/- one standard deviation)";
  f.y_from_zero = true;
  Series bars{"e-bar", {}};
  for (std::size_t a = 0; a < result.rows.size(); ++a) {
    const PapMeasurement& m = result.rows[a];
    const auto x = static_cast<double>(a);
    bars.points.push_back({x, m.avg_elapsed * 1e3, m.stddev_elapsed * 1e3});
    f.x_tics.emplace_back(x, m.selected == m.algorithm ? m.algorithm : m.algorithm + " (" + m.selected + ")");
  }
  f.series.push_back(std::move(bars));
  return f;
}

std::vector<std::string> bound_violations(const PapResult& result) {
  std::vector<std::string> out;
  // Below by more than rounding: the sums of ranks and iterations differ in the last digits.
  for (const PapMeasurement& m : result.rows) {
    const std::string model = bound::name_of(m.bound_model);
    if (below_bound(m.avg_elapsed, m.lower_bound)) {
      out.push_back(m.algorithm + " at P = " + std::to_string(m.procs) + ", " + std::to_string(m.bytes) +
                    " bytes: e-bar " + significant(m.avg_elapsed) + " s is below its " + model + " lower bound " +
                    significant(m.lower_bound) + " s");
    }
    if (m.two_level_bound && below_bound(m.avg_elapsed, *m.two_level_bound)) {
      out.push_back(m.algorithm + " at P = " + std::to_string(m.procs) + ", " + std::to_string(m.bytes) +
                    " bytes: e-bar " + significant(m.avg_elapsed) + " s is below its " + model + " two-level bound " +
                    significant(*m.two_level_bound) + " s");
    }
  }
  return out;
}

Report run_pap(const PapOptions& o, const BackendOptions& b) {
  const PapResult result = measure_pap(o, b);
  if (result.procs == 0) return Report{};
  if (!o.plot.empty()) draw(pap_figure(o, b, result), o.plot, "--plot");
  Report report = pap_report(o, b, result);
  if (o.check_bounds) report.failures = bound_violations(result);
  return report;
}

}  // namespace ragged::bench
