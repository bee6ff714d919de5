// The distributed construction of lemma 3 (Träff 2018): every rank knows only its own
// block; driven over an in-memory network it must build exactly the oracle's tree,
// for every p <= 1024, with at most 2⌈log2 p⌉ rounds of constant-size messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "plans/traff_tree.hpp"
#include "traff_support.hpp"

namespace test_traff_distributed_test {

namespace traff = ragged::plans::traff;
using ragged::test::emulate;

namespace {

std::vector<std::int64_t> sizes_for(int p, int kind, std::mt19937_64& rng) {
  std::vector<std::int64_t> m(static_cast<std::size_t>(p), 0);
  for (int i = 0; i < p; ++i) {
    std::int64_t& x = m[static_cast<std::size_t>(i)];
    switch (kind) {
      case 0:
        x = static_cast<std::int64_t>(rng() % 1000);
        break;  // random, some zeros
      case 1:
        x = 7;
        break;  // same
      case 2:
        x = (rng() % 5 == 0) ? 50 : 1;
        break;  // spikes
      case 3:
        x = (i == 0 || i == p - 1) ? 10 : 0;
        break;  // two blocks
      default:
        x = (rng() % 3 == 0) ? 0 : static_cast<std::int64_t>(rng() % 2000000000);
        break;  // huge
    }
  }
  return m;
}

void check_against_oracle(const std::vector<std::int64_t>& m, const traff::Params& params) {
  const auto want = traff::oracle(m, params);
  const ragged::test::Emulation got = emulate(m, params);
  const int p = params.procs;
  const int l = traff::levels(p);
  for (int i = 0; i < p; ++i) {
    ASSERT_EQ(got.nodes[static_cast<std::size_t>(i)], want[static_cast<std::size_t>(i)])
        << "p " << p << " root " << params.root << " rank " << i;
  }
  // Rounds: exchanges take rounds 1..L, a notice one more: L + 1, and 2L - 1 as in the paper.
  ASSERT_LE(got.rounds, l + 1) << "p " << p;
  if (l >= 1) ASSERT_LE(got.rounds, std::max(1, 2 * l - 1)) << "p " << p;
  // Constant-size messages: at most an exchange and a notice per rank and level.
  for (int most : got.max_sent_per_level) ASSERT_LE(most, 2);
  for (int sent : got.sent_per_rank) ASSERT_LE(sent, 2 * l);
  // The given root is the fixed root of its cubes: it learns every child in an exchange.
  ASSERT_EQ(got.notices_received[static_cast<std::size_t>(params.root)], 0);
}

}  // namespace

TEST(TraffDistributed, WireFormatIsConstantSize) {
  static_assert(sizeof(traff::CubeInfo) == 24, "one exchange or notice: three 64-bit integers");
  SUCCEED();
}

TEST(TraffDistributed, BuildsTheOraclesTreeForEveryPUpTo1024) {
  std::mt19937_64 rng(1024);
  for (int p = 1; p <= 1024; ++p) {
    const int root = static_cast<int>(rng() % static_cast<std::uint64_t>(p));
    const traff::Cost cost = (p % 2 == 0) ? traff::Cost::lemma1 : traff::Cost::lemma4;
    traff::Params params;
    params.procs = p;
    params.root = root;
    params.cost = cost;
    check_against_oracle(sizes_for(p, 0, rng), params);
    if (HasFatalFailure()) return;
  }
}

TEST(TraffDistributed, EveryProblemShapeRootAndVariant) {
  std::mt19937_64 rng(7);
  for (int p : {1, 2, 3, 4, 5, 7, 8, 11, 13, 16, 31, 33, 64, 100, 127, 128, 129, 560}) {
    for (int kind = 0; kind < 5; ++kind) {
      const auto m = sizes_for(p, kind, rng);
      for (int root : {0, p / 2, p - 1}) {
        for (traff::Cost cost : {traff::Cost::lemma1, traff::Cost::lemma4}) {
          for (std::int64_t threshold : {std::int64_t{-1}, std::int64_t{0}, std::int64_t{40}}) {
            traff::Params params;
            params.procs = p;
            params.root = root;
            params.cost = cost;
            params.direct_threshold = threshold;
            check_against_oracle(m, params);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

TEST(TraffDistributed, PowerOfTwoSameSizesNeedNoNotices) {
  // With equal blocks and the root at p-1 every tie goes to the upper cube, so every
  // gather root is a fixed root: only the L exchange rounds remain.
  for (int p : {2, 4, 8, 64, 1024}) {
    traff::Params params;
    params.procs = p;
    params.root = p - 1;
    const ragged::test::Emulation got = emulate(std::vector<std::int64_t>(static_cast<std::size_t>(p), 3), params);
    EXPECT_EQ(got.rounds, traff::levels(p)) << "p " << p;
    EXPECT_EQ(got.messages, 2 * (p - 1)) << "p " << p;
  }
}

}  // namespace test_traff_distributed_test
