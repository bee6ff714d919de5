/* The one-sided algorithms under churn (mpi.pmpi.npN.onesided_stress): many communicators split
 * from MPI_COMM_WORLD, each used for a few MPI_Alltoall and MPI_Allreduce calls of changing sizes
 * and freed, with RAGGED_ALLTOALL=onesided and RAGGED_ALLREDUCE=onesided_ring forced, so that
 * every communicator gets (and frees) its own cached windows while the others' traffic is still
 * about. Every result is checked exactly; a rank that sees a wrong notification raises an MPI
 * error (the algorithms check every notification's value). Run it with more ranks than cores
 * and with both window kinds (RAGGED_WINDOW=rma, emulated).
 *   mpirun -n P -x RAGGED_ALLTOALL=onesided -x RAGGED_ALLREDUCE=onesided_ring pmpi_onesided_stress
 *          [communicators, default 200] */
#include "pmpi_test.h"

enum { max_count = 700, max_procs = 8 };

/* Element i of rank r's block for rank j in round k: unique over (round mod 256, r, j, i) for
 * P <= 8 and i < 1024, and below 2^24, so that sums over the ranks fit an int. */
static int value(int round, int r, int j, int i) { return ((round & 255) << 16) | (r << 13) | (j << 10) | i; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  t_init();
  const int communicators = argc > 1 ? atoi(argv[1]) : 200;
  if (t_size > max_procs) {
    if (t_rank == 0) fprintf(stderr, "onesided stress: at most %d ranks\n", max_procs);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int* send = t_alloc(sizeof(int) * max_count * (size_t)t_size);
  int* recv = t_alloc(sizeof(int) * max_count * (size_t)t_size);
  long wrong = 0;
  long calls = 0;
  for (int c = 0; c < communicators; ++c) {
    /* Changing membership: two or three groups, or everyone, in a rotating order. */
    const int groups = 1 + c % 3;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, (t_rank + c) % groups, (t_rank * 7 + c) % t_size, &comm);
    int me = 0, p = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    for (int k = 0; k < 4; ++k) {
      const int round = c * 4 + k;
      const int count = 1 + (round * 37) % max_count; /* sizes change from call to call */
      for (int j = 0; j < p; ++j)
        for (int i = 0; i < count; ++i) send[j * count + i] = value(round, me, j, i);
      MPI_Alltoall(send, count, MPI_INT, recv, count, MPI_INT, comm);
      for (int j = 0; j < p; ++j)
        for (int i = 0; i < count; ++i)
          if (recv[j * count + i] != value(round, j, me, i)) ++wrong;
      /* Allreduce of the first block, in place every other call. */
      if (k % 2 == 0) {
        for (int i = 0; i < count; ++i) recv[i] = send[i];
        MPI_Allreduce(MPI_IN_PLACE, recv, count, MPI_INT, MPI_SUM, comm);
      } else {
        MPI_Allreduce(send, recv, count, MPI_INT, MPI_SUM, comm);
      }
      for (int i = 0; i < count; ++i) {
        long want = 0;
        for (int r = 0; r < p; ++r) want += value(round, r, 0, i);
        if (recv[i] != (int)want) ++wrong;
      }
      calls += 2;
    }
    MPI_Comm_free(&comm);
    if (t_rank == 0 && (c + 1) % 50 == 0) {
      printf("  %d/%d communicators\n", c + 1, communicators);
      fflush(stdout);
    }
  }
  long all_wrong = 0;
  PMPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (t_rank == 0) {
    printf("onesided stress: %d communicators, %ld calls per rank, %ld wrong elements%s\n", communicators, calls,
           all_wrong, all_wrong == 0 ? "" : " WRONG RESULTS");
    fflush(stdout);
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return all_wrong == 0 ? 0 : 1;
}
