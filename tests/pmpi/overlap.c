/* ragged's overlap benchmark for nonblocking collectives (docs/bench.md, "Overlap"): OSU's
 * measure (osu_iallreduce, osu_iallgather) for the calls through the library (MPI_Ixxx, MPI_Wait)
 * and straight to the MPI library (PMPI_Ixxx, PMPI_Wait), alternating in rounds within one run:
 *   t_pure   post + wait, nothing between
 *   t_cpu    the computation put between post and wait, meant to last t_pure of the same path,
 *            as measured (a sleep lasts longer than asked)
 *   t_total  post + computation + wait
 *   overlap  = 100 (1 - (t_total - t_cpu) / t_pure), at least 0   (OSU's definition)
 * Each time is the slowest rank's mean over the round's calls; a path's figure is its median round.
 * Beside them, t_pure of the blocking call through the library (MPI_Allreduce, MPI_Allgather): what
 * the nonblocking call adds to the same algorithm.
 *   mpirun -n 4 pmpi_overlap [iallreduce | iallgather] [bytes a rank, default 65536]
 *                            [calls per round, default 20] [rounds, default 5] [busy | idle]
 * busy (the default, OSU's): the computation keeps the core; idle: it sleeps, as a program's thread
 * does while its computation runs elsewhere (a GPU kernel, I/O), leaving the core to a progress
 * thread (on a node with a core for each rank's thread and none spare, only then can the worker run).
 * The collective's algorithm is the environment's (RAGGED_ALLREDUCE, RAGGED_ALLGATHER). Every
 * call's result is checked (integers that differ on every rank and element): a wrong one fails the
 * run. Prints a table and one CSV row. */
#include <time.h>

#include "pmpi_test.h"

enum { IALLREDUCE, IALLGATHER };

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a;
  const double y = *(const double*)b;
  return (x > y) - (x < y);
}

static int idle; /* the computation leaves the core free (a GPU kernel, I/O): it sleeps */

/* Busy for `seconds` (the computation between post and wait), or asleep when `idle`. */
static void compute(double seconds) {
  if (idle) {
    struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&t, &t) != 0) {
    }
    return;
  }
  const double until = PMPI_Wtime() + seconds;
  volatile double sink = 0;
  while (PMPI_Wtime() < until) sink += 1.0;
}

static int kind;
static double computed; /* seconds of computation in the current round */
static long n;          /* ints a rank */
static int *in, *out;
static long wrong;

static void post(int library, MPI_Request* request) {
  if (kind == IALLREDUCE) {
    if (library) {
      MPI_Iallreduce(in, out, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, request);
    } else {
      PMPI_Iallreduce(in, out, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, request);
    }
  } else if (library) {
    MPI_Iallgather(in, (int)n, MPI_INT, out, (int)n, MPI_INT, MPI_COMM_WORLD, request);
  } else {
    PMPI_Iallgather(in, (int)n, MPI_INT, out, (int)n, MPI_INT, MPI_COMM_WORLD, request);
  }
}

static void check(int call) {
  if (kind == IALLREDUCE) {
    for (long i = 0; i < n; ++i) {
      long sum = 0;
      for (int r = 0; r < t_size; ++r) sum += t_value(r, i, call);
      wrong += out[i] != (int)sum;
    }
  } else {
    for (int r = 0; r < t_size; ++r) {
      for (long i = 0; i < n; ++i) wrong += out[(long)r * n + i] != t_value(r, i, call);
    }
  }
}

