#include "irregular.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <sstream>

#include "options.hpp"
#include "ragged/arrival.hpp"
#include "ragged/bounds.hpp"
#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/registry.hpp"

namespace ragged::bench {

namespace {

// Shipping every rank's measurements to rank 0, after all calls (outside the timed region).
constexpr int tag_times = 30010;
// The link model for the lower bound (measure_link's ping-pongs, before any call).
constexpr int tag_link = 30011;
constexpr int tag_latency = 30013;  // tag_link + 1 is measure_link's

std::int32_t value_of(int rank, std::size_t j) {
  return static_cast<std::int32_t>((static_cast<std::uint64_t>(rank) * 131 + j * 7 + 1) % 65521);
}

struct Job {
  std::string name;  // an algorithm, "gl2" or "regular"
  std::string collective;
  std::string problem;
  int block = 0;
};

std::string exact(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

std::string default_or(const std::string& given, const BackendOptions& b, const char* sim_default) {
  if (!given.empty()) return given;
  return b.backend == "mpi" ? "native" : sim_default;
}

void validate(const IrregularOptions& o, const BackendOptions& b, const std::vector<std::string>& algorithms) {
  for (const std::string& c : o.collectives) {
    if (c != "gatherv" && c != "scatterv") {
      throw InvalidArgument("--collectives", "irregular measures gatherv and scatterv, not '" + c + "'");
    }
    check_algorithms(c, algorithms, b);
  }
  for (const std::string& p : o.problems) {
    const auto& all = irregular_problems();
    if (std::find(all.begin(), all.end(), p) == all.end()) {
      throw InvalidArgument("--problems", "unknown problem '" + p + "'");
    }
  }
  for (int bs : o.block_sizes) {
    if (bs <= 0) throw InvalidArgument("--block-sizes", "block sizes must be positive");
  }
  if (o.rho <= 1) throw InvalidArgument("--rho", "must be > 1");
  const std::string gather = default_or(o.regular_gather, b, "binomial");
  const std::string allreduce = default_or(o.regular_allreduce, b, "recursive_doubling");
  (void)Registry::instance().find(Collective::gather, gather);
  (void)Registry::instance().find(Collective::scatter, gather);
  (void)Registry::instance().find(Collective::allreduce, allreduce);
}

}  // namespace

const std::vector<std::string>& irregular_problems() {
  static const std::vector<std::string> all{"same",       "random",     "bucket",      "spikes",
                                            "increasing", "decreasing", "alternating", "two"};
  return all;
}

std::vector<int> irregular_counts(const std::string& problem, int procs, int b, double rho, std::uint64_t seed) {
  std::vector<int> m(static_cast<std::size_t>(procs), 0);
  const auto pb = static_cast<std::int64_t>(procs);
  const auto problem_id = static_cast<std::uint64_t>(
      std::find(irregular_problems().begin(), irregular_problems().end(), problem) - irregular_problems().begin());
  for (int i = 0; i < procs; ++i) {
    Rng rng = rng_for(seed, 1000 + problem_id, static_cast<std::uint64_t>(i));
    const auto uniform = [&](std::int64_t lo, std::int64_t hi) {  // integer in [lo, hi]
      return lo + static_cast<std::int64_t>(rng.uniform() * static_cast<double>(hi - lo + 1));
    };
    std::int64_t x = 0;
    if (problem == "same") {
      x = b;
    } else if (problem == "random") {
      x = uniform(1, 2 * std::int64_t{b});
    } else if (problem == "bucket") {
      x = b / 2 + uniform(1, b);
    } else if (problem == "spikes") {
      x = rng.uniform() < 1.0 / rho ? static_cast<std::int64_t>(std::llround(rho * b)) : 1;
    } else if (problem == "increasing") {
      x = 2 * std::int64_t{b} * (i + 1) / pb;
    } else if (problem == "decreasing") {
      x = 2 * std::int64_t{b} * (pb - i) / pb + 1;
    } else if (problem == "alternating") {
      x = i % 2 == 0 ? b + b / 2 : b - b / 2;
    } else if (problem == "two") {
      x = (i == 0 || i == procs - 1) ? b : 0;
    } else if (problem == "zeros") {
      x = 0;
    } else {
      throw InvalidArgument("--problems", "unknown problem '" + problem + "'");
    }
    m[static_cast<std::size_t>(i)] = static_cast<int>(x);
  }
  return m;
}

Report run_irregular(const IrregularOptions& opt, const BackendOptions& b) {
  IrregularOptions o = opt;
  if (o.problems.empty()) o.problems = irregular_problems();
  std::vector<std::string> algorithms = o.algorithms;
  if (algorithms.empty()) {
    algorithms = {"traff", "linear", "binomial", "padded"};
    if (b.backend == "mpi") algorithms.emplace_back("native");
  }
  const bool sim = b.backend != "mpi";
  const int warmup = o.warmup >= 0 ? o.warmup : (sim ? 1 : 10);
  const int repetitions = o.repetitions > 0 ? o.repetitions : (sim ? 2 : 75);
  validate(o, b, algorithms);
  const std::string regular = default_or(o.regular_gather, b, "binomial");
  const std::string allreduce_name = default_or(o.regular_allreduce, b, "recursive_doubling");
  const bool with_traff = std::find(algorithms.begin(), algorithms.end(), "traff") != algorithms.end();

  // The jobs, in the order every rank runs them. Construction overhead first: traff on
  // all-empty blocks moves no data, so its time is the tree construction alone.
  std::vector<Job> jobs;
  for (const std::string& c : o.collectives) {
    if (with_traff) jobs.push_back({"traff", c, "zeros", 0});
    for (const std::string& problem : o.problems) {
      for (int bs : o.block_sizes) {
        for (const std::string& a : algorithms) jobs.push_back({a, c, problem, bs});
        jobs.push_back({"gl2", c, problem, bs});
        jobs.push_back({"regular", c, problem, bs});
      }
    }
  }

  // slowest[j][k]: the slowest rank's time of call k of job j, on rank 0.
  std::vector<std::vector<double>> slowest(jobs.size());
  std::vector<std::pair<std::int64_t, int>> sizes(jobs.size());  // total elements, largest block
  int procs = 0;
  LinkModel link;
  std::vector<double> to_root;  // rank 0: each rank's latency to the root (empty: link.alpha)
  BackendOptions run = b;
  run.message_gap_s = o.message_gap_s;
  const double gap = message_gap(run);
  run_ranks(run, [&](Comm& comm) {
    const int p = comm.size();
    const int me = comm.rank();
    Runtime& rt = comm.runtime();
    const int root = o.root >= 0 ? o.root : p / 2;
    check_rank(comm, root, "--root");
    const CollectiveOptions copts{};
    std::vector<double> mine;
    const GatherFn gather = Registry::instance().gather(regular);
    const ScatterFn scatter = Registry::instance().scatter(regular);
    const AllreduceFn allreduce = Registry::instance().allreduce(allreduce_name);
    const LinkModel measured = bound_link(comm, tag_link, measure_link(comm, tag_link));
    if (me == 0) link = measured;
    // The latency between the root's node and each rank's: the slowest pair's on every message,
    // a gatherv of the decreasing problem at b = 10000 (P = 64 on infiniband-qdr-560) took 0.999
    // of its "bound", the alternating one at b = 100 without the gap 0.874.
    if (const std::shared_ptr<const NodeLayout> nodes = layout_of(comm, Hints{}); !nodes->flat()) {
      const std::vector<std::vector<double>> between = group_latencies(comm, nodes->node, tag_latency);
      if (me == 0) {
        to_root.assign(static_cast<std::size_t>(p), 0.0);
        const auto of_root = static_cast<std::size_t>(nodes->node[static_cast<std::size_t>(root)]);
        for (int r = 0; r < p; ++r) {
          to_root[static_cast<std::size_t>(r)] =
              between[static_cast<std::size_t>(nodes->node[static_cast<std::size_t>(r)])][of_root];
        }
      }
    }
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const Job& job = jobs[j];
      const std::vector<int> counts = irregular_counts(job.problem, p, job.block, o.rho, o.seed);
      std::vector<int> displs(counts.size(), 0);
      std::int64_t total = 0;
      for (std::size_t i = 0; i < counts.size(); ++i) {
        displs[i] = static_cast<int>(total);
        total += counts[i];
      }
      const int largest = *std::max_element(counts.begin(), counts.end());
      sizes[j] = {total, largest};
      const int count = counts[static_cast<std::size_t>(me)];
      const bool gatherv = job.collective == "gatherv";
      std::vector<std::int32_t> own(static_cast<std::size_t>(count));
      for (std::size_t k = 0; k < own.size(); ++k) own[k] = value_of(me, k);
      // The root's full vector (gatherv: received, scatterv: sent).
      std::vector<std::int32_t> all(me == root ? static_cast<std::size_t>(total) : 0);
      if (!gatherv && me == root) {
        for (int r = 0; r < p; ++r) {
          for (int k = 0; k < counts[static_cast<std::size_t>(r)]; ++k) {
            all[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] + k)] =
                value_of(r, static_cast<std::size_t>(k));
          }
        }
      }
      std::vector<std::int32_t> got(gatherv ? 0 : static_cast<std::size_t>(count));
      std::function<void()> call;
      std::function<void()> verify;
      // GL2's right-hand side: the application agrees on the largest block and pads; its
      // buffers are laid out for that already (no copies, as the guideline assumes).
      std::vector<std::int32_t> padded_own;
      std::vector<std::int32_t> padded_all;
      if (job.name == "gl2" || job.name == "regular") {
        padded_own.assign(static_cast<std::size_t>(largest), 0);
        if (me == root) padded_all.assign(static_cast<std::size_t>(largest) * static_cast<std::size_t>(p), 0);
        const bool with_allreduce = job.name == "gl2";
        const auto n = static_cast<std::size_t>(largest);
        call = [&, with_allreduce, n, gatherv] {
          if (with_allreduce) {
            const std::int64_t m = count;
            std::int64_t agreed = 0;
            allreduce(comm, &m, &agreed, 1, DataType::int64, ReduceOp::max(), copts);
          }
          if (gatherv) {
            gather(comm, padded_own.data(), padded_all.data(), n, DataType::int32, root, copts);
          } else {
            scatter(comm, padded_all.data(), padded_own.data(), n, DataType::int32, root, copts);
          }
        };
      } else if (gatherv) {
        const GathervFn fn = Registry::instance().gatherv(job.name);
        call = [&, fn] { fn(comm, own.data(), count, all.data(), counts, displs, DataType::int32, root, copts); };
        if (o.check && me == root) {
          verify = [&] {
            for (int r = 0; r < p; ++r) {
              for (int k = 0; k < counts[static_cast<std::size_t>(r)]; ++k) {
                if (all[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] + k)] !=
                    value_of(r, static_cast<std::size_t>(k))) {
                  throw Error("irregular: gatherv " + job.name + " gave a wrong element (" + job.problem + ", b " +
                              std::to_string(job.block) + ", block of rank " + std::to_string(r) + ")");
                }
              }
            }
          };
        }
      } else {
        const ScattervFn fn = Registry::instance().scatterv(job.name);
        call = [&, fn] { fn(comm, all.data(), counts, displs, got.data(), count, DataType::int32, root, copts); };
        if (o.check) {
          verify = [&] {
            if (got != own) {
              throw Error("irregular: scatterv " + job.name + " gave rank " + std::to_string(me) + " a wrong block (" +
                          job.problem + ", b " + std::to_string(job.block) + ")");
            }
          };
        }
      }
      // warmup + repetitions calls, each after a barrier; verified after the first.
      TimedLoop<double> loop;
      loop.warmup = warmup;
      loop.iterations = repetitions;
      loop.body = [&](int, double t0) {
        call();
        return rt.now() - t0;
      };
      if (verify) loop.verify = [&verify](int) { verify(); };
      loop.verify_on = VerifyOn::first_round;
      const std::vector<double> t = timed_loop(comm, loop);
      mine.insert(mine.end(), t.begin(), t.end());
    }
    // Every rank's durations to rank 0, which keeps the slowest rank's per call.
    const std::size_t n = mine.size();
    const std::vector<std::vector<double>> all = collect_to_root(comm, tag_times, std::move(mine), n);
    if (me != 0) return;
    procs = p;
    std::vector<double> worst = all[0];
    for (std::size_t r = 1; r < all.size(); ++r) {
      for (std::size_t k = 0; k < n; ++k) worst[k] = std::max(worst[k], all[r][k]);
    }
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const auto first = worst.begin() + static_cast<std::ptrdiff_t>(j * static_cast<std::size_t>(repetitions));
      slowest[j].assign(first, first + repetitions);
    }
  });

  Report report;
  report.experiment = "irregular";
  const auto join = [](const auto& v) {
    std::ostringstream os;
    for (std::size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
    return os.str();
  };
  report.metadata = {{"problems", join(o.problems)},
                     {"block_sizes", join(o.block_sizes)},
                     {"algorithms", join(algorithms)},
                     {"regular", regular},
                     {"allreduce", allreduce_name},
                     {"warmup", std::to_string(warmup)},
                     {"repetitions", std::to_string(repetitions)},
                     {"rho", exact(o.rho)},
                     {"seed", std::to_string(o.seed)},
                     {"gl_slack", exact(o.gl_slack)},
                     {"message_gap_s", exact(gap)},
                     {"backend", b.backend},
                     {"platform", platform_label(b)}};
  if (procs == 0) return report;  // not the printing process of an mpi job
  report.metadata.emplace_back("procs", std::to_string(procs));
  const int root = o.root >= 0 ? o.root : procs / 2;
  report.metadata.emplace_back("root", std::to_string(root));
  report.metadata.emplace_back("link_alpha_s", significant(link.alpha));
  report.metadata.emplace_back("bound_beta_s_per_byte", significant(link.beta));
  // The call's lower bound: every rank starts together (after a barrier), so the root's link,
  // which carries every other block, binds (plans/lower_bound.hpp).
  const auto bound_of = [&](const Job& job) {
    const std::vector<int> counts = irregular_counts(job.problem, procs, job.block, o.rho, o.seed);
    std::vector<double> bytes(counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i) bytes[i] = counts[i] * double{sizeof(std::int32_t)};
    const std::vector<double> arrivals(counts.size(), 0.0);
    const bound::Link l{to_root.empty() ? link.alpha : 0.0, link.beta};
    const std::vector<double> per_rank =
        job.collective == "gatherv" ? bound::gatherv(arrivals, root, bytes, l, bound::Model::foreground, to_root)
                                    : bound::scatterv(arrivals, root, bytes, l, bound::Model::foreground, to_root);
    return *std::max_element(per_rank.begin(), per_rank.end());
  };

  const auto min_of = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  const auto mean_of = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  // (collective, problem, block) -> job index of gl2 / regular.
  std::map<std::tuple<std::string, std::string, int>, std::size_t> gl2_of;
  std::map<std::tuple<std::string, std::string, int>, std::size_t> regular_of;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const auto key = std::make_tuple(jobs[j].collective, jobs[j].problem, jobs[j].block);
    if (jobs[j].name == "gl2") gl2_of[key] = j;
    if (jobs[j].name == "regular") regular_of[key] = j;
  }
  std::map<std::string, std::pair<int, int>> gl2_count;  // "collective algorithm" -> (violations, cases)
  const double scale = o.table ? 1e6 : 1.0;
  const std::string unit = o.table ? "_us" : "_s";
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Job& job = jobs[j];
    if (job.problem == "zeros") {
      report.metadata.emplace_back("construction_" + job.collective + "_s", exact(min_of(slowest[j])));
      continue;
    }
    if (job.name == "regular") continue;
    const auto key = std::make_tuple(job.collective, job.problem, job.block);
    const double mn = min_of(slowest[j]);
    const double gl2 = min_of(slowest[gl2_of.at(key)]);
    const double reg = min_of(slowest[regular_of.at(key)]);
    Row row;
    row.set("collective", job.collective)
        .set("problem", job.problem)
        .set("block", std::int64_t{job.block})
        .set("algorithm", job.name)
        .set("selected", job.name)  // gatherv and scatterv algorithms have no restriction, hence no fallback
        .set("procs", std::int64_t{procs})
        .set("min" + unit, mn * scale)
        .set("mean" + unit, mean_of(slowest[j]) * scale)
        .set("total", sizes[j].first)
        .set("max_block", std::int64_t{sizes[j].second})
        .set("gl2" + unit, gl2 * scale)
        .set("gl2_ratio", mn / gl2)
        .set("regular" + unit, reg * scale)
        .set("bound" + unit, bound_of(job) * scale)
        .set("bound_ratio", bound_of(job) > 0 ? Value(mn / bound_of(job)) : Value(std::string()));
    std::string gl2_mark = "-";
    std::string gl1_mark = "-";
    if (job.name != "gl2") {
      const bool ok = mn <= gl2 * (1 + o.gl_slack);
      gl2_mark = ok ? "ok" : (o.table ? "VIOLATED x" + std::to_string(mn / gl2).substr(0, 4) : "violated");
      auto& [bad, cases] = gl2_count[job.collective + " " + job.name];
      bad += ok ? 0 : 1;
      cases += 1;
      if (job.problem == "same")
        gl1_mark = reg <= mn * (1 + o.gl_slack) ? "ok" : (o.table ? "VIOLATED (regular slower)" : "violated");
    }
    row.set("gl2", gl2_mark).set("gl1", gl1_mark);
    if (o.check_bounds && job.name != "gl2" && below_bound(mn, bound_of(job))) {
      report.failures.push_back(job.collective + " " + job.name + " on " + job.problem +
                                " at b = " + std::to_string(job.block) + ": " + std::to_string(mn) +
                                " s is below its lower bound " + std::to_string(bound_of(job)) + " s");
    }
    report.rows.push_back(std::move(row));
    if (job.name == "traff" && job.problem == "two" && job.block == 1) {
      report.metadata.emplace_back("two_blocks_b1_traff_" + job.collective + "_s", exact(mn));
    }
  }
  for (const auto& [name, count] : gl2_count) {
    std::string key = name;
    std::replace(key.begin(), key.end(), ' ', '_');
    report.metadata.emplace_back("gl2_violations_" + key,
                                 std::to_string(count.first) + "/" + std::to_string(count.second));
  }
  return report;
}

}  // namespace ragged::bench
