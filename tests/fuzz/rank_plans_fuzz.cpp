// Fuzzes the rank arithmetic of allgather "bruck" (plans/bruck_plan.hpp) and of allreduce
// "recursive_doubling" (plans/recursive_doubling_plan.hpp) for P up to 2^20 and any rank; the unit
// tests cover every P up to 64 exhaustively. Checks, for bruck: ceil(log2 P) rounds; in round k
// the distance is 2^k, the blocks min(d, P - d) > 0, and the rank it sends to receives from it;
// the blocks of all rounds and the rank's own add up to P, so the rotated view fills exactly;
// block_at is a rotation (position i and i + 1 hold consecutive blocks, position 0 the rank's
// own). For recursive doubling: pof2 <= P < 2 pof2, steps = log2 pof2; the fold pairs ranks
// below 2 rem symmetrically and every other rank not at all; vrank and real_rank are inverse;
// the partner in each step is symmetric and never the rank itself. For the binomial tree of the
// rooted collectives (plans/binomial_tree.hpp), any root: relative and absolute are inverse; a
// rank's parent lists it as a child, with an edge of its subtree's size at its relative offset;
// the children's runs tile the rank's run after its own block, nearest first; the path to the
// root is at most ceil(log2 P) edges. For bcast "double_tree" (plans/double_tree_plan.hpp), both
// trees: the parent lists the node among its children and each child names the node as its
// parent; only the tree's root has no parent; no node is inner in both trees; the path to the
// root is at most depth(n) edges.
#include <array>
#include <cstdint>

#include "fuzz_check.hpp"
#include "plans/binomial_tree.hpp"
#include "plans/bruck_plan.hpp"
#include "plans/double_tree_plan.hpp"
#include "plans/recursive_doubling_plan.hpp"

namespace binomial = ragged::plans::binomial;
namespace bruck = ragged::plans::bruck;
namespace double_tree = ragged::plans::double_tree;
namespace recursive = ragged::plans::recursive;

namespace {

void check_bruck(int p, int rank, int position) {
  const int rounds = bruck::rounds(p);
  FUZZ_REQUIRE((1LL << rounds) >= p && (rounds == 0 || (1LL << (rounds - 1)) < p), "rounds = ceil(log2 P)");
  long long held = 1;  // the rank's own block, at position 0
  for (int k = 0; k < rounds; ++k) {
    const bruck::Round r = bruck::round(rank, p, k);
    FUZZ_REQUIRE(r.distance == 1 << k, "distance 2^k");
    FUZZ_REQUIRE(r.blocks > 0 && r.blocks == (r.distance < p - r.distance ? r.distance : p - r.distance),
                 "blocks min(d, P - d) > 0");
    FUZZ_REQUIRE(held == r.distance, "a round starts with exactly d positions held");
    FUZZ_REQUIRE(r.send_to >= 0 && r.send_to < p && r.recv_from >= 0 && r.recv_from < p, "peers in range");
    FUZZ_REQUIRE(bruck::round(r.send_to, p, k).recv_from == rank, "the rank sent to receives from this rank");
    FUZZ_REQUIRE(bruck::round(r.recv_from, p, k).send_to == rank, "the rank received from sends to this rank");
    held += r.blocks;
  }
  FUZZ_REQUIRE(held == p, "the rounds fill the P positions exactly");
  FUZZ_REQUIRE(bruck::block_at(rank, p, 0) == rank, "position 0 holds the rank's own block");
  const int here = bruck::block_at(rank, p, position);
  FUZZ_REQUIRE(here >= 0 && here < p, "blocks in range");
  if (position + 1 < p) FUZZ_REQUIRE(bruck::block_at(rank, p, position + 1) == (here + 1) % p, "a rotation");
}

void check_recursive(int p, int rank, int v) {
  const int pof2 = recursive::pof2(p);
  FUZZ_REQUIRE(pof2 <= p && p < 2LL * pof2 && (pof2 & (pof2 - 1)) == 0, "pof2: the largest power of two <= P");
  FUZZ_REQUIRE((1 << recursive::steps(p)) == pof2, "steps = log2 pof2");
  const int rem = recursive::rem(p);
  const int fold = recursive::fold_partner(rank, p);
  if (rank < 2 * rem) {
    FUZZ_REQUIRE(fold >= 0 && fold < 2 * rem && fold != rank && recursive::fold_partner(fold, p) == rank,
                 "ranks below 2 rem fold in pairs");
    FUZZ_REQUIRE((recursive::vrank(rank, p) == -1) == (rank % 2 == 0), "the even rank of a pair sits out");
  } else {
    FUZZ_REQUIRE(fold == -1, "ranks from 2 rem on do not fold");
  }
  const int mine = recursive::vrank(rank, p);
  if (mine >= 0) FUZZ_REQUIRE(recursive::real_rank(mine, p) == rank, "real_rank inverts vrank");
  FUZZ_REQUIRE(recursive::vrank(recursive::real_rank(v, p), p) == v, "vrank inverts real_rank");
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const int other = recursive::partner(v, mask, p);
    const int back = recursive::vrank(other, p);
    FUZZ_REQUIRE(back >= 0 && back < pof2 && back != v, "the partner is another active rank");
    FUZZ_REQUIRE(recursive::partner(back, mask, p) == recursive::real_rank(v, p), "partners are symmetric");
  }
}

