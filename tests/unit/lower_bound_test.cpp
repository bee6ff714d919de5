// The per-rank lower bounds (plans/lower_bound.hpp): formula (1) against a brute-force search of
// every schedule of whole messages on one link, and each collective's bound on cases worked by hand.
#include "plans/lower_bound.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace test_lower_bound_test {

namespace bound = ragged::plans::bound;

namespace {

/// The best schedule of whole messages on one link: every order of the transfers, cut into
/// consecutive messages in every way; a message starts once the link is free and its last
/// transfer is released, and takes alpha + beta * its bytes.
double brute_force(const std::vector<bound::Transfer>& t, bound::Link link) {
  std::vector<std::size_t> order(t.size());
  std::iota(order.begin(), order.end(), 0);
  double best = std::numeric_limits<double>::infinity();
  const std::size_t cuts = t.empty() ? 0 : t.size() - 1;
  do {
    for (unsigned mask = 0; mask < (1u << cuts); ++mask) {  // bit k: a message ends after order[k]
      double free_at = -std::numeric_limits<double>::infinity();
      double release = -std::numeric_limits<double>::infinity();
      double bytes = 0;
      for (std::size_t k = 0; k < order.size(); ++k) {
        release = std::max(release, t[order[k]].release_s);
        bytes += t[order[k]].bytes;
        if (k + 1 == order.size() || (mask >> k) & 1u) {
          free_at = std::max(free_at, release) + link.alpha + link.beta * bytes;
          release = -std::numeric_limits<double>::infinity();
          bytes = 0;
        }
      }
      best = std::min(best, free_at);
    }
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

TEST(LowerBound, LinkFinishAgainstBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> release(0, 10);
  std::uniform_int_distribution<int> bytes(1, 5);
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 1 + trial % 5;
    std::vector<bound::Transfer> t;
    for (int k = 0; k < n; ++k) {
      // Some releases shared, as when several ranks arrive together.
      const double r = trial % 3 == 0 ? std::floor(release(rng) / 4) : release(rng);
      t.push_back({r, static_cast<double>(bytes(rng))});
    }
    const bound::Link no_latency{0, 0.7};
    // Without latency formula (1) is the optimum: send in release order.
    EXPECT_NEAR(bound::link_finish(t, no_latency), brute_force(t, no_latency), 1e-9) << "trial " << trial;
    // With it, a bound below the best schedule, by at most alpha per message but the first.
    const bound::Link link{0.5 * (trial % 4), 0.7};
    const double b = bound::link_finish(t, link);
    const double opt = brute_force(t, link);
    EXPECT_LE(b, opt + 1e-9) << "trial " << trial;
    EXPECT_GE(b, opt - link.alpha * (n - 1) - 1e-9) << "trial " << trial;
  }
}

TEST(LowerBound, LinkFinishIgnoresEmptyTransfers) {
  const bound::Link link{1, 1};
  EXPECT_EQ(bound::link_finish({}, link), -std::numeric_limits<double>::infinity());
  const std::vector<bound::Transfer> empty{{5, 0}, {7, 0}};
  EXPECT_EQ(bound::link_finish(empty, link), -std::numeric_limits<double>::infinity());
  const std::vector<bound::Transfer> one{{5, 0}, {2, 3}};
  EXPECT_DOUBLE_EQ(bound::link_finish(one, link), 2 + 1 + 3);
}

TEST(LowerBound, AllgatherBalancedIsTheReceivingLink) {
  const bound::Link link{1, 0.5};
  const std::vector<double> a(4, 2.0);
  for (double e : bound::allgather(a, 10, link)) EXPECT_DOUBLE_EQ(e, 1 + 0.5 * 30);
  EXPECT_DOUBLE_EQ(bound::allgather(std::vector<double>{3.0}, 10, link)[0], 0);
}

TEST(LowerBound, AllgatherOneLate) {
  // Rank 2 arrives at 100: it must still receive 3 blocks after it arrives; the others need
  // its block after 100, and had the rest before.
  const bound::Link link{1, 1};
  const std::vector<double> a{0, 0, 100, 0};
  const std::vector<double> e = bound::allgather(a, 10, link);
  EXPECT_DOUBLE_EQ(e[2], 1 + 30);
  for (int i : {0, 1, 3}) EXPECT_DOUBLE_EQ(e[static_cast<std::size_t>(i)], 100 + 1 + 10);
  EXPECT_DOUBLE_EQ(bound::mean(e), (31 + 3 * 111) / 4.0);
}

TEST(LowerBound, AllgatherSpreadArrivalsCountEveryBlockAfterTheArrival) {
  // Rank 0 arrives first and receives the others' blocks as they come: the later ones queue.
  const bound::Link link{0, 1};
  const std::vector<double> a{0, 1, 2, 3};
  const std::vector<double> e = bound::allgather(a, 5, link);
  EXPECT_DOUBLE_EQ(e[0], 16);  // 15 bytes released from 1 on: 1 + 15
  EXPECT_DOUBLE_EQ(e[3], 15);  // everything after its own arrival
}

TEST(LowerBound, AllreduceNeedsTheWholeVectorAfterTheLatestOther) {
  const bound::Link link{1, 1};
  const std::vector<double> a{0, 4, 0};
  const std::vector<double> e = bound::allreduce(a, 8, link);
  EXPECT_DOUBLE_EQ(e[0], 4 + 1 + 8);
  EXPECT_DOUBLE_EQ(e[1], 1 + 8);
  EXPECT_DOUBLE_EQ(e[2], 4 + 1 + 8);
}

TEST(LowerBound, BcastWaitsForTheRoot) {
  const bound::Link link{1, 1};
  const std::vector<double> a{0, 6, 2};
  const std::vector<double> e = bound::bcast(a, 1, 10, link);
  EXPECT_DOUBLE_EQ(e[0], 6 + 1 + 10);  // the root's data exists from 6 on
  EXPECT_DOUBLE_EQ(e[1], 1 + 10);      // the root sends it once
  EXPECT_DOUBLE_EQ(e[2], 4 + 1 + 10);
}

// A transfer with a latency of its own (a message across a backbone) is ready that much later;
// the link carries whatever is ready first meanwhile.
TEST(LowerBound, LinkFinishCountsEachTransfersLatency) {
  const bound::Link link{1, 1};
  const std::vector<bound::Transfer> mixed{{0, 10, -1}, {0, 10, 100}};
  EXPECT_DOUBLE_EQ(bound::link_finish(mixed, link), 100 + 10);  // not 100 + 20: the local one went first
  const std::vector<bound::Transfer> near{{0, 10, -1}, {0, 10, 5}};
  EXPECT_DOUBLE_EQ(bound::link_finish(near, link), 1 + 20);  // both wait for the link
  const std::vector<bound::Transfer> late{{50, 10, -1}, {0, 10, 30}};
  EXPECT_DOUBLE_EQ(bound::link_finish(late, link), 50 + 1 + 10);
}

// Two clusters of two: rank 0 takes its cluster-mate's block after the local latency and the two
// across the backbone after its latency. The bound with the backbone's latency on every message
// (what two-cluster charged before) is above it: no bound where local blocks arrive meanwhile.
TEST(LowerBound, AlltoallBetweenClustersChargesTheBackboneLatencyOnlyAcrossIt) {
  const bound::Link link{1, 1};
  const std::vector<double> a(4, 0.0);
  const std::vector<std::vector<double>> bytes(4, std::vector<double>(4, 10));
  const std::vector<int> cluster{0, 0, 1, 1};
  const std::vector<std::vector<double>> latency{{1, 100}, {100, 1}};
  const std::vector<double> e = bound::alltoallv_clusters(a, bytes, cluster, latency, link);
  for (const double x : e) EXPECT_DOUBLE_EQ(x, 100 + 20);
  EXPECT_DOUBLE_EQ(bound::alltoallv(a, bytes, bound::Link{100, 1})[0], 130);
  EXPECT_DOUBLE_EQ(bound::alltoallv(a, bytes, link)[0], 31);
  // One cluster: the one-link bound.
  const std::vector<int> one{0, 0, 0, 0};
  EXPECT_EQ(bound::alltoallv_clusters(a, bytes, one, {{1}}, link), bound::alltoallv(a, bytes, link));
}

// The root's node-mates' blocks arrive after the node's latency, the others' after the longer
// one between nodes: the root's link carries the near ones first.
TEST(LowerBound, GathervAndScattervChargeEachRanksLatencyToTheRoot) {
  const bound::Link link{0, 1};
  const std::vector<double> a(4, 0.0);
  const std::vector<double> blocks{10, 10, 10, 10};
  const std::vector<double> latency{1, 1, 50, 50};  // ranks 0, 1 on the root's node (root 0)
  EXPECT_DOUBLE_EQ(bound::gatherv(a, 0, blocks, link, bound::Model::foreground, latency)[0], 50 + 20);
  EXPECT_DOUBLE_EQ(bound::scatterv(a, 0, blocks, link, bound::Model::foreground, latency)[2], 50 + 10);
  EXPECT_DOUBLE_EQ(bound::gatherv(a, 0, blocks, bound::Link{50, 1})[0], 50 + 30);  // the slowest pair's on all
  EXPECT_EQ(bound::gatherv(a, 0, blocks, bound::Link{1, 1}, bound::Model::foreground, {}),
            bound::gatherv(a, 0, blocks, bound::Link{1, 1}));
}

TEST(LowerBound, AlltoallCountsTheSendingLink) {
  // Rank 0 sends 3 x 20 bytes but receives 3 x 1: its sending link binds.
  const bound::Link link{0, 1};
  const std::vector<double> a(4, 0.0);
  std::vector<std::vector<double>> bytes(4, std::vector<double>(4, 1));
  for (int j = 1; j < 4; ++j) bytes[0][static_cast<std::size_t>(j)] = 20;
  const std::vector<double> e = bound::alltoallv(a, bytes, link);
  EXPECT_DOUBLE_EQ(e[0], 60);
  EXPECT_DOUBLE_EQ(e[1], 20 + 1 + 1);
  EXPECT_DOUBLE_EQ(bound::alltoall(a, 2, link)[3], 6);
}

TEST(LowerBound, GathervAndScattervLoadTheRoot) {
  const bound::Link link{1, 1};
  const std::vector<double> a{0, 0, 5};
  const std::vector<double> blocks{4, 2, 3};
  const std::vector<double> g = bound::gatherv(a, 1, blocks, link);
  // The root receives 4 from 0 and 3 from 2 (released at 5): max(0 + 1 + 7, 5 + 1 + 3) = 9.
  EXPECT_DOUBLE_EQ(g[1], 9);
  EXPECT_DOUBLE_EQ(g[0], 1 + 4);
  EXPECT_DOUBLE_EQ(g[2], 1 + 3);
  // scatterv: the root sends all 7 bytes from 0 on (through rank 0 if it likes): 0 + 1 + 7.
  EXPECT_EQ(bound::scatterv(a, 1, blocks, link), (std::vector<double>{5, 8, 4}));
  // A non-root's block may leave through any rank that has arrived, before the root (at 3) does.
  const std::vector<double> late_root{3, 0, 0};
  EXPECT_DOUBLE_EQ(bound::gatherv(late_root, 0, blocks, link)[1], 1 + 2);
}

}  // namespace

// The two-level bound (deep clusters): one rank per node with the card as fast as a rank's own
// link is the one-level bound, for every collective and random arrivals.
TEST(TwoLevelBound, OneRankPerNodeIsTheOneLevelBound) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> at(0.0, 0.01);
  const bound::Link link{2e-6, 1e-9};
  for (int p = 1; p <= 9; ++p) {
    std::vector<double> a(static_cast<std::size_t>(p));
    for (double& x : a) x = at(rng);
    std::vector<int> node(a.size());
    std::iota(node.begin(), node.end(), 0);
    EXPECT_EQ(bound::two_level::allgather(a, 1000, node, link, link), bound::allgather(a, 1000, link)) << p;
    EXPECT_EQ(bound::two_level::allreduce(a, 1000, node, link, link), bound::allreduce(a, 1000, link)) << p;
    EXPECT_EQ(bound::two_level::bcast(a, p / 2, 1000, node, link, link), bound::bcast(a, p / 2, 1000, link)) << p;
    EXPECT_EQ(bound::two_level::alltoall(a, 1000, node, link, link), bound::alltoall(a, 1000, link)) << p;
  }
}

