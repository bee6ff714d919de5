/* A plain C MPI program linked with `pkg-config --libs ragged-pmpi` alone (libragged_pmpi
 * ahead of MPI): RAGGED_ALLGATHER=ring must make MPI_Allgather run ragged's ring. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

const char* ragged_pmpi_last_algorithm(void); /* libragged_pmpi.so */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = rank + 1;
  int all[64] = {0};
  int ok = size <= 64 && MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS;
  ok = ok && strcmp(ragged_pmpi_last_algorithm(), "ring") == 0;
  for (int i = 0; ok && i < size; ++i) ok = all[i] == i + 1;
  int all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%s (ran %s)\n", all_ok ? "pmpi consumer ok" : "pmpi consumer FAILED", ragged_pmpi_last_algorithm());
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
