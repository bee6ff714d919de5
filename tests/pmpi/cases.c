/* mpi.pmpi.npN.cases: what MPI allows beyond plain integers, under libragged_pmpi.so (a plain MPI
 * program, no ragged header). Every result is compared exactly with the same call made through
 * PMPI_ (the MPI library's own):
 *   - derived and non-contiguous datatypes, different on different ranks for one type signature
 *     (ragged packs them; nothing may hang or differ), with every algorithm of the collective;
 *   - MPI_BOTTOM with absolute addresses; negative displacements;
 *   - an intercommunicator (the MPI library's collective);
 *   - zero counts everywhere;
 *   - invalid arguments give the error class the MPI library gives, through MPI_ERRORS_RETURN;
 *   - an unknown algorithm name and a rules file (RAGGED_TUNING_FILE);
 *   - the library's own communicator copies run none of the program's attribute copy callbacks;
 *   - the thread level: MPI_THREAD_MULTIPLE is asked for (argv[2] "single": it was not).
 * argv[1] is the algorithm list of pmpi_algorithm_list. */
#include <unistd.h>

#include "pmpi_test.h"

#define N 6 /* ints per block */

typedef int (*allgather_fn)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);
typedef int (*bcast_fn)(void*, int, MPI_Datatype, int, MPI_Comm);
typedef int (*rooted_fn)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Comm);
typedef int (*gatherv_fn)(const void*, int, MPI_Datatype, void*, const int*, const int*, MPI_Datatype, int, MPI_Comm);
typedef int (*scatterv_fn)(const void*, const int*, const int*, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Comm);
typedef int (*alltoallv_fn)(const void*, const int*, const int*, MPI_Datatype, void*, const int*, const int*,
                            MPI_Datatype, MPI_Comm);
typedef int (*allreduce_fn)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);

/* [0]: the MPI library's own, [1]: through libragged_pmpi.so. */
static const allgather_fn ALLGATHER[2] = {PMPI_Allgather, MPI_Allgather};
static const bcast_fn BCAST[2] = {PMPI_Bcast, MPI_Bcast};
static const rooted_fn GATHER[2] = {PMPI_Gather, MPI_Gather};
static const rooted_fn SCATTER[2] = {PMPI_Scatter, MPI_Scatter};
static const gatherv_fn GATHERV[2] = {PMPI_Gatherv, MPI_Gatherv};
static const scatterv_fn SCATTERV[2] = {PMPI_Scatterv, MPI_Scatterv};
static const allgather_fn ALLTOALL[2] = {PMPI_Alltoall, MPI_Alltoall};
static const alltoallv_fn ALLTOALLV[2] = {PMPI_Alltoallv, MPI_Alltoallv};
static const allreduce_fn ALLREDUCE[2] = {PMPI_Allreduce, MPI_Allreduce};

static MPI_Datatype g_contig;  /* N ints, contiguous but derived */
static MPI_Datatype g_vec2;    /* N ints, every other int */
static MPI_Datatype g_column;  /* N ints, one every t_size ints, extent one int: a matrix column */
static MPI_Datatype g_strided; /* one int, extent two ints */

static const char* g_name;
static const char* g_fallback;
static int g_single;

/* Both buffers (index 0: native, 1: library) of `ints` ints, filled alike. */
typedef struct {
  int* b[2];
  long ints;
} pair;

static pair pair_new(long ints, int salt) {
  pair p;
  p.ints = ints;
  for (int k = 0; k < 2; ++k) {
    p.b[k] = t_alloc((size_t)(ints + 1) * sizeof(int));
    for (long i = 0; i < ints; ++i) p.b[k][i] = salt < 0 ? -1 : t_value(t_rank, i, salt);
  }
  return p;
}
static int pair_same(const pair* p) { return memcmp(p->b[0], p->b[1], (size_t)p->ints * sizeof(int)) == 0; }
static void pair_free(pair* p) {
  free(p->b[0]);
  free(p->b[1]);
}

/* The library ran the forced algorithm (or its fallback): it did not give the call to MPI. */
static int forced_ran(void) { return t_ran(g_name, g_fallback); }

/* ------------------------------------------------------------------ derived datatypes */

