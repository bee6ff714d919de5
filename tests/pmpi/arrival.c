/* mpi.pmpi.npN.arrival_*: a plain MPI program (only <mpi.h>) whose ranks arrive at an allgather
 * in a pattern, for the PMPI library's arrival awareness (docs/pmpi.md, "Arrival awareness"). Each
 * iteration: an MPI_Barrier, then the rank "computes" (sleeps) as the pattern says, then one
 * MPI_Allgather of `ints` ints per rank (or one MPI_Allreduce, MPI_SUM, of `ints` ints; one
 * MPI_Bcast of `ints` ints from the root; one MPI_Reduce, MPI_SUM, of `ints` ints to the root; one
 * MPI_Gather or MPI_Scatter of `ints` ints per rank), whose result is checked exactly. The root is
 * rank 0, or with `rotate` rank it mod P in iteration it: every call then has another root than the
 * call before, which is the plan the library's agents prepared (they must give it up cleanly).
 *
 *   arrival PATTERN [iterations, default 12] [delay ms, default 80] [late rank, default 1]
 *           [ints, default 1000] [allgather (default) | allreduce | bcast | reduce | gather | scatter]
 *           [rotate]
 *
 * PATTERN: `late` (the late rank sleeps `delay` before every allgather, the others not at all),
 * `random` (every rank sleeps a random 0..delay, drawn anew per rank and iteration), `balanced`
 * (nobody sleeps). Rank 0 prints, per iteration, what the library ran (ragged_pmpi_last_algorithm,
 * looked up with dlsym: "-" without the library), the first iteration (1-based) that ran an
 * arrival-aware algorithm, and the collective's mean elapsed time over ranks and iterations
 * (listing 4's avgET). Exit status 1 when a result was wrong. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(double ms) {
  if (ms <= 0) return;
  struct timespec t;
  t.tv_sec = (time_t)(ms / 1e3);
  t.tv_nsec = (long)((ms - (double)t.tv_sec * 1e3) * 1e6);
  while (nanosleep(&t, &t) != 0) {
  }
}

/* splitmix64 of (rank, iteration): the random pattern, the same in every run. */
static double uniform(int rank, int iteration) {
  uint64_t x = ((uint64_t)rank << 32 | (uint32_t)iteration) + 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return (double)(x >> 11) / 9007199254740992.0;
}

/* The arrival-aware algorithms of allgather, allreduce, bcast and reduce (ragged-bench list:
 * restriction "arrival"). */
