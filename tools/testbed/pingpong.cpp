// pingpong: one-way time between two ranks, for checking the testbed's links.
//
//   pingpong [--sizes 8,1048576] [--iters 20] [--warmup 2] [--peer R]
//
// Rank 0 sends a message of each size to the peer (default: the last rank),
// which sends it back; the one-way time is half the round trip. Every received
// message is checked word by word against the pattern its sender wrote. Prints,
// per size, the minimum, median and mean one-way time over the timed
// iterations and the payload rate the median implies. Other ranks only wait.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  std::vector<std::size_t> sizes{8, 1 << 20};
  int iters = 20;
  int warmup = 2;
  int peer = -1;
};

[[noreturn]] void usage(int rank) {
  if (rank == 0) std::fprintf(stderr, "usage: pingpong [--sizes N,N,...] [--iters N] [--warmup N] [--peer RANK]\n");
  MPI_Finalize();
  std::exit(2);
}

Options parse(int argc, char** argv, int rank) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(rank);
    const std::string value = argv[++i];
    if (arg == "--sizes") {
      opt.sizes.clear();
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        opt.sizes.push_back(std::stoull(value.substr(start, comma - start)));
        start = comma + 1;
      }
    } else if (arg == "--iters") {
      opt.iters = std::stoi(value);
    } else if (arg == "--warmup") {
      opt.warmup = std::stoi(value);
    } else if (arg == "--peer") {
      opt.peer = std::stoi(value);
    } else {
      usage(rank);
    }
  }
  if (opt.iters < 1 || opt.warmup < 0) usage(rank);
  return opt;
}

// The word a rank writes at a position of its message for one iteration.
std::uint32_t word(int sender, int iteration, std::size_t index) {
  return static_cast<std::uint32_t>(sender) * 0x9E3779B1u + static_cast<std::uint32_t>(iteration) * 0x85EBCA77u +
         static_cast<std::uint32_t>(index);
}

void fill(std::vector<unsigned char>& buf, int sender, int iteration) {
  const std::size_t words = buf.size() / sizeof(std::uint32_t);
  for (std::size_t i = 0; i < words; ++i) {
    const std::uint32_t w = word(sender, iteration, i);
    std::memcpy(buf.data() + i * sizeof w, &w, sizeof w);
  }
}

bool matches(const std::vector<unsigned char>& buf, int sender, int iteration) {
  const std::size_t words = buf.size() / sizeof(std::uint32_t);
  for (std::size_t i = 0; i < words; ++i) {
    std::uint32_t w = 0;
    std::memcpy(&w, buf.data() + i * sizeof w, sizeof w);
    if (w != word(sender, iteration, i)) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options opt = parse(argc, argv, rank);
  if (opt.peer < 0) opt.peer = size - 1;
  if (size < 2 || opt.peer <= 0 || opt.peer >= size) {
    if (rank == 0) std::fprintf(stderr, "pingpong: needs at least 2 ranks and a peer in 1..size-1\n");
    MPI_Finalize();
    return 2;
  }

  int bad = 0;
  for (const std::size_t bytes : opt.sizes) {
    std::vector<unsigned char> out(bytes);
    std::vector<unsigned char> in(bytes);
    const int count = static_cast<int>(bytes);
    std::vector<double> one_way;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int it = 0; it < opt.warmup + opt.iters; ++it) {
      if (rank == 0) {
        fill(out, 0, it);
        const double start = MPI_Wtime();
        MPI_Send(out.data(), count, MPI_BYTE, opt.peer, it, MPI_COMM_WORLD);
        MPI_Recv(in.data(), count, MPI_BYTE, opt.peer, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const double round_trip = MPI_Wtime() - start;
        if (!matches(in, opt.peer, it)) bad = 1;
        if (it >= opt.warmup) one_way.push_back(round_trip / 2);
      } else if (rank == opt.peer) {
        MPI_Recv(in.data(), count, MPI_BYTE, 0, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!matches(in, 0, it)) bad = 1;
        fill(out, opt.peer, it);
        MPI_Send(out.data(), count, MPI_BYTE, 0, it, MPI_COMM_WORLD);
      }
    }
    if (rank == 0) {
      std::sort(one_way.begin(), one_way.end());
      double mean = 0;
      for (const double t : one_way) mean += t;
      mean /= static_cast<double>(one_way.size());
      const double median = one_way[one_way.size() / 2];
      std::printf("pingpong size=%zu iters=%d one_way_ms min=%.3f median=%.3f mean=%.3f max=%.3f MBps=%.2f\n", bytes,
                  opt.iters, one_way.front() * 1e3, median * 1e3, mean * 1e3, one_way.back() * 1e3,
                  static_cast<double>(bytes) / median / 1e6);
      std::fflush(stdout);
    }
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any_bad != 0) std::fprintf(stderr, "pingpong: a received message did not match what was sent\n");
  MPI_Finalize();
  return any_bad != 0 ? 1 : 0;
}
