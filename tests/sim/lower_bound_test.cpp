// The lower bounds of plans/lower_bound.hpp hold for every registered algorithm on the
// simulated cluster: each rank, arriving at its own time, takes at least its bound from its
// arrival to its exit (allgather, allreduce, alltoall, bcast, gatherv, scatterv). A bound above a
// schedule the simulator runs would be no bound; the benchmarks divide by it (bound_ratio).
#include "plans/lower_bound.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "ragged/arrival.hpp"
#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/layout.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/registered.hpp"

namespace ragged {
namespace test_lower_bound_test {

namespace bound = plans::bound;

constexpr int tag_link = 20000;
constexpr std::size_t count = 4096;  // int32 per block: 16 KiB
constexpr double spread_s = 3e-3;

/// Rank r's delay: a permutation of P evenly spaced values in [0, spread).
double delay_of(int rank, int procs) { return static_cast<double>((rank * 5 + 3) % procs) / procs * spread_s; }

/// Every rank's arrival and exit, on every rank (through the ring allgather, outside the timed call).
std::vector<double> share(Comm& comm, double value) {
  std::vector<double> all(static_cast<std::size_t>(comm.size()));
  CollectiveOptions ring;
  ring.algorithm = "ring";
  allgather(comm, &value, all.data(), 1, DataType::float64, ring);
  return all;
}

using Param = std::tuple<std::string, std::string, int>;  // collective, algorithm, P

class LowerBoundHolds : public testing::TestWithParam<Param> {};

TEST_P(LowerBoundHolds, NoRankFinishesBeforeItsBound) {
  const std::string collective = std::get<0>(GetParam());
  const std::string name = std::get<1>(GetParam());
  const int procs = std::get<2>(GetParam());
  const auto p = static_cast<std::size_t>(procs);
  const int root = procs / 2;
  // gatherv/scatterv: uneven blocks, one of them empty.
  std::vector<int> counts(p);
  std::vector<int> displs(p);
  int total = 0;
  for (std::size_t i = 0; i < p; ++i) {
    counts[i] = i == 1 ? 0 : static_cast<int>(count / 2 + (i * 977) % count);
    displs[i] = total;
    total += counts[i];
  }
  sim::Config config;
  config.platform = "cluster-1gbe-48";
  config.procs = procs;
  int checked = 0;
  sim::run(config, [&](Comm& comm) {
    const int me = comm.rank();
    const LinkModel measured = measure_link(comm, tag_link);
    const bound::Link link{measured.alpha, measured.beta};
    CollectiveOptions options;
    options.algorithm = name;
    std::vector<std::int32_t> send(p * count, me);
    std::vector<std::int32_t> recv(p * count + static_cast<std::size_t>(total));
    barrier(comm);
    comm.runtime().sleep_for(delay_of(me, procs));
    const double arrival = comm.runtime().now();
    if (collective == "allgather") {
      allgather(comm, send.data(), recv.data(), count, DataType::int32, options);
    } else if (collective == "allreduce") {
      allreduce(comm, send.data(), recv.data(), count, DataType::int32, ReduceOp::sum(), options);
    } else if (collective == "alltoall") {
      alltoall(comm, send.data(), recv.data(), count, DataType::int32, options);
    } else if (collective == "bcast") {
      bcast(comm, send.data(), count, DataType::int32, root, options);
    } else if (collective == "gatherv") {
      gatherv(comm, send.data(), counts[static_cast<std::size_t>(me)], recv.data(), counts, displs, DataType::int32,
              root, options);
    } else {
      scatterv(comm, send.data(), counts, displs, recv.data(), counts[static_cast<std::size_t>(me)], DataType::int32,
               root, options);
    }
    const double elapsed = comm.runtime().now() - arrival;
    const std::vector<double> arrivals = share(comm, arrival);
    const double block = count * double{sizeof(std::int32_t)};
    std::vector<double> blocks(p);
    for (std::size_t i = 0; i < p; ++i) blocks[i] = counts[i] * double{sizeof(std::int32_t)};
    std::vector<double> b;
    if (collective == "allgather") b = bound::allgather(arrivals, block, link);
    if (collective == "allreduce") b = bound::allreduce(arrivals, block, link);
    if (collective == "alltoall") b = bound::alltoall(arrivals, block, link);
    if (collective == "bcast") b = bound::bcast(arrivals, root, block, link);
    if (collective == "gatherv") b = bound::gatherv(arrivals, root, blocks, link);
    if (collective == "scatterv") b = bound::scatterv(arrivals, root, blocks, link);
    const double mine = b[static_cast<std::size_t>(me)];
    if (elapsed < mine - 1e-9) {
      throw test::CheckFailed(collective + " " + name + " rank " + std::to_string(me) + ": elapsed " +
                              std::to_string(elapsed) + " s below its bound " + std::to_string(mine) + " s");
    }
    // The bound is not vacuous: every rank has to move at least one block.
    if (collective == "allgather" || collective == "allreduce" || collective == "alltoall" || collective == "bcast") {
      RAGGED_CHECK(mine > 0);
    }
    if (me == 0) ++checked;
  });
  EXPECT_EQ(checked, 1);
}

std::vector<Param> params() {
  std::vector<Param> out;
  const std::vector<std::pair<std::string, Collective>> collectives{
      {"allgather", Collective::allgather}, {"allreduce", Collective::allreduce}, {"alltoall", Collective::alltoall},
      {"bcast", Collective::bcast},         {"gatherv", Collective::gatherv},     {"scatterv", Collective::scatterv}};
  for (const auto& [text, c] : collectives) {
    for (const std::string& name : test::registered(c)) {
      for (int procs : {5, 8}) out.emplace_back(text, name, procs);
    }
  }
  return out;
}

std::string param_name(const testing::TestParamInfo<Param>& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param) + "_P" + std::to_string(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Registered, LowerBoundHolds, testing::ValuesIn(params()), param_name);

// The two-level bound (docs/bounds.md "Two levels") on a platform whose nodes hold several ranks:
// galileo-opa-16x4, P = 8 (two nodes of four) and P = 6 (four and two), every registered
// algorithm including the hierarchical ones, arrivals spread as above.
class TwoLevelBoundHolds : public testing::TestWithParam<Param> {};

TEST_P(TwoLevelBoundHolds, NoRankFinishesBeforeItsNodesCard) {
  const std::string collective = std::get<0>(GetParam());
  const std::string name = std::get<1>(GetParam());
  const int procs = std::get<2>(GetParam());
  const auto p = static_cast<std::size_t>(procs);
  const int root = procs - 1;
  sim::Config config;
  config.platform = "galileo-opa-16x4";
  config.procs = procs;
  int checked = 0;
  sim::run(config, [&](Comm& comm) {
    const int me = comm.rank();
    const std::shared_ptr<const NodeLayout> layout = layout_of(comm, Hints{});
    const std::shared_ptr<const NetworkModel> network = network_of(comm, Hints{});
    RAGGED_CHECK(network != nullptr);
    RAGGED_CHECK(!layout->flat());
    const LinkModel measured = measure_link(comm, tag_link);
    // No latency: a route inside a node may be quicker than the pair measured (ranks 0 and 1),
    // and a bound must stay below every route the simulator takes. The bytes still count.
    const bound::Link link{0.0, std::min(measured.beta, network->intra.beta)};
    const bound::Link card{0.0, network->inter.beta};
    CollectiveOptions options;
    options.algorithm = name;
    std::vector<std::int32_t> send(p * count, me);
    std::vector<std::int32_t> recv(p * count);
    barrier(comm);
    comm.runtime().sleep_for(delay_of(me, procs));
    const double arrival = comm.runtime().now();
    if (collective == "allgather") {
      allgather(comm, send.data(), recv.data(), count, DataType::int32, options);
    } else if (collective == "allreduce") {
      allreduce(comm, send.data(), recv.data(), count, DataType::int32, ReduceOp::sum(), options);
    } else if (collective == "alltoall") {
      alltoall(comm, send.data(), recv.data(), count, DataType::int32, options);
    } else {
      bcast(comm, send.data(), count, DataType::int32, root, options);
    }
    const double elapsed = comm.runtime().now() - arrival;
    const std::vector<double> arrivals = share(comm, arrival);
    const double block = count * double{sizeof(std::int32_t)};
    const std::span<const int> node(layout->node);
    std::vector<double> b;
    if (collective == "allgather") b = bound::two_level::allgather(arrivals, block, node, link, card);
    if (collective == "allreduce") b = bound::two_level::allreduce(arrivals, block, node, link, card);
    if (collective == "alltoall") b = bound::two_level::alltoall(arrivals, block, node, link, card);
    if (collective == "bcast") b = bound::two_level::bcast(arrivals, root, block, node, link, card);
    const double mine = b[static_cast<std::size_t>(me)];
    if (elapsed < mine - 1e-9) {
      throw test::CheckFailed(collective + " " + name + " rank " + std::to_string(me) + ": elapsed " +
                              std::to_string(elapsed) + " s below its two-level bound " + std::to_string(mine) + " s");
    }
    RAGGED_CHECK(mine > 0);
    if (me == 0) ++checked;
  });
  EXPECT_EQ(checked, 1);
}

std::vector<Param> two_level_params() {
  std::vector<Param> out;
  const std::vector<std::pair<std::string, Collective>> collectives{{"allgather", Collective::allgather},
                                                                    {"allreduce", Collective::allreduce},
                                                                    {"alltoall", Collective::alltoall},
                                                                    {"bcast", Collective::bcast}};
  for (const auto& [text, c] : collectives) {
    for (const std::string& name : test::registered(c)) {
      for (int procs : {6, 8}) out.emplace_back(text, name, procs);
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Registered, TwoLevelBoundHolds, testing::ValuesIn(two_level_params()), param_name);

}  // namespace test_lower_bound_test
}  // namespace ragged