static void derived_allgather(void) {
  /* Send: N ints as one g_contig (even ranks) or N MPI_INT (odd); receive: rank i's block into
   * column i of an N x P matrix. */
  pair send = pair_new(N, 1);
  pair recv = pair_new((long)N * t_size, -1);
  int ran = 0;
  for (int k = 1; k >= 0; --k) {
    const int rc = t_rank % 2 == 0 ? ALLGATHER[k](send.b[k], 1, g_contig, recv.b[k], 1, g_column, MPI_COMM_WORLD)
                                   : ALLGATHER[k](send.b[k], N, MPI_INT, recv.b[k], 1, g_column, MPI_COMM_WORLD);
    if (k == 1) ran = rc == MPI_SUCCESS && forced_ran();
  }
  t_check(ran && pair_same(&recv), "allgather %s: derived send and column receive", g_name);
  pair_free(&send);
  pair_free(&recv);
}

static void derived_bcast(void) {
  for (int root = 0; root < t_size; ++root) {
    pair buf = pair_new(2 * N, t_rank == root ? 2 : -1);
    int ran = 0;
    for (int k = 1; k >= 0; --k) {
      const int rc = t_rank % 2 == 1 ? BCAST[k](buf.b[k], 1, g_vec2, root, MPI_COMM_WORLD)
                                     : BCAST[k](buf.b[k], N, MPI_INT, root, MPI_COMM_WORLD);
      if (k == 1) ran = rc == MPI_SUCCESS && forced_ran();
    }
    t_check(ran && pair_same(&buf), "bcast %s root %d: strided on odd ranks", g_name, root);
    pair_free(&buf);
  }
}

static void derived_gather_scatter(int scatter) {
  for (int root = 0; root < t_size; ++root) {
    for (int in_place = 0; in_place < 2; ++in_place) {
      const int at_root = t_rank == root;
      const int ip = in_place && at_root;
      pair small = pair_new(2 * N, scatter ? -1 : 3);
      pair big = pair_new((long)N * t_size, scatter && at_root ? 4 : -1);
      if (ip && !scatter) { /* the root's block is already in its column */
        for (int k = 0; k < 2; ++k) {
          for (int i = 0; i < N; ++i) big.b[k][(long)i * t_size + root] = t_value(t_rank, 100 + i, 3);
        }
      }
      int ran = 0;
      for (int k = 1; k >= 0; --k) {
        /* Non-roots: odd ranks one g_vec2, even ranks N MPI_INT; the root: one g_column per rank. */
        const void* sb = small.b[k];
        const int odd = t_rank % 2 == 1;
        int rc = 0;
        if (!scatter) {
          rc = GATHER[k](ip ? MPI_IN_PLACE : sb, odd ? 1 : N, odd ? g_vec2 : MPI_INT, big.b[k], 1, g_column, root,
                         MPI_COMM_WORLD);
        } else {
          rc = SCATTER[k](big.b[k], 1, g_column, ip ? MPI_IN_PLACE : small.b[k], odd ? 1 : N, odd ? g_vec2 : MPI_INT,
                          root, MPI_COMM_WORLD);
        }
        if (k == 1) ran = rc == MPI_SUCCESS && forced_ran();
      }
      t_check(ran && pair_same(&big) && pair_same(&small), "%s %s root %d in_place %d: column at the root",
              scatter ? "scatter" : "gather", g_name, root, in_place);
      pair_free(&small);
      pair_free(&big);
    }
  }
}

static void derived_gatherv_scatterv(int scatter) {
  for (int root = 0; root < t_size; ++root) {
    for (int variant = 0; variant < 3; ++variant) {
      /* variant 0: the root's type strides (staged); 1: MPI_INT with negative displacements (the
       * root's buffer is rebased); 2: the strided type with MPI_IN_PLACE at the root. */
      const int at_root = t_rank == root;
      const int ip = variant == 2 && at_root;
      int counts[16];
      int displs[16];
      long span = 0;
      for (int i = 0; i < t_size; ++i) counts[i] = (i + root) % 3 + (i == 0);
      for (int i = t_size - 1; i >= 0; --i) {
        displs[i] = (int)span;
        span += counts[i] + 1;
      }
      const long shift = variant == 1 ? span : 0; /* displacements from the middle of the buffer */
      if (variant == 1) {
        for (int i = 0; i < t_size; ++i) displs[i] -= (int)(i % 2 == 0 ? span : 0);
      }
      const MPI_Datatype root_type = variant == 1 ? MPI_INT : g_strided;
      const long element = variant == 1 ? 1 : 2; /* ints per element of root_type */
      pair big = pair_new((2 * span + 2) * element, scatter && at_root ? 5 : -1);
      const int mine = counts[t_rank];
      pair small = pair_new(mine + 1, scatter ? -1 : 6);
      if (ip && !scatter) {
        for (int k = 0; k < 2; ++k) {
          for (int i = 0; i < mine; ++i) big.b[k][(shift + displs[root] + i) * element] = t_value(t_rank, i, 6);
        }
      }
      int ran = 0;
      for (int k = 1; k >= 0; --k) {
        int* base = big.b[k] + shift * element;
        int rc = 0;
        if (!scatter) {
          rc = GATHERV[k](ip ? MPI_IN_PLACE : small.b[k], mine, MPI_INT, base, counts, displs, root_type, root,
                          MPI_COMM_WORLD);
        } else {
          rc = SCATTERV[k](base, counts, displs, root_type, ip ? MPI_IN_PLACE : small.b[k], mine, MPI_INT, root,
                           MPI_COMM_WORLD);
        }
        if (k == 1) ran = rc == MPI_SUCCESS && forced_ran();
      }
      t_check(ran && pair_same(&big) && pair_same(&small), "%s %s root %d variant %d", scatter ? "scatterv" : "gatherv",
              g_name, root, variant);
      pair_free(&big);
      pair_free(&small);
    }
  }
}

