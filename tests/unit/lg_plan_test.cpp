// The LG mapping of plans/lg_plan.hpp, replayed as a message-passing game for
// every n1, n2 <= 40: each process starts with its own blocks, the local phase
// and the backbone phase move them as the plans say, and at the end every
// process must hold exactly the blocks addressed to it, each once, after
// exactly 2*max(n1, n2) backbone messages. The same game for k clusters: every
// size up to 7 for k = 3 and up to 5 for k = 4, a sample for k = 5 and 6, and the
// exact counts of 3+5+2 (26) and 4+1+6+3 (58); and k = 2 of the k-cluster plan is
// the two-cluster plan, field for field.
#include "plans/lg_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ragged::plans::lg {
namespace test_lg_plan_test {

constexpr int max_size = 40;

using Holdings = std::vector<std::multiset<std::pair<int, int>>>;

bool in_c1(int n1, int id) { return id < n1; }

/// Of what each process holds, the blocks addressed to itself: delivered before the backbone.
Holdings addressed_to_holder(const Holdings& held) {
  Holdings delivered(held.size());
  for (std::size_t p = 0; p < held.size(); ++p) {
    for (const auto& [s, d] : held[p]) {
      if (static_cast<std::size_t>(d) == p) delivered[p].insert({s, d});
    }
  }
  return delivered;
}

std::vector<ProcessPlan> all_plans(int n1, int n2) {
  std::vector<ProcessPlan> plans;
  for (int p = 0; p < n1 + n2; ++p) plans.push_back(plan(n1, n2, p));
  return plans;
}

bool same_blocks(const std::vector<Block>& x, const std::vector<Block>& y) { return x == y; }

// Replays both phases; reports the first inconsistency through gtest and stores
// the number of backbone messages in `messages`.
void replay(int n1, int n2, int& messages) {
  const int n = n1 + n2;
  const std::vector<ProcessPlan> plans = all_plans(n1, n2);
  Holdings held(static_cast<unsigned>(n));

  // Local phase: messages stay inside a cluster, carry the sender's own blocks, and
  // the receiver expects the same list.
  for (int p = 0; p < n; ++p) {
    const ProcessPlan& pp = plans[static_cast<unsigned>(p)];
    const int cluster_size = in_c1(n1, p) ? n1 : n2;
    EXPECT_EQ(static_cast<int>(pp.local_sends.size()), cluster_size - 1) << n1 << "," << n2 << " p=" << p;
    EXPECT_EQ(static_cast<int>(pp.local_recvs.size()), cluster_size - 1) << n1 << "," << n2 << " p=" << p;
    for (const Block& b : pp.keep) {
      EXPECT_EQ(b.src, p);
      held[static_cast<unsigned>(p)].insert({b.src, b.dst});
    }
    std::set<int> peers;
    for (const Transfer& t : pp.local_sends) {
      EXPECT_EQ(in_c1(n1, t.peer), in_c1(n1, p)) << "local message crosses the backbone";
      EXPECT_NE(t.peer, p);
      EXPECT_TRUE(peers.insert(t.peer).second) << "two local messages to one peer";
      EXPECT_FALSE(t.blocks.empty()) << "a local message carries at least M(p, peer)";
      const ProcessPlan& qp = plans[static_cast<unsigned>(t.peer)];
      const auto match =
          std::find_if(qp.local_recvs.begin(), qp.local_recvs.end(), [&](const Transfer& r) { return r.peer == p; });
      ASSERT_NE(match, qp.local_recvs.end()) << n1 << "," << n2 << ": " << t.peer << " expects nothing from " << p;
      EXPECT_TRUE(same_blocks(match->blocks, t.blocks)) << n1 << "," << n2 << " " << p << "->" << t.peer;
      for (const Block& b : t.blocks) {
        EXPECT_EQ(b.src, p);
        EXPECT_EQ(holder(n1, n2, b.src, b.dst), t.peer);
        held[static_cast<unsigned>(t.peer)].insert({b.src, b.dst});
      }
    }
  }
  // After the local phase each process holds exactly the blocks holder() assigns it.
  for (int s = 0; s < n; ++s) {
    for (int d = 0; d < n; ++d) {
      const int h = holder(n1, n2, s, d);
      EXPECT_EQ(in_c1(n1, h), in_c1(n1, s)) << "a block crossed in the local phase";
      EXPECT_EQ(held[static_cast<unsigned>(h)].count({s, d}), 1U) << n1 << "," << n2 << " M(" << s << "," << d << ")";
    }
  }

  // Backbone phase.
  messages = 0;
  Holdings delivered = addressed_to_holder(held);
  for (int p = 0; p < n; ++p) {
    const ProcessPlan& pp = plans[static_cast<unsigned>(p)];
    EXPECT_EQ(static_cast<int>(pp.backbone.size()), static_cast<int>(partners(n1, n2, p).size()));
    for (std::size_t k = 0; k < pp.backbone.size(); ++k) {
      const Exchange& e = pp.backbone[k];
      EXPECT_NE(in_c1(n1, e.peer), in_c1(n1, p)) << "backbone message inside a cluster";
      EXPECT_EQ(e.peer, partners(n1, n2, p)[k]);
      const ProcessPlan& qp = plans[static_cast<unsigned>(e.peer)];
      const auto match =
          std::find_if(qp.backbone.begin(), qp.backbone.end(), [&](const Exchange& x) { return x.peer == p; });
      ASSERT_NE(match, qp.backbone.end()) << n1 << "," << n2 << ": " << e.peer << " does not exchange with " << p;
      EXPECT_TRUE(same_blocks(match->recv, e.send));
      if (!e.send.empty()) ++messages;
      for (const Block& b : e.send) {
        EXPECT_EQ(b.dst, e.peer);
        EXPECT_EQ(held[static_cast<unsigned>(p)].count({b.src, b.dst}), 1U) << "sends a block it does not hold";
        delivered[static_cast<unsigned>(e.peer)].insert({b.src, b.dst});
      }
    }
  }
  for (int d = 0; d < n; ++d) {
    EXPECT_EQ(static_cast<int>(delivered[static_cast<unsigned>(d)].size()), n) << n1 << "," << n2 << " at " << d;
    for (int s = 0; s < n; ++s) {
      EXPECT_EQ(delivered[static_cast<unsigned>(d)].count({s, d}), 1U)
          << n1 << "," << n2 << " M(" << s << "," << d << ")";
    }
  }
}

TEST(LgPlan, EveryBlockArrivesOnceWithTwoMaxBackboneMessages) {
  for (int n1 = 1; n1 <= max_size; ++n1) {
    for (int n2 = 1; n2 <= max_size; ++n2) {
      int messages = -1;
      replay(n1, n2, messages);
      ASSERT_EQ(messages, 2 * std::max(n1, n2)) << "n1=" << n1 << " n2=" << n2;
      if (HasFailure()) FAIL() << "first failure at n1=" << n1 << " n2=" << n2;
    }
  }
}

TEST(LgPlan, EveryProcessOfTheLargerClusterCrossesOnceEachWay) {
  for (int n1 = 1; n1 <= max_size; ++n1) {
    for (int n2 = 1; n2 <= max_size; ++n2) {
      const int small = std::min(n1, n2);
      const int large = std::max(n1, n2);
      int backbone_steps = 0;
      for (int p = 0; p < n1 + n2; ++p) {
        const ProcessPlan pp = plan(n1, n2, p);
        const bool in_large = n1 <= n2 ? !in_c1(n1, p) : in_c1(n1, p);
        if (in_large) {
          ASSERT_EQ(pp.backbone.size(), 1U) << n1 << "," << n2 << " p=" << p;
          EXPECT_FALSE(pp.backbone[0].send.empty());
          EXPECT_FALSE(pp.backbone[0].recv.empty());
          // The smaller cluster's process sends it exactly one block from each of its members.
          EXPECT_EQ(static_cast<int>(pp.backbone[0].recv.size()), small);
        } else {
          backbone_steps = std::max(backbone_steps, static_cast<int>(pp.backbone.size()));
        }
      }
      EXPECT_EQ(backbone_steps, steps(n1, n2));
      EXPECT_EQ(steps(n1, n2), (large + small - 1) / small);
    }
  }
}

// The prose of §4.1 for n1 <= n2, wherever the target process exists.
TEST(LgPlan, FollowsThePapersFormulas) {
  for (int n1 = 1; n1 <= max_size; ++n1) {
    for (int n2 = n1; n2 <= max_size; ++n2) {
      const int n = n1 + n2;
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          if (in_c1(n1, i) && !in_c1(n1, j)) {
            EXPECT_EQ(holder(n1, n2, i, j), j % n1);
          } else if (!in_c1(n1, i) && in_c1(n1, j) && (i / n1) * n1 + j < n) {
            EXPECT_EQ(holder(n1, n2, i, j), (i / n1) * n1 + j);
          } else if (in_c1(n1, i) == in_c1(n1, j)) {
            EXPECT_EQ(holder(n1, n2, i, j), j);
          }
        }
      }
      // Step s pairs process i of C1 with i + s*n1.
      for (int i = 0; i < n1; ++i) {
        std::vector<int> expected;
        for (int s = 1; i + s * n1 < n; ++s) expected.push_back(i + s * n1);
        EXPECT_EQ(partners(n1, n2, i), expected);
      }
    }
  }
}