// Uneven nodes (3 + 5 + 2) behind a card slower than a rank's link, and 50 random arrival
// patterns (within 5 ms, from `seed`) for the tests below.
const bound::Link uneven_rank_link{1e-6, 1e-9};
const bound::Link uneven_card{2e-6, 3e-9};
const std::vector<int> uneven_nodes = {0, 0, 0, 1, 1, 1, 1, 1, 2, 2};

template <class F>
void for_uneven_trials(unsigned seed, F&& f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> at(0.0, 0.005);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> a(uneven_nodes.size());
    for (double& x : a) x = at(rng);
    f(trial, a);
  }
}

// Never below the one-level bound, on uneven nodes and a slower card.
TEST(TwoLevelBound, NeverBelowTheOneLevelBound) {
  const bound::Link& rank = uneven_rank_link;
  const bound::Link& card = uneven_card;
  const std::vector<int>& node = uneven_nodes;
  for_uneven_trials(12, [&](int trial, const std::vector<double>& a) {
    const auto check = [&](const std::vector<double>& two, const std::vector<double>& one) {
      ASSERT_EQ(two.size(), one.size());
      for (std::size_t i = 0; i < two.size(); ++i) EXPECT_GE(two[i], one[i]) << trial << " rank " << i;
    };
    check(bound::two_level::allgather(a, 4096, node, rank, card), bound::allgather(a, 4096, rank));
    check(bound::two_level::allreduce(a, 4096, node, rank, card), bound::allreduce(a, 4096, rank));
    check(bound::two_level::bcast(a, 4, 4096, node, rank, card), bound::bcast(a, 4, 4096, rank));
    check(bound::two_level::alltoall(a, 4096, node, rank, card), bound::alltoall(a, 4096, rank));
  });
}

