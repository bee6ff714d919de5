/* Listing 4 of Proficz 2021 (J. Proficz, process-arrival-pattern aware allgather, ACM TACO 18(4)
 * 2021) as a plain MPI program: the mini-benchmark that measures an allgather's average elapsed
 * time (avgET, written e-bar) under a random process arrival pattern. Built plain, only <mpi.h>:
 * no ragged header and none of the listing's PAT_* calls (lines 15-16, 22, 24, 26), so the same
 * binary runs with the MPI library alone or under libragged_pmpi.so (docs/pmpi.md):
 *
 *   mpirun -n 8 ./listing4                                       # the MPI library's allgather
 *   mpirun -n 8 -x LD_PRELOAD=.../libragged_pmpi.so -x RAGGED_ALLGATHER=ring ./listing4
 *   mpirun -n 8 -x LD_PRELOAD=.../libragged_pmpi.so -x RAGGED_ALLGATHER=auto \
 *          -x RAGGED_REPORT=/tmp/listing4.json ./listing4 -d 100      # plus the report
 *
 * Options (the listing's input):
 *   -n N         floats gathered in total (each rank contributes N / P), default 262144 (256K)
 *   -i itNo      iterations, default 256
 *   -d maxDelay  largest random delay of a rank, ms, default 100
 *   -b base      fixed part of the half computation time, ms, default 100 (the listing's 100 ms)
 *   -s seed      seed of the random delays and data, default 1
 *
 * Per iteration (listing lines 17-33): random data; halfTime = base + random(0..maxDelay) / 2;
 * two MPI_Barrier; usleep(halfTime) twice (the emulated computation, whose middle is the
 * listing's PAT_Edge(50%)); MPI_Allgather timed with MPI_Wtime; the result checked; the elapsed
 * times summed over the ranks with MPI_Allreduce. avgET = sumET / (P * itNo), printed by rank 0.
 * The exit status is non-zero when a result was wrong.
 *
 * Built with -DRAGGED_LISTING4_PAT and linked with libragged_pmpi.so (target
 * ragged_example_listing4_pat, build/tools/examples/listing4_pat), it makes the listing's PAT_*
 * calls too (include/ragged/pat.h): PAT_Init and PAT_UseAlg(-a algorithm, default bdr) after
 * MPI_Init, PAT_ProcessingStart, PAT_Edge(0.5) and PAT_ProcessingEnd around the computation,
 * PAT_Finalize before MPI_Finalize; the library then runs that algorithm with the arrival
 * snapshot of PAT's monitor. It also fails when any allgather ran another algorithm
 * (ragged_pmpi_last_algorithm). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef RAGGED_LISTING4_PAT
#include "ragged/pat.h"
const char* ragged_pmpi_last_algorithm(void); /* libragged_pmpi.so: what ran the last collective */
/* A PAT_* call that fails ends the job, saying why. */
static void pat_check(int code, const char* call) {
  if (code == PAT_SUCCESS) return;
  fprintf(stderr, "listing4: %s failed (%d): %s\n", call, code, PAT_LastError());
  MPI_Abort(MPI_COMM_WORLD, 4);
}
#define PAT(call) pat_check(call, #call)
#else
#define PAT(call) ((void)0)
#endif

/* splitmix64: the random delays and data of (seed, rank, iteration, index), so that every rank
 * can compute every other rank's block to check the allgather. */
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static uint64_t draw(uint64_t seed, int rank, int iteration, uint64_t index) {
  return mix(mix(mix(seed) ^ (uint64_t)rank) ^ ((uint64_t)iteration << 32 | (index & 0xffffffffULL)));
}

/* A float exactly representable: 16 random bits. */
static float datum(uint64_t seed, int rank, int iteration, long j) {
  return (float)(draw(seed, rank, iteration, (uint64_t)j + 1) >> 48);
}

/* Sleeps `us` microseconds, resuming after signals. */
static void pause_us(double us) {
  if (us <= 0) return;
  struct timespec t;
  t.tv_sec = (time_t)(us / 1e6);
  t.tv_nsec = (long)((us - (double)t.tv_sec * 1e6) * 1e3);
  while (nanosleep(&t, &t) != 0) {
  }
}