static void derived_alltoall(void) {
  for (int in_place = 0; in_place < 2; ++in_place) {
    /* Odd ranks send strided (N elements of g_strided per block), even ranks plain; everyone
     * receives strided in place, plain otherwise. */
    const int odd = t_rank % 2 == 1;
    pair send = pair_new(2L * N * t_size, 7);
    pair recv = pair_new(2L * N * t_size, in_place ? 8 : -1);
    int ran = 0;
    for (int k = 1; k >= 0; --k) {
      int rc = 0;
      if (in_place) {
        rc = ALLTOALL[k](MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv.b[k], N, g_strided, MPI_COMM_WORLD);
      } else {
        rc = ALLTOALL[k](send.b[k], N, odd ? g_strided : MPI_INT, recv.b[k], N, odd ? MPI_INT : g_strided,
                         MPI_COMM_WORLD);
      }
      if (k == 1) ran = rc == MPI_SUCCESS && forced_ran();
    }
    t_check(ran && pair_same(&recv), "alltoall %s in_place %d: strided", g_name, in_place);
    pair_free(&send);
    pair_free(&recv);
  }
}

static void derived_alltoallv(void) {
  for (int in_place = 0; in_place < 2; ++in_place) {
    int scounts[16], sdispls[16], rcounts[16], rdispls[16];
    long s = 0;
    long r = 0;
    for (int j = 0; j < t_size; ++j) {
      scounts[j] = (t_rank + j) % 3 + 1;
      rcounts[j] = (j + t_rank) % 3 + 1;
    }
    for (int j = t_size - 1; j >= 0; --j) {
      sdispls[j] = (int)s;
      s += scounts[j] + 1;
      rdispls[j] = (int)r;
      r += rcounts[j] + 2;
    }
    pair send = pair_new(s + 1, 9);
    pair recv = pair_new(2 * r + 2, in_place ? 10 : -1);
    int ran = 0;
    for (int k = 1; k >= 0; --k) {
      const void* sb = in_place ? MPI_IN_PLACE : send.b[k];
      const int rc =
          ALLTOALLV[k](sb, scounts, sdispls, MPI_INT, recv.b[k], rcounts, rdispls, g_strided, MPI_COMM_WORLD);
      if (k == 1) ran = rc == MPI_SUCCESS && forced_ran();
    }
    t_check(ran && pair_same(&recv), "alltoallv %s in_place %d: strided receive", g_name, in_place);
    pair_free(&send);
    pair_free(&recv);
  }
}

static void test_derived(void) {
  for (int a = 0; a < t_algorithm_count; ++a) {
    const t_algorithm* alg = &t_algorithms[a];
    g_name = alg->name;
    g_fallback = t_fallback(alg);
    t_force(alg->collective, alg->name);
    const char* c = alg->collective;
    if (strcmp(c, "allgather") == 0) derived_allgather();
    if (strcmp(c, "bcast") == 0) derived_bcast();
    if (strcmp(c, "gather") == 0) derived_gather_scatter(0);
    if (strcmp(c, "scatter") == 0) derived_gather_scatter(1);
    if (strcmp(c, "gatherv") == 0) derived_gatherv_scatterv(0);
    if (strcmp(c, "scatterv") == 0) derived_gatherv_scatterv(1);
    if (strcmp(c, "alltoall") == 0) derived_alltoall();
    if (strcmp(c, "alltoallv") == 0) derived_alltoallv();
    t_force(alg->collective, NULL);
  }
}

/* ------------------------------------------------------------------ MPI_BOTTOM */

