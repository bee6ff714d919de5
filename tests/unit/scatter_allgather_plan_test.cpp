// The plan of bcast "scatter_allgather": pieces and subtree ranges partition the vector, and
// the scatter and the ring, executed on sets of pieces step for step as the algorithm runs
// them, give every rank every piece, with sender and receiver agreeing on each transfer and
// nothing sent that the receiver already holds.
#include "plans/scatter_allgather_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "plans/binomial_tree.hpp"

namespace test_scatter_allgather_plan_test {

namespace plan = ragged::plans::scatter_allgather;
namespace tree = ragged::plans::binomial;

namespace {

constexpr int max_procs = 300;

std::vector<std::size_t> counts_for(int p) {
  const auto n = static_cast<std::size_t>(p);
  return {1, n > 1 ? n - 1 : 2, n / 2 + 1, n, n + 1, 3 * n + 2, 100003};
}

TEST(ScatterAllgatherPlan, PiecesAndSubtreesPartitionTheVector) {
  for (int p = 1; p <= max_procs; p += (p < 40 ? 1 : 7)) {
    for (const std::size_t count : counts_for(p)) {
      std::size_t next = 0;
      for (int v = 0; v < p; ++v) {
        const plan::Range piece = plan::piece(count, p, v);
        ASSERT_EQ(piece.first, next) << "p=" << p << " count=" << count << " v=" << v;
        next += piece.count;
        // pieces are nearly equal, the longer ones first; empty only when count < P
        EXPECT_LE(piece.count, plan::piece(count, p, 0).count);
        EXPECT_GE(piece.count + 1, plan::piece(count, p, 0).count);
        if (count >= static_cast<std::size_t>(p)) EXPECT_GT(piece.count, 0U);
        // a subtree's range is exactly its pieces
        const plan::Range sub = plan::subtree(count, p, v);
        const int last = v + tree::subtree_size(v, p) - 1;
        EXPECT_EQ(sub.first, piece.first);
        const plan::Range end = plan::piece(count, p, last);
        EXPECT_EQ(sub.first + sub.count, end.first + end.count);
        for (int q = 0; q < p; ++q) EXPECT_EQ(plan::held_after_scatter(p, v, q), q >= v && q <= last);
      }
      EXPECT_EQ(next, count);
      EXPECT_EQ(plan::subtree(count, p, 0), (plan::Range{0, count}));
    }
  }
}

TEST(ScatterAllgatherPlan, ScatterThenRingGiveEveryRankEveryPiece) {
  for (int p = 1; p <= max_procs; p += (p < 70 ? 1 : 11)) {
    for (const std::size_t count : counts_for(p)) {
      const auto P = static_cast<std::size_t>(p);
      // held[v][q]: relative rank v holds piece q
      std::vector<std::vector<char>> held(P, std::vector<char>(P, 0));
      for (std::size_t q = 0; q < P; ++q) held[0][q] = 1;

      // Scatter, top down in rank order (a parent's range is complete before it sends).
      for (int v = 0; v < p; ++v) {
        const plan::Range mine = plan::subtree(count, p, v);
        for (const int c : tree::children(v, p)) {
          const plan::Range theirs = plan::subtree(count, p, c);
          // the child's range lies inside the parent's, which the parent holds
          ASSERT_GE(theirs.first, mine.first);
          ASSERT_LE(theirs.first + theirs.count, mine.first + mine.count);
          for (int q = c; q < c + tree::subtree_size(c, p); ++q) {
            ASSERT_TRUE(held[static_cast<std::size_t>(v)][static_cast<std::size_t>(q)]);
            held[static_cast<std::size_t>(c)][static_cast<std::size_t>(q)] = 1;
          }
        }
      }
      for (int v = 0; v < p; ++v) {
        for (int q = 0; q < p; ++q) {
          ASSERT_EQ(held[static_cast<std::size_t>(v)][static_cast<std::size_t>(q)] != 0,
                    plan::held_after_scatter(p, v, q))
              << "p=" << p << " v=" << v << " q=" << q;
        }
      }

      // Ring: every rank sends, then every rank receives (pieces delivered after the step).
      for (int step = 0; step + 1 < p; ++step) {
        std::vector<std::vector<char>> next = held;
        for (int v = 0; v < p; ++v) {
          const int right = v + 1 == p ? 0 : v + 1;
          const int out = plan::ring_send_piece(p, v, step);
          // the receiver expects exactly the piece the sender sends, and both take the same decision
          ASSERT_EQ(plan::ring_recv_piece(p, right, step), out);
          if (!plan::ring_transfers(count, p, right, out)) continue;
          ASSERT_TRUE(held[static_cast<std::size_t>(v)][static_cast<std::size_t>(out)])
              << "p=" << p << " count=" << count << " step=" << step << " v=" << v << " sends piece " << out
              << " it does not hold";
          ASSERT_FALSE(held[static_cast<std::size_t>(right)][static_cast<std::size_t>(out)])
              << "p=" << p << " step=" << step << " piece " << out << " sent to a holder";
          next[static_cast<std::size_t>(right)][static_cast<std::size_t>(out)] = 1;
        }
        held = std::move(next);
      }
      for (int v = 0; v < p; ++v) {
        for (int q = 0; q < p; ++q) {
          if (plan::piece(count, p, q).count == 0) continue;
          ASSERT_TRUE(held[static_cast<std::size_t>(v)][static_cast<std::size_t>(q)])
              << "p=" << p << " count=" << count << ": rank " << v << " lacks piece " << q;
        }
      }
    }
  }
}

}  // namespace

}  // namespace test_scatter_allgather_plan_test
