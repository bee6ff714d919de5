/* mpi.pmpi.npN.collectives: a plain MPI program (no ragged header). For every algorithm of the
 * registry (argv[1], written by pmpi_algorithm_list), plus native and auto, it forces the
 * algorithm through RAGGED_<COLLECTIVE> and calls the MPI collective, then the same call through
 * PMPI_ (the MPI library's own), and compares the whole buffers exactly, on integers; it also
 * checks that the library ran the forced algorithm (or its fallback). Allreduce, reduce, scan,
 * exscan, reduce_scatter_block and reduce_scatter share the reduction cases. Counts, roots, MPI_IN_PLACE,
 * uneven v-counts with gaps, and reductions: sum on int, max on unsigned and bxor on long long
 * (MPI_Reduce_local), and a non-commutative user operator (2x2 matrix product: on MPI_INT it runs
 * through ragged's order-preserving algorithms, on a 16-byte derived element it falls back to the
 * MPI library, on an 8-byte element of shorts it runs through ragged again).
 * Built with T_NONBLOCKING (mpi.pmpi.npN.nonblocking), every collective is its nonblocking form
 * (nonblocking_calls.h). */
#include <stdint.h>

#include "pmpi_test.h"
#ifdef T_NONBLOCKING
#include "nonblocking_calls.h" /* mpi.pmpi.npN.nonblocking: every call as MPI_Ixxx + a completion */
#endif

#define GUARD 8 /* ints after every receive buffer, which nothing may write */

static const char* g_name;
static const char* g_fallback;

static int ran_forced(void) { return t_ran(g_name, g_fallback); }

/* ------------------------------------------------------------------ non-commutative operators */

/* inout = in x inout for 2x2 matrices of unsigned 32-bit integers (4 MPI_INT each). */
static void matrix_int(void* in, void* inout, int* len, MPI_Datatype* type) {
  int per = 4; /* MPI_INT: 4 elements a matrix; the 16-byte derived type: 1 element a matrix */
  if (*type != MPI_INT) per = 1;
  const int matrices = *len / (per == 4 ? 4 : 1);
  uint32_t* a = (uint32_t*)in;
  uint32_t* b = (uint32_t*)inout;
  for (int m = 0; m < matrices; ++m, a += 4, b += 4) {
    const uint32_t c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
    const uint32_t c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
    b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
  }
}

/* The same on 2x2 matrices of unsigned 16-bit integers (an 8-byte element). */
static void matrix_short(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  uint16_t* a = (uint16_t*)in;
  uint16_t* b = (uint16_t*)inout;
  for (int m = 0; m < *len; ++m, a += 4, b += 4) {
    const uint16_t c0 = (uint16_t)(a[0] * b[0] + a[1] * b[2]), c1 = (uint16_t)(a[0] * b[1] + a[1] * b[3]);
    const uint16_t c2 = (uint16_t)(a[2] * b[0] + a[3] * b[2]), c3 = (uint16_t)(a[2] * b[1] + a[3] * b[3]);
    b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
  }
}

static MPI_Op g_matrix_int;
static MPI_Op g_matrix_short;
static MPI_Datatype g_matrix16; /* contiguous(4, MPI_INT): 16 bytes */
static MPI_Datatype g_matrix8;  /* contiguous(4, MPI_SHORT): 8 bytes */

/* Matrix k of rank r: neighbours' products differ in both orders. */
static void matrix_of(int r, int k, uint32_t m[4]) {
  m[0] = 1u + (uint32_t)r;
  m[1] = 2u + (uint32_t)k;
  m[2] = (uint32_t)((r * 3 + k) % 5);
  m[3] = 1u + (uint32_t)((r + 2 * k) % 3);
}

/* The exact rank-order product of `matrices` matrices (32-bit) of ranks 0..last. */
static void rank_order_product(int matrices, int last, uint32_t* out) {
  for (int k = 0; k < matrices; ++k) {
    uint32_t p[4];
    matrix_of(0, k, p);
    for (int r = 1; r <= last; ++r) {
      uint32_t b[4];
      matrix_of(r, k, b);
      const uint32_t c0 = p[0] * b[0] + p[1] * b[2], c1 = p[0] * b[1] + p[1] * b[3];
      const uint32_t c2 = p[2] * b[0] + p[3] * b[2], c3 = p[2] * b[1] + p[3] * b[3];
      p[0] = c0, p[1] = c1, p[2] = c2, p[3] = c3;
    }
    memcpy(out + 4 * k, p, sizeof p);
  }
}

/* ------------------------------------------------------------------ reductions */

typedef struct {
  const char* label;
  MPI_Datatype type;
  MPI_Op op;
  int count;      /* elements of `type` */
  size_t element; /* bytes per element */
  int ragged;     /* 1: ragged must run it; 0: it must fall back to the MPI library */
  int matrices;   /* > 0: also compare with the exact rank-order product (32-bit matrices) */
} reduction_case;

