// Dispatch on the sim backend: a non-commutative operator through every allreduce and reduce
// algorithm forced by RAGGED_ALLREDUCE / RAGGED_REDUCE gives the exact rank-order product;
// a fallback is said once per communicator; arguments are checked once, naming the argument;
// the typed API; `auto` with an arrival snapshot; the broadcast of allgather lnbc and bslb is
// the bcast that dispatch selects.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dispatch/compose.hpp"
#include "ragged/api.hpp"
#include "ragged/arrival.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/selection.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/matrix_op.hpp"
#include "support/scoped_env.hpp"

namespace ragged {
namespace test_dispatch_test {

sim::Config config(int procs) { return sim::Config{.platform = "cluster-1gbe-48", .procs = procs}; }

using test::ScopedEnv;

std::vector<std::string> names_of(Collective c) {
  std::vector<std::string> out;
  for (const Algorithm* a : Registry::instance().list(c, "sim")) out.push_back(a->name);
  return out;
}

TEST(SimDispatch, NonCommutativeAllreduceIsTheRankOrderProductForEveryForcedAlgorithm) {
  const ReduceOp op = test::matrix_product();
  for (const std::string& name : names_of(Collective::allreduce)) {
    const ScopedEnv env("RAGGED_ALLREDUCE", name);
    for (const int procs : {1, 2, 3, 4, 5, 7, 8, 13}) {
      for (const std::size_t matrices : {std::size_t{1}, std::size_t{3}, std::size_t{17}, std::size_t{9000}}) {
        const std::vector<std::int32_t> want = test::rank_order_product(procs, matrices);
        sim::run(config(procs), [&](Comm& comm) {
          const std::vector<std::int32_t> mine = test::matrices_of(comm.rank(), matrices);
          std::vector<std::int32_t> got(mine.size());
          const Algorithm& ran = allreduce(comm, mine.data(), got.data(), got.size(), DataType::int32, op);
          RAGGED_CHECK(!ran.restrictions.commutative_only);
          // the forced one, or one on its chain of fallbacks (hierarchical_arrival -> prr -> reduce_bcast)
          bool on_chain = false;
          for (const Algorithm* a = &Registry::instance().find(Collective::allreduce, name); a != nullptr;
               a = a->restrictions.fallback.empty()
                       ? nullptr
                       : &Registry::instance().find(Collective::allreduce, a->restrictions.fallback)) {
            on_chain = on_chain || a->name == ran.name;
          }
          RAGGED_CHECK(on_chain);
          RAGGED_CHECK(got == want);
          // in place too
          std::vector<std::int32_t> buffer = mine;
          (void)allreduce(comm, in_place, buffer.data(), buffer.size(), DataType::int32, op);
          RAGGED_CHECK(buffer == want);
        });
      }
    }
  }
}

TEST(SimDispatch, NonCommutativeReduceIsTheRankOrderProductAtEveryRoot) {
  const ReduceOp op = test::matrix_product();
  for (const std::string& name : names_of(Collective::reduce)) {
    const ScopedEnv env("RAGGED_REDUCE", name);
    for (const int procs : {1, 2, 3, 5, 8, 13}) {
      for (const std::size_t matrices : {std::size_t{1}, std::size_t{5}, std::size_t{4000}}) {
        const std::vector<std::int32_t> want = test::rank_order_product(procs, matrices);
        for (int root = 0; root < procs; root += std::max(1, procs / 3)) {
          sim::run(config(procs), [&](Comm& comm) {
            const std::vector<std::int32_t> mine = test::matrices_of(comm.rank(), matrices);
            std::vector<std::int32_t> got(mine.size());
            (void)reduce(comm, mine.data(), got.data(), got.size(), DataType::int32, op, root);
            if (comm.rank() == root) RAGGED_CHECK(got == want);
          });
        }
      }
    }
  }
}

TEST(SimDispatch, AFallbackIsSaidOncePerCommunicator) {
  const ReduceOp op = test::matrix_product();
  testing::internal::CaptureStderr();
  sim::run(config(4), [&](Comm& comm) {
    for (int call = 0; call < 3; ++call) {
      const std::vector<std::int32_t> mine = test::matrices_of(comm.rank(), 2);
      std::vector<std::int32_t> got(mine.size());
      CollectiveOptions options;
      options.algorithm = "ring";
      RAGGED_CHECK_EQ(allreduce(comm, mine.data(), got.data(), got.size(), DataType::int32, op, options).name,
                      std::string("reduce_bcast"));
    }
  });
  const std::string said = testing::internal::GetCapturedStderr();
  const std::string line = "allreduce 'ring' needs a commutative operator; running 'reduce_bcast' instead";
  const std::size_t first = said.find(line);
  ASSERT_NE(first, std::string::npos) << said;
  EXPECT_EQ(said.find(line, first + 1), std::string::npos) << "said more than once:\n" << said;
}

std::string argument_of(const std::function<void(Comm&)>& body, int procs = 3) {
  std::string argument;
  try {
    sim::run(config(procs), [&](Comm& comm) {
      try {
        body(comm);
      } catch (const InvalidArgument& e) {
        if (comm.rank() == 0) argument = e.argument();
        throw;
      }
    });
  } catch (const InvalidArgument&) {
  }
  return argument;
}

TEST(SimDispatch, BadArgumentsAreRefusedOnceNamingTheArgument) {
  std::vector<std::int32_t> buf(64);
  EXPECT_EQ(argument_of([&](Comm& c) { (void)allgather(c, buf.data(), nullptr, 4, DataType::int32); }), "recvbuf");
  EXPECT_EQ(argument_of([&](Comm& c) { (void)allgather(c, nullptr, buf.data(), 4, DataType::int32); }), "sendbuf");
  EXPECT_EQ(argument_of([&](Comm& c) { (void)bcast(c, buf.data(), 4, DataType::int32, 3); }), "root");
  EXPECT_EQ(argument_of([&](Comm& c) { (void)bcast(c, buf.data(), 4, DataType::int32, -1); }), "root");
  EXPECT_EQ(argument_of([&](Comm& c) { (void)gather(c, in_place, buf.data(), 4, DataType::int32, 1); }), "sendbuf");
  EXPECT_EQ(argument_of([&](Comm& c) {
              const std::vector<int> counts{1, 1};
              const std::vector<int> displs{0, 1, 2};
              (void)gatherv(c, buf.data(), 1, buf.data(), counts, displs, DataType::int32, 0);
            }),
            "recvcounts");
  EXPECT_EQ(argument_of([&](Comm& c) {
              const std::vector<int> counts{1, -1, 1};
              const std::vector<int> displs{0, 1, 2};
              (void)alltoallv(c, buf.data(), counts, displs, buf.data(), counts, displs, DataType::int32);
            }),
            "recvcounts");
  EXPECT_EQ(argument_of([&](Comm& c) {
              CollectiveOptions o;
              o.algorithm = "no-such";
              (void)allreduce(c, buf.data(), buf.data() + 8, 4, DataType::int32, ReduceOp::sum(), o);
            }),
            "algorithm");
}

TEST(SimDispatch, OneSelectionPerCallThroughTheTypedAndRawEntries) {
  constexpr int procs = 5;
  const std::uint64_t before = selections();
  sim::run(config(procs), [](Comm& comm) {
    const int p = comm.size();
    const int me = comm.rank();
    // The typed API, by name and by `auto` (8 bytes: no composing algorithm).
    std::vector<std::int64_t> in{me * 7 + 3};
    std::vector<std::int64_t> out(1);
    (void)allreduce(comm, std::span<const std::int64_t>(in), std::span<std::int64_t>(out), ReduceOp::sum(),
                    {.algorithm = "ring"});
    RAGGED_CHECK_EQ(out[0], 7 * p * (p - 1) / 2 + 3 * p);
    (void)allreduce(comm, std::span<const std::int64_t>(in), std::span<std::int64_t>(out), ReduceOp::max(),
                    {.algorithm = "auto"});
    RAGGED_CHECK_EQ(out[0], (p - 1) * 7 + 3);
    // The raw (void*) entry, the one the C API and the PMPI library use.
    std::vector<std::int32_t> all(static_cast<std::size_t>(p));
    const std::int32_t mine = me * 11 + 5;
    (void)allgather(comm, &mine, all.data(), 1, DataType::int32, {.algorithm = "bruck"});
    for (int r = 0; r < p; ++r) RAGGED_CHECK_EQ(all[static_cast<std::size_t>(r)], r * 11 + 5);
    // A selection made before the call travels with it: dispatch does not choose again.
    CallInfo info;
    info.collective = Collective::allgather;
    info.procs = p;
    info.bytes = sizeof(std::int32_t);
    info.backend = comm.backend();
    const Selection made = select(info, "ring");
    CollectiveOptions carried;
    carried.selection = &made;
    const Algorithm& ran = allgather(comm, &mine, all.data(), 1, DataType::int32, carried);
    RAGGED_CHECK(ran.name == "ring");
    for (int r = 0; r < p; ++r) RAGGED_CHECK_EQ(all[static_cast<std::size_t>(r)], r * 11 + 5);
  });
  // Four selections per rank: three calls, one made ahead for the fourth call.
  EXPECT_EQ(selections() - before, std::uint64_t{4 * procs});
}

TEST(SimDispatch, AComposedAllreduceMayComposeFurther) {
  // gatherv and scatterv "padded" ask dispatch for their allreduce; whatever RAGGED_ALLREDUCE
  // names runs there, reduce_bcast too, which splits its block of tags in two.
  for (const std::string& name : names_of(Collective::allreduce)) {
    const ScopedEnv env("RAGGED_ALLREDUCE", name);
    for (const int procs : {2, 3, 5}) {
      sim::run(config(procs), [&](Comm& comm) {
        const int p = comm.size();
        const int me = comm.rank();
        std::vector<int> counts(static_cast<std::size_t>(p));
        std::vector<int> displs(static_cast<std::size_t>(p));
        int total = 0;
        for (int r = 0; r < p; ++r) {
          counts[static_cast<std::size_t>(r)] = (r * 5 + 3) % 7;
          displs[static_cast<std::size_t>(r)] = total;
          total += counts[static_cast<std::size_t>(r)];
        }
        std::vector<std::int32_t> mine(static_cast<std::size_t>(counts[static_cast<std::size_t>(me)]));
        for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = me * 1009 + static_cast<std::int32_t>(i) * 31 + 7;
        const int root = p - 1;
        std::vector<std::int32_t> all(static_cast<std::size_t>(total), -1);
        (void)gatherv(comm, mine.data(), static_cast<int>(mine.size()), all.data(), counts, displs, DataType::int32,
                      root, {.algorithm = "padded"});
        if (me == root) {
          for (int r = 0; r < p; ++r) {
            for (int i = 0; i < counts[static_cast<std::size_t>(r)]; ++i) {
              RAGGED_CHECK_EQ(all[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] + i)],
                              r * 1009 + i * 31 + 7);
            }
          }
        }
        std::vector<std::int32_t> back(mine.size(), -1);
        (void)scatterv(comm, all.data(), counts, displs, back.data(), static_cast<int>(back.size()), DataType::int32,
                       root, {.algorithm = "padded"});
        RAGGED_CHECK(back == mine);  // the root's gathered blocks, scattered back
      });
    }
  }
}