TEST(LgPlan, ThePapersExample) {
  // n1 = 3, n2 = 7: M(7,2) is stored on 8 (floor(7/3)*3 + 2) and crosses in step 2
  // with M(6,2) and M(8,2).
  EXPECT_EQ(holder(3, 7, 7, 2), 8);
  const ProcessPlan p2 = plan(3, 7, 2);
  ASSERT_EQ(p2.backbone.size(), 2U);
  EXPECT_EQ(p2.backbone[0].peer, 5);
  EXPECT_EQ(p2.backbone[1].peer, 8);
  const std::vector<Block> from8{{6, 2}, {7, 2}, {8, 2}};
  EXPECT_EQ(p2.backbone[1].recv, from8);
  // Only 0 and 9 exchange in the last step.
  EXPECT_EQ(partners(3, 7, 0), (std::vector<int>{3, 6, 9}));
  EXPECT_EQ(partners(3, 7, 1), (std::vector<int>{4, 7}));
  EXPECT_EQ(partners(3, 7, 9), (std::vector<int>{0}));
  // Node 9's blocks for 1 and 2 (no position 1 or 2 in its group) go through full groups.
  EXPECT_EQ(holder(3, 7, 9, 0), 9);
  EXPECT_EQ(holder(3, 7, 9, 1), 7);
  EXPECT_EQ(holder(3, 7, 9, 2), 5);
  // Node 0 sends M(0,3), M(1,3), M(2,3) to 3 in step 1.
  const ProcessPlan p0 = plan(3, 7, 0);
  EXPECT_EQ(p0.backbone[0].send, (std::vector<Block>{{0, 3}, {1, 3}, {2, 3}}));
}

