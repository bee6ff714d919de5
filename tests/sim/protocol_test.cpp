// The MPI protocol costs a simulated platform may declare (docs/backends/sim.md, "Protocol"):
// below ragged/eager_limit a send's bytes travel from its post on, whether or not the receive
// is there; from it on a transfer starts a handshake after its match; the first transfer
// between two ranks starts a connection's set-up later (each a constant plus round trips of
// the route). Exact times on a platform whose every figure is distinct, exact data, MPI's
// non-overtaking order, and every registered allgather, alltoall and allreduce exact across the
// limit.
// With ragged/pair_fifo a pair's transfers move one after the other, and an eager send is
// complete once its transfer starts. With ragged/exchange_factor a rendezvous transfer pays
// (1 / factor - 1) times the time the other direction of its pair carried one too.
//
// In the SimBackend suite so that the sanitizer tier runs these paths too. One process
// simulates one platform (ctest runs each test alone); a test whose platform another test of
// this process loaded first skips.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/registered.hpp"
#include "support/sim_platform.hpp"

namespace ragged {
namespace test_protocol_test {

constexpr double tick = 2e-9;                            // now() counts whole nanoseconds
constexpr double latency = 10e-6;                        // two host links of 5 us
constexpr double per_byte = 1e-9;                        // 1 GB/s
constexpr std::size_t eager = 1000;                      // ragged/eager_limit
constexpr double rendezvous = 100e-6 + 1 * 2 * latency;  // ragged/rendezvous_delay + one round trip
constexpr double connect = 1e-3 + 1.5 * 2 * latency;     // ragged/connect_delay + 1.5 round trips

/// The platform of these figures, written once per process; with `fifo`, ragged/pair_fifo too,
/// with `exchange` ragged/exchange_factor 0.5 too.
std::string write_protocol_platform(const std::string& stem, bool fifo, bool exchange = false) {
  std::vector<std::pair<std::string, std::string>> props{{"eager_limit", "1000"},
                                                         {"rendezvous_delay", "100us"},
                                                         {"rendezvous_round_trips", "1"},
                                                         {"connect_delay", "1ms"},
                                                         {"connect_round_trips", "1.5"}};
  if (fifo) props.emplace_back("pair_fifo", "1");
  if (exchange) props.emplace_back("exchange_factor", "0.5");
  return test::cluster_platform(
      stem, props, R"(prefix="node-" suffix="" bw="1GBps" lat="5us" loopback_bw="1GBps" loopback_lat="1us")");
}

std::string protocol_platform() {
  static const std::string path = write_protocol_platform("ragged-protocol", false);
  return path;
}

/// The same platform with ragged/pair_fifo.
std::string fifo_platform() {
  static const std::string path = write_protocol_platform("ragged-protocol-fifo", true);
  return path;
}

/// The pair FIFO platform with ragged/exchange_factor 0.5.
std::string exchange_platform() {
  static const std::string path = write_protocol_platform("ragged-protocol-exchange", true, true);
  return path;
}

sim::Config on(int procs, const std::string& platform = protocol_platform()) {
  sim::Config c;
  c.platform = platform;
  c.procs = procs;
  return c;
}

std::vector<std::byte> pattern(std::size_t n, int salt) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 31 + static_cast<std::size_t>(salt)) % 251);
  return v;
}

TEST(SimBackend, ProtocolEagerSendTravelsBeforeTheReceiveIsPosted) {
  REQUIRE_PLATFORM(protocol_platform());
  double sent = -1;
  double received = -1;
  sim::run(on(2), [&](Comm& comm) {
    const std::vector<std::byte> data = pattern(100, 1);
    if (comm.rank() == 0) {
      std::vector<std::byte> buffer = data;
      comm.send(1, 0, buffer.data(), buffer.size());
      std::memset(buffer.data(), 0, buffer.size());  // the caller's buffer is its own again
      sent = comm.runtime().now();
    } else {
      comm.runtime().sleep_for(5e-3);
      std::vector<std::byte> in(100);
      comm.recv(0, 0, in.data(), in.size());
      received = comm.runtime().now();
      RAGGED_CHECK(in == data);
    }
  });
  // The pair's first transfer: connect, then the wire; the receive finds the bytes there.
  EXPECT_NEAR(sent, connect + latency + 100 * per_byte, tick);
  EXPECT_NEAR(received, 5e-3, tick);
}