TEST(SimDispatch, TypedApiDeducesTheTypeAndChecksSizes) {
  sim::run(config(5), [](Comm& comm) {
    const int p = comm.size();
    std::vector<double> in(3, comm.rank() + 1.0);
    std::vector<double> out(3);
    (void)allreduce(comm, std::span<const double>(in), std::span<double>(out), ReduceOp::sum(), {.algorithm = "auto"});
    RAGGED_CHECK(out == std::vector<double>(3, p * (p + 1) / 2.0));

    std::vector<std::int64_t> all(static_cast<std::size_t>(2 * p));
    const std::vector<std::int64_t> mine{comm.rank(), 10 + comm.rank()};
    (void)allgather(comm, std::span<const std::int64_t>(mine), std::span<std::int64_t>(all), {.algorithm = "ring"});
    for (int r = 0; r < p; ++r) {
      RAGGED_CHECK_EQ(all[static_cast<std::size_t>(2 * r)], r);
      RAGGED_CHECK_EQ(all[static_cast<std::size_t>(2 * r + 1)], 10 + r);
    }
    std::vector<float> block(4, static_cast<float>(comm.rank()));
    (void)bcast(comm, std::span<float>(block), 2);
    RAGGED_CHECK(block == std::vector<float>(4, 2.0f));

    std::vector<std::int32_t> send(static_cast<std::size_t>(p)), recv(static_cast<std::size_t>(p));
    for (int j = 0; j < p; ++j) send[static_cast<std::size_t>(j)] = comm.rank() * 100 + j;
    (void)alltoall(comm, std::span<const std::int32_t>(send), std::span<std::int32_t>(recv));
    for (int i = 0; i < p; ++i) RAGGED_CHECK_EQ(recv[static_cast<std::size_t>(i)], i * 100 + comm.rank());

    bool refused = false;
    try {
      std::vector<double> short_out(2);
      (void)allreduce(comm, std::span<const double>(in), std::span<double>(short_out), ReduceOp::sum());
    } catch (const InvalidArgument& e) {
      refused = e.argument() == "out";
    }
    RAGGED_CHECK(refused);
  });
}

