// The pure part of the hierarchical (node-aware) collectives (docs/algorithms/hierarchical.md):
// from the node of every rank, the ranks of each node, each rank's node and index in it, the one
// representative per node that an inter-node phase runs among (the root on the root's node, the
// lowest rank elsewhere; or each node's latest-arriving rank), the packing of an alltoall between
// nodes, and slices of a vector.
// No communication: the algorithms build their sub-communicators from these.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace ragged::plans::hierarchy {

/// The ranks of a communicator grouped by node.
struct Split {
  std::vector<std::vector<int>> members;  ///< members[n]: the ranks of node n, ascending
  std::vector<int> node_of;               ///< node_of[r]: the node of rank r
  std::vector<int> local_of;              ///< local_of[r]: r's index among the ranks of its node

  [[nodiscard]] int nodes() const { return static_cast<int>(members.size()); }
  [[nodiscard]] int procs() const { return static_cast<int>(node_of.size()); }
};

/// Groups ranks 0..size-1 by node_of_rank[r], nodes numbered 0..K-1 (every number in 0..K-1 used).
inline Split split(std::span<const int> node_of_rank) {
  Split s;
  s.node_of.assign(node_of_rank.begin(), node_of_rank.end());
  s.local_of.assign(node_of_rank.size(), 0);
  int nodes = 0;
  for (const int n : node_of_rank) nodes = std::max(nodes, n + 1);
  s.members.resize(static_cast<std::size_t>(nodes));
  for (std::size_t r = 0; r < node_of_rank.size(); ++r) {
    auto& m = s.members[static_cast<std::size_t>(node_of_rank[r])];
    s.local_of[r] = static_cast<int>(m.size());
    m.push_back(static_cast<int>(r));
  }
  return s;
}

/// A layout the hierarchical algorithms help: two nodes or more, and some node with two ranks or more.
inline bool pays(const Split& s) {
  if (s.nodes() < 2) return false;
  return std::any_of(s.members.begin(), s.members.end(), [](const auto& m) { return m.size() >= 2; });
}

/// One rank per node, in node order: `root` on root's node, the node's lowest rank elsewhere.
/// Pass root = -1 for the lowest rank of every node (the leaders).
inline std::vector<int> representatives(const Split& s, int root = -1) {
  std::vector<int> out;
  out.reserve(s.members.size());
  for (const auto& m : s.members) out.push_back(m.front());
  if (root >= 0) out[static_cast<std::size_t>(s.node_of[static_cast<std::size_t>(root)])] = root;
  return out;
}

/// The latest of `ranks` (non-empty) by `arrivals` (indexed by rank), ties to the lowest rank.
inline int latest_of(std::span<const int> ranks, std::span<const double> arrivals) {
  assert(!ranks.empty());
  int best = ranks.front();
  for (const int r : ranks) {
    const double a = arrivals[static_cast<std::size_t>(r)];
    const double b = arrivals[static_cast<std::size_t>(best)];
    if (a > b || (a == b && r < best)) best = r;
  }
  return best;
}

/// One rank per node, in node order: the node's latest by `arrivals` (ties: its lowest rank), the
/// representatives of allreduce hierarchical_arrival (docs/algorithms/hierarchical-arrival.md).
/// Equal arrivals give the leaders.
inline std::vector<int> latest_representatives(const Split& s, std::span<const double> arrivals) {
  assert(arrivals.size() == s.node_of.size());
  std::vector<int> out;
  out.reserve(s.members.size());
  for (const auto& m : s.members) out.push_back(latest_of(m, arrivals));
  return out;
}

/// Each node's arrival: its latest rank's, in node order.
inline std::vector<double> node_arrivals(const Split& s, std::span<const double> arrivals) {
  assert(arrivals.size() == s.node_of.size());
  std::vector<double> out;
  out.reserve(s.members.size());
  for (const auto& m : s.members) out.push_back(arrivals[static_cast<std::size_t>(latest_of(m, arrivals))]);
  return out;
}

/// Node n holds ranks [n m, (n + 1) m) for one m (by-slot mapping, even nodes): the blocks of a
/// node are then one contiguous run of an allgather's buffer.
inline bool consecutive_equal(const Split& s) {
  const std::size_t m = s.members.front().size();
  for (std::size_t n = 0; n < s.members.size(); ++n) {
    if (s.members[n].size() != m) return false;
    for (std::size_t i = 0; i < m; ++i) {
      if (s.members[n][i] != static_cast<int>(n * m + i)) return false;
    }
  }
  return true;
}

/// The most ranks on one node.
inline int max_per_node(const Split& s) {
  std::size_t most = 0;
  for (const auto& m : s.members) most = std::max(most, m.size());
  return static_cast<int>(most);
}

/// The fewest ranks on one node.
inline int min_per_node(const Split& s) {
  std::size_t fewest = s.members.empty() ? 0 : s.members.front().size();
  for (const auto& m : s.members) fewest = std::min(fewest, m.size());
  return static_cast<int>(fewest);
}

/// Elements [first, second) of part i of `count` elements cut in `parts` nearly equal parts (the
/// first count % parts parts one longer).
inline std::pair<std::size_t, std::size_t> slice(std::size_t count, int parts, int i) {
  assert(parts > 0 && i >= 0 && i < parts);
  const auto p = static_cast<std::size_t>(parts);
  const auto k = static_cast<std::size_t>(i);
  const std::size_t base = count / p;
  const std::size_t extra = count % p;
  const std::size_t first = k * base + std::min(k, extra);
  return {first, first + base + (k < extra ? 1 : 0)};
}

// ---------------------------------------------------------------------------------------------
// Alltoall between nodes through their leaders, in blocks (one block: what one rank sends one rank).
//
// The leader of node a gathers, in local order, each member's whole send buffer: row i (member
// members[a][i]) holds P blocks, block r for rank r. It sends node b, in one message, the blocks
// its members send node b's members: member-major, [i][j] = row i's block members[b][j], so the
// message to b is n_a n_b blocks. It receives from every node b the same shape, [j][i] = what
// members[b][j] sends members[a][i], and rebuilds the scatter buffer: row i (for members[a][i])
// holds P blocks, block r from rank r.

/// Blocks node `a` sends node `b` (and receives from it): n_a n_b.
inline std::size_t pair_blocks(const Split& s, int a, int b) {
  return s.members[static_cast<std::size_t>(a)].size() * s.members[static_cast<std::size_t>(b)].size();
}

/// Where block [i][j] of the message from node a to node b sits in a's gathered rows: row i,
/// block members[b][j], as a block index into the gathered buffer (rows of P blocks).
inline std::size_t gathered_index(const Split& s, int b, std::size_t i, std::size_t j) {
  return i * static_cast<std::size_t>(s.procs()) + static_cast<std::size_t>(s.members[static_cast<std::size_t>(b)][j]);
}

/// Where block [j][i] of the message node a receives from node b goes in a's scatter rows: row i
/// (for members[a][i]), block members[b][j] (the source rank).
inline std::size_t scatter_index(const Split& s, int b, std::size_t j, std::size_t i) {
  return i * static_cast<std::size_t>(s.procs()) + static_cast<std::size_t>(s.members[static_cast<std::size_t>(b)][j]);
}

}  // namespace ragged::plans::hierarchy
