// The regular allgather baselines (ring, nex, lnbc, bruck) on the sim backend.
// One simulation per (algorithm, P) runs, back to back on every rank, every
// count of the sweep {0, 1, P-1, P+1, large} (test::sweep_large_count: 100003 up
// to P = 8, about 800,000 / P beyond) in every datatype, in place and
// not, and compares every block exactly with the pattern of the rank it came
// from; the bytes past the end of the receive buffer must stay untouched.
// Running the calls back to back, with no barrier, also checks that
// consecutive collectives do not steal each other's messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/patterns.hpp"
#include "support/registered.hpp"
#include "support/sim_sweep.hpp"

namespace ragged {
namespace test_allgather_test {

using Bytes = std::vector<std::byte>;

constexpr std::size_t guard_bytes = 48;
constexpr std::byte fill{0x3C};
constexpr std::array<DataType, 5> types{DataType::int32, DataType::int64, DataType::float32, DataType::float64,
                                        DataType::byte};

/// Per datatype, per rank: pattern(rank, i) for the largest count; the block of any smaller
/// count is a prefix. Built before the simulation and only read by the ranks.
using Rows = std::array<std::vector<Bytes>, types.size()>;

Rows make_rows(int procs, std::size_t max_count) {
  Rows rows;
  for (std::size_t t = 0; t < types.size(); ++t) {
    for (int r = 0; r < procs; ++r) {
      rows[t].push_back(test::make_buffer(types[t], max_count, [r](std::size_t i) { return test::pattern(r, i); }));
    }
  }
  return rows;
}

std::string where(const std::string& name, int rank, std::size_t count, DataType type, bool inplace) {
  std::ostringstream os;
  os << "allgather " << name << " rank " << rank << " count " << count << " " << name_of(type)
     << (inplace ? " in place" : "");
  return os.str();
}

void check_rejects_null_buffers(Comm& comm, AllgatherFn fn) {
  const CollectiveOptions none;
  std::array<std::int32_t, 64> buf{};
  test::check_rejects_null_buffers(
      buf.data(), [&](const void* send, void* recv) { fn(comm, send, recv, 1, DataType::int32, none); });
}

using Param = std::tuple<std::string, int>;

class Allgather : public testing::TestWithParam<Param> {};

TEST_P(Allgather, EveryCountTypeAndInPlaceGathersEveryBlockExactly) {
  // plain copies, not structured bindings: the rank lambda captures them
  const std::string name = std::get<0>(GetParam());
  const int procs = std::get<1>(GetParam());
  const AllgatherFn fn = Registry::instance().allgather(name);
  const std::vector<std::size_t> counts = test::sweep_counts(procs);
  const Rows rows = make_rows(procs, *std::max_element(counts.begin(), counts.end()));
  const auto p = static_cast<std::size_t>(procs);

  int calls = 0;
  test::simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    check_rejects_null_buffers(comm, fn);
    const CollectiveOptions options = test::sweep_options();
    for (std::size_t count : counts) {
      for (std::size_t t = 0; t < types.size(); ++t) {
        const DataType type = types[t];
        const std::size_t block = count * size_of(type);
        for (bool inplace : {false, true}) {
          Bytes recv(p * block + guard_bytes, fill);
          const std::byte* mine = rows[t][static_cast<std::size_t>(me)].data();
          if (inplace) std::memcpy(recv.data() + static_cast<std::size_t>(me) * block, mine, block);
          fn(comm, inplace ? in_place : mine, recv.data(), count, type, options);
          for (std::size_t j = 0; j < p; ++j) {
            if (block != 0 && std::memcmp(recv.data() + j * block, rows[t][j].data(), block) != 0) {
              throw test::CheckFailed(where(name, me, count, type, inplace) + ": block " + std::to_string(j) +
                                      " differs from rank " + std::to_string(j) + "'s data");
            }
          }
          for (std::size_t i = p * block; i < recv.size(); ++i) {
            if (recv[i] != fill)
              throw test::CheckFailed(where(name, me, count, type, inplace) + ": wrote past the end");
          }
          if (me == 0) ++calls;
        }
      }
    }
  });
  EXPECT_EQ(calls, static_cast<int>(counts.size() * types.size() * 2));
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const std::string& name : test::registered(Collective::allgather)) {
    for (int p : test::sweep_procs()) {
      // push at P = 33 took 14 s (P^2 messages, each a wait over every posted receive);
      // sim.Procs/Push covers it up to P = 16.
      if (name == "push" && p > 16) continue;
      out.emplace_back(name, p);
    }
  }
  return out;
}

std::string param_name(const testing::TestParamInfo<Param>& param) {
  return std::get<0>(param.param) + "_P" + std::to_string(std::get<1>(param.param));
}

INSTANTIATE_TEST_SUITE_P(Baselines, Allgather, testing::ValuesIn(params()), param_name);

}  // namespace test_allgather_test
}  // namespace ragged