TEST(SimDispatch, EveryAlgorithmOfEveryCollectiveHandlesOneRankAndZeroCounts) {
  for (const Algorithm* a : Registry::instance().all()) {
    if (!a->restrictions.backend.empty()) continue;
    for (const int procs : {1, 3}) {
      sim::run(config(procs), [&](Comm& comm) {
        CollectiveOptions o;
        o.algorithm = a->name;
        std::vector<std::int32_t> send(8, comm.rank() + 1), recv(8, -1);
        const std::vector<int> zeros(static_cast<std::size_t>(procs), 0);
        const std::vector<int> ones(static_cast<std::size_t>(procs), 1);
        std::vector<int> displs(static_cast<std::size_t>(procs));
        for (int i = 0; i < procs; ++i) displs[static_cast<std::size_t>(i)] = i;
        switch (a->collective) {
          case Collective::allgather:
            (void)allgather(comm, send.data(), recv.data(), 0, DataType::int32, o);
            if (procs == 1) {
              (void)allgather(comm, send.data(), recv.data(), 2, DataType::int32, o);
              RAGGED_CHECK_EQ(recv[1], 1);
            }
            break;
          case Collective::allreduce:
            (void)allreduce(comm, send.data(), recv.data(), 0, DataType::int32, ReduceOp::sum(), o);
            break;
          case Collective::bcast:
            (void)bcast(comm, send.data(), 0, DataType::int32, procs - 1, o);
            break;
          case Collective::reduce:
            (void)reduce(comm, send.data(), recv.data(), 0, DataType::int32, ReduceOp::sum(), 0, o);
            break;
          case Collective::gather:
            (void)gather(comm, send.data(), recv.data(), 0, DataType::int32, 0, o);
            break;
          case Collective::scatter:
            (void)scatter(comm, send.data(), recv.data(), 0, DataType::int32, 0, o);
            break;
          case Collective::gatherv:
            (void)gatherv(comm, send.data(), 0, recv.data(), zeros, displs, DataType::int32, 0, o);
            break;
          case Collective::scatterv:
            (void)scatterv(comm, send.data(), zeros, displs, recv.data(), 0, DataType::int32, 0, o);
            break;
          case Collective::alltoall:
            (void)alltoall(comm, send.data(), recv.data(), 0, DataType::int32, o);
            break;
          case Collective::alltoallv:
            (void)alltoallv(comm, send.data(), zeros, displs, recv.data(), zeros, displs, DataType::int32, o);
            if (procs == 1) {
              (void)alltoallv(comm, send.data(), ones, displs, recv.data(), ones, displs, DataType::int32, o);
              RAGGED_CHECK_EQ(recv[0], 1);
            }
            break;
          case Collective::scan:
            (void)scan(comm, send.data(), recv.data(), 0, DataType::int32, ReduceOp::sum(), o);
            if (procs == 1) {
              (void)scan(comm, send.data(), recv.data(), 2, DataType::int32, ReduceOp::sum(), o);
              RAGGED_CHECK_EQ(recv[1], 1);
            }
            break;
          case Collective::exscan:
            (void)exscan(comm, send.data(), recv.data(), 0, DataType::int32, ReduceOp::sum(), o);
            if (procs == 1) {  // rank 0's recvbuf is not written
              (void)exscan(comm, send.data(), recv.data(), 2, DataType::int32, ReduceOp::sum(), o);
              RAGGED_CHECK_EQ(recv[1], -1);
            }
            break;
          case Collective::reduce_scatter_block:
            (void)reduce_scatter_block(comm, send.data(), recv.data(), 0, DataType::int32, ReduceOp::sum(), o);
            if (procs == 1) {
              (void)reduce_scatter_block(comm, send.data(), recv.data(), 2, DataType::int32, ReduceOp::sum(), o);
              RAGGED_CHECK_EQ(recv[1], 1);
            }
            break;
          case Collective::allgatherv:
            (void)allgatherv(comm, send.data(), 0, recv.data(), zeros, displs, DataType::int32, o);
            if (procs == 1) {
              (void)allgatherv(comm, send.data(), 1, recv.data(), ones, displs, DataType::int32, o);
              RAGGED_CHECK_EQ(recv[0], 1);
            }
            break;
          case Collective::reduce_scatter:
            (void)reduce_scatter(comm, send.data(), recv.data(), zeros, DataType::int32, ReduceOp::sum(), o);
            if (procs == 1) {
              (void)reduce_scatter(comm, send.data(), recv.data(), ones, DataType::int32, ReduceOp::sum(), o);
              RAGGED_CHECK_EQ(recv[0], 1);
            }
            break;
          case Collective::alltoallw: {  // displacements in bytes
            const std::vector<DataType> types(static_cast<std::size_t>(procs), DataType::int32);
            std::vector<int> byte_displs(displs);
            for (int& d : byte_displs) d *= 4;
            (void)alltoallw(comm, send.data(), zeros, byte_displs, types, recv.data(), zeros, byte_displs, types, o);
            if (procs == 1) {
              (void)alltoallw(comm, send.data(), ones, byte_displs, types, recv.data(), ones, byte_displs, types, o);
              RAGGED_CHECK_EQ(recv[0], 1);
            }
            break;
          }
        }
      });
    }
  }
}

