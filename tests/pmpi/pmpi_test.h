/* Helpers of the mpi.pmpi tests: plain C over <mpi.h>, no ragged header. The programs find
 * libragged_pmpi.so's two introspection functions with dlsym, so the same program works linked
 * against the library or under LD_PRELOAD, and fails when the library is not there at all.
 * Everything the harness itself communicates goes through PMPI_, never through the library. */
#ifndef RAGGED_PMPI_TEST_H
#define RAGGED_PMPI_TEST_H

#include <dlfcn.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_rank;
static int t_size;
static long t_passed;
static long t_failed;
static const char* (*t_last_fn)(void);
static long (*t_live_fn)(void);
static void (*t_reread_fn)(void);
static unsigned long long (*t_selections_fn)(void);

/* Call after MPI_Init: finds the library (or aborts: a test without it proves nothing). */
static inline void t_init(void) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &t_size);
  *(void**)(&t_last_fn) = dlsym(RTLD_DEFAULT, "ragged_pmpi_last_algorithm");
  *(void**)(&t_live_fn) = dlsym(RTLD_DEFAULT, "ragged_pmpi_live_comms");
  *(void**)(&t_reread_fn) = dlsym(RTLD_DEFAULT, "ragged_pmpi_reread_environment");
  *(void**)(&t_selections_fn) = dlsym(RTLD_DEFAULT, "ragged_pmpi_selections");
  if (t_last_fn == NULL || t_live_fn == NULL || t_reread_fn == NULL || t_selections_fn == NULL) {
    fprintf(stderr, "rank %d: libragged_pmpi.so is not loaded (no ragged_pmpi_last_algorithm)\n", t_rank);
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/* What a persistent collective's last start ran, when the test sets it (nonblocking_calls.h):
 * a persistent request's completion is the MPI library's, which tells the library nothing. */
static const char* t_last_override;

/* What the calling thread's last collective ran ("ring", "native", "native (why)"). */
static inline const char* t_last(void) { return t_last_override != NULL ? t_last_override : t_last_fn(); }
static inline long t_live(void) { return t_live_fn(); }
/* The library reads RAGGED_* once per process: after changing them, say so. */
static inline void t_reread(void) { t_reread_fn(); }
/* How many times the library's selector ran so far. */
static inline unsigned long long t_selections(void) { return t_selections_fn(); }

/* Whether the last collective ran what forcing `name` should give: `name` itself or its
 * fallback; for "native" exactly native; for "auto" anything but native. */
static inline int t_ran(const char* name, const char* fallback) {
  const char* got = t_last();
  if (strcmp(name, "native") == 0) return strcmp(got, "native") == 0;
  if (strcmp(name, "auto") == 0) return strncmp(got, "native", 6) != 0;
  if (strcmp(got, name) == 0) return 1;
  /* `fallback`: the chain of fallbacks, comma-separated (a fallback whose own restriction fails
   * runs its own: hierarchical_arrival -> prr -> reduce_bcast for a non-commutative operator). */
  for (const char* f = fallback; f != NULL && *f != '\0';) {
    const char* end = strchr(f, ',');
    const size_t n = end != NULL ? (size_t)(end - f) : strlen(f);
    if (strlen(got) == n && strncmp(got, f, n) == 0) return 1;
    f = end != NULL ? end + 1 : NULL;
  }
  return 0;
}

/* MPICH 4.0.2's in-place MPI_Reduce_scatter copies a rank's block to the front of its buffer with
 * a memcpy of overlapping ranges when the block is longer than its displacement (large counts),
 * and aborts (typerep_yaksa_pack.c:286; docs/portability.md). The tests keep in-place
 * reduce_scatter calls away from MPICH itself. */
static inline int t_mpich_reduce_scatter_in_place_bug(void) {
#if defined(MPICH)
  return 1;
#else
  return 0;
#endif
}

/* MPICH 4.0.2's nonblocking (and persistent) MPI_Ialltoallw with MPI_IN_PLACE and blocks of
   different datatypes copies with the wrong type: wrong data at np 2, "Message truncated" at np 3
   (docs/portability.md). */
static inline int t_mpich_ialltoallw_in_place_bug(void) {
#if defined(MPICH) && defined(T_NONBLOCKING)
  return 1;
#else
  return 0;
#endif
}

/* MPICH 4.0's MPI_Reduce reads MPI_IN_PLACE as a buffer at a root other than 0 and crashes
 * (pmodels/mpich#6540, fixed upstream by pmodels/mpich#6543; docs/portability.md). The tests keep
 * such calls away from the MPI library itself: this says when a reduce would meet the bug. */
static inline int t_mpich_reduce_in_place_bug(int root) {
#if defined(MPICH)
  return root != 0;
#else
  (void)root;
  return 0;
#endif
}

/* Whether the last collective went to the MPI library for a reason (a fallback). */
static inline int t_fell_back(void) { return strncmp(t_last(), "native (", 8) == 0; }

/* Every rank calls it with its own verdict; counts once per check (rank 0 prints failures of
 * all ranks as each failing rank prints its own line). Returns the agreed verdict. */
static inline int t_check(int ok, const char* fmt, ...) {
  int all = 0;
  if (!ok) {
    char text[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    fprintf(stderr, "rank %d: FAIL: %s (last: %s)\n", t_rank, text, t_last());
    fflush(stderr);
  }
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (all) {
    ++t_passed;
  } else {
    ++t_failed;
  }
  return all;
}

/* Prints the tally on rank 0 and returns the exit status. */
static inline int t_finish(const char* program) {
  if (t_rank == 0) {
    printf("%s: %ld passed, %ld failed at np %d\n", program, t_passed, t_failed, t_size);
    fflush(stdout);
  }
  return t_failed == 0 ? 0 : 1;
}

/* A value that differs by rank, position and case. */
static inline int t_value(int rank, long i, int salt) { return rank * 100003 + (int)(i * 7) + salt * 13 + 1; }

static inline void* t_alloc(size_t bytes) {
  void* p = malloc(bytes == 0 ? 1 : bytes);
  if (p == NULL) PMPI_Abort(MPI_COMM_WORLD, 3);
  return p;
}

static inline void t_fill(int* p, long n, int v) {
  for (long i = 0; i < n; ++i) p[i] = v;
}

/* The registry's algorithms, as the helper pmpi_algorithm_list wrote them ("collective name fallback"). */
typedef struct {
  char collective[32];
  char name[64];
  char fallback[64];
} t_algorithm;

static t_algorithm t_algorithms[256];
static int t_algorithm_count;

static inline void t_load_algorithms(const char* path) {
  FILE* f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "cannot open the algorithm list %s\n", path);
    PMPI_Abort(MPI_COMM_WORLD, 2);
    return;
  }
  /* PMPI_TEST_ONLY=<collective>: that collective's algorithms only (the flipped twins of the
   * tests, tests/pmpi/CMakeLists.txt, break one collective and need run no other). */
  const char* only = getenv("PMPI_TEST_ONLY");
  t_algorithm a;
  while (t_algorithm_count < 256 && fscanf(f, "%31s %63s %63s", a.collective, a.name, a.fallback) == 3) {
    if (only == NULL || strcmp(only, a.collective) == 0) t_algorithms[t_algorithm_count++] = a;
  }
  fclose(f);
  /* "auto" is every collective's too. */
  const char* collectives[] = {"allgather",
                               "allreduce",
                               "bcast",
                               "reduce",
                               "gather",
                               "scatter",
                               "gatherv",
                               "scatterv",
                               "alltoall",
                               "alltoallv",
                               "scan",
                               "exscan",
                               "reduce_scatter_block",
                               "allgatherv",
                               "reduce_scatter",
                               "alltoallw"};
  const int ncollectives = (int)(sizeof collectives / sizeof collectives[0]);
  for (int c = 0; c < ncollectives && t_algorithm_count < 256; ++c) {
    if (only != NULL && strcmp(only, collectives[c]) != 0) continue;
    t_algorithm* x = &t_algorithms[t_algorithm_count++];
    snprintf(x->collective, sizeof x->collective, "%s", collectives[c]);
    snprintf(x->name, sizeof x->name, "auto");
    snprintf(x->fallback, sizeof x->fallback, "-");
  }
}

/* The fallback of an entry, or NULL. */
static inline const char* t_fallback(const t_algorithm* a) {
  return strcmp(a->fallback, "-") == 0 ? NULL : a->fallback;
}

/* Forces `name` for `collective` through RAGGED_<COLLECTIVE>. */
static inline void t_force(const char* collective, const char* name) {
  char variable[64] = "RAGGED_";
  size_t n = strlen(variable);
  for (const char* c = collective; *c != '\0' && n + 1 < sizeof variable; ++c) {
    variable[n++] = *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
  }
  variable[n] = '\0';
  if (name == NULL) {
    unsetenv(variable);
  } else {
    setenv(variable, name, 1);
  }
  t_reread();
}

#endif
