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

/// Rank r's element j: unique across the ranks and elements of these tests (P * count < 65536).
std::int32_t value(int rank, std::size_t j) { return rank * 65536 + static_cast<std::int32_t>(j); }

/// One collective call, shaped by the test: gatherv and scatterv use counts/displs, the others
/// `count` elements per block.
struct Call {
  std::string collective;
  std::string algorithm;
  int root = 0;
  std::vector<int> counts;
  std::vector<int> displs;
};

/// Runs `call` after this rank's delay on rank-unique data and checks every received element
/// exactly; returns this rank's arrival time and the seconds from its arrival to its exit.
std::pair<double, double> run_checked(Comm& comm, const Call& call) {
  const int me = comm.rank();
  const auto p = static_cast<std::size_t>(comm.size());
  const auto mine = static_cast<std::size_t>(me);
  std::size_t total = 0;
  for (int c : call.counts) total += static_cast<std::size_t>(c);
  const std::size_t length = std::max(p * count, total);
  std::vector<std::int32_t> send(length);
  for (std::size_t j = 0; j < length; ++j) send[j] = value(me, j);
  std::vector<std::int32_t> recv(length, -1);
  CollectiveOptions options;
  options.algorithm = call.algorithm;
  const std::string& c = call.collective;
  barrier(comm);
  comm.runtime().sleep_for(delay_of(me, comm.size()));
  const double arrival = comm.runtime().now();
  if (c == "allgather") {
    allgather(comm, send.data(), recv.data(), count, DataType::int32, options);
  } else if (c == "allreduce") {
    allreduce(comm, send.data(), recv.data(), count, DataType::int32, ReduceOp::sum(), options);
  } else if (c == "alltoall") {
    alltoall(comm, send.data(), recv.data(), count, DataType::int32, options);
  } else if (c == "bcast") {
    bcast(comm, send.data(), count, DataType::int32, call.root, options);
  } else if (c == "gatherv") {
    gatherv(comm, send.data(), call.counts[mine], recv.data(), call.counts, call.displs, DataType::int32, call.root,
            options);
  } else {
    scatterv(comm, send.data(), call.counts, call.displs, recv.data(), call.counts[mine], DataType::int32, call.root,
             options);
  }
  const double elapsed = comm.runtime().now() - arrival;
  const auto expect = [&](bool ok, std::size_t at) {
    if (!ok) {
      throw test::CheckFailed(c + " " + call.algorithm + " rank " + std::to_string(me) + ": wrong element " +
                              std::to_string(at));
    }
  };
  for (std::size_t j = 0; j < count && c != "gatherv" && c != "scatterv"; ++j) {
    for (std::size_t r = 0; r < p; ++r) {
      if (c == "allgather") expect(recv[r * count + j] == value(static_cast<int>(r), j), r * count + j);
      if (c == "alltoall") expect(recv[r * count + j] == value(static_cast<int>(r), mine * count + j), r * count + j);
    }
    if (c == "allreduce") {
      std::int32_t sum = 0;
      for (std::size_t r = 0; r < p; ++r) sum += value(static_cast<int>(r), j);
      expect(recv[j] == sum, j);
    }
    if (c == "bcast") expect(send[j] == value(call.root, j), j);
  }
  if (c == "gatherv" && me == call.root) {
    for (std::size_t r = 0; r < p; ++r) {
      const auto at = static_cast<std::size_t>(call.displs[r]);
      for (std::size_t j = 0; j < static_cast<std::size_t>(call.counts[r]); ++j) {
        expect(recv[at + j] == value(static_cast<int>(r), j), at + j);
      }
    }
  }
  if (c == "scatterv") {
    const auto at = static_cast<std::size_t>(call.displs[mine]);
    for (std::size_t j = 0; j < static_cast<std::size_t>(call.counts[mine]); ++j) {
      expect(recv[j] == value(call.root, at + j), j);
    }
  }
  return {arrival, elapsed};
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
  const Call call{collective, name, root, counts, displs};
  int checked = 0;
  sim::run(config, [&](Comm& comm) {
    const int me = comm.rank();
    const LinkModel measured = measure_link(comm, tag_link);
    const bound::Link link{measured.alpha, measured.beta};
    const auto [arrival, elapsed] = run_checked(comm, call);
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
    const auto [arrival, elapsed] = run_checked(comm, Call{collective, name, root, {}, {}});
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
    // The mean with each node's memory (its backbone, 40 GB/s on galileo) below the mean elapsed.
    RAGGED_CHECK(network->node_bandwidth > 0);
    const double node_beta = 1 / network->node_bandwidth;
    double with_memory = 0;
    if (collective == "allgather")
      with_memory = bound::two_level::allgather_mean(arrivals, block, node, link, card, node_beta);
    if (collective == "allreduce")
      with_memory = bound::two_level::allreduce_mean(arrivals, block, node, link, card, node_beta);
    if (collective == "alltoall")
      with_memory = bound::two_level::alltoall_mean(arrivals, block, node, link, card, node_beta);
    if (collective == "bcast")
      with_memory = bound::two_level::bcast_mean(arrivals, root, block, node, link, card, node_beta);
    const double mean_elapsed = bound::mean(share(comm, elapsed));
    if (mean_elapsed < with_memory - 1e-9) {
      throw test::CheckFailed(collective + " " + name + ": mean elapsed " + std::to_string(mean_elapsed) +
                              " s below the node-memory mean bound " + std::to_string(with_memory) + " s");
    }
    RAGGED_CHECK(with_memory >= bound::mean(b) - 1e-12);
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
