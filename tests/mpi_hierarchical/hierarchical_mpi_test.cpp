// The hierarchical (node-aware) collectives under mpirun: allreduce, allgather, bcast, reduce and
// alltoall "hierarchical", allgather "lanes" and allreduce "hierarchical_arrival" (without a snapshot and with one
// rank predicted late), forced, against the MPI library's own collective ("native") byte for
// byte, under the job's layout (RAGGED_LAYOUT, set by the ctest entry) and under NodeLayout hints
// (ranks dealt round-robin to 2 and 3 nodes, and an uneven split), every root, counts 0, 1, odd
// and large, in place and not. Data never repeat across ranks.
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "mpi/harness.hpp"
#include "ragged/arrival.hpp"
#include "ragged/collectives.hpp"
#include "ragged/layout.hpp"
#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"
#include "support/patterns.hpp"

namespace ragged {
namespace {

using Bytes = std::vector<std::byte>;

std::int64_t value(int rank, std::size_t i) {
  return 1000 * std::int64_t{rank} + static_cast<std::int64_t>(i % 997) + 1;
}

/// The layouts: the job's own (no hint), and hints.
std::vector<std::shared_ptr<const NodeLayout>> layouts(int p) {
  std::vector<std::shared_ptr<const NodeLayout>> out{nullptr};
  for (int k = 2; k <= 3 && k < p; ++k) {
    std::vector<int> dealt;
    for (int r = 0; r < p; ++r) dealt.push_back(r % k);
    out.push_back(std::make_shared<const NodeLayout>(NodeLayout::from_list(dealt)));
  }
  if (p >= 4) {
    const std::vector<int> sizes{1, p - 2, 1};
    out.push_back(std::make_shared<const NodeLayout>(NodeLayout::from_sizes(sizes)));
  }
  return out;
}

std::string name_of_layout(const std::shared_ptr<const NodeLayout>& l) {
  return l ? l->describe() : std::string("RAGGED_LAYOUT");
}

int run() {
  mpitest::Tally tally;
  const auto comm = mpi::make_comm(MPI_COMM_WORLD);
  const int p = comm->size();
  const int me = comm->rank();
  const auto n = static_cast<std::size_t>(p);
  const Registry& reg = Registry::instance();
  for (const auto& layout : layouts(p)) {
    CollectiveOptions o;
    o.timeout = 120.0;
    if (layout) o.hints.set(layout);
    const std::string lname = name_of_layout(layout);
    for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{10007}}) {
      for (const DataType type : {DataType::int32, DataType::float64}) {
        const std::size_t es = size_of(type);
        const Bytes mine = test::make_buffer(type, count, [&](std::size_t i) { return value(me, i); });
        const std::string at = " " + lname + " count " + std::to_string(count) + " " + name_of(type);
        for (const bool inplace : {false, true}) {
          const std::string how = at + (inplace ? " in place" : "");
          {  // allreduce
            Bytes got(count * es);
            Bytes want(count * es);
            if (inplace) got = mine;
            reg.allreduce("hierarchical")(*comm, inplace ? in_place : mine.data(), got.data(), count, type,
                                          ReduceOp::sum(), o);
            reg.allreduce("native")(*comm, mine.data(), want.data(), count, type, ReduceOp::sum(), {});
            mpitest::count_step(tally, "allreduce" + how, got == want);
          }
          // allreduce hierarchical_arrival: without a snapshot (the leaders represent the nodes), and
          // with the last rank predicted late (it represents its node)
          for (const bool late : {false, true}) {
            CollectiveOptions a = o;
            if (late) {
              std::vector<double> arrivals(n, 0.0);
              arrivals.back() = 1.0;
              a.hints.set(std::make_shared<const ArrivalSnapshot>(arrivals, LinkModel{1e-6, 1e-9}));
            }
            Bytes got(count * es);
            Bytes want(count * es);
            if (inplace) got = mine;
            reg.allreduce("hierarchical_arrival")(*comm, inplace ? in_place : mine.data(), got.data(), count, type,
                                                  ReduceOp::sum(), a);
            reg.allreduce("native")(*comm, mine.data(), want.data(), count, type, ReduceOp::sum(), {});
            mpitest::count_step(tally, std::string("allreduce hierarchical_arrival") + (late ? " late" : "") + how,
                                got == want);
          }
          for (const std::string name : {"hierarchical", "lanes", "leader_pipeline"}) {  // allgather
            Bytes got(n * count * es);
            Bytes want(got.size());
            if (inplace)
              std::copy(mine.begin(), mine.end(),
                        got.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(me) * count * es));
            reg.allgather(name)(*comm, inplace ? in_place : mine.data(), got.data(), count, type, o);
            reg.allgather("native")(*comm, mine.data(), want.data(), count, type, {});
            mpitest::count_step(tally, "allgather " + name + how, got == want);
          }
          {  // alltoall: block s of rank r is value(64 r + s, i)
            const Bytes send = test::make_buffer(type, n * count, [&](std::size_t i) {
              return value(64 * me + static_cast<int>(i / std::max<std::size_t>(count, 1)), i);
            });
            Bytes got(send.size());
            Bytes want(send.size());
            if (inplace) got = send;
            reg.alltoall("hierarchical")(*comm, inplace ? in_place : send.data(), got.data(), count, type, o);
            reg.alltoall("native")(*comm, send.data(), want.data(), count, type, {});
            mpitest::count_step(tally, "alltoall" + how, got == want);
          }
          for (int root = 0; root < p; ++root) {
            const std::string rooted = how + " root " + std::to_string(root);
            if (!inplace) {  // bcast
              Bytes got = me == root ? mine : Bytes(count * es);
              Bytes want = got;
              reg.bcast("hierarchical")(*comm, got.data(), count, type, root, o);
              reg.bcast("native")(*comm, want.data(), count, type, root, {});
              mpitest::count_step(tally, "bcast" + rooted, got == want);
            }
            {  // reduce (in place at the root)
              Bytes got(count * es);
              Bytes want(count * es);
              const bool here = inplace && me == root;
              if (here) got = mine;
              reg.reduce("hierarchical")(*comm, here ? in_place : mine.data(), got.data(), count, type, ReduceOp::sum(),
                                         root, o);
              reg.reduce("native")(*comm, mine.data(), want.data(), count, type, ReduceOp::sum(), root, {});
              mpitest::count_step(tally, "reduce" + rooted, me != root || got == want);
            }
          }
        }
      }
    }
  }
  return mpitest::tally_verdict(tally);
}

}  // namespace
}  // namespace ragged

int main(int argc, char** argv) { return ragged::mpitest::main_of(&argc, &argv, ragged::run); }
