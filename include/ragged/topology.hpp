// ragged: which of two clusters each rank is in, for the two-cluster
// algorithms (alltoall "lg" and "coordinator", alltoallv "lg"). Pass it in
// a hint: options.hints.set(std::make_shared<const ClusterLayout>(...)). Build it from an explicit list, from host-name
// prefixes, or from any per-rank label such as the simulator's zone names.
// A layout that does not split the ranks in two non-empty clusters is refused
// with InvalidArgument.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ragged/collectives.hpp"

namespace ragged {

struct ClusterLayout {
  /// cluster[r] is 0 or 1: the cluster of rank r.
  std::vector<int> cluster;
  /// A name for each cluster (the label, prefix or index it came from).
  std::array<std::string, 2> names{"0", "1"};

  /// From the cluster (0 or 1) of every rank; both clusters must be non-empty.
  static ClusterLayout from_list(std::vector<int> cluster_of_rank);
  /// Ranks 0..n1-1 in cluster 0 and n1..n1+n2-1 in cluster 1 (n1, n2 >= 1).
  static ClusterLayout split_at(int n1, int n2);
  /// From one label per rank (a zone, a site): exactly two distinct labels; cluster 0
  /// is the label of rank 0.
  static ClusterLayout from_labels(std::span<const std::string> label_of_rank);
  /// From host names. With no `prefixes`, a host's cluster is its host_prefix(); otherwise
  /// the (longest) prefix of `prefixes` that its name starts with, and a host matching none
  /// is refused. Either way exactly two clusters must result.
  static ClusterLayout from_host_prefixes(std::span<const std::string> host_of_rank,
                                          std::span<const std::string> prefixes = {});

  [[nodiscard]] int size() const { return static_cast<int>(cluster.size()); }
  /// Number of ranks in cluster `c` (0 or 1).
  [[nodiscard]] int size_of(int c) const;
  /// Ranks of cluster `c`, ascending.
  [[nodiscard]] std::vector<int> members(int c) const;
  /// Throws InvalidArgument(argument) unless this describes `procs` ranks split in two
  /// non-empty clusters.
  void check(int procs, const char* argument = "clusters") const;
};

/// The cluster part of a host name: up to the first '.', without trailing digits and
/// then without trailing '-' or '_' ("graphene-12.nancy.grid5000.fr" -> "graphene",
/// "c2n07" -> "c2n").
[[nodiscard]] std::string host_prefix(std::string_view host);

/// Collective over `comm`: every rank passes its own label (its host name, zone or site)
/// and gets the layout ClusterLayout::from_labels() builds from all of them.
[[nodiscard]] ClusterLayout exchange_labels(Comm& comm, const std::string& my_label, Timeout timeout = {});

}  // namespace ragged
