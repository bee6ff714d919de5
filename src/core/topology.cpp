#include "ragged/topology.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "internal/alltoall_common.hpp"
#include "ragged/error.hpp"

namespace ragged {

namespace {

/// The tag of exchange_labels(), which runs outside any collective call (a benchmark calls
/// it to build the layout it then passes as a hint), so it has no context and no tag block
/// of its own; kept apart from the per-call blocks as the other fixed tags are (internal::Tag).
constexpr int tag_topology = 220;

std::string describe_counts(const ClusterLayout& layout) {
  std::string s;
  for (const int n : layout.sizes()) s += (s.empty() ? "" : " + ") + std::to_string(n);
  return (s.empty() ? "0" : s) + " ranks";
}

std::vector<std::string> index_names(int k) {
  std::vector<std::string> names;
  for (int c = 0; c < k; ++c) names.push_back(std::to_string(c));
  return names;
}

ClusterLayout from_distinct(std::span<const std::string> keys, const char* argument, const char* what) {
  ClusterLayout layout;
  layout.cluster.reserve(keys.size());
  std::vector<std::string> seen;
  for (const std::string& k : keys) {
    auto it = std::find(seen.begin(), seen.end(), k);
    if (it == seen.end()) {
      seen.push_back(k);
      it = seen.end() - 1;
    }
    layout.cluster.push_back(static_cast<int>(it - seen.begin()));
  }
  if (seen.size() < 2) {
    std::string list;
    for (const std::string& s : seen) list += (list.empty() ? "'" : ", '") + s + "'";
    throw InvalidArgument(argument, std::string("the ranks must split in at least two clusters, but their ") + what +
                                        " give " + std::to_string(seen.size()) + (list.empty() ? "" : ": " + list));
  }
  layout.names = std::move(seen);
  return layout;
}

}  // namespace

ClusterLayout ClusterLayout::from_list(std::vector<int> cluster_of_rank) {
  ClusterLayout layout;
  layout.cluster = std::move(cluster_of_rank);
  layout.check(layout.size(), "cluster_of_rank");
  layout.names = index_names(layout.clusters());
  return layout;
}

ClusterLayout ClusterLayout::split_at(int n1, int n2) {
  if (n1 < 1 || n2 < 1) {
    throw InvalidArgument(
        "n1/n2", "both clusters need at least one rank (got " + std::to_string(n1) + " + " + std::to_string(n2) + ")");
  }
  ClusterLayout layout;
  layout.cluster.assign(static_cast<std::size_t>(n1), 0);
  layout.cluster.resize(static_cast<std::size_t>(n1) + static_cast<std::size_t>(n2), 1);
  layout.names = index_names(2);
  return layout;
}

ClusterLayout ClusterLayout::from_sizes(std::span<const int> sizes) {
  std::string list;
  for (const int n : sizes) list += (list.empty() ? "" : " + ") + std::to_string(n);
  if (sizes.size() < 2) {
    throw InvalidArgument("sizes", "at least two clusters are needed (got " + std::to_string(sizes.size()) + ")");
  }
  ClusterLayout layout;
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    if (sizes[c] < 1) throw InvalidArgument("sizes", "every cluster needs at least one rank (got " + list + ")");
    layout.cluster.insert(layout.cluster.end(), static_cast<std::size_t>(sizes[c]), static_cast<int>(c));
  }
  layout.names = index_names(static_cast<int>(sizes.size()));
  return layout;
}

ClusterLayout ClusterLayout::from_labels(std::span<const std::string> label_of_rank) {
  return from_distinct(label_of_rank, "label_of_rank", "labels");
}

ClusterLayout ClusterLayout::from_host_prefixes(std::span<const std::string> host_of_rank,
                                                std::span<const std::string> prefixes) {
  std::vector<std::string> keys;
  keys.reserve(host_of_rank.size());
  for (const std::string& host : host_of_rank) {
    if (prefixes.empty()) {
      keys.push_back(host_prefix(host));
      continue;
    }
    const std::string* best = nullptr;
    for (const std::string& p : prefixes) {
      if (host.compare(0, p.size(), p) == 0 && (best == nullptr || p.size() > best->size())) best = &p;
    }
    if (best == nullptr) throw InvalidArgument("host_of_rank", "host '" + host + "' matches none of the prefixes");
    keys.push_back(*best);
  }
  return from_distinct(keys, "host_of_rank", "host-name prefixes");
}

