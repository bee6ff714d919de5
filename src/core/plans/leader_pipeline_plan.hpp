// The schedule of allgather "leader_pipeline" (docs/algorithms/allgather-leader-pipeline.md).
// Pure functions, no communication.
//
// The blocks are kept in node-major order: node 0's ranks, then node 1's, ... (each node's in
// rank order), so that a node's blocks are one run, its "chunk". The k node leaders pass the
// chunks around a ring: at step s (0 <= s < k - 1) the leader of node n receives the chunk of node
// n - s - 1 (mod k) from the leader of node n - 1 and, before step s + 1, forwards it to the leader
// of node n + 1. Each chunk a leader receives runs down its node's chain (leader, local rank 1,
// ..., local rank q - 1) in pieces of at most `piece` bytes.
#pragma once

#include <cstddef>
#include <vector>

#include "plans/hierarchy_plan.hpp"

namespace ragged::plans::leader_pipeline {

/// The node-major order of the ranks of a split.
struct Order {
  std::vector<int> rank_at;        ///< rank_at[i]: the rank whose block is i-th in node-major order
  std::vector<std::size_t> first;  ///< first[n]: where node n's chunk starts (in blocks)
  bool identity = true;            ///< node-major order is rank order (every node's ranks consecutive)
};

inline Order order(const hierarchy::Split& s) {
  Order o;
  o.first.reserve(s.members.size());
  for (const auto& members : s.members) {
    o.first.push_back(o.rank_at.size());
    for (int r : members) {
      o.identity = o.identity && r == static_cast<int>(o.rank_at.size());
      o.rank_at.push_back(r);
    }
  }
  return o;
}

/// The node whose chunk node `node`'s leader receives at ring step s (0 <= s < k - 1).
inline int received_at(int k, int node, int s) { return ((node - s - 1) % k + k) % k; }

/// The piece size of the chains (8 KiB, the best of 2 to 64 KiB at P = 560 on infiniband-qdr-560),
/// shared by the algorithm and its cost model.
inline constexpr std::size_t piece_bytes = 8 * 1024;

/// The number of pieces of at most `piece` bytes (> 0) a chunk of `bytes` runs down a chain in (0
/// for an empty chunk).
inline std::size_t pieces(std::size_t bytes, std::size_t piece) { return (bytes + piece - 1) / piece; }

}  // namespace ragged::plans::leader_pipeline
