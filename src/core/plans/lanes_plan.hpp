// The pure part of allgather "lanes" (docs/algorithms/hierarchical.md, "Lanes"): which rank of
// each node carries which of its node's blocks across nodes, and where every block sits in the
// gathered buffer. No communication.
//
// With c = the fewest ranks on one node, lane j (0 <= j < c) is the j-th rank of every node. The
// rank at index i of node n has its block carried by lane i mod c: by itself when i < c, else by
// rank members[n][i mod c] (one intra-node message). Lane j of node n carries the bundle of node
// n's ranks at indices j, j + c, j + 2c, ... in that order. The gathered buffer holds lane 0's
// bundles (node 0's, node 1's, ...), then lane 1's, and so on: every rank once.
#pragma once

#include <cstddef>
#include <vector>

#include "plans/hierarchy_plan.hpp"

namespace ragged::plans::lanes {

struct Plan {
  int lanes = 0;                                      ///< c: the fewest ranks on one node
  std::vector<std::vector<int>> lane_members;         ///< [j][n]: the rank of lane j on node n
  std::vector<std::vector<std::vector<int>>> bundle;  ///< [n][j]: the ranks whose blocks lane j of node n carries
  std::vector<std::vector<std::size_t>> at;           ///< [j][n]: blocks of the gathered buffer before that bundle
  std::vector<std::size_t> lane_first;                ///< [j]: blocks before lane j's part; [c] = P
  std::vector<int> order;                             ///< [i]: the rank whose block is block i of the gathered buffer
  std::vector<std::size_t> position;                  ///< [r]: the block of the gathered buffer that holds rank r's
};

inline Plan plan(const hierarchy::Split& s) {
  Plan p;
  const int k = s.nodes();
  p.lanes = hierarchy::min_per_node(s);
  const auto c = static_cast<std::size_t>(p.lanes);
  p.lane_members.assign(c, std::vector<int>(static_cast<std::size_t>(k)));
  p.bundle.assign(static_cast<std::size_t>(k), std::vector<std::vector<int>>(c));
  for (std::size_t n = 0; n < static_cast<std::size_t>(k); ++n) {
    const auto& m = s.members[n];
    for (std::size_t i = 0; i < m.size(); ++i) p.bundle[n][i % c].push_back(m[i]);
    for (std::size_t j = 0; j < c; ++j) p.lane_members[j][n] = m[j];
  }
  p.at.assign(c, std::vector<std::size_t>(static_cast<std::size_t>(k)));
  p.lane_first.assign(c + 1, 0);
  std::size_t next = 0;
  for (std::size_t j = 0; j < c; ++j) {
    p.lane_first[j] = next;
    for (std::size_t n = 0; n < static_cast<std::size_t>(k); ++n) {
      p.at[j][n] = next;
      for (const int r : p.bundle[n][j]) p.order.push_back(r);
      next += p.bundle[n][j].size();
    }
  }
  p.lane_first[c] = next;
  p.position.assign(p.order.size(), 0);
  for (std::size_t i = 0; i < p.order.size(); ++i) p.position[static_cast<std::size_t>(p.order[i])] = i;
  return p;
}

/// Blocks lane j carries in all: the sum of its bundles.
inline std::size_t lane_blocks(const Plan& p, int j) {
  const auto u = static_cast<std::size_t>(j);
  return p.lane_first[u + 1] - p.lane_first[u];
}

}  // namespace ragged::plans::lanes
