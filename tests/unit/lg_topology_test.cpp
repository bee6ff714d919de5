// ClusterLayout (ragged/topology.hpp): the ways to say which cluster each rank is
// in, and the refusal of anything that does not split the ranks in two or more
// non-empty clusters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ragged/error.hpp"
#include "ragged/topology.hpp"

namespace ragged {
namespace test_lg_topology_test {

// The argument an InvalidArgument names, or "" when `f` does not throw one.
template <class F>
std::string refused(F f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.argument();
  }
  return "";
}

TEST(ClusterLayout, FromListAndSplit) {
  const ClusterLayout l = ClusterLayout::from_list({1, 0, 1, 1});
  EXPECT_EQ(l.size(), 4);
  EXPECT_EQ(l.size_of(0), 1);
  EXPECT_EQ(l.size_of(1), 3);
  EXPECT_EQ(l.members(1), (std::vector<int>{0, 2, 3}));
  const ClusterLayout s = ClusterLayout::split_at(3, 7);
  EXPECT_EQ(s.members(0), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(s.size_of(1), 7);
  EXPECT_NO_THROW(s.check(10));
  EXPECT_EQ(refused([&] { s.check(9); }), "clusters");
  EXPECT_EQ(refused([] { (void)ClusterLayout::split_at(0, 4); }), "n1/n2");
  EXPECT_EQ(refused([] { (void)ClusterLayout::from_list({0, 0, 0}); }), "cluster_of_rank");
  EXPECT_EQ(refused([] { (void)ClusterLayout::from_list({}); }), "cluster_of_rank");
  EXPECT_EQ(s.clusters(), 2);
  EXPECT_EQ(s.names, (std::vector<std::string>{"0", "1"}));
}

TEST(ClusterLayout, ThreeAndMoreClusters) {
  const ClusterLayout l = ClusterLayout::from_list({0, 2, 1, 2, 0});
  EXPECT_EQ(l.clusters(), 3);
  EXPECT_EQ(l.sizes(), (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(l.members(2), (std::vector<int>{1, 3}));
  EXPECT_EQ(l.names, (std::vector<std::string>{"0", "1", "2"}));
  const std::vector<int> sizes{4, 1, 6, 3};
  const ClusterLayout s = ClusterLayout::from_sizes(sizes);
  EXPECT_EQ(s.size(), 14);
  EXPECT_EQ(s.clusters(), 4);
  EXPECT_EQ(s.sizes(), sizes);
  EXPECT_EQ(s.members(1), (std::vector<int>{4}));
  EXPECT_EQ(s.members(3), (std::vector<int>{11, 12, 13}));
  EXPECT_NO_THROW(s.check(14));
  // Every cluster number up to the largest must be used, none negative or past the ranks.
  EXPECT_EQ(refused([] { (void)ClusterLayout::from_list({0, 2, 2}); }), "cluster_of_rank");
  EXPECT_EQ(refused([] { (void)ClusterLayout::from_list({0, -1, 1}); }), "cluster_of_rank");
  EXPECT_EQ(refused([] { (void)ClusterLayout::from_list({0, 1, 7}); }), "cluster_of_rank");
  const std::vector<int> one{5};
  const std::vector<int> empty_cluster{2, 0, 3};
  EXPECT_EQ(refused([&] { (void)ClusterLayout::from_sizes(one); }), "sizes");
  EXPECT_EQ(refused([&] { (void)ClusterLayout::from_sizes(empty_cluster); }), "sizes");
}

TEST(ClusterLayout, FromLabelsLikeSimZones) {
  const std::vector<std::string> zones{"nancy", "nancy", "rennes", "nancy", "rennes"};
  const ClusterLayout l = ClusterLayout::from_labels(zones);
  EXPECT_EQ(l.cluster, (std::vector<int>{0, 0, 1, 0, 1}));
  EXPECT_EQ(l.names[0], "nancy");
  EXPECT_EQ(l.names[1], "rennes");
  // Cluster 0 is rank 0's label, whatever its name.
  const std::vector<std::string> reversed{"rennes", "nancy"};
  EXPECT_EQ(ClusterLayout::from_labels(reversed).cluster, (std::vector<int>{0, 1}));
  const std::vector<std::string> one{"a", "a", "a"};
  EXPECT_EQ(refused([&] { (void)ClusterLayout::from_labels(one); }), "label_of_rank");
  // Three zones: three clusters, numbered in order of first appearance.
  const std::vector<std::string> three{"lyon", "nancy", "lyon", "rennes", "nancy"};
  const ClusterLayout t = ClusterLayout::from_labels(three);
  EXPECT_EQ(t.cluster, (std::vector<int>{0, 1, 0, 2, 1}));
  EXPECT_EQ(t.names, (std::vector<std::string>{"lyon", "nancy", "rennes"}));
}

TEST(ClusterLayout, HostPrefixes) {
  EXPECT_EQ(host_prefix("graphene-12.nancy.grid5000.fr"), "graphene");
  EXPECT_EQ(host_prefix("paradent-3"), "paradent");
  EXPECT_EQ(host_prefix("c2n07"), "c2n");
  EXPECT_EQ(host_prefix("node_10"), "node");
  EXPECT_EQ(host_prefix("frontend"), "frontend");
  const std::vector<std::string> hosts{"graphene-1.nancy", "paradent-4.rennes", "graphene-2.nancy", "paradent-9"};
  EXPECT_EQ(ClusterLayout::from_host_prefixes(hosts).cluster, (std::vector<int>{0, 1, 0, 1}));
  // Explicit prefixes: the longest that matches.
  const std::vector<std::string> named{"a10", "a1", "a22", "a15"};
  const std::vector<std::string> prefixes{"a1", "a2"};
  EXPECT_EQ(ClusterLayout::from_host_prefixes(named, prefixes).cluster, (std::vector<int>{0, 0, 1, 0}));
  const std::vector<std::string> nested_hosts{"a10", "a1", "a12", "a105"};
  const std::vector<std::string> nested{"a1", "a10"};
  EXPECT_EQ(ClusterLayout::from_host_prefixes(nested_hosts, nested).cluster, (std::vector<int>{0, 1, 1, 0}));
  const std::vector<std::string> stray{"a1", "b2"};
  EXPECT_EQ(refused([&] { (void)ClusterLayout::from_host_prefixes(stray, prefixes); }), "host_of_rank");
  const std::vector<std::string> same{"node-1", "node-2", "node-3"};
  EXPECT_EQ(refused([&] { (void)ClusterLayout::from_host_prefixes(same); }), "host_of_rank");
  const std::vector<std::string> sites{"graphene-1", "paradent-4", "sagittaire-2", "graphene-2"};
  EXPECT_EQ(ClusterLayout::from_host_prefixes(sites).cluster, (std::vector<int>{0, 1, 2, 0}));
}

}  // namespace test_lg_topology_test
}  // namespace ragged