// Worked by hand: 2 nodes x 2 ranks, everyone at 0, block b. A rank's own link takes the three
// other blocks (alpha + 3 b beta); the card takes the two blocks of the other node at four
// times beta (alpha + 8 b beta), and binds every rank.
TEST(TwoLevelBound, AllgatherCardSharedByTheNode) {
  const bound::Link rank{1e-6, 1e-9};
  const bound::Link card{1e-6, 4e-9};
  const std::vector<double> a(4, 0.0);
  const std::vector<int> node = {0, 0, 1, 1};
  const double b = 1000;
  for (const double x : bound::two_level::allgather(a, b, node, rank, card)) EXPECT_DOUBLE_EQ(x, 1e-6 + 2 * b * 4e-9);
}

// Allreduce: rank 3 (node 1) arrives 1 ms late. Node 0's card takes n bytes after 1 ms: ranks 0
// and 1 need 1 ms + alpha + n beta_card; rank 2 shares rank 3's node, so only its own link
// binds it (the late rank's data reaches it inside the node).
TEST(TwoLevelBound, AllreduceWaitsForTheLatestRankOutsideTheNode) {
  const bound::Link rank{1e-6, 1e-9};
  const bound::Link card{1e-6, 2e-9};
  const std::vector<double> a = {0, 0, 0, 1e-3};
  const std::vector<int> node = {0, 0, 1, 1};
  const double n = 1e5;
  const auto two = bound::two_level::allreduce(a, n, node, rank, card);
  EXPECT_DOUBLE_EQ(two[0], 1e-3 + 1e-6 + n * 2e-9);
  EXPECT_DOUBLE_EQ(two[1], 1e-3 + 1e-6 + n * 2e-9);
  EXPECT_DOUBLE_EQ(two[2], bound::allreduce(a, n, rank)[2]);
  EXPECT_DOUBLE_EQ(two[3], bound::allreduce(a, n, rank)[3]);
}

