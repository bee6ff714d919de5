/* mpi.pmpi.np4.report_*: a plain MPI program (only <mpi.h>) with one late rank, run under
 * libragged_pmpi.so with RAGGED_REPORT set; check_report.py then reads the report. Before each
 * MPI_Allgather the late rank sleeps `delay` ms, so it arrives last at every call, about `delay`
 * after the others: the report must name it as the straggler, with an imbalance of about `delay`.
 * The other calls make sites of their own: one MPI_Barrier, one MPI_Bcast from root 1 % P and one
 * MPI_Allreduce of 8 bytes.
 *   late_rank [iterations, default 30] [delay ms, default 20] [late rank, default 2] [ints, default 1000]
 * Exit status 1 when an allgather gave a wrong result. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(double ms) {
  struct timespec t;
  t.tv_sec = (time_t)(ms / 1e3);
  t.tv_nsec = (long)((ms - (double)t.tv_sec * 1e3) * 1e6);
  while (nanosleep(&t, &t) != 0) {
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int iterations = argc > 1 ? atoi(argv[1]) : 30;
  const double delay = argc > 2 ? atof(argv[2]) : 20;
  const int late = argc > 3 ? atoi(argv[3]) : 2;
  const int ints = argc > 4 ? atoi(argv[4]) : 1000;
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* mine = malloc((size_t)ints * sizeof(int));
  int* all = malloc((size_t)ints * (size_t)size * sizeof(int));
  if (mine == NULL || all == NULL) MPI_Abort(MPI_COMM_WORLD, 3);

  MPI_Barrier(MPI_COMM_WORLD);
  long wrong = 0;
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < ints; ++i) mine[i] = rank * 1000003 + it * 1009 + i;
    if (rank == late) sleep_ms(delay);
    MPI_Allgather(mine, ints, MPI_INT, all, ints, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) {
      for (int i = 0; i < ints; ++i) wrong += all[r * ints + i] != r * 1000003 + it * 1009 + i;
    }
  }
  int value = rank == 1 % size ? 42 : 0;
  MPI_Bcast(&value, 1, MPI_INT, 1 % size, MPI_COMM_WORLD);
  wrong += value != 42;
  long all_wrong = 0;
  MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("late_rank: %d allgathers of %d ints at np %d, rank %d late by %g ms: %s\n", iterations, ints, size, late,
           delay, all_wrong == 0 ? "results right" : "WRONG RESULTS");
    fflush(stdout);
  }
  free(mine);
  free(all);
  MPI_Finalize();
  return all_wrong == 0 ? 0 : 1;
}
