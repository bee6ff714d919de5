// ragged-threshold-measure [platform] [procs] [iterations]: the simulated run time (the last
// exit minus the first entry, ranks released together by a barrier) of bcast_threshold and
// reduce_threshold by data and by processes at thresholds 25, 50, 75 and 100 %, for 10^4 and
// 10^6 doubles, beside ragged's exact binomial bcast and reduce, as seed 004 §V b and c
// measure them (figs. 8, 9 and 10). Defaults: cluster-1gbe-48, 32 ranks (one per node), 3
// iterations after one warm-up call (which creates the window). Deterministic.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/sim.hpp"
#include "ragged/threshold.hpp"

namespace {

using ragged::Comm;

/// Mean over `iterations` of (last exit - first entry) of `call`, after one warm-up call.
double time_call(const ragged::sim::Config& config, int iterations, const std::function<void(Comm&)>& call) {
  const auto procs = static_cast<std::size_t>(config.procs);
  std::vector<double> total(1, 0.0);
  std::vector<double> entry(procs), exit(procs);
  ragged::sim::run(config, [&](Comm& comm) {
    const auto me = static_cast<std::size_t>(comm.rank());
    call(comm);  // warm-up: creates the window
    for (int i = 0; i < iterations; ++i) {
      ragged::barrier(comm);
      entry[me] = comm.runtime().now();
      call(comm);
      exit[me] = comm.runtime().now();
      ragged::barrier(comm);
      if (me == 0) {
        total[0] += *std::max_element(exit.begin(), exit.end()) - *std::min_element(entry.begin(), entry.end());
      }
    }
  });
  return total[0] / iterations;
}

}  // namespace

int main(int argc, char** argv) {
  ragged::sim::Config config;
  config.platform = argc > 1 ? argv[1] : "cluster-1gbe-48";
  config.procs = argc > 2 ? std::atoi(argv[2]) : 32;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 3;
  const double thresholds[] = {0.25, 0.5, 0.75, 1.0};
  std::printf("platform %s, %d ranks, mean of %d calls, simulated seconds\n", config.platform.c_str(), config.procs,
              iterations);
  for (std::size_t count : {std::size_t{10000}, std::size_t{1000000}}) {
    std::vector<double> data(count, 1.0), out(count, 0.0);
    const auto type = ragged::DataType::float64;
    const ragged::ReduceOp sum = ragged::ReduceOp::sum();
    std::printf("\n%zu doubles\n%-22s", count, "threshold");
    for (double t : thresholds) std::printf(" %11.0f%%", t * 100);
    std::printf(" %12s %12s\n", "25% speedup", "exact");
    const auto row = [&](const char* name, const std::function<void(Comm&, double)>& fn,
                         const std::function<void(Comm&)>& exact) {
      std::vector<double> times;
      for (double t : thresholds) times.push_back(time_call(config, iterations, [&](Comm& c) { fn(c, t); }));
      std::printf("%-22s", name);
      for (double s : times) std::printf(" %12.6f", s);
      std::printf(" %11.2fx %12.6f\n", times.back() / times.front(), time_call(config, iterations, exact));
    };
    row(
        "bcast_threshold", [&](Comm& c, double t) { (void)ragged::bcast_threshold(c, data.data(), count, type, 0, t); },
        [&](Comm& c) { (void)ragged::bcast(c, data.data(), count, type, 0, {.algorithm = "binomial"}); });
    row(
        "reduce by data",
        [&](Comm& c, double t) {
          (void)ragged::reduce_threshold(c, data.data(), out.data(), count, type, sum, 0, t, ragged::ThresholdBy::data);
        },
        [&](Comm& c) {
          (void)ragged::reduce(c, data.data(), out.data(), count, type, sum, 0, {.algorithm = "binomial"});
        });
    row(
        "reduce by processes",
        [&](Comm& c, double t) {
          (void)ragged::reduce_threshold(c, data.data(), out.data(), count, type, sum, 0, t,
                                         ragged::ThresholdBy::processes);
        },
        [&](Comm& c) {
          (void)ragged::reduce(c, data.data(), out.data(), count, type, sum, 0, {.algorithm = "binomial"});
        });
  }
  return 0;
}