TEST(LgPlan, LargerFirstClusterSwapsRoles) {
  // n1 = 7, n2 = 3: the three processes 7, 8, 9 play C1's part.
  EXPECT_EQ(partners(7, 3, 7), (std::vector<int>{0, 3, 6}));
  EXPECT_EQ(partners(7, 3, 9), (std::vector<int>{2, 5}));
  EXPECT_EQ(partners(7, 3, 4), (std::vector<int>{8}));
  EXPECT_EQ(holder(7, 3, 8, 4), 8);  // 4 = 3 + 1: its partner is the second process of C2
  EXPECT_EQ(holder(7, 3, 4, 9), 5);  // 4 is in group {3,4,5}; 9 is C2's third process
  EXPECT_EQ(steps(7, 3), 3);
}

// ---------------------------------------------------------------- k clusters

std::vector<int> clusters_of(const std::vector<int>& sizes) {
  std::vector<int> out;
  for (std::size_t c = 0; c < sizes.size(); ++c)
    out.insert(out.end(), static_cast<std::size_t>(sizes[c]), static_cast<int>(c));
  return out;
}

std::string name(const std::vector<int>& sizes) {
  std::string s;
  for (int n : sizes) {
    if (!s.empty()) s += '+';  // not "+" + std::to_string(n): GCC 12's -Wrestrict at -O3
    s += std::to_string(n);
  }
  return s;
}

