// alltoall and alltoallv on the sim backend: every registered algorithm, the
// sweep of P, counts {0, 1, P-1, P+1, 1031}, every datatype (the
// largest count in int64 and byte only), in place and not;
// the cluster-aware ones under several layouts (either cluster larger, split or
// interleaved ranks; lg also with three and four clusters of uneven sizes, and on
// the three- and four-cluster platforms). Results are compared exactly with a
// formula; the bytes past the end of every receive buffer must stay untouched.
// The backbone messages are measured with CountingComm.
#include "ragged/alltoall.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "ragged/counting_comm.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "ragged/topology.hpp"
#include "support/check.hpp"
#include "support/patterns.hpp"
#include "support/sim_platform.hpp"

namespace ragged {
namespace test_alltoall_test {

using Bytes = std::vector<std::byte>;

constexpr std::size_t guard = 32;
constexpr std::byte sentinel{0x5A};
constexpr DataType every_type[] = {DataType::int32, DataType::int64, DataType::float32, DataType::float64,
                                   DataType::byte};

/// Element `e` of the block that rank `src` sends rank `dst`: small, exact in every type.
std::int64_t value(int src, int dst, std::size_t e) {
  return static_cast<std::int64_t>((static_cast<std::size_t>(src) * 31 + static_cast<std::size_t>(dst) * 7 + e * 13) %
                                   97) +
         1;
}

std::vector<std::size_t> counts_for(int procs) {
  std::vector<std::size_t> c{0, 1, static_cast<std::size_t>(std::max(procs - 1, 2)),
                             static_cast<std::size_t>(procs + 1), 1031};
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

sim::Config config(int procs, const std::string& platform = "cluster-1gbe-48") {
  sim::Config c;
  c.procs = procs;
  c.platform = platform;
  return c;
}

/// LG's backbone messages for clusters of these sizes when every block is non-empty: 2 max(n_a, n_b)
/// for every pair of clusters a < b (docs/algorithms/lg.md), computed here from the formula.
std::uint64_t lg_formula(const std::vector<int>& sizes) {
  std::uint64_t total = 0;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    for (std::size_t b = a + 1; b < sizes.size(); ++b)
      total += 2 * static_cast<std::uint64_t>(std::max(sizes[a], sizes[b]));
  }
  return total;
}

/// A direct exchange's: n_a n_b for every ordered pair a != b.
std::uint64_t direct_formula(const std::vector<int>& sizes) {
  std::uint64_t total = 0;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    for (std::size_t b = 0; b < sizes.size(); ++b) {
      if (a != b) total += static_cast<std::uint64_t>(sizes[a]) * static_cast<std::uint64_t>(sizes[b]);
    }
  }
  return total;
}

/// `procs` ranks in clusters of sizes roughly proportional to `weights`, each at least 1
/// (procs >= weights.size()).
std::vector<int> uneven(int procs, const std::vector<int>& weights) {
  const int k = static_cast<int>(weights.size());
  const int total = std::accumulate(weights.begin(), weights.end(), 0);
  std::vector<int> sizes(weights.size(), 1);
  int left = procs - k;
  for (std::size_t c = 0; c < weights.size(); ++c) {
    const int extra = (procs - k) * weights[c] / total;
    sizes[c] += extra;
    left -= extra;
  }
  sizes[static_cast<std::size_t>(std::max_element(weights.begin(), weights.end()) - weights.begin())] += left;
  return sizes;
}

/// Three and four clusters on `procs` ranks: uneven consecutive blocks (the shapes 3+5+2
/// and 4+1+6+3) and ranks dealt round-robin.
std::vector<std::shared_ptr<const ClusterLayout>> k_layouts_for(int procs) {
  std::vector<std::shared_ptr<const ClusterLayout>> out;
  const std::vector<std::vector<int>> shapes{{3, 5, 2}, {4, 1, 6, 3}};
  for (const std::vector<int>& shape : shapes) {
    const int k = static_cast<int>(shape.size());
    if (procs < k) continue;
    out.push_back(std::make_shared<ClusterLayout>(ClusterLayout::from_sizes(uneven(procs, shape))));
    std::vector<int> dealt;
    for (int r = 0; r < procs; ++r) dealt.push_back((r * 7 + 2) % k);  // rank 0 in cluster 2: renumbered
    std::vector<std::string> labels;
    for (int c : dealt) labels.push_back(std::to_string(c));
    out.push_back(std::make_shared<ClusterLayout>(ClusterLayout::from_labels(labels)));
  }
  return out;
}

/// The layouts a two-cluster algorithm is checked under for `procs` ranks.
std::vector<std::shared_ptr<const ClusterLayout>> layouts_for(int procs) {
  std::vector<std::shared_ptr<const ClusterLayout>> out;
  if (procs < 2) return out;
  std::vector<int> firsts{1, procs / 2, procs - 1};
  std::sort(firsts.begin(), firsts.end());
  firsts.erase(std::unique(firsts.begin(), firsts.end()), firsts.end());
  for (int n1 : firsts) out.push_back(std::make_shared<ClusterLayout>(ClusterLayout::split_at(n1, procs - n1)));
  if (procs >= 3) {
    std::vector<int> interleaved;
    std::vector<int> reversed;
    for (int r = 0; r < procs; ++r) {
      interleaved.push_back(r % 3 == 1 ? 1 : 0);
      reversed.push_back(r < procs / 3 ? 1 : 0);
    }
    out.push_back(std::make_shared<ClusterLayout>(ClusterLayout::from_list(interleaved)));
    out.push_back(std::make_shared<ClusterLayout>(ClusterLayout::from_list(reversed)));
  }
  return out;
}

/// The layouts a cluster-aware algorithm is checked under for `procs` ranks: two clusters,
/// and for one that takes more (`lg`), three and four.
std::vector<std::shared_ptr<const ClusterLayout>> layouts_for(int procs, const Algorithm& a) {
  std::vector<std::shared_ptr<const ClusterLayout>> out = layouts_for(procs);
  if (a.restrictions.needs_clusters) {
    const auto more = k_layouts_for(procs);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

std::string describe(const ClusterLayout& layout) {
  std::string s;
  for (int c : layout.cluster) s += static_cast<char>('0' + c);
  return s;
}

// One rank's part of the alltoall checks: every count, type and in-place choice.
void check_alltoall(Comm& comm, AlltoallFn fn, const CollectiveOptions& options, const std::string& what) {
  const int p = comm.size();
  const int me = comm.rank();
  for (const std::size_t count : counts_for(p)) {
    for (const DataType type : every_type) {
      // The large count with two types only: the sweep must stay fast.
      if (count > static_cast<std::size_t>(p + 1) && type != DataType::int64 && type != DataType::byte) continue;
      for (const bool in_place : {false, true}) {
        const std::size_t b = count * size_of(type);
        const std::size_t total = count * static_cast<std::size_t>(p);
        const Bytes input = test::make_buffer(type, total, [&](std::size_t i) {
          return value(me, static_cast<int>(i / std::max<std::size_t>(count, 1)), i % std::max<std::size_t>(count, 1));
        });
        const Bytes expected = test::make_buffer(type, total, [&](std::size_t i) {
          return value(static_cast<int>(i / std::max<std::size_t>(count, 1)), me, i % std::max<std::size_t>(count, 1));
        });
        Bytes recv(b * static_cast<std::size_t>(p) + guard, sentinel);
        if (in_place) {
          std::copy(input.begin(), input.end(), recv.begin());
          fn(comm, ragged::in_place, recv.data(), count, type, options);
        } else {
          fn(comm, input.data(), recv.data(), count, type, options);
        }
        const bool body_ok = std::equal(expected.begin(), expected.end(), recv.begin());
        const bool guard_ok = std::all_of(recv.end() - static_cast<std::ptrdiff_t>(guard), recv.end(),
                                          [](std::byte x) { return x == sentinel; });
        if (!body_ok || !guard_ok) {
          throw test::CheckFailed(what + ": rank " + std::to_string(me) + " count " + std::to_string(count) + " " +
                                  name_of(type) + (in_place ? " in place" : "") +
                                  (body_ok ? ": wrote past the buffer" : ": wrong result"));
        }
      }
    }
  }
}

std::vector<std::string> names_of(Collective collective) {
  std::vector<std::string> out;
  for (const Algorithm* a : Registry::instance().list(collective, "sim")) out.push_back(a->name);
  return out;
}

// One test per registered algorithm (so that ctest runs them side by side).
class SimAlltoallAlgorithm : public ::testing::TestWithParam<std::string> {};

TEST_P(SimAlltoallAlgorithm, SweepOfProcsCountsTypesAndLayouts) {
  const Algorithm& a = Registry::instance().find(Collective::alltoall, GetParam());
  const AlltoallFn fn = Registry::instance().alltoall(a.name);
  for (const int p : test::sweep_procs()) {
    if (!a.restrictions.needs_two_clusters && !a.restrictions.needs_clusters) {
      const std::string what = "alltoall " + a.name + " P=" + std::to_string(p);
      EXPECT_NO_THROW(sim::run(config(p), [&](Comm& comm) { check_alltoall(comm, fn, {}, what); })) << what;
      continue;
    }
    for (const auto& layout : layouts_for(p, a)) {
      CollectiveOptions options;
      options.hints.set<ClusterLayout>(layout);
      const std::string what = "alltoall " + a.name + " layout " + describe(*layout);
      EXPECT_NO_THROW(sim::run(config(p), [&](Comm& comm) { check_alltoall(comm, fn, options, what); })) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, SimAlltoallAlgorithm, ::testing::ValuesIn(names_of(Collective::alltoall)),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(SimAlltoall, EveryBaselineIsRegistered) {
  const auto names = names_of(Collective::alltoall);
  for (const char* expected : {"lg", "coordinator", "linear", "pairwise", "bruck"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  const auto v = names_of(Collective::alltoallv);
  for (const char* expected : {"lg", "linear", "pairwise"}) {
    EXPECT_NE(std::find(v.begin(), v.end(), expected), v.end()) << expected;
  }
}

// Backbone messages of one alltoall, measured on every rank and summed.
std::uint64_t measured_backbone(const std::string& algorithm, const std::shared_ptr<const ClusterLayout>& layout,
                                std::size_t count, const std::string& platform = "cluster-1gbe-48") {
  const int p = layout->size();
  std::vector<std::uint64_t> per_rank(static_cast<std::size_t>(p), 0);
  const AlltoallFn fn = Registry::instance().alltoall(algorithm);
  sim::run(config(p, platform), [&](Comm& comm) {
    CountingComm counting(comm, layout);
    CollectiveOptions options;
    options.hints.set<ClusterLayout>(layout);
    std::vector<std::int32_t> in(count * static_cast<std::size_t>(p), 1);
    std::vector<std::int32_t> out(in.size());
    fn(counting, in.data(), out.data(), count, DataType::int32, options);
    per_rank[static_cast<std::size_t>(comm.rank())] = counting.backbone().messages;
  });
  return std::accumulate(per_rank.begin(), per_rank.end(), std::uint64_t{0});
}

TEST(SimAlltoall, LgSendsTwoMaxBackboneMessages) {
  const int cases[][2] = {{3, 7}, {7, 3}, {20, 40}, {5, 5}, {4, 13}, {1, 6}, {6, 1}, {9, 2}};
  for (const auto& c : cases) {
    const int n1 = c[0];
    const int n2 = c[1];
    const auto split = std::make_shared<ClusterLayout>(ClusterLayout::split_at(n1, n2));
    EXPECT_EQ(measured_backbone("lg", split, 3), static_cast<std::uint64_t>(2 * std::max(n1, n2)))
        << "lg " << n1 << "+" << n2;
    EXPECT_EQ(measured_backbone("pairwise", split, 3), static_cast<std::uint64_t>(2 * n1 * n2))
        << "pairwise " << n1 << "+" << n2;
    EXPECT_EQ(measured_backbone("coordinator", split, 3), 2U) << "coordinator " << n1 << "+" << n2;
    // The same sizes with the clusters' ranks interleaved.
    std::vector<int> mixed;
    for (int r = 0, a = 0, b = 0; r < n1 + n2; ++r) {
      const bool first = b >= n2 || (a < n1 && (r % 2 == 0));
      mixed.push_back(first ? 0 : 1);
      (first ? a : b)++;
    }
    const auto interleaved = std::make_shared<ClusterLayout>(ClusterLayout::from_list(mixed));
    EXPECT_EQ(measured_backbone("lg", interleaved, 2), static_cast<std::uint64_t>(2 * std::max(n1, n2)))
        << "lg interleaved " << n1 << "+" << n2;
  }
}

TEST(SimAlltoall, ClusterAlgorithmsFallBackToPairwiseWithoutAFittingLayout) {
  for (const char* name : {"lg", "coordinator"}) {
    // Runs `name` with `layout` and checks the result and which algorithm ran.
    const auto expect = [&](std::shared_ptr<const ClusterLayout> layout, const std::string& ran_name,
                            const std::string& why) {
      sim::run(config(4), [&](Comm& comm) {
        CollectiveOptions options;
        options.algorithm = name;
        if (layout) options.hints.set<ClusterLayout>(layout);
        std::vector<std::int32_t> in(4);
        for (int j = 0; j < 4; ++j) in[static_cast<std::size_t>(j)] = comm.rank() * 10 + j;
        std::vector<std::int32_t> out(4);
        const Algorithm& ran = alltoall(comm, in.data(), out.data(), 1, DataType::int32, options);
        RAGGED_CHECK_EQ(ran.name, ran_name);
        for (int i = 0; i < 4; ++i) RAGGED_CHECK_EQ(out[static_cast<std::size_t>(i)], i * 10 + comm.rank());
      });
      SUCCEED() << name << ": " << why;
    };
    expect(nullptr, "pairwise", "no layout");
    auto one = std::make_shared<ClusterLayout>();
    one->cluster = {0, 0, 0, 0};
    expect(one, "pairwise", "one cluster");
    auto small = std::make_shared<ClusterLayout>(ClusterLayout::split_at(1, 2));
    expect(small, "pairwise", "layout of 3 ranks on 4");
    auto gap = std::make_shared<ClusterLayout>();
    gap->cluster = {0, 2, 2, 0};
    expect(gap, "pairwise", "cluster 1 empty");
    // Three clusters: lg takes them, coordinator needs exactly two.
    auto three = std::make_shared<ClusterLayout>();
    three->cluster = {0, 1, 2, 1};
    expect(three, std::string(name) == "lg" ? "lg" : "pairwise", "three clusters");
  }
}

// --------------------------------------------------------------- alltoallv

/// Elements rank `src` sends rank `dst` (zeros included).
int vcount(int src, int dst, int scale) { return ((src * 3 + dst * 5) % 7) * scale; }

void check_alltoallv(Comm& comm, AlltoallvFn fn, const CollectiveOptions& options, const std::string& what) {
  const int p = comm.size();
  const int me = comm.rank();
  for (const int scale : {1, 37}) {
    for (const DataType type : {DataType::int32, DataType::float64, DataType::byte}) {
      for (const bool in_place : {false, true}) {
        // In place, MPI takes the blocks to send from the receive buffer: a pair's sizes must agree.
        const auto cnt = [&](int src, int dst) {
          return in_place ? vcount(std::min(src, dst), std::max(src, dst), scale) : vcount(src, dst, scale);
        };
        std::vector<int> sendcounts(static_cast<std::size_t>(p));
        std::vector<int> recvcounts(static_cast<std::size_t>(p));
        for (int j = 0; j < p; ++j) {
          sendcounts[static_cast<std::size_t>(j)] = cnt(me, j);
          recvcounts[static_cast<std::size_t>(j)] = cnt(j, me);
        }
        // Blocks in reverse rank order, with a gap of 3 elements before each.
        const auto displs = [p](const std::vector<int>& counts) {
          std::vector<int> d(counts.size());
          int at = 0;
          for (int j = p - 1; j >= 0; --j) {
            at += 3;
            d[static_cast<std::size_t>(j)] = at;
            at += counts[static_cast<std::size_t>(j)];
          }
          return std::make_pair(d, at);
        };
        // Plain variables, not structured bindings: the lambdas below capture them.
        const auto send_layout = displs(sendcounts);
        const auto recv_layout = displs(recvcounts);
        const std::vector<int>& sdispls = send_layout.first;
        const std::vector<int>& rdispls = recv_layout.first;
        const int send_extent = send_layout.second;
        const int recv_extent = recv_layout.second;
        const auto at_block = [](const std::vector<int>& d, const std::vector<int>& c, std::size_t i, int& block,
                                 std::size_t& e) {
          for (std::size_t j = 0; j < d.size(); ++j) {
            const auto first = static_cast<std::size_t>(d[j]);
            if (i >= first && i < first + static_cast<std::size_t>(c[j])) {
              block = static_cast<int>(j);
              e = i - first;
              return true;
            }
          }
          return false;
        };
        const Bytes input = test::make_buffer(type, static_cast<std::size_t>(send_extent), [&](std::size_t i) {
          int block = 0;
          std::size_t e = 0;
          return at_block(sdispls, sendcounts, i, block, e) ? value(me, block, e) : std::int64_t{-1};
        });
        const Bytes expected = test::make_buffer(type, static_cast<std::size_t>(recv_extent), [&](std::size_t i) {
          int block = 0;
          std::size_t e = 0;
          if (!at_block(rdispls, recvcounts, i, block, e)) return std::int64_t{-1};  // gap: untouched
          return value(block, me, e);
        });
        const Bytes gap = test::make_buffer(type, 1, [](std::size_t) { return std::int64_t{-1}; });
        Bytes recv(expected.size() + guard, sentinel);
        // Fill the gaps of the receive buffer with -1 so that a stray write shows.
        for (std::size_t i = 0; i < static_cast<std::size_t>(recv_extent); ++i) {
          std::copy(gap.begin(), gap.end(), recv.begin() + static_cast<std::ptrdiff_t>(i * size_of(type)));
        }
        if (in_place) {
          std::copy(input.begin(), input.end(), recv.begin());
          fn(comm, ragged::in_place, {}, {}, recv.data(), recvcounts, rdispls, type, options);
        } else {
          fn(comm, input.data(), sendcounts, sdispls, recv.data(), recvcounts, rdispls, type, options);
        }
        const bool body_ok = std::equal(expected.begin(), expected.end(), recv.begin());
        const bool guard_ok = std::all_of(recv.end() - static_cast<std::ptrdiff_t>(guard), recv.end(),
                                          [](std::byte x) { return x == sentinel; });
        if (!body_ok || !guard_ok) {
          throw test::CheckFailed(what + ": rank " + std::to_string(me) + " scale " + std::to_string(scale) + " " +
                                  name_of(type) + (in_place ? " in place" : "") +
                                  (body_ok ? ": wrote past the buffer" : ": wrong result"));
        }
      }
    }
  }
}

class SimAlltoallvAlgorithm : public ::testing::TestWithParam<std::string> {};

TEST_P(SimAlltoallvAlgorithm, SweepOfProcsTypesAndLayouts) {
  const Algorithm& a = Registry::instance().find(Collective::alltoallv, GetParam());
  const AlltoallvFn fn = Registry::instance().alltoallv(a.name);
  for (const int p : test::sweep_procs()) {
    if (!a.restrictions.needs_two_clusters && !a.restrictions.needs_clusters) {
      const std::string what = "alltoallv " + a.name + " P=" + std::to_string(p);
      EXPECT_NO_THROW(sim::run(config(p), [&](Comm& comm) { check_alltoallv(comm, fn, {}, what); })) << what;
      continue;
    }
    for (const auto& layout : layouts_for(p, a)) {
      CollectiveOptions options;
      options.hints.set<ClusterLayout>(layout);
      const std::string what = "alltoallv " + a.name + " layout " + describe(*layout);
      EXPECT_NO_THROW(sim::run(config(p), [&](Comm& comm) { check_alltoallv(comm, fn, options, what); })) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, SimAlltoallvAlgorithm, ::testing::ValuesIn(names_of(Collective::alltoallv)),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Backbone messages of one alltoallv lg, summed over the ranks: blocks of 1 to 3 elements,
// or with `empty_from_1_to_0`, none from cluster 1 to cluster 0. Checks the result.
std::uint64_t measured_backbone_v(const std::shared_ptr<const ClusterLayout>& layout, bool empty_from_1_to_0,
                                  const std::string& platform = "cluster-1gbe-48") {
  const int p = layout->size();
  std::vector<std::uint64_t> per_rank(static_cast<std::size_t>(p), 0);
  const auto in_cluster = [&](int r, int c) { return layout->cluster[static_cast<std::size_t>(r)] == c; };
  sim::run(config(p, platform), [&](Comm& comm) {
    CountingComm counting(comm, layout);
    CollectiveOptions options;
    options.hints.set<ClusterLayout>(layout);
    const int me = comm.rank();
    std::vector<int> sc(static_cast<std::size_t>(p));
    std::vector<int> rc(static_cast<std::size_t>(p));
    for (int j = 0; j < p; ++j) {
      const bool empty_out = empty_from_1_to_0 && in_cluster(me, 1) && in_cluster(j, 0);
      const bool empty_in = empty_from_1_to_0 && in_cluster(j, 1) && in_cluster(me, 0);
      sc[static_cast<std::size_t>(j)] = empty_out ? 0 : 1 + (me + j) % 3;
      rc[static_cast<std::size_t>(j)] = empty_in ? 0 : 1 + (me + j) % 3;
    }
    std::vector<int> sd(static_cast<std::size_t>(p));
    std::vector<int> rd(static_cast<std::size_t>(p));
    std::exclusive_scan(sc.begin(), sc.end(), sd.begin(), 0);
    std::exclusive_scan(rc.begin(), rc.end(), rd.begin(), 0);
    std::vector<std::int32_t> in(static_cast<std::size_t>(sd.back() + sc.back()), 7);
    std::vector<std::int32_t> out(static_cast<std::size_t>(rd.back() + rc.back()));
    options.algorithm = "lg";
    RAGGED_CHECK_EQ(alltoallv(counting, in.data(), sc, sd, out.data(), rc, rd, DataType::int32, options).name,
                    std::string("lg"));
    RAGGED_CHECK(std::all_of(out.begin(), out.end(), [](std::int32_t x) { return x == 7; }));
    per_rank[static_cast<std::size_t>(me)] = counting.backbone().messages;
  });
  return std::accumulate(per_rank.begin(), per_rank.end(), std::uint64_t{0});
}

TEST(SimAlltoallv, LgBackboneMessagesAtMostTwoMax) {
  const int cases[][2] = {{3, 7}, {7, 3}, {5, 5}, {4, 13}};
  for (const auto& c : cases) {
    const int n1 = c[0];
    const int n2 = c[1];
    const auto layout = std::make_shared<ClusterLayout>(ClusterLayout::split_at(n1, n2));
    for (const bool with_empty_blocks : {false, true}) {
      // Every block non-empty: exactly 2*max; nothing from cluster 1 to cluster 0: one direction only.
      EXPECT_EQ(measured_backbone_v(layout, with_empty_blocks),
                static_cast<std::uint64_t>((with_empty_blocks ? 1 : 2) * std::max(n1, n2)))
          << n1 << "+" << n2 << (with_empty_blocks ? " with empty blocks" : "");
    }
  }
}

// ------------------------------------------------------------ k clusters

// LG on three and four clusters of uneven sizes (3+5+2, 4+1+6+3), consecutive and dealt
// round-robin: exact results for every count (0 included), type and in-place choice.
TEST(SimAlltoall, LgOnThreeAndFourUnevenClusters) {
  const AlltoallFn fn = Registry::instance().alltoall("lg");
  const AlltoallvFn fnv = Registry::instance().alltoallv("lg");
  const std::vector<std::vector<int>> shapes{{3, 5, 2}, {4, 1, 6, 3}};
  for (const std::vector<int>& sizes : shapes) {
    std::vector<std::shared_ptr<const ClusterLayout>> layouts{
        std::make_shared<ClusterLayout>(ClusterLayout::from_sizes(sizes))};
    // The same sizes, ranks dealt in turn to the clusters that have room, from cluster 1.
    const int total = std::accumulate(sizes.begin(), sizes.end(), 0);
    std::vector<int> dealt;
    std::vector<int> room = sizes;
    for (std::size_t r = 0, c = 1; r < static_cast<std::size_t>(total); ++r, ++c) {
      while (room[c % sizes.size()] == 0) ++c;
      dealt.push_back(static_cast<int>(c % sizes.size()));
      --room[c % sizes.size()];
    }
    layouts.push_back(std::make_shared<ClusterLayout>(ClusterLayout::from_list(dealt)));
    for (const auto& layout : layouts) {
      ASSERT_EQ(layout->sizes().size(), sizes.size());
      CollectiveOptions options;
      options.hints.set<ClusterLayout>(layout);
      const std::string what = "lg layout " + describe(*layout);
      EXPECT_NO_THROW(sim::run(config(layout->size()), [&](Comm& comm) {
        check_alltoall(comm, fn, options, "alltoall " + what);
        check_alltoallv(comm, fnv, options, "alltoallv " + what);
      })) << what;
    }
  }
}

TEST(SimAlltoall, LgBackboneMessagesWithThreeAndFourClusters) {
  const std::vector<std::vector<int>> shapes{{3, 5, 2}, {4, 1, 6, 3}, {1, 1, 1}, {2, 9, 4}, {5, 5, 5, 5}};
  for (const std::vector<int>& sizes : shapes) {
    const auto layout = std::make_shared<ClusterLayout>(ClusterLayout::from_sizes(sizes));
    EXPECT_EQ(measured_backbone("lg", layout, 3), lg_formula(sizes)) << describe(*layout);
    EXPECT_EQ(measured_backbone("pairwise", layout, 3), direct_formula(sizes)) << describe(*layout);
  }
  // The header's numbers: 26 against 62, 58 against 134.
  EXPECT_EQ(lg_formula({3, 5, 2}), 26U);
  EXPECT_EQ(direct_formula({3, 5, 2}), 62U);
  EXPECT_EQ(lg_formula({4, 1, 6, 3}), 58U);
  EXPECT_EQ(direct_formula({4, 1, 6, 3}), 134U);
  // Clusters dealt round-robin: the count does not depend on where the ranks are.
  std::vector<int> dealt;
  for (int r = 0; r < 14; ++r) dealt.push_back(r % 4);  // 4 + 4 + 3 + 3
  const auto mixed = std::make_shared<ClusterLayout>(ClusterLayout::from_list(dealt));
  EXPECT_EQ(measured_backbone("lg", mixed, 2), lg_formula({4, 4, 3, 3}));
}

// alltoallv lg with three and four clusters: exactly the formula when every block is
// non-empty; nothing from cluster 1 to cluster 0: max(n_0, n_1) fewer.
TEST(SimAlltoallv, LgBackboneMessagesWithThreeAndFourClusters) {
  const std::vector<std::vector<int>> shapes{{3, 5, 2}, {4, 1, 6, 3}};
  for (const std::vector<int>& sizes : shapes) {
    const auto layout = std::make_shared<ClusterLayout>(ClusterLayout::from_sizes(sizes));
    EXPECT_EQ(measured_backbone_v(layout, false), lg_formula(sizes)) << describe(*layout);
    EXPECT_EQ(measured_backbone_v(layout, true),
              lg_formula(sizes) - static_cast<std::uint64_t>(std::max(sizes[0], sizes[1])))
        << describe(*layout) << " with empty blocks";
  }
}

// ------------------------------------------------- the k-cluster platforms

// On a shipped platform with all its hosts: the clusters come from the zones (as
// ragged-bench finds them), every result is exact, and the backbone messages measured
// on the platform are the formula's for alltoall and alltoallv lg, n_a n_b per ordered
// pair for pairwise.
void check_platform(const std::string& platform, const std::vector<int>& sizes) {
  const int p = std::accumulate(sizes.begin(), sizes.end(), 0);
  const sim::Placement placed = sim::placement(config(p, platform));
  const auto layout = std::make_shared<ClusterLayout>(ClusterLayout::from_labels(placed.zone));
  ASSERT_EQ(layout->sizes(), sizes) << platform;
  EXPECT_EQ(layout->members(0).back(), sizes[0] - 1) << "hosts in cluster order";
  CollectiveOptions options;
  options.hints.set<ClusterLayout>(layout);
  const AlltoallFn fn = Registry::instance().alltoall("lg");
  const AlltoallvFn fnv = Registry::instance().alltoallv("lg");
  EXPECT_NO_THROW(sim::run(config(p, platform), [&](Comm& comm) {
    check_alltoall(comm, fn, options, "alltoall lg on " + platform);
    check_alltoallv(comm, fnv, options, "alltoallv lg on " + platform);
  }));
  EXPECT_EQ(measured_backbone("lg", layout, 2, platform), lg_formula(sizes)) << platform;
  EXPECT_EQ(measured_backbone("pairwise", layout, 2, platform), direct_formula(sizes)) << platform;
  EXPECT_EQ(measured_backbone_v(layout, false, platform), lg_formula(sizes)) << platform;
}

TEST(SimAlltoall, LgOnTheThreeClusterPlatform) {
  REQUIRE_PLATFORM("three-clusters-18-30-12");
  check_platform("three-clusters-18-30-12", {18, 30, 12});
  EXPECT_EQ(lg_formula({18, 30, 12}), 156U);
  EXPECT_EQ(direct_formula({18, 30, 12}), 2232U);
}

TEST(SimAlltoall, LgOnTheFourClusterPlatform) {
  REQUIRE_PLATFORM("four-clusters-16-4-24-12");
  check_platform("four-clusters-16-4-24-12", {16, 4, 24, 12});
  EXPECT_EQ(lg_formula({16, 4, 24, 12}), 232U);
  EXPECT_EQ(direct_formula({16, 4, 24, 12}), 2144U);
}

}  // namespace test_alltoall_test
}  // namespace ragged
