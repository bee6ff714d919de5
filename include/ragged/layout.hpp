// ragged: which ranks share a node, for the layout-aware cost models and the hierarchical
// (node-aware) algorithms. Every rank of a communicator holds the same NodeLayout: the mpi
// backend builds it from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), the sim backend from the
// platform's node zones, RAGGED_LAYOUT overrides both (for tests), and a call may carry one as
// a hint (options.hints.set(std::make_shared<const NodeLayout>(...))). Uneven nodes (3 + 5 + 2
// ranks) and one rank per node are ordinary layouts.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ragged/arrival.hpp"

namespace ragged {

struct NodeLayout {
  /// node[r] is the node of rank r, in 0..nodes()-1, numbered in the order of their lowest rank
  /// (rank 0 is on node 0).
  std::vector<int> node;
  /// site[n] is the site of node n (0..sites()-1), for clusters joined by a long-distance link;
  /// empty when every node is on one site.
  std::vector<int> site;

  /// One rank per node: node[r] = r.
  static NodeLayout one_per_node(int procs);
  /// Consecutive ranks: the first sizes[0] on node 0, the next sizes[1] on node 1, ... (each >= 1).
  static NodeLayout from_sizes(std::span<const int> sizes);
  /// From any node number per rank (renumbered in the order of their lowest rank).
  static NodeLayout from_list(std::span<const int> node_of_rank);
  /// From one label per rank (a host name, a zone): equal labels share a node.
  static NodeLayout from_labels(std::span<const std::string> label_of_rank);
  /// From text, as RAGGED_LAYOUT takes it, for `procs` ranks: "flat" (one rank per node),
  /// "KxM" (K nodes of M consecutive ranks; K*M must be procs), "a+b+c" (consecutive nodes of
  /// a, b, c ranks), "M" (nodes of M consecutive ranks, the last one smaller when M does not
  /// divide procs), or "n0,n1,..." (the node of every rank). Throws InvalidArgument(argument)
  /// naming what is wrong.
  static NodeLayout parse(std::string_view text, int procs, const char* argument = "RAGGED_LAYOUT");

  [[nodiscard]] int size() const { return static_cast<int>(node.size()); }
  [[nodiscard]] int nodes() const;
  /// Number of ranks on node `n`.
  [[nodiscard]] int size_of(int n) const;
  /// Ranks of node `n`, ascending.
  [[nodiscard]] std::vector<int> members(int n) const;
  /// The lowest rank of every node, node 0 first (the nodes' leaders).
  [[nodiscard]] std::vector<int> leaders() const;
  /// Rank r's index among the ranks of its node (0 for the node's leader).
  [[nodiscard]] int local_rank(int r) const;
  /// The most and the fewest ranks on one node.
  [[nodiscard]] int max_per_node() const;
  [[nodiscard]] int min_per_node() const;
  /// Every node holds one rank (also true for one rank).
  [[nodiscard]] bool flat() const { return max_per_node() <= 1; }
  /// Every node holds the same number of consecutive ranks (by-slot mapping), or one rank each.
  [[nodiscard]] bool regular() const;
  /// Every node holds consecutive ranks (by-slot mapping), however many: 16 + 16 + 15 too.
  [[nodiscard]] bool consecutive() const;
  /// Short and human: "35 nodes x 16 ranks", "3 nodes: 3+5+2 ranks", "48 nodes x 1 rank".
  [[nodiscard]] std::string describe() const;
  /// Throws InvalidArgument(argument) unless this describes `procs` ranks on nodes numbered
  /// 0..nodes()-1 in the order of their lowest rank, none empty (and a site for every node when
  /// `site` is not empty).
  void check(int procs, const char* argument = "layout") const;

  friend bool operator==(const NodeLayout&, const NodeLayout&) = default;
};

/// What the cost models know of the network beside the layout: the link between two ranks of
/// one node, between two nodes, and the per-message gap of one rank (LogGP's g). A link that is
/// not known() leaves the cost models their defaults. The sim backend reads it from the platform;
/// a call may carry one as a hint.
struct NetworkModel {
  LinkModel intra;
  LinkModel inter;
  double gap = 0;  ///< seconds between two messages a rank starts or completes
  /// The gap is the network's own, not a default: the sim backend's (the platform's
  /// ragged/message_gap, 0 when it declares none) or one RAGGED_NETWORK gives. A rank's messages
  /// posted at once then overlap their latencies, `gap` apart, even when the gap is 0 (SimGrid's
  /// CM02 lets a root's P - 1 small messages share one latency), and the models of algorithms
  /// that post them so (linear bcast, gather and scatter, spreading allgather) charge that. Unknown
  /// (an MPI library's network), they charge a latency a message, as MPI libraries' tuning does.
  bool gap_known = false;
  /// While both directions of a pair carry a message of at least `eager_limit` bytes (an
  /// exchange, as recursive halving and doubling make), each moves at this fraction of its rate
  /// (1: no such cost). Measured by ragged-bench calibrate (docs/calibration.md, "Exchanges of a
  /// rendezvous size"): one TCP connection per pair carries both directions.
  double exchange_factor = 1;
  std::size_t eager_limit = 0;  ///< bytes from which exchange_factor applies (0: every size)
  /// Seconds a rank takes to reduce one element (one operand into another): the sim backend
  /// charges one flop an element at the host's speed, so it gives 1 / speed. The cost models'
  /// gamma (seconds per byte reduced) is this over the element's size (CallInfo::element_bytes);
  /// 0: unknown, the models keep their default gamma.
  double reduce_element = 0;
  /// Bytes per second of a node's memory, which every transfer its ranks receive goes through,
  /// all of them sharing it (0: unknown, and the cost models leave it out). The sim backend reads
  /// it from the platform: the link that two disjoint pairs of a node's ranks both cross (a node
  /// zone's backbone).
  double node_bandwidth = 0;

  /// Parses RAGGED_NETWORK's form, comma-separated fields, each optional:
  /// `intra=ALPHA:BETA,inter=ALPHA:BETA,gap=SECONDS,exchange=FACTOR[:EAGER_LIMIT],reduce=SECONDS,node=BYTES_PER_S`
  /// (seconds, seconds per byte, 0 < FACTOR <= 1, bytes, seconds per element reduced, bytes per second), e.g.
  /// "intra=150e-6:9.3e-10,exchange=0.71:65536". `gap=` (0 too) sets gap_known.
  /// Throws InvalidArgument(argument) naming the field at fault.
  static NetworkModel parse(std::string_view text, const char* argument = "RAGGED_NETWORK");
};

}  // namespace ragged
