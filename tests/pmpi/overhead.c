/* ragged's PMPI overhead benchmark: the cost of the library on a call it gives to the MPI
 * library, a 1-byte MPI_Allgather with RAGGED_ALLGATHER=native, through the library
 * (MPI_Allgather) and straight to the MPI library (PMPI_Allgather), alternating in rounds within
 * one run. Without the library both are the MPI library's function. Prints the median and minimum
 * per-call time of each, their difference and ratio, and the same as one CSV row (docs/bench.md,
 * "The PMPI library's overhead").
 *   mpirun -n 2 pmpi_overhead [calls per round, default 20000] [rounds, default 15]
 *                             [native | environment, default native] [most added microseconds]
 * environment: RAGGED_ALLGATHER is left as the environment has it instead of set to native (for
 * example a RAGGED_TUNING_FILE that cannot be used, which must cost what native costs after its
 * first message). With a most added time, the run fails (exit 1) when the library's fastest round
 * is slower per call than the MPI library's fastest by more than that: the fastest rounds, since a
 * round that another process interrupted says nothing of either.
 * (a plain MPI program: also run as pmpi_overhead_plain, with or without LD_PRELOAD). */
#include "pmpi_test.h"

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a;
  const double y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  PMPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &t_size);
  const int calls = argc > 1 ? atoi(argv[1]) : 20000;
  const int rounds = argc > 2 ? atoi(argv[2]) : 15;
  /* "environment": the calls go where the environment sends them (e.g. RAGGED_TUNING_FILE naming
   * a file that cannot be used, which must cost what native costs after its first message). */
  const int from_environment = argc > 3 && strcmp(argv[3], "environment") == 0;
  const double most_added_us = argc > 4 ? atof(argv[4]) : -1.0;
  if (argc > 3 && !from_environment && strcmp(argv[3], "native") != 0) {
    if (t_rank == 0) fprintf(stderr, "pmpi_overhead: argument 3 must be native or environment, not '%s'\n", argv[3]);
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int loaded = dlsym(RTLD_DEFAULT, "ragged_pmpi_last_algorithm") != NULL;
  if (!from_environment) {
    setenv("RAGGED_ALLGATHER", "native", 1);
    /* The library took its settings at MPI_Init: it reads them again when told, on every rank. */
    void (*reread)(void) = NULL;
    *(void**)(&reread) = dlsym(RTLD_DEFAULT, "ragged_pmpi_reread_environment");
    if (reread != NULL) reread();
  }
  int thread_level = 0;
  PMPI_Query_thread(&thread_level);

  char in = (char)t_rank;
  char* out = t_alloc((size_t)t_size);
  double* library = t_alloc((size_t)rounds * sizeof(double));
  double* direct = t_alloc((size_t)rounds * sizeof(double));
  for (int i = 0; i < calls; ++i) MPI_Allgather(&in, 1, MPI_BYTE, out, 1, MPI_BYTE, MPI_COMM_WORLD); /* warm up */
  for (int r = 0; r < rounds; ++r) {
    for (int variant = 0; variant < 2; ++variant) {
      const int first = (r % 2) ^ variant; /* alternate which goes first */
      PMPI_Barrier(MPI_COMM_WORLD);
      const double t0 = PMPI_Wtime();
      if (first) {
        for (int i = 0; i < calls; ++i) MPI_Allgather(&in, 1, MPI_BYTE, out, 1, MPI_BYTE, MPI_COMM_WORLD);
      } else {
        for (int i = 0; i < calls; ++i) PMPI_Allgather(&in, 1, MPI_BYTE, out, 1, MPI_BYTE, MPI_COMM_WORLD);
      }
      double per_call = (PMPI_Wtime() - t0) / calls;
      PMPI_Allreduce(MPI_IN_PLACE, &per_call, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      (first ? library : direct)[r] = per_call;
    }
  }
  qsort(library, (size_t)rounds, sizeof(double), compare);
  qsort(direct, (size_t)rounds, sizeof(double), compare);
  /* The result of one more call through the library, checked (a benchmark that runs a collective
   * checks what it got, so that the flip shim's wrong results fail it too). */
  memset(out, 0xff, (size_t)t_size);
  MPI_Allgather(&in, 1, MPI_BYTE, out, 1, MPI_BYTE, MPI_COMM_WORLD);
  int wrong = 0;
  for (int r = 0; r < t_size; ++r) wrong += out[r] != (char)r;
  PMPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (wrong != 0 && t_rank == 0) printf("FAIL: allgather result wrong in %d elements\n", wrong);
  const double added_us = (library[0] - direct[0]) * 1e6; /* fastest round against fastest round */
  const int too_slow = most_added_us >= 0 && added_us > most_added_us;
  if (t_rank == 0) {
    const double lm = library[rounds / 2];
    const double dm = direct[rounds / 2];
    printf("1-byte allgather, np %d, %s, thread level %d, %d rounds of %d calls, %s\n", t_size,
           loaded ? "libragged_pmpi.so loaded" : "no libragged_pmpi.so", thread_level, rounds, calls,
           from_environment ? "RAGGED_ALLGATHER from the environment" : "RAGGED_ALLGATHER=native");
    printf("  MPI_Allgather  (%s): median %.3f us, min %.3f us\n", loaded ? "through the library" : "MPI library",
           lm * 1e6, library[0] * 1e6);
    printf("  PMPI_Allgather (MPI library):        median %.3f us, min %.3f us\n", dm * 1e6, direct[0] * 1e6);
    printf("  added per call: median %.3f us, min against min %.3f us, ratio of medians %.3f\n", (lm - dm) * 1e6,
           added_us, lm / dm);
    printf(
        "csv: np,loaded,setting,calls,rounds,library_median_us,library_min_us,direct_median_us,direct_min_us,"
        "added_min_us,ratio_median\n");
    printf("csv: %d,%d,%s,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", t_size, loaded,
           from_environment ? "environment" : "native", calls, rounds, lm * 1e6, library[0] * 1e6, dm * 1e6,
           direct[0] * 1e6, added_us, lm / dm);
    if (too_slow) printf("FAIL: the library adds %.3f us per call, more than %.3f us\n", added_us, most_added_us);
    fflush(stdout);
  }
  free(out);
  free(library);
  free(direct);
  MPI_Finalize();
  return too_slow || wrong != 0 ? 1 : 0;
}
