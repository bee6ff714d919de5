// ragged: which cluster each rank is in, for the cluster-aware algorithms
// (alltoall and alltoallv "lg" for two or more clusters, alltoall
// "coordinator" for exactly two). Pass it in a hint:
// options.hints.set(std::make_shared<const ClusterLayout>(...)). Build it from an
// explicit list, from cluster sizes, from host-name prefixes, or from any per-rank
// label such as the simulator's zone names. A layout that does not split the
// ranks in at least two non-empty clusters is refused with InvalidArgument.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ragged/collectives.hpp"

namespace ragged {

struct ClusterLayout {
  /// cluster[r] is the cluster of rank r, in 0..k-1 (k = clusters()).
  std::vector<int> cluster;
  /// A name for each cluster (the label, prefix or index it came from); the factories
  /// fill one per cluster.
  std::vector<std::string> names;

  /// From the cluster (0..k-1, k >= 2) of every rank; every cluster must be non-empty.
  static ClusterLayout from_list(std::vector<int> cluster_of_rank);
  /// Ranks 0..n1-1 in cluster 0 and n1..n1+n2-1 in cluster 1 (n1, n2 >= 1).
  static ClusterLayout split_at(int n1, int n2);
  /// Consecutive ranks: the first sizes[0] in cluster 0, the next sizes[1] in cluster 1,
  /// ... (at least two sizes, each >= 1).
  static ClusterLayout from_sizes(std::span<const int> sizes);
  /// From one label per rank (a zone, a site): at least two distinct labels; the clusters
  /// are numbered in the order their labels first appear (cluster 0 is rank 0's label).
  static ClusterLayout from_labels(std::span<const std::string> label_of_rank);
  /// From host names. With no `prefixes`, a host's cluster is its host_prefix(); otherwise
  /// the (longest) prefix of `prefixes` that its name starts with, and a host matching none
  /// is refused. Either way at least two clusters must result, numbered as from_labels().
  static ClusterLayout from_host_prefixes(std::span<const std::string> host_of_rank,
                                          std::span<const std::string> prefixes = {});

  [[nodiscard]] int size() const { return static_cast<int>(cluster.size()); }
  /// Number of clusters k: one more than the largest cluster number (0 with no ranks).
  [[nodiscard]] int clusters() const;
  /// Number of ranks in cluster `c`.
  [[nodiscard]] int size_of(int c) const;
  /// Ranks of cluster `c`, ascending.
  [[nodiscard]] std::vector<int> members(int c) const;
  /// The size of every cluster, cluster 0 first.
  [[nodiscard]] std::vector<int> sizes() const;
  /// Throws InvalidArgument(argument) unless this describes `procs` ranks split in k >= 2
  /// non-empty clusters numbered 0..k-1.
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
