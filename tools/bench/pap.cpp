#include "pap.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>

#include "options.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"

namespace ragged::bench {

namespace {

// Message tag for shipping the per-rank measurements to rank 0 (after every algorithm's
// iterations, outside the timed region).
constexpr int tag_results = 30000;

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

void validate(const PapOptions& o, const BackendOptions& b) {
  if (o.collective != "allgather" && o.collective != "allreduce") {
    throw InvalidArgument("--collective", "pap measures allgather or allreduce, not '" + o.collective + "'");
  }
  if (o.mode != "randlate" && o.mode != "onelate") {
    throw InvalidArgument("--mode", "unknown mode '" + o.mode + "' (expected randlate or onelate)");
  }
  if (o.iterations <= 0) throw InvalidArgument("--iterations", "must be positive");
  if (o.algorithms.empty()) throw InvalidArgument("--algorithms", "name at least one algorithm");
  const Collective c = parse_collective(o.collective);
  for (const std::string& name : o.algorithms) {
    const Algorithm& a = Registry::instance().find(c, name);
    if (!a.restrictions.backend.empty() && a.restrictions.backend != b.backend) {
      throw InvalidArgument("--algorithms", "'" + name + "' runs only on the " + a.restrictions.backend + " backend");
    }
  }
}

// One algorithm's iterations on this rank; returns this rank's samples.
std::vector<Sample> measure(Comm& comm, const PapOptions& o, const std::string& algorithm) {
  const int p = comm.size();
  const int me = comm.rank();
  Runtime& rt = comm.runtime();
  const Collective c = parse_collective(o.collective);
  const CollectiveOptions copts{};
  std::vector<Sample> samples;
  samples.reserve(static_cast<std::size_t>(o.iterations));

  if (c == Collective::allgather) {
    const std::size_t count = o.size / static_cast<std::size_t>(p);
    const AllgatherFn fn = Registry::instance().allgather(algorithm);
    std::vector<float> mine(count);
    std::vector<float> all(count * static_cast<std::size_t>(p));
    for (int it = 0; it < o.iterations; ++it) {
      for (std::size_t i = 0; i < count; ++i) mine[i] = allgather_value(me, i, it);
      const double half = o.base_compute_s + pap_delay(o, p, me, it) / 2;
      barrier(comm);
      barrier(comm);
      const double t0 = rt.now();
      rt.sleep_for(half);
      rt.sleep_for(half);
      const double a = rt.now() - t0;
      fn(comm, mine.data(), all.data(), count, DataType::float32, copts);
      const double f = rt.now() - t0;
      samples.push_back({a, f});
      if (o.check) {
        for (int r = 0; r < p; ++r) {
          for (std::size_t i = 0; i < count; ++i) {
            if (all[static_cast<std::size_t>(r) * count + i] != allgather_value(r, i, it)) {
              throw Error("pap: " + algorithm + " allgather gave a wrong element (rank " + std::to_string(me) +
                          ", block " + std::to_string(r) + ", index " + std::to_string(i) + ")");
            }
          }
        }
      }
    }
  } else {
    const std::size_t count = o.size;
    const AllreduceFn fn = Registry::instance().allreduce(algorithm);
    std::vector<float> in(count);
    std::vector<float> out(count);
    for (int it = 0; it < o.iterations; ++it) {
      for (std::size_t i = 0; i < count; ++i) in[i] = allreduce_value(me, i, it);
      const double half = o.base_compute_s + pap_delay(o, p, me, it) / 2;
      barrier(comm);
      barrier(comm);
      const double t0 = rt.now();
      rt.sleep_for(half);
      rt.sleep_for(half);
      const double a = rt.now() - t0;
      fn(comm, in.data(), out.data(), count, DataType::float32, ReduceOp::sum(), copts);
      const double f = rt.now() - t0;
      samples.push_back({a, f});
      if (o.check) {
        float expected[7];
        for (int k = 0; k < 7; ++k) {
          float s = 0;
          for (int r = 0; r < p; ++r) s += static_cast<float>((r + k) % 7);
          expected[k] = s;
        }
        for (std::size_t i = 0; i < count; ++i) {
          if (out[i] != expected[(i + static_cast<std::size_t>(it)) % 7]) {
            throw Error("pap: " + algorithm + " allreduce gave a wrong element (rank " + std::to_string(me) +
                        ", index " + std::to_string(i) + ")");
          }
        }
      }
    }
  }
  return samples;
}

}  // namespace

double pap_delay(const PapOptions& o, int procs, int rank, int iteration) {
  (void)procs;
  if (o.mode == "onelate") return rank == 1 ? o.max_delay_s : 0.0;
  Rng rng = rng_for(o.seed, static_cast<std::uint64_t>(iteration), static_cast<std::uint64_t>(rank));
  return rng.uniform() * o.max_delay_s;
}

Report run_pap(const PapOptions& o, const BackendOptions& b) {
  validate(o, b);
  Report report;
  report.experiment = "pap";
  report.metadata = {{"collective", o.collective},
                     {"size_floats", std::to_string(o.size)},
                     {"mode", o.mode},
                     {"iterations", std::to_string(o.iterations)},
                     {"seed", std::to_string(o.seed)},
                     {"backend", b.backend},
                     {"platform", platform_label(b)}};

  // samples[algorithm][rank][iteration], filled on rank 0.
  std::vector<std::vector<std::vector<Sample>>> samples(o.algorithms.size());
  int procs = 0;
  run_ranks(b, [&](Comm& comm) {
    const int p = comm.size();
    for (std::size_t a = 0; a < o.algorithms.size(); ++a) {
      std::vector<Sample> mine = measure(comm, o, o.algorithms[a]);
      const std::size_t bytes = mine.size() * sizeof(Sample);
      if (comm.rank() == 0) {
        procs = p;
        samples[a].assign(static_cast<std::size_t>(p), {});
        samples[a][0] = std::move(mine);
        for (int r = 1; r < p; ++r) {
          std::vector<Sample>& theirs = samples[a][static_cast<std::size_t>(r)];
          theirs.resize(static_cast<std::size_t>(o.iterations));
          comm.recv(r, tag_results, theirs.data(), bytes);
        }
      } else {
        comm.send(0, tag_results, mine.data(), bytes);
      }
    }
  });
  if (procs == 0) return report;  // not the printing process of an mpi job

  for (std::size_t a = 0; a < o.algorithms.size(); ++a) {
    double sum = 0;
    double sum_sq = 0;
    double run_time = 0;
    const auto n = static_cast<double>(procs) * o.iterations;
    for (int it = 0; it < o.iterations; ++it) {
      double first_arrival = INFINITY;
      double last_exit = -INFINITY;
      for (int r = 0; r < procs; ++r) {
        const Sample& s = samples[a][static_cast<std::size_t>(r)][static_cast<std::size_t>(it)];
        const double e = s.exit - s.arrival;
        sum += e;
        sum_sq += e * e;
        first_arrival = std::min(first_arrival, s.arrival);
        last_exit = std::max(last_exit, s.exit);
      }
      run_time += last_exit - first_arrival;
    }
    const double mean = sum / n;
    const double var = std::max(0.0, sum_sq / n - mean * mean);
    const std::size_t count = o.collective == "allgather"
                                  ? o.size / static_cast<std::size_t>(procs) * static_cast<std::size_t>(procs)
                                  : o.size;
    Row row;
    row.set("experiment", std::string("pap"))
        .set("backend", b.backend)
        .set("platform", platform_label(b))
        .set("collective", o.collective)
        .set("algorithm", o.algorithms[a])
        .set("procs", std::int64_t{procs})
        .set("bytes", static_cast<std::int64_t>(count * sizeof(float)))
        .set("max_delay_s", o.max_delay_s)
        .set("mode", o.mode)
        .set("iterations", std::int64_t{o.iterations})
        .set("avg_elapsed_s", mean)
        .set("stddev_elapsed_s", std::sqrt(var))
        .set("run_time_s", run_time / o.iterations);
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace ragged::bench