static void fill_reduction(const reduction_case* c, unsigned char* buf, int salt) {
  const size_t bytes = (size_t)c->count * c->element;
  if (c->op == g_matrix_int) {
    for (int k = 0; k < c->matrices; ++k) matrix_of(t_rank, k, (uint32_t*)buf + 4 * k);
  } else if (c->op == g_matrix_short) {
    uint16_t* m = (uint16_t*)buf;
    for (int k = 0; k < c->count; ++k) {
      uint32_t w[4];
      matrix_of(t_rank, k, w);
      for (int j = 0; j < 4; ++j) m[4 * k + j] = (uint16_t)w[j];
    }
  } else {
    for (size_t i = 0; i < bytes; ++i) buf[i] = (unsigned char)(t_value(t_rank, (long)i, salt) * 31 + (int)(i >> 3));
  }
}

/* 0: root < 0 means MPI_Allreduce; 1: MPI_Scan; 2: MPI_Exscan (test_prefixes). */
static int g_prefix;

static void check_reduction(const reduction_case* c, int root, int in_place) {
  const size_t bytes = (size_t)c->count * c->element;
  const size_t guarded = bytes + GUARD * sizeof(int);
  unsigned char* mine = t_alloc(bytes);
  unsigned char* got = t_alloc(guarded);
  unsigned char* want = t_alloc(guarded);
  fill_reduction(c, mine, root + 3);
  memset(got, 0xA5, guarded);
  memset(want, 0xA5, guarded);
  const int here = root < 0 || t_rank == root; /* this rank receives */
  const int use_in_place = in_place && here;
  if (use_in_place) {
    memcpy(got, mine, bytes);
    memcpy(want, mine, bytes);
  }
  const void* send = use_in_place ? MPI_IN_PLACE : mine;
  /* MPICH 4.0 crashes on an in-place reduce at a root other than 0: forced "native" would hand
   * it exactly that, and the reference below passes the root's own data instead (same result). */
  const int mpich_bug = root >= 0 && in_place && t_mpich_reduce_in_place_bug(root);
  if (mpich_bug && strcmp(g_name, "native") == 0) {
    free(mine);
    free(got);
    free(want);
    return;
  }
  int rc = 0;
  int ref = 0;
  if (root < 0 && g_prefix == 1) {
    rc = MPI_Scan(send, got, c->count, c->type, c->op, MPI_COMM_WORLD);
  } else if (root < 0 && g_prefix == 2) {
    rc = MPI_Exscan(send, got, c->count, c->type, c->op, MPI_COMM_WORLD);
  } else if (root < 0) {
    rc = MPI_Allreduce(send, got, c->count, c->type, c->op, MPI_COMM_WORLD);
  } else {
    rc = MPI_Reduce(send, got, c->count, c->type, c->op, root, MPI_COMM_WORLD);
  }
  const int ran = c->ragged ? ran_forced() : (strcmp(g_name, "native") == 0 ? t_ran("native", NULL) : t_fell_back());
  if (root < 0 && g_prefix == 1) {
    ref = PMPI_Scan(send, want, c->count, c->type, c->op, MPI_COMM_WORLD);
  } else if (root < 0 && g_prefix == 2) {
    ref = PMPI_Exscan(send, want, c->count, c->type, c->op, MPI_COMM_WORLD);
  } else if (root < 0) {
    ref = PMPI_Allreduce(send, want, c->count, c->type, c->op, MPI_COMM_WORLD);
  } else {
    ref = PMPI_Reduce(mpich_bug && use_in_place ? mine : send, want, c->count, c->type, c->op, root, MPI_COMM_WORLD);
  }
  int ok = rc == MPI_SUCCESS && ref == MPI_SUCCESS && ran && memcmp(got, want, guarded) == 0;
  /* The last rank whose matrix the result holds (exscan: none at rank 0, whose recvbuf stays). */
  const int last = g_prefix == 1 ? t_rank : g_prefix == 2 ? t_rank - 1 : t_size - 1;
  if (ok && here && c->matrices > 0 && last >= 0) {
    uint32_t* exact = t_alloc((size_t)c->matrices * 16);
    rank_order_product(c->matrices, last, exact);
    ok = memcmp(got, exact, (size_t)c->matrices * 16) == 0;
    free(exact);
  }
  const char* which = root >= 0 ? "reduce" : g_prefix == 1 ? "scan" : g_prefix == 2 ? "exscan" : "allreduce";
  t_check(ok, "%s %s %s count %d root %d in_place %d", which, g_name, c->label, c->count, root, in_place);
  free(mine);
  free(got);
  free(want);
}