// A node's memory (bound::two_level::*_mean): with no node bandwidth it is the mean of the
// two-level bounds; with one, never below that mean, for every collective on uneven nodes.
TEST(NodeMemoryBound, NeverBelowTheTwoLevelMeanAndEqualWithoutANodeBandwidth) {
  const bound::Link& rank = uneven_rank_link;
  const bound::Link& card = uneven_card;
  const std::vector<int>& node = uneven_nodes;
  for_uneven_trials(13, [&](int trial, const std::vector<double>& a) {
    for (const double beta : {0.0, 0.5e-9, 4e-9}) {
      const auto check = [&](double with_memory, const std::vector<double>& two) {
        if (beta == 0) {
          EXPECT_DOUBLE_EQ(with_memory, bound::mean(two)) << trial;
        } else {
          EXPECT_GE(with_memory, bound::mean(two) - 1e-15) << trial;
        }
      };
      namespace two = bound::two_level;
      check(two::allgather_mean(a, 4096, node, rank, card, beta), two::allgather(a, 4096, node, rank, card));
      check(two::allreduce_mean(a, 4096, node, rank, card, beta), two::allreduce(a, 4096, node, rank, card));
      check(two::bcast_mean(a, 4, 4096, node, rank, card, beta), two::bcast(a, 4, 4096, node, rank, card));
      check(two::alltoall_mean(a, 4096, node, rank, card, beta), two::alltoall(a, 4096, node, rank, card));
    }
  });
}

