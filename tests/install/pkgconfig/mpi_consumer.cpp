// Built with `pkg-config --cflags --libs ragged-mpi` alone (no CMake): an allgather and an
// allreduce on the mpi backend, checked, under mpirun with 2 ranks.
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

#include "ragged/api.hpp"
#include "ragged/mpi.hpp"
#include "ragged/version.hpp"

int main(int argc, char** argv) {
  ragged::mpi::Session session(&argc, &argv);
  bool ok = true;
  int rank = 0;
  {
    auto comm = ragged::mpi::make_comm(MPI_COMM_WORLD);
    rank = comm->rank();
    const int p = comm->size();
    const std::vector<std::int32_t> mine{rank + 1};
    std::vector<std::int32_t> all(static_cast<std::size_t>(p));
    ragged::allgather(*comm, std::span<const std::int32_t>(mine), std::span<std::int32_t>(all), {.algorithm = "ring"});
    for (int i = 0; i < p; ++i) ok = ok && all[static_cast<std::size_t>(i)] == i + 1;
    const std::vector<double> x{1.0, 2.0 * rank};
    std::vector<double> sum(2);
    ragged::allreduce(*comm, std::span<const double>(x), std::span<double>(sum), ragged::ReduceOp::sum(),
                      {.algorithm = "auto"});
    ok = ok && sum[0] == p && sum[1] == p * (p - 1);
  }
  int all_ok = 0;
  int mine_ok = ok ? 1 : 0;
  MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s (ragged %s)\n", all_ok != 0 ? "mpi consumer ok" : "mpi consumer FAILED", ragged::version());
  return all_ok != 0 ? 0 : 1;
}
