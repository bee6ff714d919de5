// The hierarchical (node-aware) collectives on the sim backend: allreduce, allgather, bcast,
// reduce and alltoall "hierarchical" and allgather "lanes" and "leader_pipeline", forced, over node layouts passed as a
// NodeLayout hint on the plain platform: one rank per node, one node, 2 to 4 consecutive ranks per node (the last node
// smaller when that does not divide P), ranks dealt round-robin to 3 nodes (no node's ranks consecutive), and the
// uneven 3+5+2 and 1+4+2+3. P from 1 to 20, counts 0, 1, odd and large, every root, in place where MPI allows. Data
// never repeat across ranks (rank r's element i is 1000 r + i % 997 + 1), so a block in the wrong place or a rank
// counted twice shows; the calls of one layout run back to back in one simulation. Where the layout has two nodes or
// more and a node of two ranks or more, the hierarchical algorithm itself must run, else its fallback.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/layout.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/matrix_op.hpp"
#include "support/patterns.hpp"
#include "support/sim_sweep.hpp"

namespace ragged {
namespace test_hierarchical_test {

using Bytes = std::vector<std::byte>;

constexpr std::byte fill{0x5A};
constexpr std::size_t guard = 32;

std::int64_t value(int rank, std::size_t i) {
  return 1000 * std::int64_t{rank} + static_cast<std::int64_t>(i % 997) + 1;
}

Bytes data_of(DataType type, int rank, std::size_t count) {
  return test::make_buffer(type, count, [rank](std::size_t i) { return value(rank, i); });
}

struct Layout {
  std::string name;
  NodeLayout layout;
};

/// The layouts of the sweep for P ranks.
std::vector<Layout> layouts_for(int procs) {
  std::vector<Layout> out;
  out.push_back({"flat", NodeLayout::one_per_node(procs)});
  out.push_back({"one_node", NodeLayout::parse(std::to_string(procs), procs)});
  for (int m = 2; m <= 4; ++m) {
    if (m < procs) out.push_back({"by" + std::to_string(m), NodeLayout::parse(std::to_string(m), procs)});
  }
  if (procs > 3) {
    std::vector<int> dealt;
    for (int r = 0; r < procs; ++r) dealt.push_back(r % 3);
    out.push_back({"round_robin3", NodeLayout::from_list(dealt)});
  }
  if (procs == 10) {
    const std::vector<int> a{3, 5, 2};
    const std::vector<int> b{1, 4, 2, 3};
    out.push_back({"3+5+2", NodeLayout::from_sizes(a)});
    out.push_back({"1+4+2+3", NodeLayout::from_sizes(b)});
  }
  return out;
}

bool pays(const NodeLayout& l) { return l.nodes() >= 2 && l.max_per_node() >= 2; }

std::vector<std::size_t> counts_for(int procs) { return {0, 1, 7, static_cast<std::size_t>(2 * procs + 1), 10007}; }

constexpr DataType types[] = {DataType::int32, DataType::float64};

void expect_ran(const Algorithm& ran, Collective c, const NodeLayout& layout, const std::string& what,
                const std::string& name = "hierarchical") {
  const Algorithm& forced = Registry::instance().find(c, name);
  const std::string want = pays(layout) ? name : forced.restrictions.fallback;
  if (ran.name != want) throw test::CheckFailed(what + ": ran " + ran.name + ", expected " + want);
}

void check_equal(const Bytes& got, const Bytes& want, std::size_t n, const std::string& what) {
  if (n != 0 && std::memcmp(got.data(), want.data(), n) != 0) throw test::CheckFailed(what + ": wrong result");
  for (std::size_t i = n; i < got.size(); ++i) {
    if (got[i] != fill) throw test::CheckFailed(what + ": wrote past the end");
  }
}

std::string where(const char* coll, const Layout& l, int procs, int rank, std::size_t count, DataType type,
                  int root = -1) {
  return std::string(coll) + " " + l.name + " P=" + std::to_string(procs) + " rank " + std::to_string(rank) +
         " count " + std::to_string(count) + " " + name_of(type) + (root >= 0 ? " root " + std::to_string(root) : "");
}

CollectiveOptions options_for(const NodeLayout& layout) {
  CollectiveOptions o = test::sweep_options();
  o.hints.set(std::make_shared<const NodeLayout>(layout));
  return o;
}

class Hierarchical : public testing::TestWithParam<int> {};

TEST_P(Hierarchical, AllreduceSumsExactlyOnEveryLayout) {
  const int procs = GetParam();
  const AllreduceFn fn = Registry::instance().allreduce("hierarchical");
  for (const Layout& l : layouts_for(procs)) {
    test::simulate(procs, [&](Comm& comm) {
      const CollectiveOptions o = options_for(l.layout);
      for (const std::size_t count : counts_for(procs)) {
        for (const DataType type : types) {
          const std::size_t n = count * size_of(type);
          const Bytes want = test::make_buffer(type, count, [&](std::size_t i) {
            std::int64_t s = 0;
            for (int r = 0; r < procs; ++r) s += value(r, i);
            return s;
          });
          const std::string what = where("allreduce", l, procs, comm.rank(), count, type);
          for (const bool inplace : {false, true}) {
            const Bytes mine = data_of(type, comm.rank(), count);
            Bytes recv(n + guard, fill);
            if (inplace && n > 0) std::memcpy(recv.data(), mine.data(), n);
            const Algorithm& ran =
                fn(comm, inplace ? in_place : mine.data(), recv.data(), count, type, ReduceOp::sum(), o);
            expect_ran(ran, Collective::allreduce, l.layout, what);
            check_equal(recv, want, n, what + (inplace ? " in place" : ""));
          }
        }
      }
      // max as well: a commutative operator other than sum
      const std::size_t count = 33;
      const Bytes mine = data_of(DataType::int64, comm.rank(), count);
      Bytes recv(count * 8 + guard, fill);
      (void)fn(comm, mine.data(), recv.data(), count, DataType::int64, ReduceOp::max(), o);
      check_equal(recv, data_of(DataType::int64, procs - 1, count), count * 8, "allreduce max " + l.name);
    });
  }
}

TEST_P(Hierarchical, NonCommutativeAllreduceAndReduceFallBackInRankOrder) {
  const int procs = GetParam();
  const ReduceOp op = test::matrix_product();
  for (const Layout& l : layouts_for(procs)) {
    const std::vector<std::int32_t> want = test::rank_order_product(procs, 5);
    test::simulate(procs, [&](Comm& comm) {
      const CollectiveOptions o = options_for(l.layout);
      const std::vector<std::int32_t> mine = test::matrices_of(comm.rank(), 5);
      std::vector<std::int32_t> got(mine.size());
      const Algorithm& ran = Registry::instance().allreduce("hierarchical")(comm, mine.data(), got.data(), got.size(),
                                                                            DataType::int32, op, o);
      RAGGED_CHECK_EQ(ran.name, std::string("reduce_bcast"));
      RAGGED_CHECK(got == want);
      const int root = procs / 2;
      std::vector<std::int32_t> at_root(mine.size());
      const Algorithm& r = Registry::instance().reduce("hierarchical")(comm, mine.data(), at_root.data(),
                                                                       at_root.size(), DataType::int32, op, root, o);
      RAGGED_CHECK_EQ(r.name, std::string("binomial"));
      if (comm.rank() == root) RAGGED_CHECK(at_root == want);
    });
  }
}

TEST_P(Hierarchical, AllgatherPutsEveryBlockInPlaceOnEveryLayout) {
  const int procs = GetParam();
  const auto p = static_cast<std::size_t>(procs);
  for (const std::string name : {"hierarchical", "lanes", "leader_pipeline"}) {
    const AllgatherFn fn = Registry::instance().allgather(name);
    for (const Layout& l : layouts_for(procs)) {
      test::simulate(procs, [&](Comm& comm) {
        const CollectiveOptions o = options_for(l.layout);
        for (const std::size_t count : counts_for(procs)) {
          for (const DataType type : types) {
            const std::size_t block = count * size_of(type);
            Bytes want;
            for (int r = 0; r < procs; ++r) {
              const Bytes b = data_of(type, r, count);
              want.insert(want.end(), b.begin(), b.end());
            }
            const std::string what = where(("allgather " + name).c_str(), l, procs, comm.rank(), count, type);
            for (const bool inplace : {false, true}) {
              const Bytes mine = data_of(type, comm.rank(), count);
              Bytes recv(p * block + guard, fill);
              if (inplace && block > 0)
                std::memcpy(recv.data() + static_cast<std::size_t>(comm.rank()) * block, mine.data(), block);
              const Algorithm& ran = fn(comm, inplace ? in_place : mine.data(), recv.data(), count, type, o);
              expect_ran(ran, Collective::allgather, l.layout, what, name);
              check_equal(recv, want, p * block, what + (inplace ? " in place" : ""));
            }
          }
        }
      });
    }
  }
}

TEST_P(Hierarchical, BcastFromEveryRootOnEveryLayout) {
  const int procs = GetParam();
  const BcastFn fn = Registry::instance().bcast("hierarchical");
  for (const Layout& l : layouts_for(procs)) {
    test::simulate(procs, [&](Comm& comm) {
      const CollectiveOptions o = options_for(l.layout);
      for (const std::size_t count : counts_for(procs)) {
        for (const DataType type : types) {
          const std::size_t n = count * size_of(type);
          for (int root = 0; root < procs; ++root) {
            const Bytes want = data_of(type, root, count);
            Bytes buf(n + guard, fill);
            if (comm.rank() == root && n > 0) std::memcpy(buf.data(), want.data(), n);
            const std::string what = where("bcast", l, procs, comm.rank(), count, type, root);
            const Algorithm& ran = fn(comm, buf.data(), count, type, root, o);
            expect_ran(ran, Collective::bcast, l.layout, what);
            check_equal(buf, want, n, what);
          }
        }
      }
    });
  }
}

TEST_P(Hierarchical, ReduceToEveryRootOnEveryLayout) {
  const int procs = GetParam();
  const ReduceFn fn = Registry::instance().reduce("hierarchical");
  for (const Layout& l : layouts_for(procs)) {
    test::simulate(procs, [&](Comm& comm) {
      const CollectiveOptions o = options_for(l.layout);
      for (const std::size_t count : counts_for(procs)) {
        for (const DataType type : types) {
          const std::size_t n = count * size_of(type);
          const Bytes want = test::make_buffer(type, count, [&](std::size_t i) {
            std::int64_t s = 0;
            for (int r = 0; r < procs; ++r) s += value(r, i);
            return s;
          });
          for (int root = 0; root < procs; ++root) {
            const std::string what = where("reduce", l, procs, comm.rank(), count, type, root);
            for (const bool inplace : {false, true}) {
              const bool at_root = comm.rank() == root;
              const Bytes mine = data_of(type, comm.rank(), count);
              Bytes recv(n + guard, fill);
              if (inplace && at_root && n > 0) std::memcpy(recv.data(), mine.data(), n);
              const void* send = inplace && at_root ? in_place : mine.data();
              const Algorithm& ran = fn(comm, send, recv.data(), count, type, ReduceOp::sum(), root, o);
              expect_ran(ran, Collective::reduce, l.layout, what);
              if (at_root) {
                check_equal(recv, want, n, what + (inplace ? " in place" : ""));
              } else {
                check_equal(recv, want, 0, what + " (not the root)");
              }
            }
          }
        }
      }
    });
  }
}

TEST_P(Hierarchical, AlltoallDeliversEveryBlockOnEveryLayout) {
  const int procs = GetParam();
  const auto p = static_cast<std::size_t>(procs);
  const AlltoallFn fn = Registry::instance().alltoall("hierarchical");
  // block s of rank r: element i is (64 r + s) 1009 + i % 1009 + 1
  const auto block_of = [](DataType type, int from, int to, std::size_t count) {
    return test::make_buffer(type, count, [&](std::size_t i) {
      return (64 * std::int64_t{from} + to) * 1009 + static_cast<std::int64_t>(i % 1009) + 1;
    });
  };
  for (const Layout& l : layouts_for(procs)) {
    test::simulate(procs, [&](Comm& comm) {
      const CollectiveOptions o = options_for(l.layout);
      const int me = comm.rank();
      for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1001}}) {
        for (const DataType type : types) {
          const std::size_t block = count * size_of(type);
          Bytes send;
          Bytes want;
          for (int s = 0; s < procs; ++s) {
            const Bytes out = block_of(type, me, s, count);
            const Bytes in = block_of(type, s, me, count);
            send.insert(send.end(), out.begin(), out.end());
            want.insert(want.end(), in.begin(), in.end());
          }
          const std::string what = where("alltoall", l, procs, me, count, type);
          for (const bool inplace : {false, true}) {
            Bytes recv(p * block + guard, fill);
            // count 0 leaves `send` empty, its data() null: memcpy may not take null even for 0 bytes
            if (inplace && p * block > 0) std::memcpy(recv.data(), send.data(), p * block);
            const Algorithm& ran = fn(comm, inplace ? in_place : send.data(), recv.data(), count, type, o);
            expect_ran(ran, Collective::alltoall, l.layout, what);
            check_equal(recv, want, p * block, what + (inplace ? " in place" : ""));
          }
        }
      }
    });
  }
}

TEST(HierarchicalAuto, AutoNeverPicksAHierarchicalAlgorithmOnAFlatLayout) {
  test::simulate(8, [&](Comm& comm) {
    CollectiveOptions o = options_for(NodeLayout::one_per_node(8));
    std::vector<std::int32_t> buf(1 << 16, comm.rank());
    RAGGED_CHECK(allreduce(comm, in_place, buf.data(), buf.size(), DataType::int32, ReduceOp::sum(), o).name !=
                 "hierarchical");
    RAGGED_CHECK(bcast(comm, buf.data(), buf.size(), DataType::int32, 3, o).name != "hierarchical");
  });
}

std::vector<int> procs_list() {
  std::vector<int> out;
  for (int p = 1; p <= 20; ++p) out.push_back(p);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Layouts, Hierarchical, testing::ValuesIn(procs_list()),
                         [](const testing::TestParamInfo<int>& info) { return "P" + std::to_string(info.param); });

}  // namespace test_hierarchical_test
}  // namespace ragged