int main(int argc, char** argv) {
  long total = 262144;
  int iterations = 256;
  double max_delay_ms = 100;
  double base_ms = 100;
  unsigned long long seed = 1;
  const char* pat_algorithm = "bdr"; /* -a: PAT_UseAlg's algorithm (the PAT build) */
  int opt;
  while ((opt = getopt(argc, argv, "n:i:d:b:s:a:")) != -1) {
    switch (opt) {
      case 'n':
        total = atol(optarg);
        break;
      case 'i':
        iterations = atoi(optarg);
        break;
      case 'd':
        max_delay_ms = atof(optarg);
        break;
      case 'b':
        base_ms = atof(optarg);
        break;
      case 's':
        seed = strtoull(optarg, NULL, 10);
        break;
      case 'a':
        pat_algorithm = optarg;
        break;
      default:
        fprintf(stderr, "usage: %s [-n N] [-i itNo] [-d maxDelay ms] [-b base ms] [-s seed] [-a algorithm]\n", argv[0]);
        return 2;
    }
  }

  MPI_Init(&argc, &argv);
  PAT(PAT_Init());
  PAT(PAT_UseAlg(pat_algorithm));
  (void)pat_algorithm;
  int rank = 0;
  int procs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  const long n = total / procs > 0 ? total / procs : 1; /* floats per rank */
  float* data = malloc((size_t)n * sizeof(float));
  float* gathered = malloc((size_t)n * (size_t)procs * sizeof(float));
  if (data == NULL || gathered == NULL) MPI_Abort(MPI_COMM_WORLD, 3);

  double sum_et = 0; /* sumET: elapsed times summed over ranks and iterations */
  long wrong = 0;
#ifdef RAGGED_LISTING4_PAT
  long other_algorithm = 0; /* allgathers that did not run pat_algorithm */
#endif
  for (int it = 0; it < iterations; ++it) {
    for (long j = 0; j < n; ++j) data[j] = datum(seed, rank, it, j); /* generateRandomData(N/P) */
    const double delay_ms = max_delay_ms * (double)(draw(seed, rank, it, 0) >> 11) / 9007199254740992.0;
    const double half_us = (base_ms + delay_ms / 2) * 1e3; /* halfTime = 100 ms + random(0..maxDelay)/2 */
    MPI_Barrier(MPI_COMM_WORLD);                           /* double barrier for synchronization */
    MPI_Barrier(MPI_COMM_WORLD);
    PAT(PAT_ProcessingStart());
    pause_us(half_us); /* usleep(halfTime) */
    PAT(PAT_Edge(0.5));
    pause_us(half_us); /* usleep(halfTime) */
    PAT(PAT_ProcessingEnd());
    const double start = MPI_Wtime();
    MPI_Allgather(data, (int)n, MPI_FLOAT, gathered, (int)n, MPI_FLOAT, MPI_COMM_WORLD); /* makeOperation */
    const double end = MPI_Wtime();
#ifdef RAGGED_LISTING4_PAT
    if (procs > 1 && strcmp(ragged_pmpi_last_algorithm(), pat_algorithm) != 0) {
      if (other_algorithm++ == 0)
        fprintf(stderr, "listing4: rank %d: iteration %d's MPI_Allgather ran %s, not %s\n", rank, it,
                ragged_pmpi_last_algorithm(), pat_algorithm);
    }
#endif
    for (int r = 0; r < procs; ++r) { /* checkCorrectness(data) */
      for (long j = 0; j < n; ++j) {
        if (gathered[(long)r * n + j] != datum(seed, r, it, j)) ++wrong;
      }
    }
    double my_et = end - start;
    double all_et = 0;
    MPI_Allreduce(&my_et, &all_et, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sum_et += all_et;
  }
  long all_wrong = 0;
  MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long all_other = 0;
#ifdef RAGGED_LISTING4_PAT
  MPI_Allreduce(&other_algorithm, &all_other, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
#endif
  if (rank == 0) {
    const char* algorithm = getenv("RAGGED_ALLGATHER");
    printf("listing4: P=%d N=%ld floats (%ld per rank) itNo=%d maxDelay=%g ms base=%g ms RAGGED_ALLGATHER=%s\n", procs,
           n * procs, n, iterations, max_delay_ms, base_ms, algorithm != NULL ? algorithm : "(unset)");
    printf("avgET = %.3f ms (the MPI_Allgather's elapsed time, mean over %d ranks and %d iterations)%s\n",
           sum_et / ((double)procs * iterations) * 1e3, procs, iterations, all_wrong == 0 ? "" : " WRONG RESULTS");
    if (all_other != 0) printf("listing4: %ld allgathers (over all ranks) did not run %s\n", all_other, pat_algorithm);
    fflush(stdout);
  }
  free(data);
  free(gathered);
  PAT(PAT_Finalize());
  MPI_Finalize();
  return all_wrong == 0 && all_other == 0 ? 0 : 1;
}