/* MPI_Reduce_scatter_block (`uneven` 0: size() blocks of c->count elements) and MPI_Reduce_scatter
 * (`uneven` 1: rank i's block is ((i * 5 + 1) % 4) times c->count elements, zeros included; whole
 * matrices for the matrix operators), in place or not, against the MPI library's own call (the
 * rank's block and the guard after the receive buffer; in place, MPI defines the block only). */
static void check_reduce_scatter(const reduction_case* c, int in_place, int uneven) {
  int* counts = t_alloc((size_t)t_size * sizeof(int));
  int units = 0;
  for (int i = 0; i < t_size; ++i) {
    const int u = uneven ? (i * 5 + 1) % 4 : 1;
    counts[i] = u * c->count;
    units += u;
  }
  reduction_case all = *c;
  all.count = units * c->count;
  all.matrices = c->matrices * units;
  const size_t bytes = (size_t)all.count * c->element;
  const size_t block = (size_t)counts[t_rank] * c->element;
  const size_t guarded = (in_place ? bytes : block) + GUARD * sizeof(int);
  unsigned char* mine = t_alloc(bytes);
  unsigned char* got = t_alloc(guarded);
  unsigned char* want = t_alloc(guarded);
  fill_reduction(&all, mine, uneven ? 7 : 5);
  memset(got, 0xA5, guarded);
  memset(want, 0xA5, guarded);
  if (in_place) {
    memcpy(got, mine, bytes);
    memcpy(want, mine, bytes);
  }
  const void* send = in_place ? MPI_IN_PLACE : mine;
  /* MPICH aborts in its own in-place MPI_Reduce_scatter: forced native skips it there, and the
   * reference runs out of place (the same result). */
  const int mpich_bug = uneven && in_place && t_mpich_reduce_scatter_in_place_bug();
  if (mpich_bug && strcmp(g_name, "native") == 0) {
    free(counts);
    free(mine);
    free(got);
    free(want);
    return;
  }
  const int rc = uneven ? MPI_Reduce_scatter(send, got, counts, c->type, c->op, MPI_COMM_WORLD)
                        : MPI_Reduce_scatter_block(send, got, c->count, c->type, c->op, MPI_COMM_WORLD);
  const int ran = c->ragged ? ran_forced() : (strcmp(g_name, "native") == 0 ? t_ran("native", NULL) : t_fell_back());
  const int ref = uneven ? PMPI_Reduce_scatter(mpich_bug ? mine : send, want, counts, c->type, c->op, MPI_COMM_WORLD)
                         : PMPI_Reduce_scatter_block(send, want, c->count, c->type, c->op, MPI_COMM_WORLD);
  const int ok =
      rc == MPI_SUCCESS && ref == MPI_SUCCESS && ran && memcmp(got, want, block) == 0 &&
      memcmp(got + (guarded - GUARD * sizeof(int)), want + (guarded - GUARD * sizeof(int)), GUARD * sizeof(int)) == 0;
  t_check(ok, "%s %s %s count %d in_place %d", uneven ? "reduce_scatter" : "reduce_scatter_block", g_name, c->label,
          c->count, in_place);
  free(counts);
  free(mine);
  free(got);
  free(want);
}

static void test_reductions(int rooted) {
  reduction_case cases[] = {
      {"sum int", MPI_INT, MPI_SUM, 1, 4, 1, 0},
      {"sum int", MPI_INT, MPI_SUM, 3, 4, 1, 0},
      {"sum int", MPI_INT, MPI_SUM, 1000, 4, 1, 0},
      {"sum int", MPI_INT, MPI_SUM, 100000, 4, 1, 0},
      {"max unsigned", MPI_UNSIGNED, MPI_MAX, 37, 4, 1, 0},
      {"bxor long long", MPI_LONG_LONG, MPI_BXOR, 11, 8, 1, 0},
      {"matrix int", MPI_INT, g_matrix_int, 4, 4, 1, 1},
      {"matrix int", MPI_INT, g_matrix_int, 4 * 9, 4, 1, 9},
      {"matrix 16-byte element", g_matrix16, g_matrix_int, 5, 16, 0, 5},
      {"matrix 8-byte element", g_matrix8, g_matrix_short, 6, 8, 1, 0},
  };
  const int n = (int)(sizeof cases / sizeof cases[0]);
  for (int i = 0; i < n; ++i) {
    if (rooted < 0) { /* -1: MPI_Reduce_scatter_block, -2: MPI_Reduce_scatter */
      check_reduce_scatter(&cases[i], 0, rooted == -2);
      check_reduce_scatter(&cases[i], 1, rooted == -2);
      continue;
    }
    if (!rooted) {
      check_reduction(&cases[i], -1, 0);
      check_reduction(&cases[i], -1, 1);
      continue;
    }
    for (int root = 0; root < t_size; ++root) {
      check_reduction(&cases[i], root, 0);
      if (i % 3 == 0) check_reduction(&cases[i], root, 1);
    }
  }
}