// The k-cluster game. Checks every rule of the header and stores the backbone messages per
// ordered pair of clusters in `messages`: messages[a][b] from cluster a to cluster b.
void replay_k(const std::vector<int>& sizes, std::vector<std::vector<int>>& messages) {
  const int k = static_cast<int>(sizes.size());
  const std::vector<int> cluster = clusters_of(sizes);
  const int n = static_cast<int>(cluster.size());
  const auto c = [&](int id) { return cluster[static_cast<unsigned>(id)]; };
  const std::string what = name(sizes);
  std::vector<ProcessPlan> plans;
  for (int p = 0; p < n; ++p) plans.push_back(plan(sizes, p));
  Holdings held(static_cast<unsigned>(n));

  // Local phase: one message to and from every other process of the cluster, carrying only
  // the sender's blocks to where holder() says, and what the receiver expects.
  for (int p = 0; p < n; ++p) {
    const ProcessPlan& pp = plans[static_cast<unsigned>(p)];
    const int cluster_size = sizes[static_cast<unsigned>(c(p))];
    EXPECT_EQ(static_cast<int>(pp.local_sends.size()), cluster_size - 1) << what << " p=" << p;
    EXPECT_EQ(static_cast<int>(pp.local_recvs.size()), cluster_size - 1) << what << " p=" << p;
    for (const Block& b : pp.keep) {
      EXPECT_EQ(b.src, p);
      EXPECT_EQ(holder(sizes, b.src, b.dst), p);
      held[static_cast<unsigned>(p)].insert({b.src, b.dst});
    }
    std::set<int> peers;
    for (const Transfer& t : pp.local_sends) {
      EXPECT_EQ(c(t.peer), c(p)) << what << ": a local message crosses the backbone";
      EXPECT_NE(t.peer, p);
      EXPECT_TRUE(peers.insert(t.peer).second) << what << ": two local messages to one peer";
      const ProcessPlan& qp = plans[static_cast<unsigned>(t.peer)];
      const auto match =
          std::find_if(qp.local_recvs.begin(), qp.local_recvs.end(), [&](const Transfer& r) { return r.peer == p; });
      ASSERT_NE(match, qp.local_recvs.end()) << what << ": " << t.peer << " expects nothing from " << p;
      EXPECT_EQ(match->blocks, t.blocks) << what << " " << p << "->" << t.peer;
      for (const Block& b : t.blocks) {
        EXPECT_EQ(b.src, p);
        EXPECT_EQ(holder(sizes, b.src, b.dst), t.peer);
        held[static_cast<unsigned>(t.peer)].insert({b.src, b.dst});
      }
    }
  }
  for (int s = 0; s < n; ++s) {
    for (int d = 0; d < n; ++d) {
      const int h = holder(sizes, s, d);
      EXPECT_EQ(c(h), c(s)) << what << ": M(" << s << "," << d << ") crossed in the local phase";
      if (c(s) == c(d)) EXPECT_EQ(h, d) << what;
      EXPECT_EQ(held[static_cast<unsigned>(h)].count({s, d}), 1U) << what << " M(" << s << "," << d << ")";
    }
  }

  // Backbone phase.
  messages.assign(static_cast<unsigned>(k), std::vector<int>(static_cast<unsigned>(k), 0));
  Holdings delivered = addressed_to_holder(held);
  for (int p = 0; p < n; ++p) {
    const ProcessPlan& pp = plans[static_cast<unsigned>(p)];
    const std::vector<int> ps = partners(sizes, p);
    ASSERT_EQ(pp.backbone.size(), ps.size()) << what << " p=" << p;
    std::set<int> peers;
    for (std::size_t x = 0; x < pp.backbone.size(); ++x) {
      const Exchange& e = pp.backbone[x];
      EXPECT_EQ(e.peer, ps[x]);
      EXPECT_NE(c(e.peer), c(p)) << what << ": a backbone message inside a cluster";
      EXPECT_TRUE(peers.insert(e.peer).second) << what << ": two exchanges with one peer";
      const ProcessPlan& qp = plans[static_cast<unsigned>(e.peer)];
      const auto match =
          std::find_if(qp.backbone.begin(), qp.backbone.end(), [&](const Exchange& y) { return y.peer == p; });
      ASSERT_NE(match, qp.backbone.end()) << what << ": " << e.peer << " does not exchange with " << p;
      EXPECT_EQ(match->recv, e.send) << what << " " << p << "->" << e.peer;
      if (!e.send.empty()) ++messages[static_cast<unsigned>(c(p))][static_cast<unsigned>(c(e.peer))];
      for (const Block& b : e.send) {
        EXPECT_EQ(b.dst, e.peer);
        EXPECT_EQ(held[static_cast<unsigned>(p)].count({b.src, b.dst}), 1U) << what << ": sends a block it lacks";
        delivered[static_cast<unsigned>(e.peer)].insert({b.src, b.dst});
      }
    }
  }
  for (int d = 0; d < n; ++d) {
    EXPECT_EQ(static_cast<int>(delivered[static_cast<unsigned>(d)].size()), n) << what << " at " << d;
    for (int s = 0; s < n; ++s) {
      EXPECT_EQ(delivered[static_cast<unsigned>(d)].count({s, d}), 1U) << what << " M(" << s << "," << d << ")";
    }
  }
  // A process of the larger cluster of a pair (either, when equal) exchanges once with the
  // other cluster; one of the smaller, at most ceil(max/min) times.
  for (int p = 0; p < n; ++p) {
    std::vector<int> with(static_cast<unsigned>(k), 0);
    for (const Exchange& e : plans[static_cast<unsigned>(p)].backbone) ++with[static_cast<unsigned>(c(e.peer))];
    for (int b = 0; b < k; ++b) {
      if (b == c(p)) continue;
      const int mine = sizes[static_cast<unsigned>(c(p))];
      const int theirs = sizes[static_cast<unsigned>(b)];
      if (mine >= theirs) {
        EXPECT_EQ(with[static_cast<unsigned>(b)], 1) << what << " p=" << p << " with cluster " << b;
      } else {
        EXPECT_GE(with[static_cast<unsigned>(b)], 1) << what;
        EXPECT_LE(with[static_cast<unsigned>(b)], steps(mine, theirs)) << what;
      }
    }
  }
}

