// A program that knows ragged only through its installed package, using the typed API.
#include <cstdint>
#include <iostream>
#include <span>
#include <vector>

#include "ragged/api.hpp"
#include "ragged/registry.hpp"
#ifdef WITH_SIM
#include "ragged/sim.hpp"
#endif

int main() {
  std::vector<std::int32_t> a{1, 2, 3};
  std::vector<std::int32_t> b{10, 20, 30};
  ragged::reduce_local(ragged::ReduceOp::sum(), ragged::DataType::int32, a.data(), b.data(), a.size());
  if (b != std::vector<std::int32_t>{11, 22, 33}) return 1;
  if (ragged::Registry::instance().list(ragged::Collective::allgather).empty()) return 2;
#ifdef WITH_SIM
  bool ok = true;
  ragged::sim::Config config;
  config.procs = 3;
  ragged::sim::run(config, [&](ragged::Comm& comm) {
    const std::vector<std::int32_t> mine{comm.rank() + 1};
    std::vector<std::int32_t> all(3);
    ragged::allgather(comm, std::span<const std::int32_t>(mine), std::span<std::int32_t>(all), {.algorithm = "ring"});
    if (all != std::vector<std::int32_t>{1, 2, 3}) ok = false;
    std::vector<double> sum(2);
    const std::vector<double> x{1.0 * comm.rank(), 2.0};
    ragged::allreduce(comm, std::span<const double>(x), std::span<double>(sum), ragged::ReduceOp::sum(),
                      {.algorithm = "auto"});
    if (sum != std::vector<double>{3.0, 6.0}) ok = false;
  });
  if (!ok) return 3;
#endif
  std::cout << "consumer ok\n";
  return 0;
}
