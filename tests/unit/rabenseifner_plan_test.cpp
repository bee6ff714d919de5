// The recursive-halving / recursive-doubling block plan, executed on
// contribution counts per block for every power of two up to 256: after the
// reduce-scatter v holds block v reduced over all, after the allgather every
// block everywhere; element ranges cover the vector for ragged counts. The
// binary-blocks schedule (any P) executed the same way, as
// allreduce_rabenseifner.cpp runs it, for every P from 1 to 130 and some
// larger ones: every rank ends with every fine block reduced over every rank
// exactly once, and the pieces two blocks exchange agree on both sides.
#include "plans/rabenseifner_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "plans/recursive_doubling_plan.hpp"

namespace test_rabenseifner_plan_test {

namespace rs = ragged::plans::rabenseifner;

namespace {

TEST(RabenseifnerPlan, ReduceScatterThenAllgather) {
  for (int p = 1; p <= 256; p *= 2) {
    const auto up = static_cast<std::size_t>(p);
    // c[v][b][x]: copies of x's data in v's block b; -1 marks a block v does not hold (allgather)
    std::vector<std::vector<std::vector<int>>> c(up, std::vector<std::vector<int>>(up, std::vector<int>(up, 0)));
    for (std::size_t v = 0; v < up; ++v) {
      for (std::size_t b = 0; b < up; ++b) c[v][b][v] = 1;
    }
    for (int mask = p / 2; mask >= 1; mask /= 2) {
      // what v sends (the half its peer keeps) and what v reduces into (the half it keeps) are
      // disjoint, so the messages can be applied in place one after the other
      for (int v = 0; v < p; ++v) {
        const int peer = v ^ mask;
        const rs::BlockRange send = rs::reduce_scatter_send(v, mask);
        const rs::BlockRange theirs = rs::reduce_scatter_recv(peer, mask);
        ASSERT_EQ(send.first, theirs.first);
        ASSERT_EQ(send.blocks, theirs.blocks);
        ASSERT_EQ(send.blocks, mask);
        // the window before the step is the aligned 2*mask blocks around v; send and keep split it
        const rs::BlockRange keep = rs::reduce_scatter_recv(v, mask);
        ASSERT_EQ(std::min(keep.first, send.first), v & ~(2 * mask - 1));
        ASSERT_TRUE(keep.first <= v && v < keep.first + keep.blocks);
        for (int b = send.first; b < send.first + send.blocks; ++b) {
          for (std::size_t x = 0; x < up; ++x) {
            c[static_cast<std::size_t>(peer)][static_cast<std::size_t>(b)][x] +=
                c[static_cast<std::size_t>(v)][static_cast<std::size_t>(b)][x];
          }
        }
      }
    }
    for (std::size_t v = 0; v < up; ++v) {
      for (std::size_t x = 0; x < up; ++x) ASSERT_EQ(c[v][v][x], 1) << "p=" << p << " v=" << v << " x=" << x;
      for (std::size_t b = 0; b < up; ++b) {
        if (b != v) c[v][b].assign(up, -1);  // partial sums that are no longer used
      }
    }
    for (int mask = 1; mask < p; mask *= 2) {
      for (int v = 0; v < p; ++v) {  // in place, as above: held and received blocks are disjoint
        const int peer = v ^ mask;
        const rs::BlockRange send = rs::allgather_send(v, mask);
        ASSERT_EQ(send.first, rs::allgather_recv(peer, mask).first);
        for (int b = send.first; b < send.first + send.blocks; ++b) {
          const auto& block = c[static_cast<std::size_t>(v)][static_cast<std::size_t>(b)];
          ASSERT_NE(block[0], -1) << "sends a block it does not hold";
          auto& to = c[static_cast<std::size_t>(peer)][static_cast<std::size_t>(b)];
          ASSERT_EQ(to[0], -1) << "receives a block it holds";
          to = block;
        }
      }
    }
    for (std::size_t v = 0; v < up; ++v) {
      for (std::size_t b = 0; b < up; ++b) {
        for (std::size_t x = 0; x < up; ++x) ASSERT_EQ(c[v][b][x], 1);
      }
    }
  }
}

TEST(RabenseifnerPlan, ElementRangesFollowTheBlocks) {
  for (int p = 1; p <= 256; p *= 2) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, static_cast<std::size_t>(p) + 1, std::size_t{100003}}) {
      const rs::ElementRange all = rs::elements(rs::BlockRange{0, p}, count, p);
      EXPECT_EQ(all.first, 0U);
      EXPECT_EQ(all.size, count);
      for (int mask = 1; mask < p; mask *= 2) {
        for (int v = 0; v < p; ++v) {
          const rs::ElementRange mine = rs::elements(rs::kept(v, mask), count, p);
          const rs::ElementRange theirs = rs::elements(rs::kept(v ^ mask, mask), count, p);
          const rs::ElementRange both = rs::elements(rs::kept(v, 2 * mask), count, p);
          EXPECT_EQ(mine.size + theirs.size, both.size);
          EXPECT_EQ(std::min(mine.first, theirs.first), both.first);
          EXPECT_EQ(std::max(mine.first, theirs.first),
                    both.first + (mine.first < theirs.first ? mine.size : theirs.size));
        }
      }
    }
  }
}