/* ------------------------------------------------------------------ regular collectives */

static void test_allgather(void) {
  const int counts[] = {1, 3, 1000, 30000};
  for (int c = 0; c < 4; ++c) {
    for (int in_place = 0; in_place < 2; ++in_place) {
      const int n = counts[c];
      const long total = (long)n * t_size + GUARD;
      int* send = t_alloc((size_t)n * sizeof(int));
      int* got = t_alloc((size_t)total * sizeof(int));
      int* want = t_alloc((size_t)total * sizeof(int));
      for (int i = 0; i < n; ++i) send[i] = t_value(t_rank, i, c);
      t_fill(got, total, -1);
      t_fill(want, total, -1);
      if (in_place) {
        memcpy(got + (long)t_rank * n, send, (size_t)n * sizeof(int));
        memcpy(want + (long)t_rank * n, send, (size_t)n * sizeof(int));
      }
      const void* s = in_place ? MPI_IN_PLACE : send;
      const int rc = MPI_Allgather(s, n, MPI_INT, got, n, MPI_INT, MPI_COMM_WORLD);
      const int ran = ran_forced();
      PMPI_Allgather(s, n, MPI_INT, want, n, MPI_INT, MPI_COMM_WORLD);
      t_check(rc == MPI_SUCCESS && ran && memcmp(got, want, (size_t)total * sizeof(int)) == 0,
              "allgather %s count %d in_place %d", g_name, n, in_place);
      free(send);
      free(got);
      free(want);
    }
  }
}

static void test_bcast(void) {
  const int counts[] = {1, 3, 1000, 100000};
  for (int c = 0; c < 4; ++c) {
    for (int root = 0; root < t_size; ++root) {
      const int n = counts[c];
      int* got = t_alloc((size_t)(n + GUARD) * sizeof(int));
      int* want = t_alloc((size_t)(n + GUARD) * sizeof(int));
      t_fill(got, n + GUARD, -1);
      t_fill(want, n + GUARD, -1);
      if (t_rank == root) {
        for (int i = 0; i < n; ++i) got[i] = want[i] = t_value(root, i, c);
      }
      const int rc = MPI_Bcast(got, n, MPI_INT, root, MPI_COMM_WORLD);
      const int ran = ran_forced();
      PMPI_Bcast(want, n, MPI_INT, root, MPI_COMM_WORLD);
      t_check(rc == MPI_SUCCESS && ran && memcmp(got, want, (size_t)(n + GUARD) * sizeof(int)) == 0,
              "bcast %s count %d root %d", g_name, n, root);
      free(got);
      free(want);
    }
  }
}

static void test_gather_scatter(int scatter) {
  const int counts[] = {1, 257};
  for (int c = 0; c < 2; ++c) {
    for (int root = 0; root < t_size; ++root) {
      for (int in_place = 0; in_place < 2; ++in_place) {
        const int n = counts[c];
        const long all = (long)n * t_size + GUARD;
        const int at_root = t_rank == root;
        int* big_got = t_alloc((size_t)all * sizeof(int));
        int* big_want = t_alloc((size_t)all * sizeof(int));
        int* small_got = t_alloc((size_t)(n + GUARD) * sizeof(int));
        int* small_want = t_alloc((size_t)(n + GUARD) * sizeof(int));
        t_fill(small_got, n + GUARD, -1);
        t_fill(small_want, n + GUARD, -1);
        t_fill(big_got, all, -1);
        t_fill(big_want, all, -1);
        int rc = 0;
        int ran = 0;
        if (!scatter) {
          for (int i = 0; i < n; ++i) small_got[i] = small_want[i] = t_value(t_rank, i, c);
          if (at_root && in_place) {
            memcpy(big_got + (long)root * n, small_got, (size_t)n * sizeof(int));
            memcpy(big_want + (long)root * n, small_got, (size_t)n * sizeof(int));
          }
          const int ip = at_root && in_place;
          rc = MPI_Gather(ip ? MPI_IN_PLACE : small_got, n, MPI_INT, big_got, n, MPI_INT, root, MPI_COMM_WORLD);
          ran = ran_forced();
          PMPI_Gather(ip ? MPI_IN_PLACE : small_want, n, MPI_INT, big_want, n, MPI_INT, root, MPI_COMM_WORLD);
        } else {
          if (at_root) {
            for (long i = 0; i < (long)n * t_size; ++i) big_got[i] = big_want[i] = t_value(root, i, c);
          }
          const int ip = at_root && in_place;
          rc = MPI_Scatter(big_got, n, MPI_INT, ip ? MPI_IN_PLACE : small_got, n, MPI_INT, root, MPI_COMM_WORLD);
          ran = ran_forced();
          PMPI_Scatter(big_want, n, MPI_INT, ip ? MPI_IN_PLACE : small_want, n, MPI_INT, root, MPI_COMM_WORLD);
        }
        const int ok = rc == MPI_SUCCESS && ran && memcmp(big_got, big_want, (size_t)all * sizeof(int)) == 0 &&
                       memcmp(small_got, small_want, (size_t)(n + GUARD) * sizeof(int)) == 0;
        t_check(ok, "%s %s count %d root %d in_place %d", scatter ? "scatter" : "gather", g_name, n, root, in_place);
        free(big_got);
        free(big_want);
        free(small_got);
        free(small_want);
      }
    }
  }
}

