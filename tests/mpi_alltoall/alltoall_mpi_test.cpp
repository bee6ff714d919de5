// The cluster-aware algorithms (alltoall "lg" and "coordinator", alltoallv "lg")
// under mpirun: for every way to split the job's ranks in two clusters (every
// n1 with contiguous clusters, and interleaved ranks), and for lg also in three
// and four clusters (uneven contiguous ones and ranks dealt round-robin), every
// count and type of the sweep, in place and not, the result must equal the native
// MPI collective's byte for byte, and the measured backbone messages must be
// 2*max(n_a,n_b) per pair of clusters for lg (2*max(n1,n2) with two).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "mpi/harness.hpp"
#include "ragged/alltoall.hpp"
#include "ragged/counting_comm.hpp"
#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"
#include "ragged/topology.hpp"
#include "support/patterns.hpp"

namespace ragged {
namespace {

using Bytes = std::vector<std::byte>;

std::vector<std::shared_ptr<const ClusterLayout>> layouts(int p) {
  std::vector<std::shared_ptr<const ClusterLayout>> out;
  for (int n1 = 1; n1 < p; ++n1) out.push_back(std::make_shared<ClusterLayout>(ClusterLayout::split_at(n1, p - n1)));
  if (p >= 3) {
    std::vector<int> c;
    for (int r = 0; r < p; ++r) c.push_back(r % 2);
    out.push_back(std::make_shared<ClusterLayout>(ClusterLayout::from_list(c)));
  }
  // Three and four clusters (lg only): the last cluster takes what the others leave, and
  // the ranks dealt round-robin.
  for (int k = 3; k <= std::min(p, 4); ++k) {
    std::vector<int> sizes(static_cast<std::size_t>(k), 1);
    sizes[1] += p - k;  // uneven: cluster 1 the largest
    out.push_back(std::make_shared<ClusterLayout>(ClusterLayout::from_sizes(sizes)));
    std::vector<int> dealt;
    for (int r = 0; r < p; ++r) dealt.push_back(r % k);
    out.push_back(std::make_shared<ClusterLayout>(ClusterLayout::from_list(dealt)));
  }
  return out;
}

std::string describe(const ClusterLayout& l) {
  std::string s;
  for (int c : l.cluster) s += static_cast<char>('0' + c);
  return s;
}

std::int64_t value(int src, int dst, std::size_t e) {
  return static_cast<std::int64_t>((static_cast<std::size_t>(src) * 29 + static_cast<std::size_t>(dst) * 11 + e) % 89) +
         1;
}

/// Options that hand the algorithms `layout`.
CollectiveOptions with_layout(const ClusterLayout& layout) {
  CollectiveOptions options;
  options.hints.set<ClusterLayout>(std::make_shared<const ClusterLayout>(layout));
  return options;
}

// alltoall: algorithm against native for one layout; returns false on a mismatch.
bool check_alltoall(Comm& comm, const Algorithm& alg, const ClusterLayout& layout, mpitest::Tally& tally) {
  const int p = comm.size();
  const int me = comm.rank();
  const CollectiveOptions options = with_layout(layout);
  const AlltoallFn fn = Registry::instance().alltoall(alg.name);
  const AlltoallFn native = Registry::instance().alltoall("native");
  bool all_ok = true;
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, static_cast<std::size_t>(p + 1), std::size_t{1000}}) {
    for (const DataType type : {DataType::int32, DataType::float64, DataType::byte}) {
      for (const bool in_place : {false, true}) {
        const std::size_t total = count * static_cast<std::size_t>(p);
        const std::size_t c = std::max<std::size_t>(count, 1);
        const Bytes input =
            test::make_buffer(type, total, [&](std::size_t i) { return value(me, static_cast<int>(i / c), i % c); });
        Bytes got(input.size(), std::byte{0});
        Bytes want(input.size(), std::byte{0});
        if (in_place) {
          got = input;
          fn(comm, ragged::in_place, got.data(), count, type, options);
        } else {
          fn(comm, input.data(), got.data(), count, type, options);
        }
        native(comm, input.data(), want.data(), count, type, {});
        const bool ok = got == want;
        const std::string step = "alltoall/" + alg.name + " layout " + describe(layout) + " count " +
                                 std::to_string(count) + " " + name_of(type) + (in_place ? " in place" : "");
        if (!ok) mpitest::say(step + ": differs from MPI_Alltoall");
        if (!mpitest::count_step(tally, step, ok)) all_ok = false;
      }
    }
  }
  return all_ok;
}

