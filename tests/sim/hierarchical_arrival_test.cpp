// allreduce "hierarchical_arrival" on the sim backend, forced, over node layouts passed as a
// NodeLayout hint (one rank per node, one node, 2 to 4 consecutive ranks per node, ranks dealt
// round-robin to 3 nodes, the uneven 3+5+2 and 1+4+2+3) and arrival snapshots passed as hints:
// none, balanced, one late rank (rank 0, the middle one, the last one, each in its own node), a
// late rank with a second late one on its node, random arrivals (distinct, and with many ties),
// and a snapshot that names the wrong rank late. The ranks sleep their snapshot's delay before
// each call, so the arrivals are those the snapshot predicts (the wrong one's excepted). P from 1
// to 16, counts 0, 1, odd and large, int32 and float64, in place and not; data never repeat across
// ranks (rank r's element i is 1000 r + i % 997 + 1). Where the layout has two nodes or more and a
// node of two ranks or more, the algorithm itself must run, else its fallback (prr); and through a
// counting Comm, the ranks that send between nodes must be exactly one per node: its latest by the
// snapshot (the lowest rank among equals) when the snapshot is imbalanced, its leader otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "plans/hierarchy_plan.hpp"
#include "ragged/arrival.hpp"
#include "ragged/collectives.hpp"
#include "ragged/counting_comm.hpp"
#include "ragged/layout.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "ragged/topology.hpp"
#include "support/check.hpp"
#include "support/matrix_op.hpp"
#include "support/patterns.hpp"
#include "support/sim_sweep.hpp"

