// alltoallw on the sim backend: every registered algorithm over the process counts of the sweep,
// blocks whose datatype changes with the pair (int32, int64, float32, float64, byte), sizes that
// change with the pair and the scale (empty blocks included), displacements in bytes with the
// blocks in reverse rank order and gaps between them, in place and not. Every received byte is
// compared exactly (the gaps and the bytes past the buffer must be untouched), and dispatch's
// argument checks name the argument on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/patterns.hpp"

namespace ragged {
namespace test_alltoallw_test {
namespace {

using Bytes = std::vector<std::byte>;
constexpr std::byte untouched{0xE5};
constexpr std::size_t guard = 16;
constexpr DataType types[] = {DataType::int32, DataType::int64, DataType::float32, DataType::float64, DataType::byte};

/// The datatype of the block from `src` to `dst` (both sides know it: MPI's matching signatures).
/// In place, a pair exchanges one block each way from the same place: one type for both.
DataType type_of(int src, int dst, bool in_place) {
  if (in_place) return types[static_cast<std::size_t>(std::min(src, dst) * 3 + std::max(src, dst)) % 5];
  return types[static_cast<std::size_t>(src * 3 + dst * 2) % 5];
}

/// Elements of the block from `src` to `dst`: 0 for every fourth pair, scaled otherwise.
int count_of(int src, int dst, int scale, bool in_place) {
  const int a = in_place ? std::min(src, dst) : src;
  const int b = in_place ? std::max(src, dst) : dst;
  if ((a * 5 + b) % 4 == 3) return 0;
  return scale * (1 + (a * 7 + b * 3) % 5);
}

/// The block from `src` to `dst`: element e is test::pattern(src * 1031 + dst, e), never the same
/// across the pairs tested.
Bytes block(int src, int dst, int count, DataType type) {
  return test::make_buffer(type, static_cast<std::size_t>(count),
                           [&](std::size_t e) { return test::pattern(src * 1031 + dst, e); });
}

struct Side {
  std::vector<int> counts, displs;  // displacements in bytes
  std::vector<DataType> types;
  std::size_t extent = 0;
};

/// One side of rank `me`: block j (to or from rank j) at a byte displacement, in reverse rank
/// order, 8 bytes of gap before each.
Side side(int p, int me, int scale, bool in_place, bool sending) {
  Side s;
  s.counts.resize(static_cast<std::size_t>(p));
  s.displs.resize(static_cast<std::size_t>(p));
  s.types.resize(static_cast<std::size_t>(p));
  for (int j = p - 1; j >= 0; --j) {
    const auto u = static_cast<std::size_t>(j);
    const int src = sending ? me : j;
    const int dst = sending ? j : me;
    s.types[u] = type_of(src, dst, in_place);
    s.counts[u] = count_of(src, dst, scale, in_place);
    s.extent += 8;
    s.displs[u] = static_cast<int>(s.extent);
    s.extent += static_cast<std::size_t>(s.counts[u]) * size_of(s.types[u]);
  }
  return s;
}

/// A buffer of `s`'s layout holding, at block j, the block of pair (src(j), dst(j)).
Bytes fill(const Side& s, int me, bool sending) {
  Bytes out(s.extent + guard, untouched);
  for (std::size_t j = 0; j < s.counts.size(); ++j) {
    const int src = sending ? me : static_cast<int>(j);
    const int dst = sending ? static_cast<int>(j) : me;
    const Bytes b = block(src, dst, s.counts[j], s.types[j]);
    std::copy(b.begin(), b.end(), out.begin() + s.displs[j]);
  }
  return out;
}

void check_alltoallw(Comm& comm, const AlltoallwFn& fn, const std::string& name) {
  const int p = comm.size();
  const int me = comm.rank();
  for (const int scale : {1, 53}) {
    for (const bool in_place : {false, true}) {
      const Side send = side(p, me, scale, in_place, true);
      const Side recv = side(p, me, scale, in_place, false);
      const Bytes want = fill(recv, me, false);
      Bytes got(recv.extent + guard, untouched);
      CollectiveOptions options;
      if (in_place) {
        // MPI: the blocks to send are in the receive buffer, where the received ones land.
        got = fill(recv, me, true);
        fn(comm, ragged::in_place, {}, {}, {}, got.data(), recv.counts, recv.displs, recv.types, options);
      } else {
        const Bytes input = fill(send, me, true);
        fn(comm, input.data(), send.counts, send.displs, send.types, got.data(), recv.counts, recv.displs, recv.types,
           options);
      }
      if (got != want) {
        const auto at = std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin();
        throw test::CheckFailed("alltoallw " + name + " P=" + std::to_string(p) + " rank " + std::to_string(me) +
                                " scale " + std::to_string(scale) + (in_place ? " in place" : "") +
                                ": first wrong byte at " + std::to_string(at) + " of " + std::to_string(got.size()));
      }
    }
  }
}

class SimAlltoallwAlgorithm : public ::testing::TestWithParam<std::string> {};

TEST_P(SimAlltoallwAlgorithm, SweepOfProcsTypesSizesAndInPlace) {
  const AlltoallwFn fn = Registry::instance().alltoallw(GetParam());
  for (const int p : test::sweep_procs()) {
    sim::Config config;
    config.procs = p;
    config.platform = "cluster-1gbe-48";
    EXPECT_NO_THROW(sim::run(config, [&](Comm& comm) { check_alltoallw(comm, fn, GetParam()); }))
        << GetParam() << " P=" << p;
  }
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const Algorithm* a : Registry::instance().list(Collective::alltoallw, "sim")) out.push_back(a->name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Registered, SimAlltoallwAlgorithm, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Bad arguments name themselves on every rank: a types vector of the wrong length, a negative
// displacement, and a rank whose block to itself differs in bytes between its two sides.
TEST(SimAlltoallw, BadArgumentsAreNamedOnEveryRank) {
  sim::Config config;
  config.procs = 3;
  config.platform = "cluster-1gbe-48";
  sim::run(config, [&](Comm& comm) {
    const std::vector<int> counts(3, 1);
    const std::vector<int> displs{0, 8, 16};
    const std::vector<DataType> t64(3, DataType::int64);
    std::vector<std::byte> in(24), out(24);
    const auto names_argument = [&](const char* argument, auto call) {
      try {
        call();
      } catch (const InvalidArgument& e) {
        RAGGED_CHECK_EQ(e.argument(), std::string(argument));
        return;
      }
      throw test::CheckFailed(std::string("no InvalidArgument naming ") + argument);
    };
    names_argument("sendtypes", [&] {
      const std::vector<DataType> two(2, DataType::int64);
      (void)alltoallw(comm, in.data(), counts, displs, two, out.data(), counts, displs, t64);
    });
    names_argument("rdispls", [&] {
      const std::vector<int> negative{0, -8, 16};
      (void)alltoallw(comm, in.data(), counts, displs, t64, out.data(), counts, negative, t64);
    });
    names_argument("sendcounts", [&] {
      std::vector<DataType> t32 = t64;
      t32[static_cast<std::size_t>(comm.rank())] = DataType::int32;  // 4 bytes to itself, 8 expected
      (void)alltoallw(comm, in.data(), counts, displs, t32, out.data(), counts, displs, t64);
    });
  });
}

}  // namespace
}  // namespace test_alltoallw_test
}  // namespace ragged