// Worked by hand: one node of four ranks, rank 3 late by 1 ms, n bytes, a memory of beta_node a
// byte much slower than the links. Ranks 0-2 each take in n bytes after 1 ms, one after the
// other at best: finishes at 1 ms + n beta_node, + 2 n beta_node, + 3 n beta_node; rank 3 needs
// nothing after it arrives but its own link's bound. The mean counts the elapsed times.
TEST(NodeMemoryBound, AllreduceServesTheNodesRanksOneAfterTheOther) {
  const bound::Link rank{1e-6, 1e-9};
  const std::vector<double> a = {0, 0, 0, 1e-3};
  const std::vector<int> node = {0, 0, 0, 0};
  const double n = 1e5;
  const double beta_node = 1e-8;  // 1 ms for n bytes
  const std::vector<double> one = bound::allreduce(a, n, rank);
  const double late_rank = one[3];
  const double expected = ((1e-3 + 1e-3) + (1e-3 + 2e-3) + (1e-3 + 3e-3) + late_rank) / 4;
  EXPECT_DOUBLE_EQ(bound::two_level::allreduce_mean(a, n, node, rank, rank, beta_node), expected);
  // A rank without a demand (the late one) may finish first: its own bound is not pushed back.
  EXPECT_LT(late_rank, 1e-3);
}

// The least matching: the k-th served time goes with the k-th smallest own bound among the ranks
// that take something in. Three ranks, demands of d (beta_node d = 3 ms) at ranks 0 and 1 from 0,
// none at rank 2: own bounds 4 ms, 1 ms, 0. Served at 3 and 6 ms: rank 1 (1 ms) gets 3 ms,
// rank 0 (4 ms) 6 ms; rank 2 keeps 0. Mean (3 + 6 + 0) / 3 ms; the other matching gives 10.
TEST(NodeMemoryBound, TheServedTimesGoInOrderToTheRanksThatTakeSomethingIn) {
  const std::vector<double> a = {0, 0, 0};
  const std::vector<double> own = {4e-3, 1e-3, 0};
  const std::vector<int> node = {0, 0, 0};
  const std::vector<double> demand = {1000, 1000, 0};
  const std::vector<double> release = {0, 0, 0};
  EXPECT_DOUBLE_EQ(bound::two_level::node_memory_mean(a, own, node, demand, release, 3e-6), 9e-3 / 3);
}