void check_binomial(int p, int rank, int root) {
  const binomial::Node n = binomial::node(rank, root, p);
  FUZZ_REQUIRE(n.vrank >= 0 && n.vrank < p && binomial::absolute(n.vrank, root, p) == rank,
               "relative, absolute inverse");
  FUZZ_REQUIRE((n.parent == -1) == (rank == root), "only the root has no parent");
  int offset = 1;  // the rank's own block first
  for (const binomial::Edge& e : n.children) {
    FUZZ_REQUIRE(e.offset == offset && e.size == binomial::subtree_size(e.vrank, p) && e.size > 0,
                 "the children's runs tile the rank's run, nearest first");
    FUZZ_REQUIRE(binomial::parent(e.vrank) == n.vrank, "a child's parent is the rank");
    offset += e.size;
  }
  FUZZ_REQUIRE(offset == n.size, "the run is the rank's block and its children's runs");
  if (n.parent >= 0) {
    const binomial::Node up = binomial::node(n.parent, root, p);
    int found = 0;
    for (const binomial::Edge& e : up.children) {
      if (e.rank == rank) {
        ++found;
        FUZZ_REQUIRE(e.size == n.size && e.offset == n.vrank - up.vrank, "the parent's edge is the rank's run");
      }
    }
    FUZZ_REQUIRE(found == 1, "the parent lists the rank once among its children");
  }
  int hops = 0;
  for (int v = n.vrank; v != 0; v = binomial::parent(v)) ++hops;
  FUZZ_REQUIRE(hops <= binomial::rounds(p), "the path to the root is at most ceil(log2 P) edges");
}

void check_double_tree(int n, int x) {
  std::array<bool, 2> inner{false, false};
  for (int tree = 0; tree < 2; ++tree) {
    const int up = double_tree::parent(tree, x, n);
    FUZZ_REQUIRE((up == double_tree::none) == (x == double_tree::root(tree, n)), "only the root has no parent");
    if (up != double_tree::none) {
      FUZZ_REQUIRE(up >= 1 && up <= n && up != x, "the parent is another node");
      const std::array<int, 2> siblings = double_tree::children(tree, up, n);
      FUZZ_REQUIRE(siblings[0] == x || siblings[1] == x, "the parent lists the node among its children");
    }
    for (const int c : double_tree::children(tree, x, n)) {
      if (c == double_tree::none) continue;
      FUZZ_REQUIRE(c >= 1 && c <= n && c != x && double_tree::parent(tree, c, n) == x, "a child's parent is the node");
      inner[static_cast<std::size_t>(tree)] = true;
    }
    int hops = 0;
    for (int v = x; v != double_tree::root(tree, n); v = double_tree::parent(tree, v, n)) {
      ++hops;
      FUZZ_REQUIRE(hops <= double_tree::depth(n), "the path to the root is at most depth(n) edges");
    }
  }
  FUZZ_REQUIRE(!(inner[0] && inner[1]), "no node is inner in both trees");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int p = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(1, 70) : in.ConsumeIntegralInRange<int>(1, 1 << 20);
  const int rank = in.ConsumeIntegralInRange<int>(0, p - 1);
  check_bruck(p, rank, in.ConsumeIntegralInRange<int>(0, p - 1));
  check_recursive(p, rank, in.ConsumeIntegralInRange<int>(0, recursive::pof2(p) - 1));
  check_binomial(p, rank, in.ConsumeIntegralInRange<int>(0, p - 1));
  if (p >= 2) check_double_tree(p - 1, in.ConsumeIntegralInRange<int>(1, p - 1));
  return 0;
}
