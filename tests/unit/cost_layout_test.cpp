// The cost models with layouts (src/core/plans/cost_model.hpp, docs/selection.md "Layouts"):
// with one rank per node and no network model every model gives exactly what it gave before
// layouts (a frozen copy: cost_model_before.hpp), over a grid of P and sizes; with ranks
// sharing a node, the steps that leave a node all at once pay for it.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cost_model_before.hpp"
#include "plans/cost_model.hpp"
#include "ragged/registry.hpp"
#include "support/cost_inputs.hpp"

namespace ragged {
namespace test_cost_layout_test {

namespace before = plans::cost_before;

struct Old {
  Collective collective;
  const char* name;
  double (*model)(const CostInput&);
};

/// Every listed model as it was, by (collective, name).
const std::vector<Old>& old_models() {
  static const std::vector<Old> models = {
      {Collective::allgather, "ring", before::allgather_ring},
      {Collective::allgather, "nex", before::allgather_nex},
      {Collective::allgather, "lnbc", before::allgather_lnbc},
      {Collective::allgather, "recursive_doubling", before::allgather_recursive_doubling},
      {Collective::allgather, "bruck", before::allgather_bruck},
      {Collective::allgather, "bdr", before::allgather_bdr},
      {Collective::allgather, "bgd", before::allgather_bgd},
      {Collective::allgather, "bslb", before::allgather_bslb},
      {Collective::allreduce, "ring", before::allreduce_ring},
      {Collective::allreduce, "rabenseifner", before::allreduce_rabenseifner},
      {Collective::allreduce, "recursive_doubling", before::allreduce_recursive_doubling},
      {Collective::allreduce, "pipelined_linear", before::allreduce_pipelined_linear},
      {Collective::allreduce, "slt", before::allreduce_slt},
      {Collective::allreduce, "prr", before::allreduce_prr},
      {Collective::allreduce, "prd", before::allreduce_prd},
      {Collective::allreduce, "reduce_bcast", before::allreduce_reduce_bcast},
      {Collective::bcast, "binomial", before::bcast_binomial},
      {Collective::bcast, "linear", before::bcast_linear},
      {Collective::bcast, "binomial_blocking", before::bcast_binomial_blocking},
      {Collective::bcast, "scatter_allgather", before::bcast_scatter_allgather},
      {Collective::bcast, "pipelined_chain", before::bcast_pipelined_chain},
      {Collective::bcast, "double_tree", before::bcast_double_tree},
      {Collective::reduce, "binomial", before::reduce_binomial},
      {Collective::gather, "linear", before::gather_linear},
      {Collective::gather, "binomial", before::gather_binomial},
      {Collective::scatter, "linear", before::scatter_linear},
      {Collective::scatter, "binomial", before::scatter_binomial},
      {Collective::gatherv, "traff", before::irregular_tree},
      {Collective::gatherv, "linear", before::irregular_linear},
      {Collective::scatterv, "traff", before::irregular_tree},
      {Collective::scatterv, "linear", before::irregular_linear},
      {Collective::alltoall, "linear", before::alltoall_linear},
      {Collective::alltoall, "pairwise", before::alltoall_pairwise},
      {Collective::alltoall, "bruck", before::alltoall_bruck},
      {Collective::alltoallv, "linear", before::irregular_linear},
  };
  return models;
}

/// Models that came with layouts or after them: the one-sided ring's, the node-aware algorithms'
/// (they run only where some node holds two ranks or more), allgather and allreduce early_late's, and the rooted
/// collectives' arrival-aware ones (bcast and reduce sorted_chain, scatter sln, gather and scatter sbn), and the
/// sorted gathers' (sls, bsls), which since weigh what the root does before the latest rank arrives, and
/// the prefix reductions' (scan, exscan), reduce_scatter_block's, allgatherv's, reduce_scatter's and
/// alltoallw's and the spreading and leader_pipeline allgathers', which came after.
bool new_model(Collective c, const std::string& name) {
  return (c == Collective::allreduce && name == "onesided_ring") || name.rfind("hierarchical", 0) == 0 ||
         (c == Collective::allgather && name == "lanes") || (c == Collective::allgather && name == "early_late") ||
         (c == Collective::allreduce && name == "early_late") ||
         (c == Collective::allgather && (name == "spreading" || name == "leader_pipeline")) || name == "sorted_chain" ||
         (c == Collective::reduce && name == "pipelined_chain") || (c == Collective::scatter && name == "sln") ||
         name == "sbn" || (c == Collective::gather && (name == "sls" || name == "bsls")) || c == Collective::scan ||
         c == Collective::exscan || c == Collective::reduce_scatter_block || c == Collective::allgatherv ||
         c == Collective::reduce_scatter || c == Collective::alltoallw;
}

TEST(CostLayout, OneRankPerNodeWithoutNetworkGivesExactlyTheEarlierFigures) {
  const std::vector<int> procs = {1, 2, 3, 4, 5, 7, 8, 12, 16, 28, 31, 32, 48, 60, 64, 100, 128, 255, 256, 560};
  const std::vector<double> bytes = {0, 1, 4, 8, 100, 1000, 4096, 65536, 100000, 1 << 20, 16 << 20};
  struct Link {
    double alpha, beta, gamma;
  };
  const std::vector<Link> links = {{50e-6, 1 / 117.5e6, 0.25e-9}, {1.7e-6, 1 / 3.2e9, 0.25e-9}, {1e-3, 1e-9, 0}};
  int compared = 0;
  for (const Algorithm* a : Registry::instance().all()) {
    if (a->cost == nullptr) continue;
    const Old* old = nullptr;
    for (const Old& o : old_models()) {
      if (o.collective == a->collective && a->name == o.name) old = &o;
    }
    if (old == nullptr) {
      EXPECT_TRUE(new_model(a->collective, a->name))
          << name_of(a->collective) << " " << a->name << " has no earlier figure";
      continue;
    }
    for (const int p : procs) {
      for (const double m : bytes) {
        for (const Link& l : links) {
          for (const double omega : {0.0, 1e-3}) {
            CostInput x;
            x.procs = p;
            x.bytes = m;
            x.alpha = l.alpha;
            x.beta = l.beta;
            x.gamma = l.gamma;
            x.omega = omega;
            x.omega_last = omega;  // one late rank, the others together
            const double was = old->model(x);
            EXPECT_EQ(a->cost(x), was) << name_of(a->collective) << " " << a->name << " P=" << p << " m=" << m;
            x.nodes = p;  // a layout of one rank per node, as dispatch fills it
            x.per_node = 1;
            EXPECT_EQ(a->cost(x), was) << name_of(a->collective) << " " << a->name << " P=" << p << " m=" << m
                                       << " with a flat layout";
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 10000);
}

using test::qdr;

// Nodes of consecutive ranks that are not all full (63 ranks: 16 + 16 + 16 + 15, as the early
// ranks of a 64-rank call without one late rank): a ring step still leaves each node through one
// rank, so the ring's reduce-scatter stays the cheapest, as on 64 (measured at P = 63 on
// infiniband-qdr-560, 1 MiB: ring 1.107 ms, recursive halving 3.691, pairwise 6.622). Counting
// every rank off-node, as for ranks dealt round-robin, made `auto` pick recursive halving.
TEST(CostLayout, UnevenConsecutiveNodesKeepTheRingsOneCrossingANode) {
  CostInput x = qdr(63, 1 << 20);
  x.regular_layout = false;
  x.largest = std::ceil(x.bytes / 63);
  ASSERT_TRUE(x.consecutive_layout);
  EXPECT_LT(plans::cost::reduce_scatter_ring(x), plans::cost::reduce_scatter_recursive_halving(x));
  EXPECT_LT(plans::cost::reduce_scatter_ring(x), plans::cost::reduce_scatter_pairwise(x));
  EXPECT_EQ(plans::cost::off_shift(x, 1), 1);
  CostInput dealt = x;
  dealt.consecutive_layout = false;
  EXPECT_EQ(plans::cost::off_shift(dealt, 1), 16);
  EXPECT_GT(plans::cost::reduce_scatter_ring(dealt), 4 * plans::cost::reduce_scatter_ring(x));
}

TEST(CostLayout, RecursiveHalvingPaysForSixteenRanksOnOneCard) {
  // 560 ranks, 1 MiB: the halving's first steps move half the vector from every rank of a node
  // through its card at once; the ring crosses a card with one stream. The flat models say the
  // opposite.
  const CostInput x = qdr(560, 1 << 20);
  EXPECT_LT(plans::cost::allreduce_ring(x), plans::cost::allreduce_rabenseifner(x));
  EXPECT_LT(plans::cost::allreduce_ring(x), plans::cost::allreduce_recursive_doubling(x));
  CostInput flat = x;
  flat.nodes = 0;
  flat.per_node = 1;
  flat.gap = 0;
  EXPECT_GT(plans::cost::allreduce_ring(flat), plans::cost::allreduce_rabenseifner(flat));
}

TEST(CostLayout, OffNodeCountsOnConsecutiveRanks) {
  CostInput x = qdr(64, 1024);                 // 4 nodes of 16
  EXPECT_EQ(plans::cost::off_shift(x, 1), 1);  // the ring: one stream per card
  EXPECT_EQ(plans::cost::off_shift(x, 5), 5);
  EXPECT_EQ(plans::cost::off_shift(x, 16), 16);
  EXPECT_EQ(plans::cost::off_shift(x, 63), 1);  // to the previous rank
  EXPECT_EQ(plans::cost::off_xor(x, 8), 0);     // inside the node
  EXPECT_EQ(plans::cost::off_xor(x, 16), 16);   // every rank at once
  EXPECT_EQ(plans::cost::off_binomial(x, 4), 0);
  EXPECT_EQ(plans::cost::off_binomial(x, 32), 1);
  x.regular_layout = false;  // ranks dealt round-robin: every partner may be elsewhere
  x.consecutive_layout = false;
  EXPECT_EQ(plans::cost::off_shift(x, 1), 16);
  // one node: nothing leaves it
  const CostInput one = qdr(16, 1 << 20);
  EXPECT_DOUBLE_EQ(plans::cost::layered_step(one, 1000, 16), std::max(0.5e-6 + 1000 / 3.2e9, 0.5e-6));
}

/// The namespace testbed's 4 hosts x 2 ranks (tools/testbed/calibrated/hosts-4x2-100mbit.xml):
/// 100 Mbit/s per host, loopback TCP inside one, exchanges at 0.71 of the rate from 64 KiB on.
CostInput testbed_4x2(double bytes) {
  CostInput x;
  x.procs = 8;
  x.bytes = bytes;
  x.alpha = 1.625e-4;
  x.beta = 1 / 12161585.7;
  x.gamma = 0.25e-9;
  x.nodes = 4;
  x.per_node = 2;
  x.alpha_intra = 150e-6;
  x.beta_intra = 1 / 1.08e9;
  x.exchange_factor = 0.709638;
  x.eager_limit = 65536;
  return x;
}

TEST(CostLayout, ExchangesPayTheExchangeFactorFromTheEagerLimitOn) {
  const CostInput x = testbed_4x2(1 << 20);
  CostInput one_way = x;
  one_way.exchange_factor = 1;
  // recursive halving and doubling exchange; the ring does not
  EXPECT_GT(plans::cost::allreduce_rabenseifner(x), plans::cost::allreduce_rabenseifner(one_way));
  EXPECT_EQ(plans::cost::allreduce_ring(x), plans::cost::allreduce_ring(one_way));
  // Bruck's step at distance P/2 exchanges with one partner: 128 KiB blocks, 4 of them
  const CostInput ag = testbed_4x2(128 * 1024);
  CostInput ag_one_way = ag;
  ag_one_way.exchange_factor = 1;
  const double last = plans::cost::layered_step(ag, 4 * 128 * 1024, plans::cost::off_shift(ag, 4));
  EXPECT_NEAR(plans::cost::allgather_bruck(ag) - plans::cost::allgather_bruck(ag_one_way),
              plans::cost::layered_step(ag, 4 * 128 * 1024, plans::cost::off_shift(ag, 4), 1 / 0.709638) - last, 1e-12);
  // below the eager limit nothing changes
  const CostInput small = testbed_4x2(8 * 1024);
  CostInput small_one_way = small;
  small_one_way.exchange_factor = 1;
  EXPECT_EQ(plans::cost::allreduce_recursive_doubling(small), plans::cost::allreduce_recursive_doubling(small_one_way));
}

TEST(CostLayout, TestbedFourByTwoPrefersTheNodeAwareAlgorithmsWithARingBetweenHosts) {
  // Measured on that testbed and its calibrated simulation (docs/reproduction.md, "Deep
  // clusters"): allreduce hierarchical 134 ms against the ring's 156, the leaders' ring 6
  // steps; rabenseifner 367, prr 156 at max delay 0 and 308 under randlate.
  const CostInput x = testbed_4x2(1 << 20);
  const CostInput leaders = plans::cost::inter_node(x, x.bytes);
  EXPECT_EQ(plans::cost::allreduce_selected(leaders), plans::cost::allreduce_ring(leaders));
  EXPECT_LT(plans::cost::allreduce_hierarchical(x), plans::cost::allreduce_ring(x));
  EXPECT_LT(plans::cost::allreduce_ring(x), plans::cost::allreduce_rabenseifner(x));
  // prr's partners follow the arrival order, so both ranks of a host may send at once
  CostInput late = x;
  late.omega = late.omega_last = 0.03;
  CostInput flat = late;
  flat.nodes = 0;
  flat.per_node = 1;
  EXPECT_GT(plans::cost::allreduce_prr(late), plans::cost::allreduce_prr(flat));
  // allgather of 128 KiB blocks: the leaders' allgather of 256 KiB runs the ring, not Bruck
  const CostInput ag = testbed_4x2(128 * 1024);
  const CostInput ag_leaders = plans::cost::inter_node(ag, 2 * ag.bytes);
  EXPECT_EQ(plans::cost::allgather_selected(ag_leaders), plans::cost::allgather_ring(ag_leaders));
  EXPECT_LT(plans::cost::allgather_hierarchical(ag), plans::cost::allgather_ring(ag));
}

TEST(CostLayout, OneSidedRingHasAModelAndIsListedWithIt) {
  const Algorithm& a = Registry::instance().find(Collective::allreduce, "onesided_ring");
  ASSERT_NE(a.cost, nullptr);
  const CostInput x = qdr(560, 1 << 20);
  // no rank waits for its right neighbour: the path's latency is mostly the node's
  EXPECT_LT(a.cost(x), plans::cost::allreduce_ring(x));
  EXPECT_EQ(plans::cost::allreduce_onesided_ring(qdr(1, 1 << 20)), 0);
}

}  // namespace test_cost_layout_test
}  // namespace ragged