/* Counts of rank i's block: uneven, zeros included. */
static int v_count(int i, int root, int scale) { return ((i * 5 + root) % 4) * scale; }

static void test_gatherv_scatterv(int scatter) {
  const int scales[] = {1, 100};
  for (int s = 0; s < 2; ++s) {
    for (int root = 0; root < t_size; ++root) {
      for (int in_place = 0; in_place < 2; ++in_place) {
        const int scale = scales[s];
        int* counts = t_alloc((size_t)t_size * sizeof(int));
        int* displs = t_alloc((size_t)t_size * sizeof(int));
        long span = 0;
        for (int i = t_size - 1; i >= 0; --i) { /* blocks in reverse rank order, one int apart */
          counts[i] = v_count(i, root, scale);
          displs[i] = (int)span;
          span += counts[i] + 1;
        }
        span += GUARD;
        const int mine = v_count(t_rank, root, scale);
        const int at_root = t_rank == root;
        const int ip = at_root && in_place;
        int* big_got = t_alloc((size_t)span * sizeof(int));
        int* big_want = t_alloc((size_t)span * sizeof(int));
        int* small_got = t_alloc((size_t)(mine + GUARD) * sizeof(int));
        int* small_want = t_alloc((size_t)(mine + GUARD) * sizeof(int));
        t_fill(big_got, span, -1);
        t_fill(big_want, span, -1);
        t_fill(small_got, mine + GUARD, -1);
        t_fill(small_want, mine + GUARD, -1);
        int rc = 0;
        int ran = 0;
        if (!scatter) {
          for (int i = 0; i < mine; ++i) small_got[i] = small_want[i] = t_value(t_rank, i, s);
          if (ip) {
            memcpy(big_got + displs[root], small_got, (size_t)mine * sizeof(int));
            memcpy(big_want + displs[root], small_got, (size_t)mine * sizeof(int));
          }
          rc = MPI_Gatherv(ip ? MPI_IN_PLACE : small_got, mine, MPI_INT, big_got, counts, displs, MPI_INT, root,
                           MPI_COMM_WORLD);
          ran = ran_forced();
          PMPI_Gatherv(ip ? MPI_IN_PLACE : small_want, mine, MPI_INT, big_want, counts, displs, MPI_INT, root,
                       MPI_COMM_WORLD);
        } else {
          if (at_root) {
            for (long i = 0; i < span - GUARD; ++i) big_got[i] = big_want[i] = t_value(root, i, s);
          }
          rc = MPI_Scatterv(big_got, counts, displs, MPI_INT, ip ? MPI_IN_PLACE : small_got, mine, MPI_INT, root,
                            MPI_COMM_WORLD);
          ran = ran_forced();
          PMPI_Scatterv(big_want, counts, displs, MPI_INT, ip ? MPI_IN_PLACE : small_want, mine, MPI_INT, root,
                        MPI_COMM_WORLD);
        }
        const int ok = rc == MPI_SUCCESS && ran && memcmp(big_got, big_want, (size_t)span * sizeof(int)) == 0 &&
                       memcmp(small_got, small_want, (size_t)(mine + GUARD) * sizeof(int)) == 0;
        t_check(ok, "%s %s scale %d root %d in_place %d", scatter ? "scatterv" : "gatherv", g_name, scale, root,
                in_place);
        free(counts);
        free(displs);
        free(big_got);
        free(big_want);
        free(small_got);
        free(small_want);
      }
    }
  }
}

/* Every rank's block to every rank: uneven counts, zeros included, in reverse rank order one int
 * apart, the gaps and a guard never written; then the same counts through a strided receive
 * datatype (every other int: the library stages the blocks and unpacks them). */