static int arrival_aware(const char* name) {
  static const char* names[] = {"bdr", "bgd",          "bslb", "early_late", "slt", "prr",
                                "prd", "sorted_chain", "sls",  "bsls",       "sln", "sbn"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    if (strcmp(name, names[i]) == 0) return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* pattern = argc > 1 ? argv[1] : "late";
  const int iterations = argc > 2 ? atoi(argv[2]) : 12;
  const double delay = argc > 3 ? atof(argv[3]) : 80;
  const int late = argc > 4 ? atoi(argv[4]) : 1;
  const int ints = argc > 5 ? atoi(argv[5]) : 1000;
  const char* collective = argc > 6 ? argv[6] : "allgather";
  const int reduce = strcmp(collective, "allreduce") == 0;
  const int bcast = strcmp(collective, "bcast") == 0;
  const int rooted_reduce = strcmp(collective, "reduce") == 0;
  const int gather = strcmp(collective, "gather") == 0;
  const int scatter = strcmp(collective, "scatter") == 0;
  const int rotate = argc > 7 && strcmp(argv[7], "rotate") == 0;
  if (!reduce && !bcast && !rooted_reduce && !gather && !scatter && strcmp(collective, "allgather") != 0) {
    fprintf(stderr, "arrival: collective '%s' is not allgather, allreduce, bcast, reduce, gather or scatter\n",
            collective);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (strcmp(pattern, "late") != 0 && strcmp(pattern, "random") != 0 && strcmp(pattern, "balanced") != 0) {
    fprintf(stderr, "arrival: pattern '%s' is not late, random or balanced\n", pattern);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* (*last_algorithm)(void) = (const char* (*)(void))dlsym(RTLD_DEFAULT, "ragged_pmpi_last_algorithm");
  int* mine = malloc((size_t)ints * sizeof(int));
  int* all = malloc((size_t)ints * (size_t)size * sizeof(int));
  char(*ran)[32] = calloc((size_t)iterations, sizeof *ran);
  if (mine == NULL || all == NULL || ran == NULL) MPI_Abort(MPI_COMM_WORLD, 3);

  long wrong = 0;
  double elapsed = 0;
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < ints; ++i) mine[i] = rank * 1000003 + it * 1009 + i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(pattern, "late") == 0 && rank == late) sleep_ms(delay);
    if (strcmp(pattern, "random") == 0) sleep_ms(delay * uniform(rank, it));
    const int root = rotate ? it % size : 0;
    const double start = MPI_Wtime();
    if (bcast) {
      for (int i = 0; i < ints; ++i) all[i] = rank == root ? mine[i] : -1;
    }
    if (scatter) {
      for (int r = 0; r < size; ++r) {
        for (int i = 0; i < ints; ++i) all[r * ints + i] = rank == root ? r * 1000003 + it * 1009 + i : -1;
      }
      for (int i = 0; i < ints; ++i) mine[i] = -1;
    }
    if (reduce) {
      MPI_Allreduce(mine, all, ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (bcast) {
      MPI_Bcast(all, ints, MPI_INT, root, MPI_COMM_WORLD);
    } else if (rooted_reduce) {
      MPI_Reduce(mine, all, ints, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    } else if (gather) {
      MPI_Gather(mine, ints, MPI_INT, all, ints, MPI_INT, root, MPI_COMM_WORLD);
    } else if (scatter) {
      MPI_Scatter(all, ints, MPI_INT, mine, ints, MPI_INT, root, MPI_COMM_WORLD);
    } else {
      MPI_Allgather(mine, ints, MPI_INT, all, ints, MPI_INT, MPI_COMM_WORLD);
    }
    elapsed += MPI_Wtime() - start;
    snprintf(ran[it], sizeof ran[it], "%s", last_algorithm != NULL ? last_algorithm() : "-");
    if (bcast) {
      for (int i = 0; i < ints; ++i) wrong += all[i] != root * 1000003 + it * 1009 + i; /* the root's vector */
    } else if (scatter) {
      for (int i = 0; i < ints; ++i) wrong += mine[i] != rank * 1000003 + it * 1009 + i;
    } else if (reduce || (rooted_reduce && rank == root)) {
      const long long p = size;
      for (int i = 0; i < ints; ++i) {
        wrong += all[i] != (int)(1000003LL * p * (p - 1) / 2 + p * (it * 1009LL + i));
      }
    } else if (!rooted_reduce && (!gather || rank == root)) {
      for (int r = 0; r < size; ++r) {
        for (int i = 0; i < ints; ++i) wrong += all[r * ints + i] != r * 1000003 + it * 1009 + i;
      }
    }
  }
  long all_wrong = 0;
  MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  double all_elapsed = 0;
  MPI_Allreduce(&elapsed, &all_elapsed, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    int first = 0;
    int aware = 0;
    printf("arrival: %s, %d %ss of %d ints at np %d, delay %g ms", pattern, iterations, collective, ints, size, delay);
    if (strcmp(pattern, "late") == 0) printf(", rank %d late", late);
    if (rotate) printf(", root it mod %d", size);
    printf("\n ran:");
    for (int it = 0; it < iterations; ++it) {
      printf(" %s", ran[it]);
      if (arrival_aware(ran[it])) {
        ++aware;
        if (first == 0) first = it + 1;
      }
    }
    printf("\narrival: first arrival-aware call %d, arrival-aware in %d of %d calls, avgET = %.3f ms: %s\n", first,
           aware, iterations, all_elapsed / ((double)size * iterations) * 1e3,
           all_wrong == 0 ? "results right" : "WRONG RESULTS");
    fflush(stdout);
  }
  free(mine);
  free(all);
  free(ran);
  MPI_Finalize();
  return all_wrong == 0 ? 0 : 1;
}
