/* The MPI_Wait family sleeps on the library's own requests (docs/pmpi.md, "Waiting"): rank 0
 * posts 200 ms after the others, who wait meanwhile; their thread's CPU time in the completion
 * call must be a small part of its wall time (a polling wait burns all of it, and on a node with
 * fewer cores than threads takes the core the worker needs). For MPI_Wait, MPI_Waitall,
 * MPI_Waitany, MPI_Waitsome on nonblocking allreduces, MPI_Wait on a started persistent one, and
 * an MPI_Waitany mixing the library's request with a receive of the program's (which must
 * complete first and correctly: the library may not sleep there). Every result is checked. And an
 * allreduce whose derived datatype and user operator the program frees before the wait.
 *   mpirun -n 3 -x RAGGED_ALLREDUCE=ring pmpi_wait_sleeps */
#include <time.h>
#include <unistd.h>

#include "pmpi_test.h"

#if defined(OPEN_MPI)
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define W_INIT MPIX_Allreduce_init
#endif
#elif defined(MPI_VERSION) && MPI_VERSION >= 4
#define W_INIT MPI_Allreduce_init
#endif

enum { N = 1000, LATE_US = 200000 };
static int in[N], out[N];

static double thread_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void fill(int salt) {
  for (int i = 0; i < N; ++i) in[i] = t_value(t_rank, i, salt);
  memset(out, 0, sizeof out);
}

static void check_sum(const char* form, int salt) {
  int wrong = 0;
  for (int i = 0; i < N; ++i) {
    long sum = 0;
    for (int r = 0; r < t_size; ++r) sum += t_value(r, i, salt);
    wrong += out[i] != (int)sum;
  }
  t_check(wrong == 0, "%s: %d elements wrong", form, wrong);
}

/* Times the completion `form` of one late-posted allreduce (rank 0 late); checks its share. */
static void one(const char* form, int salt) {
  fill(salt);
  PMPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) usleep(LATE_US);
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[1]);
  const double wall0 = PMPI_Wtime();
  const double cpu0 = thread_cpu();
  int index = -1, outcount = 0, indices[2];
  MPI_Status statuses[2]; /* not MPI_STATUSES_IGNORE: GCC 12 warns of MPICH's (MPI_Status*)1 */
  if (strcmp(form, "MPI_Wait") == 0) {
    MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
  } else if (strcmp(form, "MPI_Waitall") == 0) {
    MPI_Waitall(2, requests, statuses);
  } else if (strcmp(form, "MPI_Waitany") == 0) {
    MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
    t_check(index == 1, "MPI_Waitany: index %d, not 1", index);
  } else {
    MPI_Waitsome(2, requests, &outcount, indices, statuses);
    t_check(outcount == 1 && indices[0] == 1, "MPI_Waitsome: %d requests, first %d", outcount, indices[0]);
  }
  const double wall = PMPI_Wtime() - wall0;
  const double cpu = thread_cpu() - cpu0;
  check_sum(form, salt);
  t_check(requests[1] == MPI_REQUEST_NULL, "%s: the request is not freed", form);
  t_check(strcmp(t_last(), "ring") == 0, "%s: ran %s, not ring", form, t_last());
  /* The early ranks waited about LATE_US; asleep, a few percent of it on the CPU. */
  const int late = t_rank == 0;
  t_check(late || wall > 0.5 * LATE_US * 1e-6, "%s: waited only %.1f ms", form, wall * 1e3);
  t_check(late || cpu < 0.25 * wall, "%s: %.1f ms of CPU in %.1f ms of waiting", form, cpu * 1e3, wall * 1e3);
}

/* MPI_Waitany over a receive of the program's and the library's request: rank 0 sends to every
 * other rank, then waits 200 ms, then posts; the receive completes first (the library must not
 * sleep until its own request is done), then the allreduce. */
static void mixed(int salt) {
  fill(salt);
  PMPI_Barrier(MPI_COMM_WORLD);
  int message = t_rank;
  int first = 0, second = 1;
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (t_rank == 0) {
    for (int r = 1; r < t_size; ++r) PMPI_Send(&r, 1, MPI_INT, r, 7, MPI_COMM_WORLD);
    usleep(LATE_US);
    MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[1]);
    MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
  } else {
    MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[1]);
    message = -1;
    PMPI_Irecv(&message, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &requests[0]);
    MPI_Waitany(2, requests, &first, MPI_STATUS_IGNORE);
    MPI_Waitany(2, requests, &second, MPI_STATUS_IGNORE);
  }
  t_check(first == 0 && second == 1, "mixed MPI_Waitany: completed %d then %d, not 0 then 1", first, second);
  t_check(message == t_rank, "mixed MPI_Waitany: received %d, not %d", message, t_rank);
  check_sum("mixed MPI_Waitany", salt);
}

#if defined(W_INIT)
/* A persistent allreduce started twice, rank 0 late each time: MPI_Wait sleeps on it too. */
static void persistent(int salt) {
  MPI_Request request = MPI_REQUEST_NULL;
  W_INIT(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &request);
  for (int start = 0; start < 2; ++start) {
    fill(salt + start);
    PMPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) usleep(LATE_US);
    MPI_Start(&request);
    const double wall0 = PMPI_Wtime();
    const double cpu0 = thread_cpu();
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    const double wall = PMPI_Wtime() - wall0;
    const double cpu = thread_cpu() - cpu0;
    check_sum("persistent MPI_Wait", salt + start);
    t_check(t_rank == 0 || cpu < 0.25 * wall, "persistent MPI_Wait: %.1f ms of CPU in %.1f ms", cpu * 1e3, wall * 1e3);
  }
  MPI_Request_free(&request);
}
#endif

/* A sum over pairs of ints (the datatype below is two ints). */
static void pair_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < 2 * *len; ++i) ((int*)inout)[i] += ((const int*)in)[i];
}

/* MPI lets a program free a datatype and an operator once the call that uses them is posted: the
 * library's worker must still be able to run it. Rank 1 posts its barrier 200 ms late, so every
 * other rank's worker is still in the barrier when the program posts the allreduce and frees its
 * datatype and operator: the allreduce starts after the frees. */
static void freed_before_wait(int salt) {
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(&pair_sum, 1, &op);
  fill(salt);
  PMPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 1) usleep(LATE_US);
  MPI_Request requests[2];
  MPI_Ibarrier(MPI_COMM_WORLD, &requests[0]);
  MPI_Iallreduce(in, out, N / 2, pair, op, MPI_COMM_WORLD, &requests[1]);
  MPI_Type_free(&pair);
  MPI_Op_free(&op);
  t_check(pair == MPI_DATATYPE_NULL && op == MPI_OP_NULL, "freed handles are not null");
  MPI_Status statuses[2];
  MPI_Waitall(2, requests, statuses);
  check_sum("allreduce with its datatype and operator freed before the wait", salt);
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  t_init();
  if (provided < MPI_THREAD_MULTIPLE) {
    if (t_rank == 0) printf("MPI_THREAD_MULTIPLE not granted: nothing to test\n");
    MPI_Finalize();
    return 0;
  }
  one("MPI_Wait", 1);
  one("MPI_Waitall", 2);
  one("MPI_Waitany", 3);
  one("MPI_Waitsome", 4);
  mixed(5);
  if (t_size > 1) freed_before_wait(7);
#if defined(W_INIT)
  persistent(6);
#endif
  const int status = t_finish("pmpi_wait_sleeps");
  MPI_Finalize();
  return status;
}