/// A bcast that counts its calls, then runs "binomial" (simulated ranks share this process and
/// run one at a time).
int counted_bcasts = 0;
void counting_bcast(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  ++counted_bcasts;
  std::get<static_cast<std::size_t>(Collective::bcast)>(Registry::instance().find(Collective::bcast, "binomial").fn)(
      ctx, buffer, count, type, root);
}

/// A bcast that runs "pipelined_chain" but does not say it streams its source: dispatch hands it
/// the whole gathered vector, as before LNBC streamed.
void whole_source_chain(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  std::get<static_cast<std::size_t>(Collective::bcast)>(
      Registry::instance().find(Collective::bcast, "pipelined_chain").fn)(ctx, buffer, count, type, root);
}

/// Runs allgather `name` on `procs` ranks, blocks of `count` int32, and checks every block.
/// Returns the simulated time of the call.
double run_allgather(const std::string& name, int procs, std::size_t count) {
  double elapsed = 0;
  sim::run(config(procs), [&](Comm& comm) {
    CollectiveOptions o;
    o.algorithm = name;
    o.timeout = 600.0;
    std::vector<std::int32_t> mine(count);
    for (std::size_t i = 0; i < count; ++i)
      mine[i] = static_cast<std::int32_t>(comm.rank() * 7 + static_cast<int>(i % 1000));
    std::vector<std::int32_t> all(count * static_cast<std::size_t>(procs), -1);
    const double start = comm.runtime().now();
    (void)allgather(comm, mine.data(), all.data(), count, DataType::int32, o);
    if (comm.rank() == procs - 1) elapsed = comm.runtime().now() - start;
    for (int r = 0; r < procs; ++r) {
      for (std::size_t i = 0; i < count; ++i) {
        RAGGED_CHECK_EQ(all[static_cast<std::size_t>(r) * count + i],
                        static_cast<std::int32_t>(r * 7 + static_cast<int>(i % 1000)));
      }
    }
  });
  return elapsed;
}