bool check_alltoallv(Comm& comm, const Algorithm& alg, const ClusterLayout& layout, mpitest::Tally& tally) {
  const int p = comm.size();
  const int me = comm.rank();
  const CollectiveOptions options = with_layout(layout);
  const AlltoallvFn fn = Registry::instance().alltoallv(alg.name);
  const AlltoallvFn native = Registry::instance().alltoallv("native");
  bool all_ok = true;
  for (const int scale : {1, 53}) {
    for (const bool in_place : {false, true}) {
      // In place the sizes of a pair must agree both ways.
      const auto count = [&](int src, int dst) {
        const int a = in_place ? std::min(src, dst) : src;
        const int b = in_place ? std::max(src, dst) : dst;
        return ((a * 5 + b * 3) % 4) * scale;
      };
      std::vector<int> sc(static_cast<std::size_t>(p));
      std::vector<int> rc(static_cast<std::size_t>(p));
      for (int j = 0; j < p; ++j) {
        sc[static_cast<std::size_t>(j)] = count(me, j);
        rc[static_cast<std::size_t>(j)] = count(j, me);
      }
      std::vector<int> sd(static_cast<std::size_t>(p));
      std::vector<int> rd(static_cast<std::size_t>(p));
      std::exclusive_scan(sc.begin(), sc.end(), sd.begin(), 0);
      std::exclusive_scan(rc.begin(), rc.end(), rd.begin(), 0);
      const auto s_total = static_cast<std::size_t>(sd.back() + sc.back());
      const auto r_total = static_cast<std::size_t>(rd.back() + rc.back());
      const Bytes input = test::make_buffer(DataType::int32, in_place ? r_total : s_total, [&](std::size_t i) {
        return static_cast<std::int64_t>(me * 1000 + static_cast<int>(i % 997));
      });
      Bytes got(r_total * 4, std::byte{0});
      Bytes want(r_total * 4, std::byte{0});
      if (in_place) {
        got = input;
        fn(comm, ragged::in_place, {}, {}, got.data(), rc, rd, DataType::int32, options);
      } else {
        fn(comm, input.data(), sc, sd, got.data(), rc, rd, DataType::int32, options);
      }
      native(comm, input.data(), in_place ? rc : sc, in_place ? rd : sd, want.data(), rc, rd, DataType::int32, {});
      const bool ok = got == want;
      const std::string step = "alltoallv/" + alg.name + " layout " + describe(layout) + " scale " +
                               std::to_string(scale) + (in_place ? " in place" : "");
      if (!ok) mpitest::say(step + ": differs from MPI_Alltoallv");
      if (!mpitest::count_step(tally, step, ok)) all_ok = false;
    }
  }
  return all_ok;
}

// lg's backbone messages, counted on every rank and summed.
void check_backbone(Comm& comm, const ClusterLayout& layout, mpitest::Tally& tally) {
  auto shared = std::make_shared<const ClusterLayout>(layout);
  CountingComm counting(comm, shared);
  CollectiveOptions options;
  options.hints.set<ClusterLayout>(shared);
  std::vector<std::int32_t> in(static_cast<std::size_t>(comm.size()) * 4, 3);
  std::vector<std::int32_t> out(in.size());
  options.algorithm = "lg";
  (void)alltoall(counting, in.data(), out.data(), 4, DataType::int32, options);
  long mine = static_cast<long>(counting.backbone().messages);
  long total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long expected = 0;  // 2 max(n_a, n_b) for every pair of clusters a < b
  const std::vector<int> sizes = layout.sizes();
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    for (std::size_t b = a + 1; b < sizes.size(); ++b) expected += 2L * std::max(sizes[a], sizes[b]);
  }
  const bool ok = total == expected;
  if (!ok && comm.rank() == 0) {
    mpitest::say("lg layout " + describe(layout) + ": " + std::to_string(total) + " backbone messages, expected " +
                 std::to_string(expected));
  }
  if (ok) {
    ++tally.passed;
  } else {
    ++tally.failed;
  }
}

int run() {
  mpitest::Tally tally;
  const auto comm = mpi::make_comm(MPI_COMM_WORLD);
  const int p = comm->size();
  if (p < 2) {
    if (comm->rank() == 0) std::printf("needs at least 2 ranks: nothing to check\n");
    return 0;
  }
  const Registry& registry = Registry::instance();
  for (const auto& layout : layouts(p)) {
    // Each algorithm on the layouts it takes: coordinator two clusters, lg two or more.
    const auto takes = [&](const Algorithm& alg) {
      return alg.restrictions.needs_clusters || (alg.restrictions.needs_two_clusters && layout->clusters() == 2);
    };
    for (const Algorithm* alg : registry.list(Collective::alltoall, "mpi")) {
      if (takes(*alg)) check_alltoall(*comm, *alg, *layout, tally);
    }
    for (const Algorithm* alg : registry.list(Collective::alltoallv, "mpi")) {
      if (takes(*alg)) check_alltoallv(*comm, *alg, *layout, tally);
    }
    check_backbone(*comm, *layout, tally);
  }
  return mpitest::tally_verdict(tally);
}

}  // namespace
}  // namespace ragged

int main(int argc, char** argv) { return ragged::mpitest::main_of(&argc, &argv, ragged::run); }
