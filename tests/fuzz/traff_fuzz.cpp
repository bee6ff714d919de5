// Fuzzes Träff's block-size-aware trees (plans/traff_tree.hpp) for P <= 512 processes, any root,
// both cost models, with and without graceful degradation, block sizes from 0 to INT_MAX. Checks
// that the oracle's tree is a tree spanning all ranks rooted at the root (parents in range,
// no cycle, a direct sender's parent is the root, each merge child listed once by its parent at
// a lower level, with its level, cube, side and element count); that every node carries its own
// block plus its children's, its subtree's blocks (subtree_ranks) sum to what it carries and its
// layout tiles its buffer; that the root and the direct senders bring exactly the sum of all
// blocks; that without degradation nobody is direct; and that the distributed construction
// (lemma 3, over tests/unit/traff_support.hpp's in-memory network) gives the oracle's tree in at
// most L + 1 dependent rounds.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <exception>
#include <utility>
#include <vector>

#include "fuzz_check.hpp"
#include "plans/traff_tree.hpp"
#include "traff_support.hpp"

namespace traff = ragged::plans::traff;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  traff::Params params;
  const int p = in.ConsumeIntegralInRange<int>(1, 512);
  params.procs = p;
  params.root = in.ConsumeIntegralInRange<int>(0, p - 1);
  params.cost = in.ConsumeBool() ? traff::Cost::lemma4 : traff::Cost::lemma1;
  params.direct_threshold = in.ConsumeBool() ? -1 : in.ConsumeIntegralInRange<std::int64_t>(0, INT_MAX);
  const int shape = in.ConsumeIntegralInRange<int>(0, 2);
  std::vector<std::int64_t> m(static_cast<std::size_t>(p));
  for (auto& x : m) {
    x = shape == 0   ? in.ConsumeIntegralInRange<std::int64_t>(0, 3)
        : shape == 1 ? in.ConsumeIntegralInRange<std::int64_t>(0, 1000)
                     : in.ConsumeIntegralInRange<std::int64_t>(0, INT_MAX);
  }
  const auto up = static_cast<std::size_t>(p);
  const std::vector<traff::Node> tree = traff::oracle(m, params);
  FUZZ_REQUIRE(tree.size() == up, "a node per rank");

  std::int64_t total = 0;
  for (std::int64_t x : m) total += x;
  std::int64_t reached = 0;
  std::vector<int> listed(up, 0);
  for (int i = 0; i < p; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const traff::Node& node = tree[ui];
    if (i == params.root) {
      FUZZ_REQUIRE(node.parent == -1 && node.level == -1 && !node.direct, "the root has no parent");
    } else {
      FUZZ_REQUIRE(node.parent >= 0 && node.parent < p && node.parent != i, "a parent in range");
      FUZZ_REQUIRE(node.level >= 0 && node.level < traff::levels(p), "a level in range");
      if (node.direct) FUZZ_REQUIRE(node.parent == params.root, "a direct sender sends to the root");
      if (params.direct_threshold < 0) FUZZ_REQUIRE(!node.direct, "no direct sender without degradation");
      // Up the parents to the root, without a cycle.
      int at = i;
      int hops = 0;
      while (at != params.root) {
        at = tree[static_cast<std::size_t>(at)].parent;
        FUZZ_REQUIRE(at >= 0 && ++hops <= p, "every rank reaches the root");
      }
    }
    if (node.direct || i == params.root) reached += node.carried;
    std::int64_t carried = m[ui];
    for (const traff::Child& c : node.children) {
      FUZZ_REQUIRE(c.rank >= 0 && c.rank < p && c.rank != i, "a child in range");
      const traff::Node& child = tree[static_cast<std::size_t>(c.rank)];
      FUZZ_REQUIRE(child.parent == i && !child.direct, "a merge child names this node as its parent");
      FUZZ_REQUIRE(c.level == child.level && c.elements == child.carried, "a child's level and elements");
      if (i != params.root) FUZZ_REQUIRE(c.level < node.level, "children send at lower levels");
      FUZZ_REQUIRE(c.cube.contains(c.rank) && !c.cube.contains(i), "a child's cube holds it, not the node");
      FUZZ_REQUIRE(c.below == (c.cube.last < i), "below: the child's ranks precede the node");
      ++listed[static_cast<std::size_t>(c.rank)];
      carried += c.elements;
    }
    FUZZ_REQUIRE(node.carried == carried, "a node carries its block and its children's");
    std::int64_t subtree = 0;
    const std::vector<int> members = traff::subtree_ranks(tree, i);
    FUZZ_REQUIRE(std::is_sorted(members.begin(), members.end()), "subtree in rank order");
    FUZZ_REQUIRE(std::binary_search(members.begin(), members.end(), i), "a subtree holds its node");
    for (int r : members) {
      FUZZ_REQUIRE(r >= 0 && r < p, "subtree ranks in range");
      subtree += m[static_cast<std::size_t>(r)];
    }
    FUZZ_REQUIRE(subtree == node.carried, "a subtree's blocks are what its node carries");
    const traff::Layout l = traff::layout(node, m[ui]);
    FUZZ_REQUIRE(l.child.size() == node.children.size(), "a layout offset per child");
    std::vector<std::pair<std::int64_t, std::int64_t>> chunks{{l.own, m[ui]}};
    for (std::size_t c = 0; c < node.children.size(); ++c) chunks.emplace_back(l.child[c], node.children[c].elements);
    std::sort(chunks.begin(), chunks.end());
    std::int64_t end = 0;
    for (const auto& [offset, length] : chunks) {
      FUZZ_REQUIRE(offset == end, "the layout tiles the buffer");
      end += length;
    }
    FUZZ_REQUIRE(end == node.carried, "the layout covers what the node carries");
  }
  for (int i = 0; i < p; ++i) {
    const traff::Node& node = tree[static_cast<std::size_t>(i)];
    const int want = i == params.root || node.direct ? 0 : 1;
    FUZZ_REQUIRE(listed[static_cast<std::size_t>(i)] == want, "every merge sender is listed once by its parent");
  }
  FUZZ_REQUIRE(reached == total, "the root and the direct senders bring every block");

  ragged::test::Emulation got;
  try {
    got = ragged::test::emulate(m, params);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distributed construction: %s\n", e.what());
    std::abort();
  }
  FUZZ_REQUIRE(got.nodes == tree, "the distributed construction builds the oracle's tree");
  FUZZ_REQUIRE(got.rounds <= traff::levels(p) + 1, "at most L + 1 dependent rounds");
  return 0;
}