// The background model (agents receive while their rank computes): never above the foreground
// bound, and the same when every rank arrives together, for every collective and two-level
// layout, on random arrivals.
TEST(BackgroundBound, NeverAboveTheForegroundBoundAndTheSameWhenAllArriveTogether) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> at(0.0, 0.01);
  const bound::Link link{2e-6, 1e-9};
  const bound::Link card{3e-6, 4e-9};
  constexpr auto fg = bound::Model::foreground;
  constexpr auto bg = bound::Model::background;
  for (int trial = 0; trial < 60; ++trial) {
    const int p = 1 + trial % 10;
    std::vector<double> a(static_cast<std::size_t>(p), 0.004);
    if (trial % 4 != 0) {
      for (double& x : a) x = at(rng);
    }
    std::vector<int> node(a.size());
    for (std::size_t i = 0; i < node.size(); ++i) node[i] = static_cast<int>(i % 3 == 2 ? i / 3 : i / 2);
    std::vector<double> blocks(a.size());
    for (std::size_t i = 0; i < blocks.size(); ++i) blocks[i] = static_cast<double>((i * 37) % 5) * 1000;
    const std::vector<std::vector<double>> matrix(a.size(), blocks);
    const int root = p / 2;
    const auto check = [&](const std::vector<double>& b, const std::vector<double>& f, const char* what) {
      ASSERT_EQ(b.size(), f.size());
      for (std::size_t i = 0; i < b.size(); ++i) {
        EXPECT_GE(b[i], 0.0) << what << " trial " << trial << " rank " << i;
        EXPECT_LE(b[i], f[i]) << what << " trial " << trial << " rank " << i;
        if (trial % 4 == 0) EXPECT_DOUBLE_EQ(b[i], f[i]) << what << " trial " << trial << " rank " << i;
      }
    };
    check(bound::allgatherv(a, blocks, link, bg), bound::allgatherv(a, blocks, link, fg), "allgatherv");
    check(bound::allreduce(a, 4096, link, bg), bound::allreduce(a, 4096, link, fg), "allreduce");
    check(bound::bcast(a, root, 4096, link, bg), bound::bcast(a, root, 4096, link, fg), "bcast");
    check(bound::alltoallv(a, matrix, link, bg), bound::alltoallv(a, matrix, link, fg), "alltoallv");
    check(bound::gatherv(a, root, blocks, link, bg), bound::gatherv(a, root, blocks, link, fg), "gatherv");
    check(bound::scatterv(a, root, blocks, link, bg), bound::scatterv(a, root, blocks, link, fg), "scatterv");
    check(bound::two_level::allgather(a, 4096, node, link, card, bg),
          bound::two_level::allgather(a, 4096, node, link, card, fg), "two-level allgather");
    check(bound::two_level::allreduce(a, 4096, node, link, card, bg),
          bound::two_level::allreduce(a, 4096, node, link, card, fg), "two-level allreduce");
    check(bound::two_level::bcast(a, root, 4096, node, link, card, bg),
          bound::two_level::bcast(a, root, 4096, node, link, card, fg), "two-level bcast");
    check(bound::two_level::alltoall(a, 4096, node, link, card, bg),
          bound::two_level::alltoall(a, 4096, node, link, card, fg), "two-level alltoall");
  }
}

// Worked by hand: allgather, P = 3, alpha 1, beta 0.5, blocks of 10, rank 2 arrives at 100. In
// the foreground model rank 2 takes both other blocks after it arrives (100 + 1 + 0.5 * 20: 11
// after its arrival); in the background model its agent took them at 0 (finished at 11), and
// only its own block must still leave it (100 + 1 + 5: 6 after its arrival). Ranks 0 and 1
// wait for rank 2's block either way: 100 + 1 + 5 = 106.
TEST(BackgroundBound, ALateRanksAgentTakesTheOthersBlocksBeforeItArrives) {
  const bound::Link link{1, 0.5};
  const std::vector<double> a = {0, 0, 100};
  EXPECT_EQ(bound::allgather(a, 10, link), (std::vector<double>{106, 106, 11}));
  EXPECT_EQ(bound::allgather(a, 10, link, bound::Model::background), (std::vector<double>{106, 106, 6}));
  // Allreduce, n = 10: a rank receives n bytes and sends its own n bytes, so the latest rank's
  // own send (from its arrival in both models) binds it as the receive would: one level, both
  // models give 6 for rank 2 and 106 for the others. On two levels the card differs: nodes
  // {0, 1} and {2}; rank 2's card (beta 2) must take n bytes that depend on rank 1 (at 0): from
  // rank 2's arrival in the foreground (100 + 1 + 20: 21), from 0 in the background (21 < 100:
  // the one-level 6 binds).
  EXPECT_EQ(bound::allreduce(a, 10, link), (std::vector<double>{106, 106, 6}));
  EXPECT_EQ(bound::allreduce(a, 10, link, bound::Model::background), (std::vector<double>{106, 106, 6}));
  const std::vector<int> node = {0, 0, 1};
  const bound::Link card{1, 2};
  EXPECT_DOUBLE_EQ(bound::two_level::allreduce(a, 10, node, link, card)[2], 21);
  EXPECT_DOUBLE_EQ(bound::two_level::allreduce(a, 10, node, link, card, bound::Model::background)[2], 6);
  EXPECT_STREQ(bound::name_of(bound::Model::background), "background");
  EXPECT_STREQ(bound::name_of(bound::Model::foreground), "foreground");
}

}  // namespace test_lower_bound_test