static void test_bottom(void) {
  t_force("bcast", "binomial");
  t_force("allgather", "ring");
  pair buf = pair_new(N, 11);
  pair all = pair_new((long)N * t_size, -1);
  int ran_bcast = 0;
  int ran_allgather = 0;
  for (int k = 1; k >= 0; --k) {
    /* Odd ranks: MPI_BOTTOM and the absolute address of their buffer in a struct type. */
    MPI_Datatype absolute = MPI_DATATYPE_NULL;
    MPI_Aint address = 0;
    PMPI_Get_address(buf.b[k], &address);
    int length = N;
    MPI_Datatype type = MPI_INT;
    PMPI_Type_create_struct(1, &length, &address, &type, &absolute);
    PMPI_Type_commit(&absolute);
    const int odd = t_rank % 2 == 1;
    int rc =
        odd ? BCAST[k](MPI_BOTTOM, 1, absolute, 0, MPI_COMM_WORLD) : BCAST[k](buf.b[k], N, MPI_INT, 0, MPI_COMM_WORLD);
    if (k == 1) ran_bcast = rc == MPI_SUCCESS && strcmp(t_last(), "binomial") == 0;
    rc = odd ? ALLGATHER[k](MPI_BOTTOM, 1, absolute, all.b[k], N, MPI_INT, MPI_COMM_WORLD)
             : ALLGATHER[k](buf.b[k], N, MPI_INT, all.b[k], N, MPI_INT, MPI_COMM_WORLD);
    if (k == 1) ran_allgather = rc == MPI_SUCCESS && strcmp(t_last(), "ring") == 0;
    PMPI_Type_free(&absolute);
  }
  t_check(ran_bcast && pair_same(&buf), "bcast from MPI_BOTTOM with absolute addresses");
  t_check(ran_allgather && pair_same(&all), "allgather from MPI_BOTTOM with absolute addresses");
  pair_free(&buf);
  pair_free(&all);
  t_force("bcast", NULL);
  t_force("allgather", NULL);
}

/* ------------------------------------------------------------------ intercommunicator */

static void test_intercomm(void) {
  if (t_size < 2) return;
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm inter = MPI_COMM_NULL;
  const int color = t_rank % 2;
  PMPI_Comm_split(MPI_COMM_WORLD, color, t_rank, &half);
  PMPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 77, &inter);
  int remote = 0;
  PMPI_Comm_remote_size(inter, &remote);
  t_force("allgather", "ring");
  t_force("allreduce", "ring");
  pair send = pair_new(N, 12);
  pair recv = pair_new((long)N * remote, -1);
  pair sum = pair_new(N, -1);
  int ran = 1;
  for (int k = 1; k >= 0; --k) {
    int rc = ALLGATHER[k](send.b[k], N, MPI_INT, recv.b[k], N, MPI_INT, inter);
    if (k == 1) ran = ran && rc == MPI_SUCCESS && strcmp(t_last(), "native (intercommunicator)") == 0;
    rc = ALLREDUCE[k](send.b[k], sum.b[k], N, MPI_INT, MPI_SUM, inter);
    if (k == 1) ran = ran && rc == MPI_SUCCESS && strcmp(t_last(), "native (intercommunicator)") == 0;
  }
  t_check(ran && pair_same(&recv) && pair_same(&sum), "intercommunicator: allgather and allreduce are native");
  t_force("allgather", NULL);
  t_force("allreduce", NULL);
  pair_free(&send);
  pair_free(&recv);
  pair_free(&sum);
  PMPI_Comm_free(&inter);
  PMPI_Comm_free(&half);
}

/* ------------------------------------------------------------------ zero counts */