/* The blocking call through the library (what the nonblocking one costs beyond it). */
static double blocking(int call) {
  for (long i = 0; i < n; ++i) in[i] = t_value(t_rank, i, call);
  const double t0 = PMPI_Wtime();
  if (kind == IALLREDUCE) {
    MPI_Allreduce(in, out, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  } else {
    MPI_Allgather(in, (int)n, MPI_INT, out, (int)n, MPI_INT, MPI_COMM_WORLD);
  }
  const double t = PMPI_Wtime() - t0;
  check(call);
  return t;
}

/* One call: post, `busy` seconds of computation, wait; returns its time. */
static double one(int library, double busy, int call) {
  if (library == 2) return blocking(call);
  for (long i = 0; i < n; ++i) in[i] = t_value(t_rank, i, call);
  MPI_Request request = MPI_REQUEST_NULL;
  const double t0 = PMPI_Wtime();
  post(library, &request);
  if (busy > 0) {
    const double c0 = PMPI_Wtime();
    compute(busy);
    computed += PMPI_Wtime() - c0;
  }
  if (library) {
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    PMPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  const double t = PMPI_Wtime() - t0;
  check(call);
  return t;
}

/* The slowest rank's mean of `calls` calls. */
static double round_of(int library, double busy, int calls, int* call, double* cpu) {
  PMPI_Barrier(MPI_COMM_WORLD);
  computed = 0;
  double sum = 0;
  for (int i = 0; i < calls; ++i) sum += one(library, busy, (*call)++);
  double mean[2] = {sum / calls, computed / calls};
  PMPI_Allreduce(MPI_IN_PLACE, mean, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (cpu != NULL) *cpu = mean[1];
  return mean[0];
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  PMPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &t_size);
  const char* name = argc > 1 ? argv[1] : "iallreduce";
  if (strcmp(name, "iallreduce") != 0 && strcmp(name, "iallgather") != 0) {
    if (t_rank == 0) fprintf(stderr, "pmpi_overlap: argument 1 must be iallreduce or iallgather, not '%s'\n", name);
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  kind = strcmp(name, "iallreduce") == 0 ? IALLREDUCE : IALLGATHER;
  const long bytes = argc > 2 ? atol(argv[2]) : 65536;
  const int calls = argc > 3 ? atoi(argv[3]) : 20;
  const int rounds = argc > 4 ? atoi(argv[4]) : 5;
  idle = argc > 5 && strcmp(argv[5], "idle") == 0;
  if (argc > 5 && !idle && strcmp(argv[5], "busy") != 0) {
    if (t_rank == 0) fprintf(stderr, "pmpi_overlap: argument 5 must be busy or idle, not '%s'\n", argv[5]);
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (bytes < (long)sizeof(int) || calls < 1 || rounds < 1) {
    if (t_rank == 0) fprintf(stderr, "pmpi_overlap: bytes must be at least 4, calls and rounds at least 1\n");
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  n = bytes / (long)sizeof(int);
  in = t_alloc((size_t)n * sizeof(int));
  out = t_alloc((size_t)n * (size_t)(kind == IALLGATHER ? t_size : 1) * sizeof(int));
  const char* (*last)(void) = NULL;
  *(void**)(&last) = dlsym(RTLD_DEFAULT, "ragged_pmpi_last_algorithm");

  double* pure[3];
  double* total[2];
  double* cpu[2];
  pure[2] = t_alloc((size_t)rounds * sizeof(double));
  for (int p = 0; p < 2; ++p) {
    pure[p] = t_alloc((size_t)rounds * sizeof(double));
    total[p] = t_alloc((size_t)rounds * sizeof(double));
    cpu[p] = t_alloc((size_t)rounds * sizeof(double));
  }
  int call = 0;
  for (int p = 0; p < 3; ++p) round_of(p, 0, 2, &call, NULL); /* warm up: workers, connections */
  char algorithm[128] = "native";
  if (last != NULL) snprintf(algorithm, sizeof algorithm, "%s", last());
  for (int r = 0; r < rounds; ++r) {
    for (int v = 0; v < 2; ++v) {
      const int library = (r % 2) ^ v; /* alternate which path goes first */
      pure[library][r] = round_of(library, 0, calls, &call, NULL);
      total[library][r] = round_of(library, pure[library][r], calls, &call, &cpu[library][r]);
      if (v == 1) pure[2][r] = round_of(2, 0, calls, &call, NULL);
      if (t_rank == 0) {
        printf("round %d/%d %s: t_pure %.1f us, t_total %.1f us\n", r + 1, rounds, library ? "library" : "MPI    ",
               pure[library][r] * 1e6, total[library][r] * 1e6);
        fflush(stdout);
      }
    }
  }
  PMPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  double median_pure[2], median_total[2], overlap[2];
  double* sorted_blocking = t_alloc((size_t)rounds * sizeof(double));
  memcpy(sorted_blocking, pure[2], (size_t)rounds * sizeof(double));
  qsort(sorted_blocking, (size_t)rounds, sizeof(double), compare);
  const double median_blocking = sorted_blocking[rounds / 2];
  free(sorted_blocking);
  for (int p = 0; p < 2; ++p) {
    /* The round with the median t_pure, and its own t_total: OSU's figure for one run. */
    double* order = t_alloc((size_t)rounds * sizeof(double));
    memcpy(order, pure[p], (size_t)rounds * sizeof(double));
    qsort(order, (size_t)rounds, sizeof(double), compare);
    int median = 0;
    for (int r = 0; r < rounds; ++r) {
      if (pure[p][r] == order[rounds / 2]) median = r;
    }
    free(order);
    median_pure[p] = pure[p][median];
    median_total[p] = total[p][median];
    double o = 100.0 * (1.0 - (total[p][median] - cpu[p][median]) / pure[p][median]);
    overlap[p] = o < 0 ? 0 : o;
  }
  if (t_rank == 0) {
    printf("%s of %ld bytes a rank, np %d, %d rounds of %d calls, %s computation, library's algorithm: %s\n", name,
           bytes, t_size, rounds, calls, idle ? "idle" : "busy", algorithm);
    printf("  through the library: t_pure %.1f us, t_total %.1f us, overlap %.1f%%\n", median_pure[1] * 1e6,
           median_total[1] * 1e6, overlap[1]);
    printf("  MPI library (PMPI): t_pure %.1f us, t_total %.1f us, overlap %.1f%%\n", median_pure[0] * 1e6,
           median_total[0] * 1e6, overlap[0]);
    printf("  blocking call through the library: %.1f us\n", median_blocking * 1e6);
    printf(
        "csv: collective,bytes,np,computation,algorithm,library_pure_us,library_total_us,library_overlap,"
        "mpi_pure_us,mpi_total_us,mpi_overlap,pure_ratio,library_blocking_us\n");
    printf("csv: %s,%ld,%d,%s,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%.1f\n", name, bytes, t_size,
           idle ? "idle" : "busy", algorithm, median_pure[1] * 1e6, median_total[1] * 1e6, overlap[1],
           median_pure[0] * 1e6, median_total[0] * 1e6, overlap[0], median_pure[1] / median_pure[0],
           median_blocking * 1e6);
    if (wrong != 0) printf("FAIL: %ld result elements wrong\n", wrong);
    fflush(stdout);
  }
  free(pure[2]);
  for (int p = 0; p < 2; ++p) {
    free(pure[p]);
    free(total[p]);
    free(cpu[p]);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return wrong != 0 ? 1 : 0;
}