TEST(SimBackend, ProtocolRendezvousStartsAfterTheMatchAndTheHandshake) {
  REQUIRE_PLATFORM(protocol_platform());
  double sent = -1;
  double received = -1;
  double first = -1;
  double second = -1;
  sim::run(on(2), [&](Comm& comm) {
    const std::vector<std::byte> data = pattern(2000, 2);
    std::byte token{};
    if (comm.rank() == 0) {
      comm.send(1, 1, &token, 0);  // connects the pair
      first = comm.runtime().now();
      comm.send(1, 1, &token, 0);  // no connect delay the second time
      second = comm.runtime().now();
      comm.send(1, 0, data.data(), data.size());
      sent = comm.runtime().now();
    } else {
      comm.recv(0, 1, &token, 0);
      comm.recv(0, 1, &token, 0);
      comm.runtime().sleep_for(3e-3);
      const double posted = comm.runtime().now();
      std::vector<std::byte> in(2000);
      comm.recv(0, 0, in.data(), in.size());
      received = comm.runtime().now() - posted;
      RAGGED_CHECK(in == data);
    }
  });
  EXPECT_NEAR(first, connect + latency, tick);
  EXPECT_NEAR(second - first, latency, tick);
  EXPECT_NEAR(received, rendezvous + latency + 2000 * per_byte, tick);
  EXPECT_NEAR(sent, second + 3e-3 + rendezvous + latency + 2000 * per_byte, 3e-8);
}

TEST(SimBackend, ProtocolKeepsMpisOrderAcrossTheEagerLimit) {
  REQUIRE_PLATFORM(protocol_platform());
  sim::run(on(2), [&](Comm& comm) {
    const std::vector<std::size_t> sizes{100, 5000, 10, 1000, 999, 0, 3};
    if (comm.rank() == 0) {
      std::vector<std::vector<std::byte>> out;
      std::vector<Request> sends;
      for (std::size_t k = 0; k < sizes.size(); ++k) out.push_back(pattern(sizes[k], static_cast<int>(k)));
      for (std::size_t k = 0; k < sizes.size(); ++k) sends.push_back(comm.isend(1, 7, out[k].data(), sizes[k]));
      comm.wait_all(sends);
    } else {
      comm.runtime().sleep_for(1e-3);  // every eager message is in flight or there
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        std::vector<std::byte> in(5000);
        const Status s = comm.recv(0, 7, in.data(), in.size());
        RAGGED_CHECK_EQ(s.bytes, sizes[k]);
        in.resize(sizes[k]);
        RAGGED_CHECK(in == pattern(sizes[k], static_cast<int>(k)));
      }
    }
  });
}

/// Every registered allgather, alltoall and allreduce on `platform`, exact on integer data.
void every_allgather_alltoall_and_allreduce_exact(const std::string& platform) {
  constexpr int procs = 5;
  for (const std::string& name : test::registered(Collective::allgather)) {
    for (std::size_t count : {std::size_t{1}, std::size_t{100}, std::size_t{300}}) {  // 4, 400, 1200 bytes
      SCOPED_TRACE("allgather " + name + " count " + std::to_string(count));
      sim::run(on(procs, platform), [&](Comm& comm) {
        std::vector<std::int32_t> mine(count);
        for (std::size_t i = 0; i < count; ++i) mine[i] = comm.rank() * 100000 + static_cast<std::int32_t>(i);
        std::vector<std::int32_t> all(count * procs, -1);
        CollectiveOptions o;
        o.algorithm = name;
        allgather(comm, mine.data(), all.data(), count, DataType::int32, o);
        for (int r = 0; r < procs; ++r) {
          for (std::size_t i = 0; i < count; ++i) {
            RAGGED_CHECK_EQ(all[static_cast<std::size_t>(r) * count + i], r * 100000 + static_cast<std::int32_t>(i));
          }
        }
      });
    }
  }
  for (const std::string& name : test::registered(Collective::alltoall)) {
    for (std::size_t count : {std::size_t{1}, std::size_t{300}}) {
      SCOPED_TRACE("alltoall " + name + " count " + std::to_string(count));
      sim::run(on(procs, platform), [&](Comm& comm) {
        const int me = comm.rank();
        std::vector<std::int32_t> out(count * procs);
        for (int j = 0; j < procs; ++j) {
          for (std::size_t i = 0; i < count; ++i) out[static_cast<std::size_t>(j) * count + i] = me * 1000 + j;
        }
        std::vector<std::int32_t> in(count * procs, -1);
        CollectiveOptions o;
        o.algorithm = name;
        alltoall(comm, out.data(), in.data(), count, DataType::int32, o);
        for (int j = 0; j < procs; ++j) {
          for (std::size_t i = 0; i < count; ++i)
            RAGGED_CHECK_EQ(in[static_cast<std::size_t>(j) * count + i], j * 1000 + me);
        }
      });
    }
  }
  for (const std::string& name : test::registered(Collective::allreduce)) {
    for (std::size_t count : {std::size_t{1}, std::size_t{5}, std::size_t{1000}}) {  // 4, 20, 4000 bytes
      SCOPED_TRACE("allreduce " + name + " count " + std::to_string(count));
      sim::run(on(procs, platform), [&](Comm& comm) {
        std::vector<std::int32_t> mine(count);
        for (std::size_t i = 0; i < count; ++i) mine[i] = (comm.rank() + 1) * 1000 + static_cast<std::int32_t>(i);
        std::vector<std::int32_t> sum(count, -1);
        CollectiveOptions o;
        o.algorithm = name;
        allreduce(comm, mine.data(), sum.data(), count, DataType::int32, ReduceOp::sum(), o);
        for (std::size_t i = 0; i < count; ++i) {
          RAGGED_CHECK_EQ(sum[i], 15 * 1000 + procs * static_cast<std::int32_t>(i));  // ranks 1..5: 15
        }
      });
    }
  }
}