namespace ragged {
namespace test_hierarchical_arrival_test {

using Bytes = std::vector<std::byte>;

constexpr std::byte fill{0x5A};
constexpr std::size_t guard = 32;
/// cluster-1gbe-48's link (tests/sim/arrival_test.cpp): 50 us, 119.5 MB/s.
const LinkModel platform_link{50e-6, 1.0 / 119.5e6};

std::int64_t value(int rank, std::size_t i) {
  return 1000 * std::int64_t{rank} + static_cast<std::int64_t>(i % 997) + 1;
}

Bytes data_of(DataType type, int rank, std::size_t count) {
  return test::make_buffer(type, count, [rank](std::size_t i) { return value(rank, i); });
}

struct Layout {
  std::string name;
  NodeLayout layout;
};

std::vector<Layout> layouts_for(int procs) {
  std::vector<Layout> out;
  out.push_back({"flat", NodeLayout::one_per_node(procs)});
  out.push_back({"one_node", NodeLayout::parse(std::to_string(procs), procs)});
  for (int m = 2; m <= 4; ++m) {
    if (m < procs) out.push_back({"by" + std::to_string(m), NodeLayout::parse(std::to_string(m), procs)});
  }
  if (procs > 3) {
    std::vector<int> dealt;
    for (int r = 0; r < procs; ++r) dealt.push_back(r % 3);
    out.push_back({"round_robin3", NodeLayout::from_list(dealt)});
  }
  if (procs == 10) {
    const std::vector<int> a{3, 5, 2};
    const std::vector<int> b{1, 4, 2, 3};
    out.push_back({"3+5+2", NodeLayout::from_sizes(a)});
    out.push_back({"1+4+2+3", NodeLayout::from_sizes(b)});
  }
  return out;
}

bool pays(const NodeLayout& l) { return l.nodes() >= 2 && l.max_per_node() >= 2; }

/// An arrival pattern: the snapshot's arrivals (none: no snapshot) and the delays the ranks sleep.
struct Pattern {
  std::string name;
  std::vector<double> predicted;  ///< empty: no snapshot
  std::vector<double> delays;
};

std::vector<Pattern> patterns_for(int procs, const NodeLayout& layout) {
  const auto p = static_cast<std::size_t>(procs);
  const std::vector<double> zero(p, 0.0);
  std::vector<Pattern> out;
  out.push_back({"none", {}, zero});
  out.push_back({"balanced", zero, zero});
  std::vector<int> late_ranks{0, procs / 2, procs - 1};
  late_ranks.erase(std::unique(late_ranks.begin(), late_ranks.end()), late_ranks.end());
  for (const int late : late_ranks) {
    std::vector<double> a = zero;
    a[static_cast<std::size_t>(late)] = 2e-3;
    out.push_back({"late" + std::to_string(late), a, a});
  }
  {  // the last rank late, and the lowest other rank of its node late too (phase 1a's root)
    std::vector<double> a = zero;
    a[p - 1] = 2e-3;
    for (int r = 0; r + 1 < procs; ++r) {
      if (layout.node[static_cast<std::size_t>(r)] == layout.node[p - 1]) {
        a[static_cast<std::size_t>(r)] = 1.5e-3;
        break;
      }
    }
    out.push_back({"late_pair", a, a});
  }
  std::mt19937 rng(static_cast<unsigned>(1000 * procs + layout.nodes()));
  std::vector<double> random(p);
  for (double& d : random) d = std::uniform_real_distribution<double>(0, 2e-3)(rng);
  out.push_back({"random", random, random});
  std::vector<double> ties(p);
  for (double& d : ties) d = static_cast<double>(rng() % 3) * 1e-3;
  out.push_back({"random_ties", ties, ties});
  {  // the snapshot says rank 0 is late; rank P-1 is
    std::vector<double> said = zero;
    std::vector<double> real = zero;
    said[0] = 2e-3;
    real[p - 1] = 2e-3;
    out.push_back({"wrong", said, real});
  }
  return out;
}

std::vector<std::size_t> counts_for(int procs) { return {0, 1, 7, static_cast<std::size_t>(2 * procs + 1), 10007}; }

constexpr DataType types[] = {DataType::int32, DataType::float64};

void check_equal(const Bytes& got, const Bytes& want, std::size_t n, const std::string& what) {
  if (n != 0 && std::memcmp(got.data(), want.data(), n) != 0) throw test::CheckFailed(what + ": wrong result");
  for (std::size_t i = n; i < got.size(); ++i) {
    if (got[i] != fill) throw test::CheckFailed(what + ": wrote past the end");
  }
}

/// The ranks that must send between nodes: each node's latest by the snapshot when it is
/// imbalanced for this call, its leader otherwise.
std::vector<int> expected_representatives(const NodeLayout& layout, const ArrivalSnapshot* snapshot,
                                          std::size_t bytes) {
  const plans::hierarchy::Split split = plans::hierarchy::split(layout.node);
  const std::size_t segment = std::max<std::size_t>(1, bytes / static_cast<std::size_t>(layout.size()));
  if (snapshot == nullptr || snapshot->balanced(segment)) return plans::hierarchy::representatives(split);
  const std::vector<double> at(snapshot->arrivals().begin(), snapshot->arrivals().end());
  return plans::hierarchy::latest_representatives(split, at);
}

class HierarchicalArrival : public testing::TestWithParam<int> {};

TEST_P(HierarchicalArrival, AllreduceSumsExactlyOnEveryLayoutAndArrivalPattern) {
  const int procs = GetParam();
  const AllreduceFn fn = Registry::instance().allreduce("hierarchical_arrival");
  for (const Layout& l : layouts_for(procs)) {
    const std::vector<Pattern> patterns = patterns_for(procs, l.layout);
    test::simulate(procs, [&](Comm& world) {
      // Counts the sends between nodes (a ClusterLayout needs two clusters: one node counts nothing).
      std::unique_ptr<CountingComm> counting;
      if (l.layout.nodes() >= 2) {
        counting = std::make_unique<CountingComm>(
            world, std::make_shared<const ClusterLayout>(ClusterLayout::from_list(l.layout.node)));
      }
      Comm& comm = counting ? static_cast<Comm&>(*counting) : world;
      const int me = comm.rank();
      Runtime& rt = comm.runtime();
      const std::string want_name = pays(l.layout) ? "hierarchical_arrival" : "prr";
      for (const Pattern& pattern : patterns) {
        CollectiveOptions o = test::sweep_options();
        o.hints.set(std::make_shared<const NodeLayout>(l.layout));
        std::shared_ptr<const ArrivalSnapshot> snapshot;
        if (!pattern.predicted.empty()) {
          snapshot = std::make_shared<const ArrivalSnapshot>(pattern.predicted, platform_link, 0);
          o.hints.set(snapshot);
        }
        for (const std::size_t count : counts_for(procs)) {
          for (const DataType type : types) {
            const std::size_t n = count * size_of(type);
            const Bytes want = test::make_buffer(type, count, [&](std::size_t i) {
              std::int64_t s = 0;
              for (int r = 0; r < procs; ++r) s += value(r, i);
              return s;
            });
            const std::vector<int> reps = expected_representatives(l.layout, snapshot.get(), n);
            const bool rep = std::find(reps.begin(), reps.end(), me) != reps.end();
            for (const bool inplace : {false, true}) {
              const std::string what = "allreduce " + l.name + " " + pattern.name + " P=" + std::to_string(procs) +
                                       " rank " + std::to_string(me) + " count " + std::to_string(count) + " " +
                                       name_of(type) + (inplace ? " in place" : "");
              const Bytes mine = data_of(type, me, count);
              Bytes recv(n + guard, fill);
              if (inplace && n > 0) std::memcpy(recv.data(), mine.data(), n);
              rt.sleep_for(pattern.delays[static_cast<std::size_t>(me)]);
              if (counting) counting->reset();
              const Algorithm& ran =
                  fn(comm, inplace ? in_place : mine.data(), recv.data(), count, type, ReduceOp::sum(), o);
              if (ran.name != want_name)
                throw test::CheckFailed(what + ": ran " + ran.name + ", expected " + want_name);
              check_equal(recv, want, n, what);
              if (pays(l.layout) && count > 0) {
                const bool crossed = counting->backbone().messages > 0;
                if (crossed != rep) {
                  throw test::CheckFailed(what + (rep ? ": a representative sent nothing between nodes"
                                                      : ": sent between nodes, but is not its node's representative"));
                }
              }
            }
          }
        }
        // max as well: a commutative operator other than sum
        const std::size_t count = 33;
        const Bytes mine = data_of(DataType::int64, me, count);
        Bytes recv(count * 8 + guard, fill);
        (void)fn(comm, mine.data(), recv.data(), count, DataType::int64, ReduceOp::max(), o);
        check_equal(recv, data_of(DataType::int64, procs - 1, count), count * 8,
                    "allreduce max " + l.name + " " + pattern.name);
      }
    });
  }
}

// A non-commutative operator runs reduce_bcast (through prr's fallback on every layout), in rank
// order, whatever the snapshot says.
TEST_P(HierarchicalArrival, NonCommutativeFallsBackInRankOrder) {
  const int procs = GetParam();
  const ReduceOp op = test::matrix_product();
  const std::vector<std::int32_t> want = test::rank_order_product(procs, 5);
  for (const Layout& l : layouts_for(procs)) {
    test::simulate(procs, [&](Comm& comm) {
      CollectiveOptions o = test::sweep_options();
      o.hints.set(std::make_shared<const NodeLayout>(l.layout));
      std::vector<double> late(static_cast<std::size_t>(procs), 0.0);
      late.back() = 2e-3;
      o.hints.set(std::make_shared<const ArrivalSnapshot>(late, platform_link, 0));
      const std::vector<std::int32_t> mine = test::matrices_of(comm.rank(), 5);
      std::vector<std::int32_t> got(mine.size());
      const Algorithm& ran = Registry::instance().allreduce("hierarchical_arrival")(comm, mine.data(), got.data(),
                                                                                    got.size(), DataType::int32, op, o);
      RAGGED_CHECK_EQ(ran.name, std::string("reduce_bcast"));
      RAGGED_CHECK(got == want);
    });
  }
}

std::vector<int> procs_list() {
  std::vector<int> out;
  for (int p = 1; p <= 16; ++p) out.push_back(p);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Layouts, HierarchicalArrival, testing::ValuesIn(procs_list()),
                         [](const testing::TestParamInfo<int>& info) { return "P" + std::to_string(info.param); });

}  // namespace test_hierarchical_arrival_test
}  // namespace ragged
