// gatherv and scatterv (Träff 2018) on the sim backend: for every P of the
// sweep, one simulation per algorithm runs every problem shape (same, random, zeros,
// two blocks, a spike, large blocks), roots 0, P/2 and P-1, three layouts of the
// root's displacements (rank order back to back; reversed with gaps; even ranks
// first), in place and not, and compares every byte with what MPI semantics demand:
// each block at its displacement, gaps and guard bytes untouched. Then bad input:
// every argument error names its argument, and counts that disagree between the
// root and a sender are reported where the algorithm promises it.
#include "ragged/irregular.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/patterns.hpp"
#include "support/registered.hpp"
#include "support/sim_sweep.hpp"

namespace ragged {
namespace test_irregular_test {

using Bytes = std::vector<std::byte>;
using test::CheckFailed;

constexpr std::byte sentinel{0x5A};
constexpr std::size_t guard_elements = 3;

using GatherCall = std::function<void(Comm&, const void*, int, void*, std::span<const int>, std::span<const int>,
                                      DataType, int, const CollectiveOptions&)>;
using ScatterCall = std::function<void(Comm&, const void*, std::span<const int>, std::span<const int>, void*, int,
                                       DataType, int, const CollectiveOptions&)>;

// The algorithms under test: every registered one, plus Träff's tree with thresholds
// small enough that degradation happens on test-sized blocks.
std::vector<std::string> algorithm_names() {
  return {"traff", "traff_copy", "traff_degrade", "linear", "binomial", "padded", "traff_t0", "traff_t24"};
}

std::optional<std::size_t> threshold_of(const std::string& name) {
  if (name == "traff_t0") return 0;
  if (name == "traff_t24") return 24;
  return std::nullopt;
}

/// `o` with Träff's tree forced, at direct threshold `t`.
CollectiveOptions traff_with(const CollectiveOptions& o, std::optional<std::size_t> t) {
  auto to = std::make_shared<TraffOptions>();
  to->direct_threshold_bytes = t;
  CollectiveOptions with = o;
  with.algorithm = "traff";
  with.hints.set(to);
  return with;
}

GatherCall gather_call(const std::string& name) {
  if (const auto t = threshold_of(name)) {
    return [t](Comm& c, const void* s, int n, void* r, std::span<const int> rc, std::span<const int> d, DataType ty,
               int root, const CollectiveOptions& o) -> const Algorithm& {
      return gatherv(c, s, n, r, rc, d, ty, root, traff_with(o, t));
    };
  }
  return Registry::instance().gatherv(name);
}

ScatterCall scatter_call(const std::string& name) {
  if (const auto t = threshold_of(name)) {
    return [t](Comm& c, const void* s, std::span<const int> sc, std::span<const int> d, void* r, int n, DataType ty,
               int root, const CollectiveOptions& o) -> const Algorithm& {
      return scatterv(c, s, sc, d, r, n, ty, root, traff_with(o, t));
    };
  }
  return Registry::instance().scatterv(name);
}

std::vector<int> counts_for(int shape, int p) {
  std::vector<int> c(static_cast<std::size_t>(p), 0);
  for (int i = 0; i < p; ++i) {
    int& x = c[static_cast<std::size_t>(i)];
    switch (shape) {
      case 0:
        x = 3;
        break;  // same
      case 1:
        x = (i * 7 + 3) % 10;
        break;  // random-ish, zeros included
      case 2:
        x = 0;
        break;  // all empty
      case 3:
        x = (i == 0 || i == p - 1) ? 5 : 0;
        break;  // two blocks
      case 4:
        x = (i == p / 3) ? 1001 : 1;
        break;  // one spike
      default:
        x = static_cast<int>((static_cast<unsigned>(i) * 2654435761u) % 3000u);
        break;  // large
    }
  }
  return c;
}

const char* shape_name(int shape) {
  static const char* names[] = {"same", "random", "zeros", "two", "spike", "large"};
  return names[shape];
}

// Displacements: 0 rank order back to back; 1 reversed rank order, one element apart;
// 2 even ranks first, then odd ranks. Returns the buffer length in elements.
std::size_t displs_for(int layout, const std::vector<int>& counts, std::vector<int>& displs) {
  const int p = static_cast<int>(counts.size());
  displs.assign(counts.size(), 0);
  std::vector<int> order;
  if (layout == 1) {
    for (int i = p - 1; i >= 0; --i) order.push_back(i);
  } else if (layout == 2) {
    for (int i = 0; i < p; i += 2) order.push_back(i);
    for (int i = 1; i < p; i += 2) order.push_back(i);
  } else {
    for (int i = 0; i < p; ++i) order.push_back(i);
  }
  int at = 0;
  for (int i : order) {
    displs[static_cast<std::size_t>(i)] = at;
    at += counts[static_cast<std::size_t>(i)] + (layout == 1 ? 1 : 0);
  }
  return static_cast<std::size_t>(at) + guard_elements;
}

struct Case {
  int shape;
  int root;
  int layout;
  bool in_place;
  DataType type;
  std::vector<int> counts;
  std::vector<int> displs;
  std::size_t length;  // elements of the root's buffer, gaps and guard included
  Bytes full;          // the root's buffer with every block at its place, sentinels elsewhere
  std::string describe(const std::string& algorithm) const {
    std::ostringstream os;
    os << algorithm << " " << shape_name(shape) << " root " << root << " layout " << layout
       << (in_place ? " in place" : "") << " " << name_of(type);
    return os.str();
  }
};

Bytes block_of(int rank, int count, DataType type) {
  return test::make_buffer(type, static_cast<std::size_t>(count),
                           [rank](std::size_t i) { return test::pattern(rank, i); });
}

std::vector<Case> make_cases(int p) {
  std::vector<Case> out;
  std::vector<int> roots{0, p / 2, p - 1};
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  int n = 0;
  for (int shape = 0; shape < 6; ++shape) {
    for (int root : roots) {
      for (int layout = 0; layout < 3; ++layout) {
        for (bool in_place : {false, true}) {
          Case c{shape, root, layout, in_place, (n++ % 2 == 0) ? DataType::int32 : DataType::float64, {}, {}, 0, {}};
          c.counts = counts_for(shape, p);
          c.length = displs_for(layout, c.counts, c.displs);
          const std::size_t e = size_of(c.type);
          c.full.assign(c.length * e, sentinel);
          for (int i = 0; i < p; ++i) {
            const Bytes b = block_of(i, c.counts[static_cast<std::size_t>(i)], c.type);
            std::copy(b.begin(), b.end(),
                      c.full.begin() + static_cast<std::ptrdiff_t>(
                                           static_cast<std::size_t>(c.displs[static_cast<std::size_t>(i)]) * e));
          }
          out.push_back(std::move(c));
        }
      }
    }
  }
  return out;
}

/// The receive buffer of a gathering rank (gatherv's root, any allgatherv rank): sentinels, with
/// rank `me`'s block `mine` at its place when the case is in place; `send` is what the rank passes
/// as sendbuf (in_place then, else `mine`).
Bytes gathering_buffer(const Case& c, int me, const Bytes& mine, const void*& send) {
  Bytes recv(c.full.size(), sentinel);
  send = mine.data();
  if (c.in_place) {
    const std::size_t at = static_cast<std::size_t>(c.displs[static_cast<std::size_t>(me)]) * size_of(c.type);
    std::copy(mine.begin(), mine.end(), recv.begin() + static_cast<std::ptrdiff_t>(at));
    send = in_place;
  }
  return recv;
}

void expect_bytes(const Bytes& got, const Bytes& want, const std::string& what) {
  if (got == want) return;
  std::size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  throw CheckFailed(what + ": first wrong byte at " + std::to_string(i));
}

using test::simulate;
using test::sweep_options;

using Param = std::tuple<std::string, int>;

std::string param_name(const testing::TestParamInfo<Param>& info) {
  return std::get<0>(info.param) + "_P" + std::to_string(std::get<1>(info.param));
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const std::string& name : algorithm_names()) {
    for (int p : test::sweep_procs()) out.emplace_back(name, p);
  }
  return out;
}

/// One algorithm at one P, and the cases of the sweep at that P.
class IrregularSweep : public testing::TestWithParam<Param> {
 protected:
  const std::string name = std::get<0>(GetParam());
  const int procs = std::get<1>(GetParam());
  const std::vector<Case> cases = make_cases(procs);
};

class Gatherv : public IrregularSweep {};
class Scatterv : public IrregularSweep {};

TEST_P(Gatherv, EveryShapeRootLayoutAndInPlaceLandsEveryBlockAtItsDisplacement) {
  const GatherCall call = gather_call(name);
  simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const CollectiveOptions opts = sweep_options();
    for (const Case& c : cases) {
      const Bytes mine = block_of(me, c.counts[static_cast<std::size_t>(me)], c.type);
      if (me != c.root) {
        call(comm, mine.data(), c.counts[static_cast<std::size_t>(me)], nullptr, {}, {}, c.type, c.root, opts);
        continue;
      }
      const void* send = nullptr;
      Bytes recv = gathering_buffer(c, me, mine, send);
      call(comm, send, c.counts[static_cast<std::size_t>(me)], recv.data(), c.counts, c.displs, c.type, c.root, opts);
      expect_bytes(recv, c.full, c.describe("gatherv " + name));
    }
  });
}