static void test_zero_counts(void) {
  const char* collectives[] = {"allgather", "allreduce", "bcast",    "reduce",   "gather",
                               "scatter",   "gatherv",   "scatterv", "alltoall", "alltoallv"};
  for (int c = 0; c < 10; ++c) t_force(collectives[c], "auto");
  int zeros[16] = {0};
  int buf[4] = {1, 2, 3, 4};
  int rc = MPI_SUCCESS;
  int root = t_size - 1;
  int* other = buf + 2;
  rc |= MPI_Allgather(buf, 0, MPI_INT, other, 0, MPI_INT, MPI_COMM_WORLD);
  rc |= MPI_Allreduce(buf, other, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  rc |= MPI_Bcast(buf, 0, MPI_INT, root, MPI_COMM_WORLD);
  rc |= MPI_Reduce(buf, other, 0, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  rc |= MPI_Gather(buf, 0, MPI_INT, other, 0, MPI_INT, root, MPI_COMM_WORLD);
  rc |= MPI_Scatter(buf, 0, MPI_INT, other, 0, MPI_INT, root, MPI_COMM_WORLD);
  rc |= MPI_Gatherv(buf, 0, MPI_INT, other, zeros, zeros, MPI_INT, root, MPI_COMM_WORLD);
  const int gatherv_ragged = strncmp(t_last(), "native", 6) != 0; /* v-collectives: ragged, all zero */
  rc |= MPI_Scatterv(buf, zeros, zeros, MPI_INT, other, 0, MPI_INT, root, MPI_COMM_WORLD);
  rc |= MPI_Alltoall(buf, 0, MPI_INT, other, 0, MPI_INT, MPI_COMM_WORLD);
  rc |= MPI_Alltoallv(buf, zeros, zeros, MPI_INT, other, zeros, zeros, MPI_INT, MPI_COMM_WORLD);
  const int alltoallv_ragged = strncmp(t_last(), "native", 6) != 0;
  /* A zero-byte block of a datatype nobody should look at. */
  rc |= MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, 0, MPI_INT, MPI_COMM_WORLD);
  const int untouched = buf[0] == 1 && buf[1] == 2 && buf[2] == 3 && buf[3] == 4;
  t_check(rc == MPI_SUCCESS && untouched && gatherv_ragged && alltoallv_ragged, "zero counts");
  for (int c = 0; c < 10; ++c) t_force(collectives[c], NULL);
}

/* ------------------------------------------------------------------ invalid arguments */

static int class_of(int code) {
  int c = MPI_SUCCESS;
  PMPI_Error_class(code, &c);
  return c;
}

static void test_invalid_arguments(void) {
  MPI_Comm comm = MPI_COMM_NULL;
  PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  t_force("bcast", "binomial");
  t_force("allgather", "ring");
  t_force("allreduce", "ring");
  t_force("gather", "binomial");
  int buf[64] = {0};
  int out[64] = {0};
  int mine[2];
  int native[2];
  for (int k = 1; k >= 0; --k) {
    int* codes = k == 1 ? mine : native;
    codes[0] = class_of(BCAST[k](buf, 1, MPI_INT, t_size, comm));                /* root out of range */
    codes[1] = class_of(ALLGATHER[k](buf, -1, MPI_INT, out, -1, MPI_INT, comm)); /* negative count */
  }
  t_check(mine[0] == native[0] && mine[0] != MPI_SUCCESS, "bcast with root %d: class %d, native %d", t_size, mine[0],
          native[0]);
  t_check(mine[1] == native[1] && mine[1] != MPI_SUCCESS, "allgather with count -1: class %d, native %d", mine[1],
          native[1]);
  int a = class_of(MPI_Allreduce(buf, out, 1, MPI_DATATYPE_NULL, MPI_SUM, comm));
  int b = class_of(PMPI_Allreduce(buf, out, 1, MPI_DATATYPE_NULL, MPI_SUM, comm));
  t_check(a == b && a != MPI_SUCCESS, "allreduce with MPI_DATATYPE_NULL: class %d, native %d", a, b);
  a = class_of(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, comm));
  b = class_of(PMPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, comm));
  t_check(a == b && a != MPI_SUCCESS, "allreduce with MPI_OP_NULL: class %d, native %d", a, b);
  /* MPI does not define MPI_SUM on MPI_BYTE: whatever the MPI library makes of it (Open MPI 4.1
   * computes it), the library gives the same, as it hands the call over. */
  a = class_of(MPI_Allreduce(buf, out, 1, MPI_BYTE, MPI_SUM, comm));
  const int handed_over = strcmp(t_last(), "native (operator not defined on the datatype)") == 0;
  b = class_of(PMPI_Allreduce(buf, out, 1, MPI_BYTE, MPI_SUM, comm));
  t_check(a == b && handed_over, "allreduce MPI_SUM on MPI_BYTE: class %d, native %d", a, b);
  a = class_of(MPI_Gather(buf, 1, MPI_INT, out, 1, MPI_INT, -5, comm));
  b = class_of(PMPI_Gather(buf, 1, MPI_INT, out, 1, MPI_INT, -5, comm));
  t_check(a == b && a != MPI_SUCCESS, "gather with root -5: class %d, native %d", a, b);
  /* An invalid communicator is reported on MPI_COMM_WORLD's (or MPI_COMM_SELF's) handler. */
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  a = class_of(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL));
  b = class_of(PMPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL));
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  t_check(a == b && a != MPI_SUCCESS, "bcast on MPI_COMM_NULL: class %d, native %d", a, b);
  t_force("bcast", NULL);
  t_force("allgather", NULL);
  t_force("allreduce", NULL);
  t_force("gather", NULL);
  PMPI_Comm_free(&comm);
}