TEST(SimDispatch, LnbcAndBslbBroadcastWithTheBcastThatDispatchSelects) {
  // Without a setting: `auto`, which takes binomial, scatter_allgather, pipelined_chain or
  // double_tree by size (and for lnbc by what streams its filling source).
  for (const std::string name : {"lnbc", "bslb"}) {
    for (const int procs : {2, 5, 7}) {
      for (const std::size_t count : {std::size_t{8}, std::size_t{5000}, std::size_t{200003}}) {
        run_allgather(name, procs, count);
      }
    }
  }
  // RAGGED_BCAST reaches their broadcast: one call per rank and allgather.
  Registry& registry = Registry::instance();
  if (!registry.contains(Collective::bcast, "test_counting")) {
    registry.add(
        make_algorithm<Collective::bcast>("test_counting", "binomial, counting its calls", {}, &counting_bcast));
  }
  const ScopedEnv env("RAGGED_BCAST", "test_counting");
  for (const std::string name : {"lnbc", "bslb"}) {
    counted_bcasts = 0;
    run_allgather(name, 5, 1000);
    EXPECT_EQ(counted_bcasts, 5) << name;
  }
}

TEST(SimDispatch, LnbcUnderAutoChoosesOneBroadcastOnEveryRankAcrossTheCrossovers) {
  // The root's broadcast source fills while the others' does not: `auto` must still choose the
  // same broadcast everywhere (a chain at the root and a double tree elsewhere deadlocks), from
  // one segment to hundreds, on both sides of every crossover of the bcast models.
  for (const int procs : {3, 4, 8, 16}) {
    for (std::size_t vector = 1024; vector <= (std::size_t{8} << 20); vector *= 4) {
      const std::size_t count = std::max<std::size_t>(1, vector / 4 / static_cast<std::size_t>(procs));
      SCOPED_TRACE("P=" + std::to_string(procs) + " count=" + std::to_string(count));
      run_allgather("lnbc", procs, count);
    }
  }
}

/// The root of held_blocks_allgather's broadcast.
int held_blocks_root = 0;

/// An allgather in name only: the root (held_blocks_root) holds the whole vector as pattern A,
/// every other rank its own block as pattern B (its sendbuf: the block the root holds for it
/// differs), and the broadcast dispatch selects runs from the root with a HeldBlocks hint of one
/// block.
void held_blocks_allgather(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  const std::size_t procs = static_cast<std::size_t>(ctx.size());
  auto* all = static_cast<std::int32_t*>(recvbuf);
  if (ctx.rank() == held_blocks_root) {
    for (std::size_t i = 0; i < procs * count; ++i) all[i] = static_cast<std::int32_t>(i);  // pattern A
  }
  Hints hints = ctx.hints();
  hints.set(std::make_shared<const internal::HeldBlocks>(internal::HeldBlocks{count * size_of(type)}));
  (void)internal::dispatch_bcast(ctx.sub(32, 32).with_hints(hints), recvbuf, procs * count, type, held_blocks_root);
}