TEST_P(Scatterv, EveryShapeRootLayoutAndInPlaceGivesEveryRankItsBlock) {
  const ScatterCall call = scatter_call(name);
  simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const CollectiveOptions opts = sweep_options();
    for (const Case& c : cases) {
      const int count = c.counts[static_cast<std::size_t>(me)];
      const std::size_t e = size_of(c.type);
      Bytes want = block_of(me, count, c.type);
      want.resize(want.size() + guard_elements * e, sentinel);
      if (me == c.root && c.in_place) {
        call(comm, c.full.data(), c.counts, c.displs, const_cast<void*>(in_place), count, c.type, c.root, opts);
        continue;
      }
      Bytes recv(want.size(), sentinel);
      if (me == c.root) {
        call(comm, c.full.data(), c.counts, c.displs, recv.data(), count, c.type, c.root, opts);
      } else {
        call(comm, nullptr, {}, {}, recv.data(), count, c.type, c.root, opts);
      }
      expect_bytes(recv, want, c.describe("scatterv " + name) + " rank " + std::to_string(me));
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Sweep, Gatherv, testing::ValuesIn(params()), param_name);
INSTANTIATE_TEST_SUITE_P(Sweep, Scatterv, testing::ValuesIn(params()), param_name);

// ---------------------------------------------------------------------- bad input

/// Runs `rank_main` on 6 ranks and returns the argument of the InvalidArgument it raised.
std::string argument_of(const std::function<void(Comm&)>& rank_main) {
  try {
    simulate(6, rank_main);
  } catch (const InvalidArgument& e) {
    return e.argument();
  }
  return "(nothing raised)";
}

CollectiveOptions short_timeout() {
  CollectiveOptions o;
  o.timeout = 1.0;  // ranks left waiting by another's local error give up
  return o;
}

class IrregularBadInput : public testing::TestWithParam<std::string> {};

TEST_P(IrregularBadInput, ArgumentErrorsNameTheArgument) {
  const std::string name = GetParam();
  const GatherCall gather = gather_call(name);
  const ScatterCall scatter = scatter_call(name);
  const std::vector<int> counts(6, 2);
  const std::vector<int> displs{0, 2, 4, 6, 8, 10};
  const Bytes data(12 * 8, std::byte{1});
  Bytes out(12 * 8);
  const auto every_rank = [&](const std::function<void(Comm&, Bytes&)>& body) {
    return [&, body](Comm& comm) {
      Bytes mine(12 * 8);
      body(comm, mine);
    };
  };
  // A root out of range: every rank sees it.
  for (int bad : {-1, 6}) {
    EXPECT_EQ(argument_of(every_rank([&](Comm& c, Bytes& b) {
                gather(c, data.data(), 2, b.data(), counts, displs, DataType::int32, bad, short_timeout());
              })),
              "root");
    EXPECT_EQ(argument_of(every_rank([&](Comm& c, Bytes& b) {
                scatter(c, data.data(), counts, displs, b.data(), 2, DataType::int32, bad, short_timeout());
              })),
              "root");
  }
  // A negative count where it is given.
  EXPECT_EQ(argument_of([&](Comm& c) {
              gather(c, data.data(), c.rank() == 3 ? -1 : 2, out.data(), counts, displs, DataType::int32, 0,
                     short_timeout());
            }),
            "sendcount");
  EXPECT_EQ(argument_of([&](Comm& c) {
              Bytes b(16);
              scatter(c, data.data(), counts, displs, b.data(), c.rank() == 3 ? -4 : 2, DataType::int32, 0,
                      short_timeout());
            }),
            "recvcount");
  std::vector<int> negative = counts;
  negative[4] = -2;
  EXPECT_EQ(argument_of([&](Comm& c) {
              Bytes b(16);
              gather(c, data.data(), 2, b.data(), negative, displs, DataType::int32, 0, short_timeout());
            }),
            "recvcounts");
  EXPECT_EQ(argument_of([&](Comm& c) {
              Bytes b(16);
              scatter(c, data.data(), negative, displs, b.data(), 2, DataType::int32, 0, short_timeout());
            }),
            "sendcounts");
  std::vector<int> bad_displs = displs;
  bad_displs[1] = -8;
  EXPECT_EQ(argument_of([&](Comm& c) {
              Bytes b(16);
              gather(c, data.data(), 2, b.data(), counts, bad_displs, DataType::int32, 0, short_timeout());
            }),
            "displs");
  const std::vector<int> short_counts(5, 2);
  EXPECT_EQ(argument_of([&](Comm& c) {
              Bytes b(16);
              gather(c, data.data(), 2, b.data(), short_counts, displs, DataType::int32, 0, short_timeout());
            }),
            "recvcounts");
  // in_place away from the root.
  EXPECT_EQ(argument_of([&](Comm& c) {
              Bytes b(16 * 8);
              gather(c, c.rank() == 2 ? in_place : data.data(), 2, b.data(), counts, displs, DataType::int32, 0,
                     short_timeout());
            }),
            "sendbuf");
  EXPECT_EQ(argument_of([&](Comm& c) {
              Bytes b(16 * 8);
              scatter(c, data.data(), counts, displs, c.rank() == 2 ? const_cast<void*>(in_place) : b.data(), 2,
                      DataType::int32, 0, short_timeout());
            }),
            "recvbuf");
}

INSTANTIATE_TEST_SUITE_P(All, IrregularBadInput, testing::ValuesIn(test::registered(Collective::gatherv)),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

// ---------------------------------------------------------------------- allgatherv

// Every registered allgatherv algorithm and `auto`, at every P of the sweep, on the cases of
// root 0 (allgatherv has no root): every rank's buffer must equal the root's gatherv buffer.
// `gatherv_bcast` composes a gatherv and a bcast through dispatch: it also runs with a node
// layout of three ranks a node (the last one short), whose bcast `auto` may make hierarchical.
std::vector<Param> allgatherv_params() {
  std::vector<Param> out;
  std::vector<std::string> names = test::registered(Collective::allgatherv);
  names.emplace_back("auto");
  for (const std::string& name : names) {
    for (int p : test::sweep_procs()) out.emplace_back(name, p);
  }
  return out;
}

class Allgatherv : public IrregularSweep {};

TEST_P(Allgatherv, EveryShapeLayoutAndInPlaceLandsEveryBlockAtItsDisplacementOnEveryRank) {
  std::vector<CollectiveOptions> settings{sweep_options()};
  if (name == "gatherv_bcast" && procs >= 4) {
    CollectiveOptions by3 = sweep_options();
    by3.hints.set(std::make_shared<const NodeLayout>(NodeLayout::parse("3", procs)));
    settings.push_back(by3);
  }
  simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    for (CollectiveOptions opts : settings) {
      opts.algorithm = name;
      for (const Case& c : cases) {
        if (c.root != 0) continue;
        const int count = c.counts[static_cast<std::size_t>(me)];
        const Bytes mine = block_of(me, count, c.type);
        const void* send = nullptr;
        Bytes recv = gathering_buffer(c, me, mine, send);
        (void)allgatherv(comm, send, count, recv.data(), c.counts, c.displs, c.type, opts);
        expect_bytes(recv, c.full, c.describe("allgatherv " + name) + " rank " + std::to_string(me));
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Sweep, Allgatherv, testing::ValuesIn(allgatherv_params()), param_name);

TEST(AllgathervBadInput, ArgumentErrorsNameTheArgumentOnTheRankThatGaveIt) {
  const std::vector<int> counts(6, 2);
  const std::vector<int> displs{0, 2, 4, 6, 8, 10};
  const Bytes data(12 * 8, std::byte{1});
  const auto call = [&](Comm& c, int sendcount, std::span<const int> rc, std::span<const int> d) {
    Bytes b(16 * 8);
    (void)allgatherv(c, data.data(), sendcount, b.data(), rc, d, DataType::int32, short_timeout());
  };
  EXPECT_EQ(argument_of([&](Comm& c) { call(c, c.rank() == 3 ? 1 : 2, counts, displs); }), "sendcount");
  EXPECT_EQ(argument_of([&](Comm& c) { call(c, c.rank() == 3 ? -1 : 2, counts, displs); }), "sendcount");
  std::vector<int> negative = counts;
  negative[4] = -2;
  EXPECT_EQ(argument_of([&](Comm& c) { call(c, 2, negative, displs); }), "recvcounts");
  std::vector<int> bad_displs = displs;
  bad_displs[1] = -8;
  EXPECT_EQ(argument_of([&](Comm& c) { call(c, 2, counts, bad_displs); }), "displs");
  const std::vector<int> short_counts(5, 2);
  EXPECT_EQ(argument_of([&](Comm& c) { call(c, 2, short_counts, displs); }), "recvcounts");
  EXPECT_EQ(argument_of([&](Comm& c) {
              (void)allgatherv(c, data.data(), 2, nullptr, counts, displs, DataType::int32, short_timeout());
            }),
            "recvbuf");
  EXPECT_EQ(argument_of([&](Comm& c) {
              Bytes b(16 * 8);
              (void)allgatherv(c, data.data(), 2, const_cast<void*>(in_place), counts, displs, DataType::int32,
                               short_timeout());
            }),
            "recvbuf");
}

// Counts that disagree between the root and one sender: the tree algorithms find it
// (the construction or the size messages tell the root what each subtree really
// sends), finish the communication and raise InvalidArgument at the root only; the
// other ranks return normally. Linear finds a sender that sends less than expected.
class IrregularDisagreement : public testing::TestWithParam<std::string> {};

TEST_P(IrregularDisagreement, TheRootReportsItAfterTheCall) {
  const std::string name = GetParam();
  const GatherCall gather = gather_call(name);
  const ScatterCall scatter = scatter_call(name);
  for (int p : {2, 5, 8}) {
    for (int root : {0, p - 1}) {
      const int liar = root == 0 ? p - 1 : 0;
      std::vector<int> counts(static_cast<std::size_t>(p), 4);
      std::vector<int> displs(static_cast<std::size_t>(p));
      for (int i = 0; i < p; ++i) displs[static_cast<std::size_t>(i)] = 4 * i;
      std::vector<int> finished(static_cast<std::size_t>(p), 0);
      std::string raised = "(nothing raised)";
      try {
        simulate(p, [&](Comm& c) {
          const int me = c.rank();
          const Bytes mine(64, std::byte{7});
          Bytes buf(static_cast<std::size_t>(4 * p) * 4 + 64);
          const int own = me == liar ? 3 : 4;  // the liar's block is one element short
          if (me == root) {
            gather(c, mine.data(), 4, buf.data(), counts, displs, DataType::int32, root, sweep_options());
          } else {
            gather(c, mine.data(), own, buf.data(), counts, displs, DataType::int32, root, sweep_options());
          }
          finished[static_cast<std::size_t>(me)] = 1;
        });
      } catch (const InvalidArgument& e) {
        raised = e.argument();
      }
      EXPECT_EQ(raised, "recvcounts") << name << " gatherv p " << p << " root " << root;
      for (int i = 0; i < p; ++i) {
        if (i != root) EXPECT_EQ(finished[static_cast<std::size_t>(i)], 1) << name << " rank " << i;
      }
      raised = "(nothing raised)";
      try {
        simulate(p, [&](Comm& c) {
          const int me = c.rank();
          const Bytes all(static_cast<std::size_t>(4 * p) * 4, std::byte{7});
          Bytes buf(64);
          const int own = me == liar ? 5 : 4;  // the liar expects one element more
          if (me == root) {
            scatter(c, all.data(), counts, displs, buf.data(), 4, DataType::int32, root, sweep_options());
          } else {
            scatter(c, nullptr, {}, {}, buf.data(), own, DataType::int32, root, sweep_options());
          }
        });
      } catch (const InvalidArgument& e) {
        raised = e.argument();
      }
      if (name == "linear") {
        EXPECT_EQ(raised, "recvcount") << name << " scatterv p " << p << " root " << root;
      } else {
        EXPECT_EQ(raised, "sendcounts") << name << " scatterv p " << p << " root " << root;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Detecting, IrregularDisagreement, testing::Values("traff", "traff_copy", "binomial", "linear"),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace test_irregular_test
}  // namespace ragged