/* ------------------------------------------------------------------ failures inside ragged */

static int g_handled;
static void record_error(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  g_handled = *code;
}

static void test_transport_error(void) {
  /* A receive shorter than the message (an erroneous program) fails inside ragged's algorithm:
   * the library calls the communicator's error handler with MPI's class for it and returns it. */
  if (t_size < 2) return;
  MPI_Comm pair_comm = MPI_COMM_NULL;
  PMPI_Comm_split(MPI_COMM_WORLD, t_rank < 2 ? 0 : MPI_UNDEFINED, t_rank, &pair_comm);
  int code = MPI_SUCCESS;
  int handled = MPI_SUCCESS;
  t_force("bcast", "linear"); /* every rank: a reread is collective over MPI_COMM_WORLD */
  if (pair_comm != MPI_COMM_NULL) {
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    PMPI_Comm_create_errhandler(record_error, &handler);
    PMPI_Comm_set_errhandler(pair_comm, handler);
    int buf[10] = {0};
    g_handled = MPI_SUCCESS;
#if defined(MPICH)
    /* MPICH raises what MPI_Wait and MPI_Test find on MPI_COMM_WORLD's handler, not on the
     * communicator of the request (docs/portability.md): with the default handler the job would
     * abort inside MPICH, before ragged sees the error. Returning, it reaches ragged, which raises
     * it on pair_comm as under Open MPI. */
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#endif
    code = class_of(MPI_Bcast(buf, t_rank == 0 ? 10 : 5, MPI_INT, 0, pair_comm));
    handled = class_of(g_handled);
#if defined(MPICH)
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
    PMPI_Errhandler_free(&handler);
    PMPI_Comm_free(&pair_comm);
  }
  t_force("bcast", NULL);
  const int ok = t_rank == 1 ? code == MPI_ERR_TRUNCATE && handled == MPI_ERR_TRUNCATE
                             : code == MPI_SUCCESS && handled == MPI_SUCCESS;
  t_check(ok, "a truncated message inside ragged: class %d, handler saw %d", code, handled);
}

/* ------------------------------------------------------------------ selection */

static void test_selection(void) {
  int in[4] = {t_rank, t_rank + 1, t_rank + 2, t_rank + 3};
  int got[4 * 16];
  int want[4 * 16];
  /* An unknown name: said once on stderr, and the MPI library runs the call. */
  t_force("allgather", "no_such_algorithm");
  int rc = MPI_Allgather(in, 4, MPI_INT, got, 4, MPI_INT, MPI_COMM_WORLD);
  const int unknown = strcmp(t_last(), "native (unknown algorithm)") == 0;
  PMPI_Allgather(in, 4, MPI_INT, want, 4, MPI_INT, MPI_COMM_WORLD);
  t_check(rc == MPI_SUCCESS && unknown && memcmp(got, want, (size_t)t_size * 16) == 0, "unknown algorithm name");
  t_force("allgather", NULL);

  /* A rules file: allgather bruck, bcast native, allreduce by cost model. */
  char path[256];
  int id = (int)getpid();
  PMPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const char* dir = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
  snprintf(path, sizeof path, "%s/ragged-pmpi-rules-%d.json", dir, id);
  if (t_rank == 0) {
    FILE* f = fopen(path, "w");
    if (f != NULL) {
      fputs(
          "{\"allgather\": [{\"algorithm\": \"bruck\"}],\n \"bcast\": [{\"algorithm\": \"native\"}],\n"
          " \"allreduce\": [{\"algorithm\": \"auto\"}]}\n",
          f);
      fclose(f);
    }
  }
  PMPI_Barrier(MPI_COMM_WORLD);
  setenv("RAGGED_TUNING_FILE", path, 1);
  t_reread();
  rc = MPI_Allgather(in, 4, MPI_INT, got, 4, MPI_INT, MPI_COMM_WORLD);
  const int bruck = strcmp(t_last(), "bruck") == 0;
  PMPI_Allgather(in, 4, MPI_INT, want, 4, MPI_INT, MPI_COMM_WORLD);
  t_check(rc == MPI_SUCCESS && bruck && memcmp(got, want, (size_t)t_size * 16) == 0, "rules file: allgather bruck");
  rc = MPI_Bcast(in, 4, MPI_INT, 0, MPI_COMM_WORLD);
  t_check(rc == MPI_SUCCESS && strcmp(t_last(), "native") == 0, "rules file: bcast native");
  rc = MPI_Allreduce(in, got, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  t_check(rc == MPI_SUCCESS && strncmp(t_last(), "native", 6) != 0, "rules file: allreduce auto");
  /* The environment comes before the rules file. */
  t_force("allgather", "ring");
  MPI_Allgather(in, 4, MPI_INT, got, 4, MPI_INT, MPI_COMM_WORLD);
  t_check(strcmp(t_last(), "ring") == 0, "RAGGED_ALLGATHER before the rules file");
  t_force("allgather", "native");
  MPI_Allgather(in, 4, MPI_INT, got, 4, MPI_INT, MPI_COMM_WORLD);
  t_check(strcmp(t_last(), "native") == 0, "RAGGED_ALLGATHER=native before the rules file");
  t_force("allgather", NULL);
  unsetenv("RAGGED_TUNING_FILE");
  t_reread();
  PMPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) remove(path);
}

