// NodeLayout (include/ragged/layout.hpp): parse (RAGGED_LAYOUT's forms), from_sizes, from_list,
// from_labels, describe, check, and the accessors on an uneven 3 + 5 + 2 layout and on one rank
// per node.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ragged/error.hpp"
#include "ragged/layout.hpp"

namespace ragged {
namespace test_node_layout_test {

TEST(NodeLayout, UnevenThreeFiveTwo) {
  const std::vector<int> sizes = {3, 5, 2};
  const NodeLayout l = NodeLayout::from_sizes(sizes);
  EXPECT_EQ(l.node, (std::vector<int>{0, 0, 0, 1, 1, 1, 1, 1, 2, 2}));
  EXPECT_EQ(l.size(), 10);
  EXPECT_EQ(l.nodes(), 3);
  EXPECT_EQ(l.size_of(1), 5);
  EXPECT_EQ(l.members(2), (std::vector<int>{8, 9}));
  EXPECT_EQ(l.leaders(), (std::vector<int>{0, 3, 8}));
  EXPECT_EQ(l.local_rank(7), 4);
  EXPECT_EQ(l.max_per_node(), 5);
  EXPECT_EQ(l.min_per_node(), 2);
  EXPECT_FALSE(l.flat());
  EXPECT_FALSE(l.regular());
  EXPECT_TRUE(l.consecutive());
  EXPECT_EQ(l.describe(), "3 nodes: 3+5+2 ranks");
  EXPECT_EQ(NodeLayout::parse("3+5+2", 10), l);
  EXPECT_EQ(NodeLayout::parse("0,0,0,1,1,1,1,1,2,2", 10), l);
  EXPECT_NO_THROW(l.check(10));
}

TEST(NodeLayout, OnePerNode) {
  const NodeLayout l = NodeLayout::one_per_node(48);
  EXPECT_EQ(l.nodes(), 48);
  EXPECT_TRUE(l.flat());
  EXPECT_TRUE(l.regular());
  EXPECT_TRUE(l.consecutive());
  EXPECT_EQ(l.describe(), "48 nodes x 1 rank");
  EXPECT_EQ(NodeLayout::parse("flat", 48), l);
  EXPECT_EQ(NodeLayout::parse("48x1", 48), l);
  EXPECT_EQ(NodeLayout::parse("1", 48), l);
  EXPECT_TRUE(NodeLayout::one_per_node(1).flat());
  EXPECT_EQ(NodeLayout::one_per_node(1).describe(), "1 node x 1 rank");
}

TEST(NodeLayout, ParsesEveryForm) {
  const NodeLayout qdr = NodeLayout::parse("35x16", 560);
  EXPECT_EQ(qdr.nodes(), 35);
  EXPECT_TRUE(qdr.regular());
  EXPECT_EQ(qdr.describe(), "35 nodes x 16 ranks");
  EXPECT_EQ(qdr.local_rank(17), 1);
  // "M": nodes of M, the last smaller
  EXPECT_EQ(NodeLayout::parse("4", 10).node, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2}));
  // a list is renumbered in the order of the lowest rank; round-robin is not regular
  const NodeLayout rr = NodeLayout::parse("7,9,7,9", 4);
  EXPECT_EQ(rr.node, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_FALSE(rr.regular());
  EXPECT_FALSE(rr.consecutive());
  EXPECT_FALSE(NodeLayout::parse("0,0,1,1,0", 5).consecutive());  // node 0 in two runs
  EXPECT_TRUE(NodeLayout::parse("16+16+15", 47).consecutive());
  EXPECT_EQ(rr.describe(), "2 nodes x 2 ranks (not consecutive)");
}

TEST(NodeLayout, FromLabels) {
  const std::vector<std::string> hosts = {"b", "b", "a", "b", "a"};
  const NodeLayout l = NodeLayout::from_labels(hosts);
  EXPECT_EQ(l.node, (std::vector<int>{0, 0, 1, 0, 1}));
  EXPECT_NO_THROW(l.check(5));
  const std::vector<int> list = {5, 2, 5};
  EXPECT_EQ(NodeLayout::from_list(list).node, (std::vector<int>{0, 1, 0}));
}

void expect_invalid(const std::string& text, int procs) {
  try {
    (void)NodeLayout::parse(text, procs);
    FAIL() << "'" << text << "' for P = " << procs << " should be refused";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "RAGGED_LAYOUT") << text;
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(NodeLayout, RefusesWhatDoesNotDescribeTheRanks) {
  expect_invalid("4x4", 15);
  expect_invalid("3+5+2", 11);
  expect_invalid("3+0+2", 5);
  expect_invalid("0,1", 3);
  expect_invalid("x", 4);
  expect_invalid("0", 4);
  expect_invalid("a,b", 2);
}

// Node sizes that add up to more ranks than there are are refused before the layout is built
// (fuzz.env: "560561616+21616+2" for one rank took 2 GB first, "2000000000+1" would take 8 GB).
TEST(NodeLayout, RefusesHugeNodeSizesBeforeBuildingThem) {
  try {
    (void)NodeLayout::parse("2000000000+2000000000+1", 4);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "RAGGED_LAYOUT");
    EXPECT_NE(std::string(e.what()).find("describes 4000000001 ranks, not 4"), std::string::npos);
  }
  EXPECT_EQ(NodeLayout::parse("1+3", 4), NodeLayout::from_sizes(std::vector<int>{1, 3}));
}

TEST(NodeLayout, CheckNamesTheArgument) {
  NodeLayout l;
  l.node = {1, 0};  // not numbered in the order of the lowest rank
  try {
    l.check(2, "Comm::layout()");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "Comm::layout()");
  }
  EXPECT_THROW(NodeLayout::one_per_node(3).check(4), InvalidArgument);
  NodeLayout sites = NodeLayout::parse("2x2", 4);
  sites.site = {0};
  EXPECT_THROW(sites.check(4), InvalidArgument);
  sites.site = {0, 1};
  EXPECT_NO_THROW(sites.check(4));
}

