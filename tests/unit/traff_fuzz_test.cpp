// A long randomized run of the Träff tree construction (a fuzz test that needs no clang): random
// p up to 4096, random roots, variants and thresholds, block sizes from 0 to INT_MAX.
// Under the address sanitizer (the asan preset runs the unit tier) it shows that the
// oracle, the distributed construction, the layouts and the subtree walks stay in
// bounds; everywhere it checks that the distributed tree is the oracle's.
// RAGGED_TRAFF_FUZZ_ITERATIONS sets the number of cases (default 400).
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "plans/traff_tree.hpp"
#include "traff_support.hpp"

namespace test_traff_fuzz_test {

namespace traff = ragged::plans::traff;

namespace {

int iterations() {
  const char* env = std::getenv("RAGGED_TRAFF_FUZZ_ITERATIONS");
  if (env == nullptr || *env == '\0') return 400;
  return std::max(1, std::atoi(env));
}

}  // namespace

TEST(TraffFuzz, RandomProblemsStayInBoundsAndAgree) {
  std::mt19937_64 rng(0x7ea1f);
  const int n = iterations();
  for (int it = 0; it < n; ++it) {
    // Mostly small p (where structure varies most), sometimes large.
    const int p = (rng() % 8 == 0) ? static_cast<int>(1 + rng() % 4096) : static_cast<int>(1 + rng() % 70);
    traff::Params params;
    params.procs = p;
    params.root = static_cast<int>(rng() % static_cast<std::uint64_t>(p));
    params.cost = (rng() % 2 == 0) ? traff::Cost::lemma1 : traff::Cost::lemma4;
    const std::uint64_t shape = rng() % 4;
    params.direct_threshold = rng() % 3 == 0 ? -1 : static_cast<std::int64_t>(rng() % (shape == 3 ? INT_MAX : 500));
    std::vector<std::int64_t> m(static_cast<std::size_t>(p));
    for (auto& x : m) {
      switch (shape) {
        case 0:
          x = 0;
          break;
        case 1:
          x = static_cast<std::int64_t>(rng() % 3);
          break;
        case 2:
          x = static_cast<std::int64_t>(rng() % 1000);
          break;
        default:
          x = (rng() % 4 == 0) ? INT_MAX : static_cast<std::int64_t>(rng() % INT_MAX);
          break;
      }
    }
    const auto tree = traff::oracle(m, params);
    const ragged::test::Emulation got = ragged::test::emulate(m, params);
    ASSERT_EQ(got.nodes, tree) << "iteration " << it << " p " << p;
    std::int64_t reached = 0;
    for (int i = 0; i < p; ++i) {
      const traff::Node& node = tree[static_cast<std::size_t>(i)];
      const traff::Layout l = traff::layout(node, m[static_cast<std::size_t>(i)]);
      // The buffer of a node holds its subtree in rank order: chunks tile [0, carried).
      std::vector<std::pair<std::int64_t, std::int64_t>> chunks{{l.own, m[static_cast<std::size_t>(i)]}};
      for (std::size_t c = 0; c < node.children.size(); ++c) chunks.emplace_back(l.child[c], node.children[c].elements);
      std::sort(chunks.begin(), chunks.end());
      std::int64_t at = 0;
      for (const auto& [offset, length] : chunks) {
        ASSERT_EQ(offset, at) << "iteration " << it << " rank " << i;
        at += length;
      }
      ASSERT_EQ(at, node.carried);
      if (node.direct || i == params.root) reached += node.carried;
    }
    std::int64_t total = 0;
    for (std::int64_t x : m) total += x;
    ASSERT_EQ(reached, total);
    const std::vector<int> members = traff::subtree_ranks(tree, params.root);
    ASSERT_FALSE(members.empty());
  }
}

}  // namespace test_traff_fuzz_test