/* ------------------------------------------------------------------ attributes */

static int g_copies;
static int count_copy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm, (void)keyval, (void)extra;
  ++g_copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void test_attributes(void) {
  /* The program's copy callback runs for the program's MPI_Comm_dup only, never for the
   * library's own copy; the library's state is not copied into the program's duplicate. */
  int keyval = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  MPI_Comm comm = MPI_COMM_NULL;
  PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
  static int value = 42;
  PMPI_Comm_set_attr(comm, keyval, &value);
  const long live_before = t_live();
  t_force("allgather", "ring");
  int in = t_rank;
  int out[16];
  MPI_Allgather(&in, 1, MPI_INT, out, 1, MPI_INT, comm);
  const long live_with = t_live();
  MPI_Comm copy = MPI_COMM_NULL;
  PMPI_Comm_dup(comm, &copy);
  const long live_copy = t_live();
  MPI_Allgather(&in, 1, MPI_INT, out, 1, MPI_INT, copy);
  const long live_copy_used = t_live();
  t_check(g_copies == 1 && live_with == live_before + 1 && live_copy == live_with && live_copy_used == live_with + 1,
          "attributes: %d copy callbacks (1 expected), live comms %ld %ld %ld %ld", g_copies, live_before, live_with,
          live_copy, live_copy_used);
  PMPI_Comm_free(&copy);
  PMPI_Comm_free(&comm);
  t_check(t_live() == live_before, "attributes: the states are freed with their communicators");
  t_force("allgather", NULL);
  PMPI_Comm_free_keyval(&keyval);
}

/* One selection per call: the library selects once (dispatch's selector, through the call's
 * options), never again in dispatch, for a named algorithm, for `auto` (with the arrival
 * snapshot on allreduce) and for a rules file; a call routed to the MPI library selects nothing. */
