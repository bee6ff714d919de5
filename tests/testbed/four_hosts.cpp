// testbed.four_hosts: checks run by every rank of a job on the emulated cluster.
//
//   four_hosts --delay-us D --rate-bps R
//
// 1. Every rank runs on a host of its own: its network namespace and host
//    name differ from every other rank's.
// 2. MPI_Allgather and MPI_Allgatherv (uneven blocks) over the emulated links
//    deliver exactly the integers each rank wrote.
// 3. The links are no faster than configured: between rank 0 and the last
//    rank, an 8-byte message takes at least D microseconds one way, and a
//    1 MiB message at least 90% of its payload time at R bit/s; so does a
//    32 KiB message on an idle link (above 1 Gbit/s, where the testbed lets
//    64 KB GSO packets through whole, only D: docs/testbed.md). These are
//    lower bounds: a loaded machine makes runs slower, never faster, so they
//    hold however busy the machine is, and fail if shaping or delay is absent.
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_rank = 0;
int g_failures = 0;

void fail(const std::string& what) {
  std::fprintf(stderr, "four_hosts: rank %d: FAILED: %s\n", g_rank, what.c_str());
  ++g_failures;
}

std::int32_t value(int rank, std::size_t index) {
  return static_cast<std::int32_t>((static_cast<std::uint32_t>(rank) * 1000003u + static_cast<std::uint32_t>(index)) &
                                   0x7fffffffu);
}

void check_distinct_hosts(int size) {
  struct stat st {};
  if (stat("/proc/self/ns/net", &st) != 0) fail("cannot stat /proc/self/ns/net");
  const auto inode = static_cast<unsigned long long>(st.st_ino);
  std::vector<unsigned long long> inodes(static_cast<std::size_t>(size));
  MPI_Allgather(&inode, 1, MPI_UNSIGNED_LONG_LONG, inodes.data(), 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
  std::vector<unsigned long long> sorted = inodes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) fail("two ranks share a network namespace");

  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  for (int r = 0; r < size; ++r)
    hosts.emplace_back(names.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
  if (g_rank == 0) {
    std::printf("four_hosts: hosts");
    for (const auto& h : hosts) std::printf(" %s", h.c_str());
    std::printf("\n");
  }
  std::sort(hosts.begin(), hosts.end());
  if (std::adjacent_find(hosts.begin(), hosts.end()) != hosts.end()) fail("two ranks report the same host name");
}

void check_allgather(int size) {
  const std::size_t block = 50000;  // 200 KB per rank: past the eager limit
  std::vector<std::int32_t> mine(block);
  for (std::size_t i = 0; i < block; ++i) mine[i] = value(g_rank, i);
  std::vector<std::int32_t> all(block * static_cast<std::size_t>(size), -1);
  MPI_Allgather(mine.data(), static_cast<int>(block), MPI_INT32_T, all.data(), static_cast<int>(block), MPI_INT32_T,
                MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) {
    for (std::size_t i = 0; i < block; ++i) {
      if (all[static_cast<std::size_t>(r) * block + i] != value(r, i)) {
        fail("MPI_Allgather: wrong element " + std::to_string(i) + " from rank " + std::to_string(r));
        return;
      }
    }
  }
}

void check_allgatherv(int size) {
  // Rank r contributes 997 * r + 13 elements: uneven blocks, one tiny.
  std::vector<int> counts(static_cast<std::size_t>(size));
  std::vector<int> displs(static_cast<std::size_t>(size));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[static_cast<std::size_t>(r)] = 997 * r + 13;
    displs[static_cast<std::size_t>(r)] = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<std::int32_t> mine(static_cast<std::size_t>(counts[static_cast<std::size_t>(g_rank)]));
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = value(g_rank + 100, i);
  std::vector<std::int32_t> all(static_cast<std::size_t>(total), -1);
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_INT32_T, all.data(), counts.data(), displs.data(),
                 MPI_INT32_T, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < counts[static_cast<std::size_t>(r)]; ++i) {
      const auto at = static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] + i);
      if (all[at] != value(r + 100, static_cast<std::size_t>(i))) {
        fail("MPI_Allgatherv: wrong element " + std::to_string(i) + " from rank " + std::to_string(r));
        return;
      }
    }
  }
}

// Minimum one-way time (half the round trip) between rank 0 and rank `peer`,
// as seen by rank 0; other ranks return 0.
double min_one_way(std::size_t bytes, int iterations, int peer) {
  std::vector<unsigned char> buf(bytes, static_cast<unsigned char>(g_rank));
  const int count = static_cast<int>(bytes);
  double best = 1e30;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < iterations; ++it) {
    if (g_rank == 0) {
      const double start = MPI_Wtime();
      MPI_Send(buf.data(), count, MPI_BYTE, peer, it, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), count, MPI_BYTE, peer, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      best = std::min(best, (MPI_Wtime() - start) / 2);
    } else if (g_rank == peer) {
      MPI_Recv(buf.data(), count, MPI_BYTE, 0, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), count, MPI_BYTE, 0, it, MPI_COMM_WORLD);
    }
  }
  return g_rank == 0 ? best : 0.0;
}

void check_link_bounds(int size, double delay_us, double rate_bps) {
  const int peer = size - 1;
  const double small = min_one_way(8, 6, peer);
  const std::size_t big_bytes = std::size_t{1} << 20;
  const double big = min_one_way(big_bytes, 3, peer);
  // Every ping-pong leaves each direction's link idle while the other one carries the message:
  // the shaper's tokens refill, and a burst would show.
  const std::size_t burst_bytes = std::size_t{32} << 10;
  const double burst = min_one_way(burst_bytes, 6, peer);
  if (g_rank != 0) return;
  const double big_floor = 0.9 * static_cast<double>(big_bytes) * 8.0 / rate_bps;
  const double burst_floor =
      delay_us * 1e-6 + (rate_bps < 1e9 ? 0.9 * static_cast<double>(burst_bytes) * 8.0 / rate_bps : 0.0);
  std::printf(
      "four_hosts: 8 B one way %.3f ms (floor %.3f ms); 32 KiB %.3f ms (floor %.3f ms); 1 MiB %.3f ms (floor %.3f "
      "ms)\n",
      small * 1e3, delay_us * 1e-3, burst * 1e3, burst_floor * 1e3, big * 1e3, big_floor * 1e3);
  if (small < delay_us * 1e-6) fail("8 B crossed faster than the configured delay: the delay line is not in the path");
  if (big < big_floor) fail("1 MiB crossed faster than the configured rate allows: the links are not shaped");
  if (burst < burst_floor)
    fail("32 KiB crossed an idle link faster than its rate allows: the shaper let a burst through");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double delay_us = -1;
  double rate_bps = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--delay-us") == 0) delay_us = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--rate-bps") == 0) rate_bps = std::atof(argv[i + 1]);
  }
  if (delay_us < 0 || rate_bps <= 0 || size < 2) {
    if (g_rank == 0) std::fprintf(stderr, "usage: four_hosts --delay-us D --rate-bps R (at least 2 ranks)\n");
    MPI_Finalize();
    return 2;
  }

  check_distinct_hosts(size);
  check_allgather(size);
  check_allgatherv(size);
  check_link_bounds(size, delay_us, rate_bps);

  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0)
    std::printf("four_hosts: %s (%d ranks, %d failed checks)\n", failures == 0 ? "ok" : "FAILED", size, failures);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