static void test_allgatherv(void) {
  const int scales[] = {1, 100};
  for (int s = 0; s < 2; ++s) {
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (int strided = 0; strided < 2; ++strided) {
        const int scale = scales[s];
        const int stride = strided ? 2 : 1;
        MPI_Datatype rtype = MPI_INT;
        if (strided) {
          MPI_Datatype vec;
          MPI_Type_vector(1, 1, 2, MPI_INT, &vec);
          MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * sizeof(int)), &rtype);
          MPI_Type_commit(&rtype);
          MPI_Type_free(&vec);
        }
        int* counts = t_alloc((size_t)t_size * sizeof(int));
        int* displs = t_alloc((size_t)t_size * sizeof(int));
        long span = 0; /* in elements of rtype */
        for (int i = t_size - 1; i >= 0; --i) {
          counts[i] = v_count(i, 1, scale);
          displs[i] = (int)span;
          span += counts[i] + 1;
        }
        const long ints = span * stride + GUARD;
        const int mine = counts[t_rank];
        int* got = t_alloc((size_t)ints * sizeof(int));
        int* want = t_alloc((size_t)ints * sizeof(int));
        int* send = t_alloc((size_t)(mine + 1) * sizeof(int));
        t_fill(got, ints, -1);
        t_fill(want, ints, -1);
        for (int i = 0; i < mine; ++i) send[i] = t_value(t_rank, i, s + 3 * strided);
        if (in_place) {
          for (int i = 0; i < mine; ++i) {
            got[((long)displs[t_rank] + i) * stride] = want[((long)displs[t_rank] + i) * stride] = send[i];
          }
        }
        const void* sb = in_place ? MPI_IN_PLACE : send;
        const int rc = MPI_Allgatherv(sb, mine, MPI_INT, got, counts, displs, rtype, MPI_COMM_WORLD);
        const int ran = ran_forced();
        PMPI_Allgatherv(sb, mine, MPI_INT, want, counts, displs, rtype, MPI_COMM_WORLD);
        t_check(rc == MPI_SUCCESS && ran && memcmp(got, want, (size_t)ints * sizeof(int)) == 0,
                "allgatherv %s scale %d in_place %d strided %d", g_name, scale, in_place, strided);
        if (strided) MPI_Type_free(&rtype);
        free(counts);
        free(displs);
        free(got);
        free(want);
        free(send);
      }
    }
  }
}

static void test_alltoall(void) {
  const int counts[] = {1, 3, 200, 10000};
  for (int c = 0; c < 4; ++c) {
    for (int in_place = 0; in_place < 2; ++in_place) {
      const int n = counts[c];
      const long total = (long)n * t_size + GUARD;
      int* send = t_alloc((size_t)total * sizeof(int));
      int* got = t_alloc((size_t)total * sizeof(int));
      int* want = t_alloc((size_t)total * sizeof(int));
      for (long i = 0; i < (long)n * t_size; ++i) send[i] = t_value(t_rank, i, c);
      t_fill(got, total, -1);
      t_fill(want, total, -1);
      if (in_place) {
        memcpy(got, send, (size_t)n * (size_t)t_size * sizeof(int));
        memcpy(want, send, (size_t)n * (size_t)t_size * sizeof(int));
      }
      const void* s = in_place ? MPI_IN_PLACE : send;
      const int rc = MPI_Alltoall(s, n, MPI_INT, got, n, MPI_INT, MPI_COMM_WORLD);
      const int ran = ran_forced();
      PMPI_Alltoall(s, n, MPI_INT, want, n, MPI_INT, MPI_COMM_WORLD);
      t_check(rc == MPI_SUCCESS && ran && memcmp(got, want, (size_t)total * sizeof(int)) == 0,
              "alltoall %s count %d in_place %d", g_name, n, in_place);
      free(send);
      free(got);
      free(want);
    }
  }
}

/* Rank `from` sends rank `to` this many ints; symmetric, so that MPI_IN_PLACE works too. */
static int a_count(int from, int to, int scale) { return ((from + to) % 4) * scale; }