TEST(SimDispatch, AStreamingBroadcastSendsNoRankTheBlockItHolds) {
  // Under a HeldBlocks hint the chain and the double tree leave a rank's own block alone (it
  // keeps pattern B, which rank 0 never had) and deliver every other byte; a bcast that does
  // not stream (binomial) sends everything, so the block comes back as rank 0's. (A real
  // holder has the same bytes as rank 0; the patterns differ here only to see who sent what.)
  Registry& registry = Registry::instance();
  if (!registry.contains(Collective::allgather, "test_held_blocks")) {
    registry.add(make_algorithm<Collective::allgather>("test_held_blocks", "a bcast under HeldBlocks", {},
                                                       &held_blocks_allgather));
  }
  for (const std::string bcast : {"pipelined_chain", "double_tree", "binomial"}) {
    const ScopedEnv env("RAGGED_BCAST", bcast);
    for (const int procs : {2, 3, 4, 7, 12}) {
      for (const std::size_t count : {std::size_t{1}, std::size_t{333}, std::size_t{70001}}) {
        for (const int root : {0, procs / 2, procs - 1}) {
          held_blocks_root = root;
          SCOPED_TRACE(bcast + " P=" + std::to_string(procs) + " count=" + std::to_string(count) +
                       " root=" + std::to_string(root));
          sim::run(config(procs), [&](Comm& comm) {
            CollectiveOptions o;
            o.algorithm = "test_held_blocks";
            o.timeout = 600.0;
            const auto rank = static_cast<std::size_t>(comm.rank());
            std::vector<std::int32_t> mine(count);
            for (std::size_t i = 0; i < count; ++i) mine[i] = -1 - static_cast<std::int32_t>(i);  // pattern B
            std::vector<std::int32_t> all(count * static_cast<std::size_t>(procs), 0);
            (void)allgather(comm, mine.data(), all.data(), count, DataType::int32, o);
            for (std::size_t i = 0; i < all.size(); ++i) {
              const std::size_t block = i / count;
              const auto a = static_cast<std::int32_t>(i);
              const std::int32_t b = mine[i % count];
              if (block == static_cast<std::size_t>(root)) {
                RAGGED_CHECK_EQ(all[i], a);  // the root's block: only the root holds it
              } else if (block == rank) {
                // never sent to its holder (the root keeps pattern A throughout)
                RAGGED_CHECK_EQ(all[i], bcast == "binomial" || rank == static_cast<std::size_t>(root) ? a : b);
              } else if (rank == static_cast<std::size_t>(root)) {
                RAGGED_CHECK_EQ(all[i], a);  // the root only sends
              } else {
                // Another rank's block: HeldBlocks says its holder has the true bytes, so the
                // streaming ones may pass on the holder's (pattern B) instead of the root's.
                RAGGED_CHECK(all[i] == a || (bcast != "binomial" && all[i] == b));
              }
            }
          });
        }
      }
    }
  }
  held_blocks_root = 0;
}

/// What rank 0's filling source was asked, in order: ranges waited for and ranges named unsent.
struct SourceCall {
  bool unsent = false;
  std::size_t begin = 0;
  std::size_t end = 0;
};
std::vector<SourceCall> source_calls;
/// What rank 0's filling source was told to expect (SourceProgress::plan), in order.
std::vector<std::pair<std::size_t, std::size_t>> source_plan;

/// held_blocks_allgather with a SourceProgress that records what the broadcast asks of it (rank
/// 0 already holds every byte, so each wait returns at once).
void recorded_source_allgather(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  const std::size_t procs = static_cast<std::size_t>(ctx.size());
  auto* all = static_cast<std::int32_t*>(recvbuf);
  if (ctx.rank() == 0) {
    for (std::size_t i = 0; i < procs * count; ++i) all[i] = static_cast<std::int32_t>(i);
  }
  const bool root = ctx.rank() == 0;
  Hints hints = ctx.hints();
  hints.set(std::make_shared<const internal::HeldBlocks>(internal::HeldBlocks{count * size_of(type)}));
  hints.set(std::make_shared<const internal::SourceProgress>(
      internal::SourceProgress{[root](std::size_t begin, std::size_t end) {
                                 if (root) source_calls.push_back({false, begin, end});
                               },
                               [root](std::size_t begin, std::size_t end) {
                                 if (root) source_calls.push_back({true, begin, end});
                               },
                               [root](const std::vector<std::pair<std::size_t, std::size_t>>& ranges) {
                                 if (root) source_plan.insert(source_plan.end(), ranges.begin(), ranges.end());
                               }}));
  (void)internal::dispatch_bcast(ctx.sub(32, 32).with_hints(hints), recvbuf, procs * count, type, 0);
}