int ClusterLayout::clusters() const {
  return cluster.empty() ? 0 : 1 + *std::max_element(cluster.begin(), cluster.end());
}

int ClusterLayout::size_of(int c) const { return static_cast<int>(std::count(cluster.begin(), cluster.end(), c)); }

std::vector<int> ClusterLayout::sizes() const {
  std::vector<int> out(static_cast<std::size_t>(std::max(clusters(), 0)), 0);
  for (const int c : cluster) {
    if (c >= 0) ++out[static_cast<std::size_t>(c)];
  }
  return out;
}

std::vector<int> ClusterLayout::members(int c) const {
  std::vector<int> out;
  for (int r = 0; r < size(); ++r) {
    if (cluster[static_cast<std::size_t>(r)] == c) out.push_back(r);
  }
  return out;
}

void ClusterLayout::check(int procs, const char* argument) const {
  if (size() != procs) {
    throw InvalidArgument(argument, "the layout describes " + std::to_string(size()) + " ranks, the communicator has " +
                                        std::to_string(procs));
  }
  for (int r = 0; r < size(); ++r) {
    const int c = cluster[static_cast<std::size_t>(r)];
    if (c < 0 || c >= size()) {
      throw InvalidArgument(argument, "rank " + std::to_string(r) + " is in cluster " + std::to_string(c) +
                                          " (clusters are numbered 0..k-1, and there are " + std::to_string(size()) +
                                          " ranks)");
    }
  }
  const std::vector<int> counts = sizes();
  if (counts.size() < 2 || std::find(counts.begin(), counts.end(), 0) != counts.end()) {
    throw InvalidArgument(argument, "the ranks do not split in two or more non-empty clusters numbered 0..k-1 (" +
                                        describe_counts(*this) + ")");
  }
}

std::string host_prefix(std::string_view host) {
  std::string_view s = host.substr(0, host.find('.'));
  while (!s.empty() && s.back() >= '0' && s.back() <= '9') s.remove_suffix(1);
  while (!s.empty() && (s.back() == '-' || s.back() == '_')) s.remove_suffix(1);
  return std::string(s);
}

ClusterLayout exchange_labels(Comm& comm, const std::string& my_label, Timeout timeout) {
  constexpr std::size_t max_label = 255;
  if (my_label.size() > max_label) {
    throw InvalidArgument("my_label", "labels are at most " + std::to_string(max_label) + " characters");
  }
  const int p = comm.size();
  const int me = comm.rank();
  std::vector<std::string> labels(static_cast<std::size_t>(p));
  std::vector<std::vector<char>> in(static_cast<std::size_t>(p), std::vector<char>(max_label));
  std::vector<Request> requests;
  for (int k = 1; k < p; ++k) {
    const int from = (me - k + p) % p;
    requests.push_back(comm.irecv(from, tag_topology, in[static_cast<std::size_t>(from)].data(), max_label));
  }
  for (int k = 1; k < p; ++k) {
    requests.push_back(comm.isend((me + k) % p, tag_topology, my_label.data(), my_label.size()));
  }
  comm.wait_all(requests, timeout);
  for (int k = 1; k < p; ++k) {
    const int from = (me - k + p) % p;
    const Status s = requests[static_cast<std::size_t>(k - 1)].status();
    labels[static_cast<std::size_t>(from)].assign(in[static_cast<std::size_t>(from)].data(), s.bytes);
  }
  labels[static_cast<std::size_t>(me)] = my_label;
  return ClusterLayout::from_labels(labels);
}

namespace internal {

const ClusterLayout& require_clusters(const Context& ctx, const char* algorithm) {
  const ClusterLayout* layout = ctx.clusters();
  if (layout == nullptr) {
    throw InvalidArgument("options.hints", std::string("'") + algorithm +
                                               "' needs the cluster layout of the communicator "
                                               "(a ClusterLayout hint)");
  }
  try {
    layout->check(ctx.size(), "options.hints");
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("options.hints", std::string("'") + algorithm + "': " + e.what());
  }
  return *layout;
}

const ClusterLayout& require_two_clusters(const Context& ctx, const char* algorithm) {
  const ClusterLayout& layout = require_clusters(ctx, algorithm);
  if (layout.clusters() != 2) {
    throw InvalidArgument("options.hints", std::string("'") + algorithm + "' needs exactly two clusters, not " +
                                               std::to_string(layout.clusters()));
  }
  return layout;
}

}  // namespace internal

}  // namespace ragged