// Checks the count of every ordered pair against max(n_a, n_b) and the total against
// backbone_messages() and 2 * sum_i (i-1) * n_(i); returns the total.
long long check_counts(const std::vector<int>& sizes) {
  std::vector<std::vector<int>> messages;
  replay_k(sizes, messages);
  if (messages.size() != sizes.size()) return -1;  // replay_k stopped at a fatal failure
  long long total = 0;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    for (std::size_t b = 0; b < sizes.size(); ++b) {
      if (a == b) continue;
      EXPECT_EQ(messages[a][b], std::max(sizes[a], sizes[b])) << name(sizes) << " from " << a << " to " << b;
      total += messages[a][b];
    }
  }
  std::vector<int> sorted = sizes;
  std::sort(sorted.begin(), sorted.end());
  long long formula = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) formula += 2LL * static_cast<long long>(i) * sorted[i];
  EXPECT_EQ(backbone_messages(sizes), formula) << name(sizes);
  EXPECT_EQ(total, formula) << name(sizes);
  return total;
}

TEST(LgPlanClusters, ThreeAndFourUnevenClustersExactCounts) {
  EXPECT_EQ(check_counts({3, 5, 2}), 26);
  EXPECT_EQ(check_counts({4, 1, 6, 3}), 58);
  // A direct exchange would send sum over a != b of n_a * n_b: 62 and 134.
  EXPECT_EQ(backbone_messages({3, 5, 2}), 26);
  EXPECT_EQ(backbone_messages({4, 1, 6, 3}), 58);
  EXPECT_EQ(backbone_messages({20, 40}), 80);  // two clusters: 2 max(n1, n2)
}