TEST(SimDispatch, AStreamingBroadcastAsksItsSourceForWhatItSendsInTheOrderItSendsIt) {
  // What lnbc's paced gather relies on. The chain under HeldBlocks first tells the source its
  // order (plan): the blocks 0, P - 1, P - 2, ..., 2, owner first; then names its successor's
  // block 1 unsent, then waits for exactly those blocks in that order, one whole block each. The
  // double tree waits front to back and names nothing (both its subtrees' roots need the
  // others' bytes).
  Registry& registry = Registry::instance();
  if (!registry.contains(Collective::allgather, "test_recorded_source")) {
    registry.add(make_algorithm<Collective::allgather>("test_recorded_source", "a bcast with a recorded source", {},
                                                       &recorded_source_allgather));
  }
  for (const std::string bcast : {"pipelined_chain", "double_tree"}) {
    const ScopedEnv env("RAGGED_BCAST", bcast);
    for (const int procs : {3, 4, 8}) {
      for (const std::size_t count : {std::size_t{1000}, std::size_t{70001}}) {
        SCOPED_TRACE(bcast + " P=" + std::to_string(procs) + " count=" + std::to_string(count));
        source_calls.clear();
        source_plan.clear();
        sim::run(config(procs), [&](Comm& comm) {
          CollectiveOptions o;
          o.algorithm = "test_recorded_source";
          o.timeout = 600.0;
          std::vector<std::int32_t> mine(count, 0);
          std::vector<std::int32_t> all(count * static_cast<std::size_t>(procs), 0);
          (void)allgather(comm, mine.data(), all.data(), count, DataType::int32, o);
        });
        const std::size_t block = count * sizeof(std::int32_t);
        const std::size_t total = block * static_cast<std::size_t>(procs);
        ASSERT_FALSE(source_calls.empty());
        if (bcast == "pipelined_chain") {
          std::vector<std::pair<std::size_t, std::size_t>> owner_first{{0, block}};
          for (int u = procs - 1; u >= 2; --u) {
            owner_first.emplace_back(static_cast<std::size_t>(u) * block, static_cast<std::size_t>(u + 1) * block);
          }
          EXPECT_EQ(source_plan, owner_first);
          ASSERT_EQ(source_calls.size(), owner_first.size() + 1);
          EXPECT_TRUE(source_calls[0].unsent);
          EXPECT_EQ(source_calls[0].begin, block);
          EXPECT_EQ(source_calls[0].end, 2 * block);
          for (std::size_t i = 0; i < owner_first.size(); ++i) {
            const SourceCall& c = source_calls[i + 1];
            EXPECT_FALSE(c.unsent) << i;
            EXPECT_EQ(c.begin, owner_first[i].first) << i;
            EXPECT_EQ(c.end, owner_first[i].second) << i;
          }
          continue;
        }
        EXPECT_TRUE(source_plan.empty());
        std::size_t next = 0;
        for (std::size_t i = 0; i < source_calls.size(); ++i) {
          const SourceCall& c = source_calls[i];
          ASSERT_LT(c.begin, c.end) << i;
          ASSERT_LE(c.end, total) << i;
          ASSERT_FALSE(c.unsent) << i;
          EXPECT_GE(c.begin, next) << i;  // front to back
          next = c.begin;
        }
      }
    }
  }
}

/// When each rank's OwnBlockSend was first started (simulated seconds), by rank; -1: never.
std::vector<double> own_block_started;

/// held_blocks_allgather from rank 0 with an OwnBlockSend hint that records when the broadcast
/// starts each rank's send (and sends nothing: the root already holds every block).
void own_block_allgather(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  const std::size_t procs = static_cast<std::size_t>(ctx.size());
  auto* all = static_cast<std::int32_t*>(recvbuf);
  if (ctx.rank() == 0) {
    for (std::size_t i = 0; i < procs * count; ++i) all[i] = static_cast<std::int32_t>(i);
  }
  Hints hints = ctx.hints();
  hints.set(std::make_shared<const internal::HeldBlocks>(internal::HeldBlocks{count * size_of(type)}));
  if (ctx.rank() != 0) {
    const auto rank = static_cast<std::size_t>(ctx.rank());
    Runtime& runtime = ctx.comm().runtime();
    const auto start = [rank, &runtime] {
      if (own_block_started[rank] < 0) own_block_started[rank] = runtime.now();
    };
    hints.set(std::make_shared<const internal::OwnBlockSend>(internal::OwnBlockSend{start, start}));
  }
  (void)internal::dispatch_bcast(ctx.sub(32, 32).with_hints(hints), recvbuf, procs * count, type, 0);
}

