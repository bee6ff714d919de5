// The large-message broadcasts (bcast "scatter_allgather", "pipelined_chain" and "double_tree") on a denser
// sweep than the rooted suite's: every P from 1 to 17 plus 24 and 33, the roots of test::sweep_roots, counts 0, 1,
// below P, P-1 and P+1, non-multiples of P, and large ones that make many pieces and many
// chain segments, on int32 and bytes, back to back without barriers. Every rank's buffer must
// equal the root's, and the bytes past it must be untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/patterns.hpp"

namespace ragged {
namespace test_bcast_sweep_test {

using Bytes = std::vector<std::byte>;
constexpr std::size_t guard_bytes = 64;
constexpr std::byte sentinel{0xA5};

std::vector<int> procs_swept() {
  std::vector<int> p;
  for (int n = 1; n <= 17; ++n) p.push_back(n);
  p.push_back(24);
  p.push_back(33);
  return p;
}

/// 0, 1, below P, P-1, P+1, non-multiples of P, and large: 100003 and 300007 elements (1.2 MB
/// of int32: dozens of chain segments).
std::vector<std::size_t> counts_swept(int procs) {
  const auto p = static_cast<std::size_t>(procs);
  std::vector<std::size_t> c{0, 1, p / 2, p - 1, p + 1, 2 * p + 3, 7 * p - 1, 100003, 300007};
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

using Param = std::tuple<std::string, int>;

class BcastSweep : public testing::TestWithParam<Param> {};

TEST_P(BcastSweep, EveryRootAndCountGetsTheRootsDataExactly) {
  // Copies, not structured bindings: the rank lambda captures them.
  const std::string name = std::get<0>(GetParam());
  const int procs = std::get<1>(GetParam());
  const BcastFn fn = Registry::instance().bcast(name);
  const std::vector<std::size_t> counts = counts_swept(procs);
  const std::size_t largest = counts.back();
  // The root's data for each root, per type, built before the simulation and shared read-only.
  std::vector<std::vector<Bytes>> want(2);
  const DataType types[2] = {DataType::int32, DataType::byte};
  for (std::size_t t = 0; t < 2; ++t) {
    for (int r = 0; r < procs; ++r) {
      want[t].push_back(test::make_buffer(types[t], largest, [r](std::size_t i) { return test::pattern(r, i); }));
    }
  }
  sim::Config config;
  config.platform = "cluster-1gbe-48";
  config.procs = procs;
  sim::run(config, [&](Comm& comm) {
    CollectiveOptions options;
    options.timeout = 600.0;
    for (const int root : test::sweep_roots(procs)) {
      for (const std::size_t count : counts) {
        for (std::size_t t = 0; t < 2; ++t) {
          const std::size_t bytes = count * size_of(types[t]);
          const Bytes& expected = want[t][static_cast<std::size_t>(root)];
          Bytes buffer(bytes + guard_bytes, sentinel);
          if (comm.rank() == root) std::memcpy(buffer.data(), expected.data(), bytes);
          const Algorithm& ran = fn(comm, count == 0 ? nullptr : buffer.data(), count, types[t], root, options);
          const auto fail = [&](const std::string& what) {
            std::string message = name;
            message += " rank " + std::to_string(comm.rank());
            message += " root " + std::to_string(root);
            message += " count " + std::to_string(count);
            message += std::string(" ") + name_of(types[t]) + ": " + what;
            throw test::CheckFailed(message);
          };
          if (ran.name != name) fail("ran " + ran.name);
          if (bytes != 0 && std::memcmp(buffer.data(), expected.data(), bytes) != 0) fail("wrong data");
          for (std::size_t i = bytes; i < buffer.size(); ++i) {
            if (buffer[i] != sentinel) fail("wrote past the end");
          }
        }
      }
    }
  });
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const char* name : {"scatter_allgather", "pipelined_chain", "double_tree"}) {
    for (const int p : procs_swept()) out.emplace_back(name, p);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Large, BcastSweep, testing::ValuesIn(params()), [](const testing::TestParamInfo<Param>& info) {
  return std::get<0>(info.param) + "_P" + std::to_string(std::get<1>(info.param));
});

}  // namespace test_bcast_sweep_test
}  // namespace ragged
