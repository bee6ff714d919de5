/* A rank that stops mid-run (SIGSTOP: alive, silent) while the others enter an MPI_Allgather
 * that ragged runs: with RAGGED_TIMEOUT set, the waiting ranks raise an MPI error naming the
 * rank they wait for, and the default error handler ends the job (tests/pmpi/CMakeLists.txt,
 * mpi.pmpi.np3.stopped_rank). Without RAGGED_TIMEOUT the job would wait forever.
 * With `finalize` the victim stops after the last call instead, before MPI_Finalize: with
 * RAGGED_REPORT set the others wait for its records there, and RAGGED_TIMEOUT bounds that too
 * (mpi.pmpi.np3.stopped_rank_finalize).
 * With `exit` the victim leaves the job (_exit, no MPI_Finalize) where it would have stopped: the
 * job must end too, through the launcher or RAGGED_TIMEOUT (mpi.pmpi.np3.exited_rank).
 *   mpirun -n P -x RAGGED_ALLGATHER=ring -x RAGGED_TIMEOUT=5 pmpi_stopped_rank [victim, default P-1]
 *          [finalize | exit] */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "pmpi_test.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  PMPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &t_size);
  const int victim = argc > 1 ? atoi(argv[1]) : t_size - 1;
  const int at_finalize = argc > 2 && strcmp(argv[2], "finalize") == 0;
  const int exits = argc > 2 && strcmp(argv[2], "exit") == 0;
  int in[256];
  int* out = t_alloc((size_t)t_size * sizeof in);
  for (int call = 0; call < 4; ++call) {
    for (int i = 0; i < 256; ++i) in[i] = t_rank * 1000 + call * 7 + i;
    if (call == 3 && t_rank == victim && !at_finalize) {
      fprintf(stderr, "stopped_rank: rank %d %s before call %d\n", t_rank, exits ? "exits" : "stops", call);
      fflush(stderr);
      if (exits) _exit(0);
      raise(SIGSTOP);
    }
    MPI_Allgather(in, 256, MPI_INT, out, 256, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < t_size; ++r) {
      for (int i = 0; i < 256; ++i) {
        if (out[r * 256 + i] != r * 1000 + call * 7 + i) {
          fprintf(stderr, "stopped_rank: rank %d: WRONG block %d at call %d\n", t_rank, r, call);
          return 1;
        }
      }
    }
  }
  /* Not reached by the waiting ranks when RAGGED_TIMEOUT works: the error handler ends the job. */
  printf("stopped_rank: rank %d finished every call\n", t_rank);
  fflush(stdout);
  free(out);
  if (at_finalize && t_rank == victim) {
    fprintf(stderr, "stopped_rank: rank %d stops before MPI_Finalize\n", t_rank);
    fflush(stderr);
    raise(SIGSTOP);
  }
  MPI_Finalize();
  return 0;
}
