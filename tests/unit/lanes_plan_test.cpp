// plans::lanes: allgather "lanes" executed on block labels over many layouts (even, uneven, dealt
// round-robin, one rank per node, one node): the intra-node hand-over to the lane, the allgatherv
// within every lane, the allgatherv within every node and the unpacking must leave every rank with
// every rank's label in rank order, each bundle carried by a rank of its own node.
#include "plans/lanes_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace ragged::plans::lanes {
namespace test_lanes_plan_test {

std::vector<std::vector<int>> node_lists() {
  std::vector<std::vector<int>> out;
  for (int p = 1; p <= 40; ++p) {
    for (int m = 1; m <= 6; ++m) {  // m consecutive ranks per node, the last node smaller
      std::vector<int> l;
      for (int r = 0; r < p; ++r) l.push_back(r / m);
      out.push_back(l);
    }
    for (int k = 2; k <= 3; ++k) {  // dealt round-robin (node numbers already in first-rank order)
      std::vector<int> l;
      for (int r = 0; r < p; ++r) l.push_back(r % k);
      if (p >= k) out.push_back(l);
    }
  }
  out.push_back({0, 0, 0, 1, 1, 1, 1, 1, 2, 2});     // 3+5+2
  out.push_back({0, 1, 1, 1, 1, 2, 2, 3, 3, 3});     // 1+4+2+3
  out.push_back({0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 2});  // 3+6+1, not consecutive
  return out;
}

std::string name(const std::vector<int>& l) {
  std::string s;
  for (const int n : l) s += std::to_string(n) + ",";
  return s;
}

TEST(LanesPlan, EveryRankEndsWithEveryBlockInRankOrder) {
  for (const auto& l : node_lists()) {
    SCOPED_TRACE(name(l));
    const hierarchy::Split s = hierarchy::split(l);
    const Plan p = plan(s);
    const int procs = s.procs();
    const auto c = static_cast<std::size_t>(p.lanes);
    ASSERT_EQ(p.lanes, hierarchy::min_per_node(s));
    ASSERT_EQ(p.order.size(), static_cast<std::size_t>(procs));
    ASSERT_EQ(p.lane_first[c], static_cast<std::size_t>(procs));
    for (std::size_t i = 0; i < p.order.size(); ++i) ASSERT_EQ(p.position[static_cast<std::size_t>(p.order[i])], i);
    // Phase 0: each rank hands its label to the lane carrier of its node, which must be a rank of
    // that node with index < c, and the first block of a bundle is the carrier's own.
    std::vector<std::vector<int>> gathered(static_cast<std::size_t>(procs), std::vector<int>(procs, -1));
    for (int n = 0; n < s.nodes(); ++n) {
      for (std::size_t j = 0; j < c; ++j) {
        const int carrier = p.lane_members[j][static_cast<std::size_t>(n)];
        ASSERT_EQ(s.node_of[static_cast<std::size_t>(carrier)], n);
        ASSERT_EQ(s.local_of[static_cast<std::size_t>(carrier)], static_cast<int>(j));
        const auto& b = p.bundle[static_cast<std::size_t>(n)][j];
        ASSERT_FALSE(b.empty());
        ASSERT_EQ(b.front(), carrier);
        for (std::size_t t = 0; t < b.size(); ++t) {
          ASSERT_EQ(s.node_of[static_cast<std::size_t>(b[t])], n);
          gathered[static_cast<std::size_t>(carrier)][p.at[j][static_cast<std::size_t>(n)] + t] = b[t];
        }
      }
    }
    // Phase 1: within lane j every carrier gets every carrier's bundle at its place.
    for (std::size_t j = 0; j < c; ++j) {
      for (const int to : p.lane_members[j]) {
        for (std::size_t n = 0; n < p.lane_members[j].size(); ++n) {
          const int from = p.lane_members[j][n];
          for (std::size_t t = 0; t < p.bundle[n][j].size(); ++t) {
            const std::size_t i = p.at[j][n] + t;
            gathered[static_cast<std::size_t>(to)][i] = gathered[static_cast<std::size_t>(from)][i];
          }
        }
      }
    }
    // Phase 2: within every node, carrier j gives its lane's part [lane_first[j], lane_first[j+1]).
    for (const auto& m : s.members) {
      for (const int to : m) {
        for (std::size_t j = 0; j < c; ++j) {
          EXPECT_EQ(lane_blocks(p, static_cast<int>(j)), p.lane_first[j + 1] - p.lane_first[j]);
          for (std::size_t i = p.lane_first[j]; i < p.lane_first[j + 1]; ++i) {
            gathered[static_cast<std::size_t>(to)][i] = gathered[static_cast<std::size_t>(m[j])][i];
          }
        }
      }
    }
    // Unpacking: block i goes to rank order[i]'s place.
    for (int r = 0; r < procs; ++r) {
      std::vector<int> out(static_cast<std::size_t>(procs), -1);
      for (std::size_t i = 0; i < p.order.size(); ++i) out[static_cast<std::size_t>(p.order[i])] = gathered[r][i];
      for (int q = 0; q < procs; ++q) ASSERT_EQ(out[static_cast<std::size_t>(q)], q) << "rank " << r;
    }
  }
}

TEST(LanesPlan, EvenNodesGiveOneBlockPerLaneAndNode) {
  const hierarchy::Split s = hierarchy::split(std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2});
  const Plan p = plan(s);
  ASSERT_EQ(p.lanes, 4);
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(p.lane_members[j],
              (std::vector<int>{static_cast<int>(j), static_cast<int>(j) + 4, static_cast<int>(j) + 8}));
    EXPECT_EQ(lane_blocks(p, static_cast<int>(j)), 3U);
  }
  EXPECT_EQ(p.order, (std::vector<int>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
}

TEST(LanesPlan, UnevenNodesHandTheirExtraRanksToLanesInTurn) {
  const hierarchy::Split s = hierarchy::split(std::vector<int>{0, 0, 0, 1, 1, 1, 1, 1, 2, 2});  // 3+5+2
  const Plan p = plan(s);
  ASSERT_EQ(p.lanes, 2);
  EXPECT_EQ(p.bundle[0][0], (std::vector<int>{0, 2}));
  EXPECT_EQ(p.bundle[0][1], (std::vector<int>{1}));
  EXPECT_EQ(p.bundle[1][0], (std::vector<int>{3, 5, 7}));
  EXPECT_EQ(p.bundle[1][1], (std::vector<int>{4, 6}));
  EXPECT_EQ(p.bundle[2][0], (std::vector<int>{8}));
  EXPECT_EQ(p.lane_first, (std::vector<std::size_t>{0, 6, 10}));
}

}  // namespace test_lanes_plan_test
}  // namespace ragged::plans::lanes
