// The MPI protocol costs a simulated platform may declare (docs/backends/sim.md, "Protocol"):
// below ragged/eager_limit a send's bytes travel from its post on, whether or not the receive
// is there; from it on a transfer starts a handshake after its match; the first transfer
// between two ranks starts a connection's set-up later (each a constant plus round trips of
// the route). Exact times on a platform whose every figure is distinct, exact data, MPI's
// non-overtaking order, and every registered allgather and alltoall exact across the limit.
//
// In the SimBackend suite so that the sanitizer tier runs these paths too. One process
// simulates one platform (ctest runs each test alone); a test whose platform another test of
// this process loaded first skips.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/registered.hpp"
#include "support/sim_platform.hpp"

namespace ragged {
namespace {

constexpr double tick = 2e-9;                            // now() counts whole nanoseconds
constexpr double latency = 10e-6;                        // two host links of 5 us
constexpr double per_byte = 1e-9;                        // 1 GB/s
constexpr std::size_t eager = 1000;                      // ragged/eager_limit
constexpr double rendezvous = 100e-6 + 1 * 2 * latency;  // ragged/rendezvous_delay + one round trip
constexpr double connect = 1e-3 + 1.5 * 2 * latency;     // ragged/connect_delay + 1.5 round trips

std::string protocol_platform() {
  static const std::string path =
      test::cluster_platform("ragged-protocol",
                             {{"eager_limit", "1000"},
                              {"rendezvous_delay", "100us"},
                              {"rendezvous_round_trips", "1"},
                              {"connect_delay", "1ms"},
                              {"connect_round_trips", "1.5"}},
                             R"(prefix="node-" suffix="" bw="1GBps" lat="5us" loopback_bw="1GBps" loopback_lat="1us")");
  return path;
}

sim::Config on(int procs) {
  sim::Config c;
  c.platform = protocol_platform();
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

TEST(SimBackend, ProtocolEveryAllgatherAndAlltoallStaysExact) {
  REQUIRE_PLATFORM(protocol_platform());
  constexpr int procs = 5;
  for (const std::string& name : test::registered(Collective::allgather)) {
    for (std::size_t count : {std::size_t{1}, std::size_t{100}, std::size_t{300}}) {  // 4, 400, 1200 bytes
      SCOPED_TRACE("allgather " + name + " count " + std::to_string(count));
      sim::run(on(procs), [&](Comm& comm) {
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
      sim::run(on(procs), [&](Comm& comm) {
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
}

}  // namespace
}  // namespace ragged