TEST(RabenseifnerPlan, BinaryBlocksFollowTheBinaryDigits) {
  EXPECT_EQ(rs::block_count(13), 3);
  EXPECT_EQ(rs::block(13, 0).first, 0);
  EXPECT_EQ(rs::block(13, 0).size, 8);
  EXPECT_EQ(rs::block(13, 1).first, 8);
  EXPECT_EQ(rs::block(13, 1).size, 4);
  EXPECT_EQ(rs::block(13, 2).first, 12);
  EXPECT_EQ(rs::block(13, 2).size, 1);
  EXPECT_EQ(rs::block(48, 1).first, 32);
  EXPECT_EQ(rs::block(48, 1).size, 16);
  for (int p = 1; p <= 1000; ++p) {
    ASSERT_EQ(rs::fine_blocks(p), ragged::plans::recursive::pof2(p));
    int next = 0;
    for (int i = 0; i < rs::block_count(p); ++i) {
      const rs::Block b = rs::block(p, i);
      ASSERT_EQ(b.index, i);
      ASSERT_EQ(b.first, next) << "blocks are consecutive";
      ASSERT_TRUE(b.size > 0 && (b.size & (b.size - 1)) == 0);
      if (i > 0) ASSERT_LT(b.size, rs::block(p, i - 1).size) << "largest first";
      for (int r = b.first; r < b.first + b.size; ++r) ASSERT_EQ(rs::block_of(r, p).index, i);
      next += b.size;
    }
    ASSERT_EQ(next, p);
  }
}