TEST(SimBackend, ProtocolEveryAllgatherAndAlltoallStaysExact) {
  REQUIRE_PLATFORM(protocol_platform());
  every_allgather_alltoall_and_allreduce_exact(protocol_platform());
}

TEST(SimBackend, ProtocolPairFifoMovesAPairsTransfersOneAfterTheOther) {
  REQUIRE_PLATFORM(fifo_platform());
  double connected = -1;
  double posted = -1;
  double sends_done = -1;
  double first = -1;
  double second = -1;
  double other = -1;
  sim::run(on(3, fifo_platform()), [&](Comm& comm) {
    const std::vector<std::byte> a = pattern(900, 3);
    const std::vector<std::byte> b = pattern(800, 4);
    std::byte token{};
    if (comm.rank() == 0) {
      comm.send(1, 1, &token, 0);  // connects the pair; complete once it is on the connection
      connected = comm.runtime().now();
      comm.send(2, 1, &token, 0);
      posted = comm.runtime().now();
      std::vector<Request> sends;
      sends.push_back(comm.isend(1, 0, a.data(), a.size()));
      sends.push_back(comm.isend(1, 0, b.data(), b.size()));
      sends.push_back(comm.isend(2, 0, b.data(), b.size()));  // another pair: beside them
      comm.wait_all(sends);
      sends_done = comm.runtime().now();
    } else if (comm.rank() == 1) {
      comm.recv(0, 1, &token, 0);
      std::vector<std::byte> in_a(900);
      std::vector<std::byte> in_b(800);
      Request ra = comm.irecv(0, 0, in_a.data(), in_a.size());
      Request rb = comm.irecv(0, 0, in_b.data(), in_b.size());
      ra.wait();
      first = comm.runtime().now();
      rb.wait();
      second = comm.runtime().now();
      RAGGED_CHECK(in_a == a);
      RAGGED_CHECK(in_b == b);
    } else {
      comm.recv(0, 1, &token, 0);
      std::vector<std::byte> in(800);
      comm.recv(0, 0, in.data(), in.size());
      other = comm.runtime().now();
      RAGGED_CHECK(in == b);
    }
  });
  // An eager send is complete when its transfer starts: after the connection's set-up.
  EXPECT_NEAR(connected, connect, tick);
  EXPECT_NEAR(posted, 2 * connect, tick);
  // The pair 0 -> 1 was connected and idle: a's transfer starts at once, b's when a's is done.
  EXPECT_NEAR(first, posted + latency + 900 * per_byte, tick);
  EXPECT_NEAR(second, first + latency + 800 * per_byte, tick);
  // 0 -> 2 ran beside them, behind its token, which was still on its way when b was posted.
  EXPECT_NEAR(other, posted + latency + latency + 800 * per_byte, tick);
  // b is complete at the sender once it started (when a arrived).
  EXPECT_NEAR(sends_done, first, tick);
}

TEST(SimBackend, ProtocolPairFifoLetsAnEagerMessagePassAnUnmatchedRendezvous) {
  REQUIRE_PLATFORM(fifo_platform());
  sim::run(on(2, fifo_platform()), [&](Comm& comm) {
    const std::vector<std::byte> big = pattern(5000, 5);
    const std::vector<std::byte> small = pattern(10, 6);
    if (comm.rank() == 0) {
      Request r_big = comm.isend(1, 1, big.data(), big.size());  // rendezvous: waits for its receive
      comm.send(1, 2, small.data(), small.size());               // eager: on its way at once
      r_big.wait();
    } else {
      std::vector<std::byte> in_small(10);
      comm.recv(0, 2, in_small.data(), in_small.size());  // would deadlock if the big one held the pair
      RAGGED_CHECK(in_small == small);
      std::vector<std::byte> in_big(5000);
      comm.recv(0, 1, in_big.data(), in_big.size());
      RAGGED_CHECK(in_big == big);
    }
  });
}