TEST(SimDispatch, TheOwnerFirstChainSendsEachBlockToTheRootWhenTheRootNeedsIt) {
  // The root sends blocks P - 1, P - 2, ..., 2 after its own: the owner-first chain starts rank
  // P - 1's send at once and rank v's one block time after rank v + 1's, before its send
  // P - 1 - v. The double tree and any bcast that does not stream start them all at once.
  Registry& registry = Registry::instance();
  if (!registry.contains(Collective::allgather, "test_own_block")) {
    registry.add(make_algorithm<Collective::allgather>("test_own_block", "a bcast with a recorded OwnBlockSend", {},
                                                       &own_block_allgather));
  }
  for (const std::string bcast : {"pipelined_chain", "double_tree", "binomial"}) {
    const ScopedEnv env("RAGGED_BCAST", bcast);
    for (const int procs : {3, 5, 8}) {
      const std::size_t count = 16384;  // int32: 64 KiB blocks, about 0.6 ms each
      SCOPED_TRACE(bcast + " P=" + std::to_string(procs));
      own_block_started.assign(static_cast<std::size_t>(procs), -1.0);
      double begin = 0;
      sim::run(config(procs), [&](Comm& comm) {
        CollectiveOptions o;
        o.algorithm = "test_own_block";
        o.timeout = 600.0;
        std::vector<std::int32_t> mine(count, 0);
        std::vector<std::int32_t> all(count * static_cast<std::size_t>(procs), 0);
        if (comm.rank() == 0) begin = comm.runtime().now();
        (void)allgather(comm, mine.data(), all.data(), count, DataType::int32, o);
      });
      const double block = 50e-6 + 65536 / 119.5e6;
      EXPECT_LT(own_block_started[0], 0.0);  // the root sends nothing of its own
      for (int v = 1; v < procs; ++v) {
        const double at = own_block_started[static_cast<std::size_t>(v)] - begin;
        ASSERT_GE(at, 0.0) << "rank " << v << " never started its send";
        if (bcast != "pipelined_chain") {
          EXPECT_LT(at, 0.1 * block) << v;
        } else if (v == procs - 1) {
          EXPECT_LT(at, 0.1 * block) << v;
        } else {
          // one block time after rank v + 1: P - 1 - v sends of one block each
          EXPECT_NEAR(at, (procs - 1 - v) * block, 0.5 * block) << v;
          EXPECT_GT(at, own_block_started[static_cast<std::size_t>(v + 1)] - begin + 0.5 * block) << v;
        }
      }
    }
  }
}

TEST(SimDispatch, LnbcIsExactWithEveryRegisteredBroadcast) {
  // LNBC paces its gather and the broadcast streams it (pipelined_chain, double_tree) or waits for all of it
  // (every other bcast): exact either way, for P up to 13, blocks that do not divide into the
  // chain's segments, and one-element blocks.
  int broadcasts = 0;
  for (const Algorithm* bcast : Registry::instance().list(Collective::bcast, "sim")) {
    if (bcast->name.rfind("test_", 0) == 0) continue;
    ++broadcasts;
    const ScopedEnv env("RAGGED_BCAST", bcast->name);
    for (const int procs : {2, 3, 4, 8, 13}) {
      for (const std::size_t count : {std::size_t{1}, std::size_t{777}, std::size_t{40001}}) {
        SCOPED_TRACE(bcast->name + " P=" + std::to_string(procs) + " count=" + std::to_string(count));
        run_allgather("lnbc", procs, count);
      }
    }
  }
  EXPECT_GE(broadcasts, 6);  // binomial, linear, binomial_blocking, scatter_allgather, pipelined_chain,
                             // double_tree
}

TEST(SimDispatch, LnbcStreamsTheGatherIntoAStreamingBroadcast) {
  // On the simulated cluster (transfers start at their receive, as MPI's rendezvous) rank 0
  // holds block j-1 well before block P-1, and the chain sends it on at once: the allgather ends
  // earlier than when the same chain waits for the whole vector. P = 8, 1 MiB gathered.
  Registry& registry = Registry::instance();
  if (!registry.contains(Collective::bcast, "test_whole_source_chain")) {
    registry.add(make_algorithm<Collective::bcast>("test_whole_source_chain", "pipelined_chain, not streaming", {},
                                                   &whole_source_chain));
  }
  const std::size_t count = 32768;  // int32: 128 KiB per block
  double streamed = 0;
  double whole = 0;
  {
    const ScopedEnv env("RAGGED_BCAST", "pipelined_chain");
    streamed = run_allgather("lnbc", 8, count);
  }
  {
    const ScopedEnv env("RAGGED_BCAST", "test_whole_source_chain");
    whole = run_allgather("lnbc", 8, count);
  }
  // The gather alone takes 7 blocks' time (7.3 ms at 1 Gbit/s) and the gather and then the chain
  // 20.2 ms; streamed, owner first, with each rank pausing for its gather send, 8 blocks' time
  // for every rank but 0 (ragged-bench pap --procs 8 --size 256Ki: 9.03 ms, the ring 8.03).
  EXPECT_LT(streamed, 0.85 * whole) << "streamed " << streamed << " s, whole " << whole << " s";
}

}  // namespace test_dispatch_test
}  // namespace ragged