static void test_alltoallv(void) {
  const int scales[] = {1, 50};
  for (int s = 0; s < 2; ++s) {
    for (int in_place = 0; in_place < 2; ++in_place) {
      const int scale = scales[s];
      int* scounts = t_alloc((size_t)t_size * sizeof(int));
      int* sdispls = t_alloc((size_t)t_size * sizeof(int));
      int* rcounts = t_alloc((size_t)t_size * sizeof(int));
      int* rdispls = t_alloc((size_t)t_size * sizeof(int));
      long sspan = 0;
      long rspan = 0;
      for (int j = t_size - 1; j >= 0; --j) { /* send blocks in reverse order with gaps */
        scounts[j] = a_count(t_rank, j, scale);
        sdispls[j] = (int)sspan;
        sspan += scounts[j] + 2;
      }
      for (int j = 0; j < t_size; ++j) { /* receive blocks in rank order with gaps */
        rcounts[j] = a_count(j, t_rank, scale);
        rdispls[j] = (int)rspan;
        rspan += rcounts[j] + 1;
      }
      rspan += GUARD;
      int* send = t_alloc((size_t)(sspan + 1) * sizeof(int));
      int* got = t_alloc((size_t)rspan * sizeof(int));
      int* want = t_alloc((size_t)rspan * sizeof(int));
      for (long i = 0; i < sspan; ++i) send[i] = t_value(t_rank, i, s);
      t_fill(got, rspan, -1);
      t_fill(want, rspan, -1);
      if (in_place) {
        for (long i = 0; i < rspan - GUARD; ++i) got[i] = want[i] = t_value(t_rank, i, s + 7);
      }
      const void* sb = in_place ? MPI_IN_PLACE : send;
      const int rc = MPI_Alltoallv(sb, scounts, sdispls, MPI_INT, got, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
      const int ran = ran_forced();
      PMPI_Alltoallv(sb, scounts, sdispls, MPI_INT, want, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
      t_check(rc == MPI_SUCCESS && ran && memcmp(got, want, (size_t)rspan * sizeof(int)) == 0,
              "alltoallv %s scale %d in_place %d", g_name, scale, in_place);
      free(scounts);
      free(sdispls);
      free(rcounts);
      free(rdispls);
      free(send);
      free(got);
      free(want);
    }
  }
}

/* alltoallw: the block from rank a to rank b is w_count(a, b) elements of w_type(a, b), one of
   int, double, char and a vector of 2 ints 3 apart (a derived type with holes, packed by the
   library), at byte displacements in reverse rank order with gaps; in place, one count and type
   per pair of ranks. Compared bytewise with the MPI library's own MPI_Alltoallw. */
static MPI_Datatype w_vector = MPI_DATATYPE_NULL;
static MPI_Datatype w_type(int a, int b, int in_place) {
  const int x = in_place ? (a < b ? a : b) : a;
  const int y = in_place ? (a < b ? b : a) : b;
  const MPI_Datatype types[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, w_vector};
  return types[(x * 3 + y) % 4];
}
static int w_count(int a, int b, int in_place, int scale) {
  const int x = in_place ? (a < b ? a : b) : a;
  const int y = in_place ? (a < b ? b : a) : b;
  return ((x + 2 * y) % 3) * scale;
}
static long w_layout(int sending, int in_place, int scale, int* counts, int* displs, MPI_Datatype* types) {
  long span = 0;
  for (int j = t_size - 1; j >= 0; --j) {
    const int from = sending ? t_rank : j;
    const int to = sending ? j : t_rank;
    MPI_Aint lb = 0;
    MPI_Aint extent = 0;
    types[j] = w_type(from, to, in_place);
    counts[j] = w_count(from, to, in_place, scale);
    MPI_Type_get_extent(types[j], &lb, &extent);
    span += 8; /* a gap before every block */
    displs[j] = (int)span;
    span += (long)counts[j] * (long)extent;
  }
  return span;
}

static void test_alltoallw(void) {
  MPI_Type_vector(2, 1, 3, MPI_INT, &w_vector);
  MPI_Type_commit(&w_vector);
  const int scales[] = {1, 40};
  for (int s = 0; s < 2; ++s) {
    for (int in_place = 0; in_place < 2; ++in_place) {
      const int scale = scales[s];
      /* MPICH's own in-place MPI_Ialltoallw is wrong: forced native skips it there (ragged's
         algorithms still run it; the blocking reference is right). */
      if (in_place && t_mpich_ialltoallw_in_place_bug() && strcmp(g_name, "native") == 0) continue;
      int* scounts = t_alloc((size_t)t_size * sizeof(int));
      int* sdispls = t_alloc((size_t)t_size * sizeof(int));
      int* rcounts = t_alloc((size_t)t_size * sizeof(int));
      int* rdispls = t_alloc((size_t)t_size * sizeof(int));
      MPI_Datatype* stypes = t_alloc((size_t)t_size * sizeof(MPI_Datatype));
      MPI_Datatype* rtypes = t_alloc((size_t)t_size * sizeof(MPI_Datatype));
      const long sspan = w_layout(1, in_place, scale, scounts, sdispls, stypes);
      const long rspan = w_layout(0, in_place, scale, rcounts, rdispls, rtypes) + GUARD;
      unsigned char* send = t_alloc((size_t)sspan + 1);
      unsigned char* got = t_alloc((size_t)rspan);
      unsigned char* want = t_alloc((size_t)rspan);
      for (long i = 0; i < sspan; ++i) send[i] = (unsigned char)t_value(t_rank, i, s);
      for (long i = 0; i < rspan; ++i) got[i] = want[i] = in_place ? (unsigned char)t_value(t_rank, i, s + 7) : 0xEE;
      const void* sb = in_place ? MPI_IN_PLACE : send;
      const int rc = MPI_Alltoallw(sb, scounts, sdispls, stypes, got, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
      const int ran = ran_forced();
      PMPI_Alltoallw(sb, scounts, sdispls, stypes, want, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
      t_check(rc == MPI_SUCCESS && ran && memcmp(got, want, (size_t)rspan) == 0, "alltoallw %s scale %d in_place %d",
              g_name, scale, in_place);
      free(scounts);
      free(sdispls);
      free(rcounts);
      free(rdispls);
      free(stypes);
      free(rtypes);
      free(send);
      free(got);
      free(want);
    }
  }
  MPI_Type_free(&w_vector);
}

static void run_collective(const char* collective) {
  if (strcmp(collective, "allgather") == 0) test_allgather();
  if (strcmp(collective, "allreduce") == 0) test_reductions(0);
  if (strcmp(collective, "reduce") == 0) test_reductions(1);
  if (strcmp(collective, "reduce_scatter_block") == 0) test_reductions(-1);
  if (strcmp(collective, "reduce_scatter") == 0) test_reductions(-2);
  if (strcmp(collective, "scan") == 0 || strcmp(collective, "exscan") == 0) {
    g_prefix = strcmp(collective, "scan") == 0 ? 1 : 2;
    test_reductions(0);
    g_prefix = 0;
  }
  if (strcmp(collective, "bcast") == 0) test_bcast();
  if (strcmp(collective, "gather") == 0) test_gather_scatter(0);
  if (strcmp(collective, "scatter") == 0) test_gather_scatter(1);
  if (strcmp(collective, "gatherv") == 0) test_gatherv_scatterv(0);
  if (strcmp(collective, "scatterv") == 0) test_gatherv_scatterv(1);
  if (strcmp(collective, "alltoall") == 0) test_alltoall();
  if (strcmp(collective, "alltoallv") == 0) test_alltoallv();
  if (strcmp(collective, "alltoallw") == 0) test_alltoallw();
  if (strcmp(collective, "allgatherv") == 0) test_allgatherv();
}

/* With nothing set, every collective is the MPI library's. */
static void test_nothing_set(void) {
  int in = t_rank + 1;
  int out[64];
  MPI_Allgather(&in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
  t_check(t_ran("native", NULL), "allgather with nothing set runs native");
  MPI_Allreduce(&in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  t_check(t_ran("native", NULL) && out[0] == t_size * (t_size + 1) / 2, "allreduce with nothing set runs native");
  MPI_Bcast(&in, 1, MPI_INT, 0, MPI_COMM_WORLD);
  t_check(t_ran("native", NULL) && in == 1, "bcast with nothing set runs native");
  MPI_Barrier(MPI_COMM_WORLD);
  t_check(t_ran("native", NULL), "barrier with nothing set runs native");
}

static void test_barrier(void) {
  const char* names[] = {"native", "dissemination", "auto"};
  for (int i = 0; i < 3; ++i) {
    setenv("RAGGED_BARRIER", names[i], 1);
    t_reread();
    const int rc = MPI_Barrier(MPI_COMM_WORLD);
    const char* want = i == 0 ? "native" : "dissemination";
    t_check(rc == MPI_SUCCESS && strcmp(t_last(), want) == 0, "barrier %s", names[i]);
  }
  unsetenv("RAGGED_BARRIER");
  t_reread();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  t_init();
  if (argc < 2) {
    if (t_rank == 0) fprintf(stderr, "usage: %s algorithms.txt\n", argv[0]);
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  t_load_algorithms(argv[1]);
  PMPI_Op_create(matrix_int, 0, &g_matrix_int);
  PMPI_Op_create(matrix_short, 0, &g_matrix_short);
  PMPI_Type_contiguous(4, MPI_INT, &g_matrix16);
  PMPI_Type_commit(&g_matrix16);
  PMPI_Type_contiguous(4, MPI_SHORT, &g_matrix8);
  PMPI_Type_commit(&g_matrix8);

  test_nothing_set();
  const double started = PMPI_Wtime();
  for (int a = 0; a < t_algorithm_count; ++a) {
    const t_algorithm* alg = &t_algorithms[a];
    const long failed_before = t_failed;
    g_name = alg->name;
    g_fallback = t_fallback(alg);
    t_force(alg->collective, alg->name);
    run_collective(alg->collective);
    t_force(alg->collective, NULL);
    if (t_rank == 0 && t_failed != failed_before) printf("  %s/%s failed\n", alg->collective, alg->name);
  }
  test_barrier();
#ifdef T_NONBLOCKING
  t_nonblocking_extras();
#endif
  if (t_rank == 0) printf("%d algorithms in %.1f s\n", t_algorithm_count, PMPI_Wtime() - started);

  PMPI_Op_free(&g_matrix_int);
  PMPI_Op_free(&g_matrix_short);
  PMPI_Type_free(&g_matrix16);
  PMPI_Type_free(&g_matrix8);
  const int status = t_finish("pmpi collectives");
  MPI_Finalize();
  return status;
}