TEST(SimBackend, ProtocolPairFifoKeepsEveryAllgatherAlltoallAndAllreduceExact) {
  REQUIRE_PLATFORM(fifo_platform());
  every_allgather_alltoall_and_allreduce_exact(fifo_platform());
}

TEST(SimBackend, ProtocolExchangeFactorSlowsARendezvousWhileTheOtherDirectionCarriesOne) {
  REQUIRE_PLATFORM(exchange_platform());
  double exchange = -1;        // 0 <-> 1, 2000 bytes each way, both at once
  double one_way = -1;         // 0 -> 2, 2000 bytes, nothing the other way
  double eager_exchange = -1;  // 0 <-> 1, 500 bytes each way: eager, no cost
  double long_one = -1;        // 0 -> 1, 4000 bytes, beside 1 -> 0's 2000
  double short_one = -1;       // 1 -> 0, 2000 bytes
  const auto at = [](Comm& comm, double t) { comm.runtime().sleep_for(t - comm.runtime().now()); };
  sim::run(on(3, exchange_platform()), [&](Comm& comm) {
    const int me = comm.rank();
    std::byte token{};
    // Connect every pair first: 0-1, 0-2.
    if (me == 0) {
      comm.send(1, 1, &token, 0);
      comm.send(2, 1, &token, 0);
    } else {
      comm.recv(0, 1, &token, 0);
    }
    const std::vector<std::byte> mine = pattern(4000, me);
    std::vector<std::byte> in(4000);
    const auto expect_from = [&](int from, std::size_t n) {
      const std::vector<std::byte> sent = pattern(4000, from);
      RAGGED_CHECK(std::equal(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n), sent.begin()));
    };
    at(comm, 10e-3);
    if (me < 2) {
      comm.sendrecv(1 - me, 0, mine.data(), 2000, 1 - me, 0, in.data(), 2000);
      expect_from(1 - me, 2000);
      if (me == 0) exchange = comm.runtime().now() - 10e-3;
    }
    at(comm, 20e-3);
    if (me == 0) comm.send(2, 0, mine.data(), 2000);
    if (me == 2) {
      comm.recv(0, 0, in.data(), 2000);
      expect_from(0, 2000);
      one_way = comm.runtime().now() - 20e-3;
    }
    at(comm, 30e-3);
    if (me < 2) {
      comm.sendrecv(1 - me, 0, mine.data(), 500, 1 - me, 0, in.data(), 500);
      expect_from(1 - me, 500);
      if (me == 0) eager_exchange = comm.runtime().now() - 30e-3;
    }
    at(comm, 40e-3);
    if (me < 2) {
      const std::size_t out = me == 0 ? 4000 : 2000;
      const std::size_t back = me == 0 ? 2000 : 4000;
      comm.sendrecv(1 - me, 0, mine.data(), out, 1 - me, 0, in.data(), back);
      expect_from(1 - me, back);
      (me == 0 ? short_one : long_one) = comm.runtime().now() - 40e-3;
    }
  });
  const double wire_2000 = latency + 2000 * per_byte;
  // Both directions on the wire the whole time: each pays it again (factor 0.5).
  EXPECT_NEAR(exchange, rendezvous + 2 * wire_2000, 3e-8);
  EXPECT_NEAR(one_way, rendezvous + wire_2000, 3e-8);
  EXPECT_NEAR(eager_exchange, latency + 500 * per_byte, 3e-8);
  // The two overlap for the short one's time on the wire: each pays that once more. The long
  // one's send completes after its penalty too, so rank 0's sendrecv ends with it.
  EXPECT_NEAR(long_one, rendezvous + (latency + 4000 * per_byte) + wire_2000, 3e-8);
  EXPECT_NEAR(short_one, long_one, 3e-8);
}

TEST(SimBackend, ProtocolExchangeFactorKeepsEveryAllgatherAlltoallAndAllreduceExact) {
  REQUIRE_PLATFORM(exchange_platform());
  every_allgather_alltoall_and_allreduce_exact(exchange_platform());
}

}  // namespace test_protocol_test
}  // namespace ragged