TEST(LgPlanClusters, TheHeadersExample) {
  // sizes 3, 5, 2: A = 0..2, B = 3..7, C = 8..9.
  const std::vector<int> sizes{3, 5, 2};
  EXPECT_EQ(partners(sizes, 0), (std::vector<int>{3, 8, 6}));  // round 1: B, C; round 2: B
  EXPECT_EQ(partners(sizes, 2), (std::vector<int>{5, 8}));
  EXPECT_EQ(partners(sizes, 8), (std::vector<int>{0, 3, 2, 5, 7}));
  EXPECT_EQ(partners(sizes, 9), (std::vector<int>{1, 4, 6}));
  EXPECT_EQ(partners(sizes, 7), (std::vector<int>{1, 8}));
  const ProcessPlan p8 = plan(sizes, 8);
  ASSERT_EQ(p8.local_sends.size(), 1U);
  EXPECT_EQ(p8.local_sends[0].peer, 9);
  EXPECT_EQ(p8.local_sends[0].blocks, (std::vector<Block>{{8, 1}, {8, 4}, {8, 6}, {8, 9}}));
  // 9 crosses to 1 with C's blocks for 1, M(8,1) and M(9,1), and gets all of A's blocks
  // for 9 (C is the smaller cluster of A-C: 1 holds them for its group {0, 1, 2}).
  const ProcessPlan p9 = plan(sizes, 9);
  EXPECT_EQ(p9.backbone[0].peer, 1);
  EXPECT_EQ(p9.backbone[0].send, (std::vector<Block>{{8, 1}, {9, 1}}));
  EXPECT_EQ(p9.backbone[0].recv, (std::vector<Block>{{0, 9}, {1, 9}, {2, 9}}));
}

TEST(LgPlanClusters, TwoClustersAreTheTwoClusterPlan) {
  for (int n1 = 1; n1 <= max_size; ++n1) {
    for (int n2 = 1; n2 <= max_size; ++n2) {
      const std::vector<int> sizes{n1, n2};
      for (int p = 0; p < n1 + n2; ++p) {
        ASSERT_EQ(plan(sizes, p), plan(n1, n2, p)) << n1 << "+" << n2 << " p=" << p;
        ASSERT_EQ(partners(sizes, p), partners(n1, n2, p));
        for (int d = 0; d < n1 + n2; ++d) ASSERT_EQ(holder(sizes, p, d), holder(n1, n2, p, d));
      }
      ASSERT_EQ(backbone_messages(sizes), 2LL * std::max(n1, n2));
    }
  }
}

TEST(LgPlanClusters, EverySizeForThreeAndFourClusters) {
  for (int a = 1; a <= 7; ++a) {
    for (int b = 1; b <= 7; ++b) {
      for (int c = 1; c <= 7; ++c) {
        check_counts({a, b, c});
        if (HasFailure()) FAIL() << "first failure at " << name({a, b, c});
      }
    }
  }
  for (int a = 1; a <= 5; ++a) {
    for (int b = 1; b <= 5; ++b) {
      for (int c = 1; c <= 5; ++c) {
        for (int d = 1; d <= 5; ++d) {
          check_counts({a, b, c, d});
          if (HasFailure()) FAIL() << "first failure at " << name({a, b, c, d});
        }
      }
    }
  }
}

TEST(LgPlanClusters, LargerAndMoreClusters) {
  const std::vector<std::vector<int>> cases{{18, 30, 12},       {16, 4, 24, 12}, {1, 1, 1, 1, 1}, {9, 2, 13, 1, 4},
                                            {5, 5, 5, 5, 5, 5}, {40, 1, 7},      {1, 40, 3, 17}};
  for (const auto& sizes : cases) check_counts(sizes);
}

}  // namespace test_lg_plan_test
}  // namespace ragged::plans::lg