// Executes the schedule on contribution counts: c[r][f][x] = copies of rank x's data in rank r's
// fine block f, -1 where r holds nothing it may use. Steps of different blocks touch different
// ranks, so the order in which this applies them (block by block) is the program order of every
// rank.
TEST(RabenseifnerPlan, BinaryBlocksReduceEveryRankOnceEverywhere) {
  std::vector<int> sweep;
  for (int p = 1; p <= 130; ++p) sweep.push_back(p);
  for (int p : {191, 255, 257, 300}) sweep.push_back(p);
  for (int p : sweep) {
    const int fine = rs::fine_blocks(p);
    const auto up = static_cast<std::size_t>(p);
    const auto uf = static_cast<std::size_t>(fine);
    using Counts = std::vector<int>;
    std::vector<std::vector<Counts>> c(up, std::vector<Counts>(uf, Counts(up, 0)));
    const auto cell = [&](int r, int f) -> Counts& {
      return c[static_cast<std::size_t>(r)][static_cast<std::size_t>(f)];
    };
    const auto add = [&](int to, int from, rs::BlockRange range) {
      for (int f = range.first; f < range.first + range.blocks; ++f) {
        ASSERT_NE(cell(from, f)[0], -1) << "p=" << p << ": sends a fine block it does not hold";
        ASSERT_NE(cell(to, f)[0], -1) << "p=" << p << ": reduces into a fine block it does not hold";
        for (std::size_t x = 0; x < up; ++x) cell(to, f)[x] += cell(from, f)[x];
      }
    };
    const auto copy = [&](int to, int from, rs::BlockRange range) {
      for (int f = range.first; f < range.first + range.blocks; ++f) {
        ASSERT_NE(cell(from, f)[0], -1) << "p=" << p << ": sends a fine block it does not hold";
        cell(to, f) = cell(from, f);
      }
    };
    const auto forget = [&](int r, rs::BlockRange keep) {
      for (int f = 0; f < fine; ++f) {
        if (f < keep.first || f >= keep.first + keep.blocks) cell(r, f).assign(up, -1);
      }
    };
    for (int r = 0; r < p; ++r) {
      for (int f = 0; f < fine; ++f) cell(r, f)[static_cast<std::size_t>(r)] = 1;
    }
    const int blocks = rs::block_count(p);
    // 1. every block's reduce-scatter; each rank then uses only its chunk
    for (int i = 0; i < blocks; ++i) {
      const rs::Block b = rs::block(p, i);
      for (int mask = b.size / 2; mask >= 1; mask /= 2) {
        // in place, as above: what v sends is not what its partner sends it
        for (int v = 0; v < b.size; ++v) {
          const rs::BlockRange send = rs::in_fine(rs::reduce_scatter_send(v, mask), b.size, fine);
          const rs::BlockRange theirs = rs::in_fine(rs::reduce_scatter_recv(v ^ mask, mask), b.size, fine);
          ASSERT_EQ(send.first, theirs.first);
          ASSERT_EQ(send.blocks, theirs.blocks);
          for (int f = send.first; f < send.first + send.blocks; ++f) {
            for (std::size_t x = 0; x < up; ++x) {
              cell(b.first + (v ^ mask), f)[x] += cell(b.first + v, f)[x];
            }
          }
        }
      }
      for (int v = 0; v < b.size; ++v) forget(b.first + v, rs::chunk(v, b.size, fine));
    }
    // 2. from the smallest block up: each rank's chunk in pieces to the next larger block
    for (int i = blocks - 1; i >= 1; --i) {
      const rs::Block b = rs::block(p, i);
      const rs::Block larger = rs::block(p, i - 1);
      for (int u = 0; u < b.size; ++u) {
        const rs::Peers peers = rs::larger_peers(p, b, u);
        ASSERT_EQ(peers.count * b.size, larger.size);
        int covered = rs::chunk(u, b.size, fine).first;
        for (int w = peers.first; w < peers.first + peers.count; ++w) {
          ASSERT_EQ(rs::smaller_peer(p, larger, w - larger.first), b.first + u) << "p=" << p;
          const rs::BlockRange piece = rs::chunk(w - larger.first, larger.size, fine);
          ASSERT_EQ(piece.first, covered) << "p=" << p << ": the pieces tile the chunk";
          covered += piece.blocks;
          add(w, b.first + u, piece);
        }
        ASSERT_EQ(covered, rs::chunk(u + 1, b.size, fine).first);
      }
    }
    for (int r = 0; r < rs::block(p, 0).size; ++r) {
      for (std::size_t x = 0; x < up; ++x) ASSERT_EQ(cell(r, r)[x], 1) << "p=" << p << " r=" << r << " x=" << x;
    }
    // 3. from block 0 down: the results back to the next smaller block, then every block's allgather
    for (int i = 0; i + 1 < blocks; ++i) {
      const rs::Block b = rs::block(p, i);
      for (int w = 0; w < b.size; ++w) {
        const int lower = rs::smaller_peer(p, b, w);
        copy(lower, b.first + w, rs::chunk(w, b.size, fine));
      }
    }
    ASSERT_EQ(rs::smaller_peer(p, rs::block(p, blocks - 1), 0), -1);
    ASSERT_EQ(rs::larger_peers(p, rs::block(p, 0), 0).count, 0);
    for (int i = 0; i < blocks; ++i) {
      const rs::Block b = rs::block(p, i);
      for (int mask = 1; mask < b.size; mask *= 2) {
        for (int v = 0; v < b.size; ++v) {  // held and received fine blocks are disjoint
          const rs::BlockRange send = rs::in_fine(rs::allgather_send(v, mask), b.size, fine);
          const rs::BlockRange theirs = rs::in_fine(rs::allgather_recv(v ^ mask, mask), b.size, fine);
          ASSERT_EQ(send.first, theirs.first);
          for (int f = send.first; f < send.first + send.blocks; ++f) {
            ASSERT_EQ(cell(b.first + (v ^ mask), f)[0], -1) << "p=" << p << ": receives a fine block it holds";
          }
          copy(b.first + (v ^ mask), b.first + v, send);
        }
      }
    }
    for (int r = 0; r < p; ++r) {
      for (int f = 0; f < fine; ++f) {
        for (std::size_t x = 0; x < up; ++x) {
          ASSERT_EQ(cell(r, f)[x], 1) << "p=" << p << " rank " << r << " fine block " << f << " rank " << x;
        }
      }
    }
  }
}

}  // namespace

}  // namespace test_rabenseifner_plan_test