// RAGGED_NETWORK's form (NetworkModel::parse): every field, any subset, and errors naming the field.
TEST(NetworkModelParse, EveryFieldAndAnySubset) {
  const NetworkModel all = NetworkModel::parse(
      "intra=150e-6:9.26e-10,inter=1.625e-4:8.2e-8,gap=6.9e-6,exchange=0.71:65536,reduce=2.5e-10,"
      "node=2e10");
  EXPECT_DOUBLE_EQ(all.intra.alpha, 150e-6);
  EXPECT_DOUBLE_EQ(all.intra.beta, 9.26e-10);
  EXPECT_DOUBLE_EQ(all.inter.alpha, 1.625e-4);
  EXPECT_DOUBLE_EQ(all.inter.beta, 8.2e-8);
  EXPECT_DOUBLE_EQ(all.gap, 6.9e-6);
  EXPECT_TRUE(all.gap_known);
  EXPECT_DOUBLE_EQ(all.exchange_factor, 0.71);
  EXPECT_EQ(all.eager_limit, 65536U);
  EXPECT_DOUBLE_EQ(all.reduce_element, 2.5e-10);
  EXPECT_DOUBLE_EQ(all.node_bandwidth, 2e10);
  const NetworkModel some = NetworkModel::parse("exchange=0.5");
  EXPECT_FALSE(some.intra.known());
  EXPECT_FALSE(some.inter.known());
  EXPECT_EQ(some.gap, 0.0);
  EXPECT_FALSE(some.gap_known);
  EXPECT_TRUE(NetworkModel::parse("gap=0").gap_known);  // a gap of 0 given is a known gap
  EXPECT_DOUBLE_EQ(some.exchange_factor, 0.5);
  EXPECT_EQ(some.eager_limit, 0U);
  EXPECT_EQ(some.reduce_element, 0.0);
  EXPECT_EQ(some.node_bandwidth, 0.0);
  const NetworkModel none = NetworkModel::parse("");
  EXPECT_EQ(none.exchange_factor, 1.0);
  EXPECT_FALSE(none.intra.known());
}

TEST(NetworkModelParse, ErrorsNameTheFieldAndTheVariable) {
  const auto message = [](const char* text) -> std::string {
    try {
      (void)NetworkModel::parse(text);
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), "RAGGED_NETWORK");
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message("intra=1e-6").find("'intra'"), std::string::npos);
  EXPECT_NE(message("intra=x:1").find("'intra'"), std::string::npos);
  EXPECT_NE(message("inter=1e-6:-2").find("'inter'"), std::string::npos);
  EXPECT_NE(message("exchange=0").find("'exchange'"), std::string::npos);
  EXPECT_NE(message("exchange=1.5").find("'exchange'"), std::string::npos);
  EXPECT_NE(message("exchange=0.7:1.5").find("'exchange'"), std::string::npos);
  EXPECT_NE(message("speed=3").find("'speed'"), std::string::npos);
  EXPECT_NE(message("gap").find("'gap'"), std::string::npos);
  EXPECT_NE(message("reduce=-1").find("'reduce'"), std::string::npos);
  // An empty field (a trailing ',', or "=1") is named "" (fuzz.env found field '' naming nothing).
  EXPECT_NE(message("gap=1e-6,").find("field '\"\"' has no '='"), std::string::npos);
  EXPECT_NE(message("=1").find("field '\"\"' is not one of"), std::string::npos);
}

}  // namespace test_node_layout_test
}  // namespace ragged