static void test_one_selection_per_call(void) {
  int in[4];
  int* got = t_alloc((size_t)t_size * 4 * sizeof(int));
  for (int i = 0; i < 4; ++i) in[i] = t_value(t_rank, i, 41);
  struct {
    const char* collective;
    const char* name;
  } settings[] = {{"allgather", "ring"}, {"allgather", "auto"},    {"allreduce", "auto"},  {"allreduce", "ring"},
                  {"bcast", "binomial"}, {"alltoall", "pairwise"}, {"allgather", "native"}};
  for (size_t k = 0; k < sizeof settings / sizeof settings[0]; ++k) {
    t_force(settings[k].collective, settings[k].name);
    const int native = strcmp(settings[k].name, "native") == 0;
    for (int call = 0; call < 3; ++call) {
      const unsigned long long before = t_selections();
      int rc = MPI_SUCCESS;
      if (strcmp(settings[k].collective, "allgather") == 0) {
        rc = MPI_Allgather(in, 4, MPI_INT, got, 4, MPI_INT, MPI_COMM_WORLD);
      } else if (strcmp(settings[k].collective, "allreduce") == 0) {
        rc = MPI_Allreduce(in, got, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      } else if (strcmp(settings[k].collective, "bcast") == 0) {
        memcpy(got, in, sizeof in);
        rc = MPI_Bcast(got, 4, MPI_INT, t_size - 1, MPI_COMM_WORLD);
      } else {
        int* send = t_alloc((size_t)t_size * 4 * sizeof(int));
        for (int i = 0; i < t_size * 4; ++i) send[i] = t_value(t_rank, i, 43);
        rc = MPI_Alltoall(send, 4, MPI_INT, got, 4, MPI_INT, MPI_COMM_WORLD);
        free(send);
      }
      const unsigned long long made = t_selections() - before;
      const unsigned long long want = native ? 0 : 1;
      t_check(rc == MPI_SUCCESS && made == want, "one selection per call: %s %s call %d made %llu selections",
              settings[k].collective, settings[k].name, call, made);
    }
    t_force(settings[k].collective, NULL);
  }
  free(got);
}

/* Settings a program changes with setenv after MPI_Init: the library took its snapshot at MPI_Init
 * (where the ranks compared it), so one rank's setenv changes nothing until every rank asks for a
 * reread, which compares again: then every collective runs natively while the ranks differ, and
 * ragged again once they agree. */
static void test_setenv_after_init(void) {
  if (t_size < 2) return;
  int in[N];
  int* got = t_alloc((size_t)t_size * N * sizeof(int));
  int* want = t_alloc((size_t)t_size * N * sizeof(int));
  for (int i = 0; i < N; ++i) in[i] = t_value(t_rank, i, 71);
  t_force("allgather", "ring");                                     /* every rank, and reread */
  if (t_rank == t_size - 1) setenv("RAGGED_ALLGATHER", "bruck", 1); /* one rank, no reread */
  int rc = MPI_Allgather(in, N, MPI_INT, got, N, MPI_INT, MPI_COMM_WORLD);
  PMPI_Allgather(in, N, MPI_INT, want, N, MPI_INT, MPI_COMM_WORLD);
  t_check(
      rc == MPI_SUCCESS && strcmp(t_last(), "ring") == 0 && memcmp(got, want, (size_t)t_size * N * sizeof(int)) == 0,
      "setenv after MPI_Init on one rank without a reread: still ring (ran %s)", t_last());
  t_reread(); /* now every rank reads again: the last rank has bruck, the others ring */
  rc = MPI_Allgather(in, N, MPI_INT, got, N, MPI_INT, MPI_COMM_WORLD);
  t_check(rc == MPI_SUCCESS && strncmp(t_last(), "native", 6) == 0 &&
              memcmp(got, want, (size_t)t_size * N * sizeof(int)) == 0,
          "settings differ after a reread: native (ran %s)", t_last());
  t_force("allgather", "bruck"); /* every rank alike again */
  rc = MPI_Allgather(in, N, MPI_INT, got, N, MPI_INT, MPI_COMM_WORLD);
  t_check(
      rc == MPI_SUCCESS && strcmp(t_last(), "bruck") == 0 && memcmp(got, want, (size_t)t_size * N * sizeof(int)) == 0,
      "settings agree again after a reread: bruck (ran %s)", t_last());
  t_force("allgather", NULL);
  free(got);
  free(want);
}

int main(int argc, char** argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  t_init();
  if (argc < 2) {
    if (t_rank == 0) fprintf(stderr, "usage: %s algorithms.txt [single]\n", argv[0]);
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  g_single = argc > 2 && strcmp(argv[2], "single") == 0;
  t_load_algorithms(argv[1]);
  int queried = -2;
  PMPI_Query_thread(&queried);
  t_check(queried == provided && provided >= MPI_THREAD_SINGLE &&
              (g_single ? provided == MPI_THREAD_SINGLE : provided == MPI_THREAD_MULTIPLE),
          "thread level: provided %d, queried %d", provided, queried);

  PMPI_Type_contiguous(N, MPI_INT, &g_contig);
  PMPI_Type_commit(&g_contig);
  PMPI_Type_vector(N, 1, 2, MPI_INT, &g_vec2);
  PMPI_Type_commit(&g_vec2);
  MPI_Datatype column = MPI_DATATYPE_NULL;
  PMPI_Type_vector(N, 1, t_size, MPI_INT, &column);
  PMPI_Type_create_resized(column, 0, (MPI_Aint)sizeof(int), &g_column);
  PMPI_Type_commit(&g_column);
  PMPI_Type_free(&column);
  PMPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &g_strided);
  PMPI_Type_commit(&g_strided);

  test_derived();
  test_bottom();
  test_intercomm();
  test_zero_counts();
  test_invalid_arguments();
  test_transport_error();
  test_selection();
  test_attributes();
  test_one_selection_per_call();
  test_setenv_after_init();

  PMPI_Type_free(&g_contig);
  PMPI_Type_free(&g_vec2);
  PMPI_Type_free(&g_column);
  PMPI_Type_free(&g_strided);
  const int status = t_finish(g_single ? "pmpi cases (no MPI_THREAD_MULTIPLE)" : "pmpi cases");
  MPI_Finalize();
  return status;
}
