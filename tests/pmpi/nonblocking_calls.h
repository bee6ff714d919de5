/* Included by collectives.c when built as pmpi_nonblocking (T_NONBLOCKING): every blocking
 * collective the program calls becomes its nonblocking form, computation between the post and
 * the completion, and a completion call that rotates through MPI_Wait, MPI_Test, MPI_Waitall,
 * MPI_Testany, MPI_Waitany, MPI_Waitsome, MPI_Testall and MPI_Testsome. The program's checks
 * stay as they are: the results against the MPI library's own blocking collective (PMPI_), and
 * ragged_pmpi_last_algorithm() naming the forced algorithm after the completion. */
#ifndef RAGGED_PMPI_NONBLOCKING_CALLS_H
#define RAGGED_PMPI_NONBLOCKING_CALLS_H

#include "pmpi_test.h"

static unsigned long t_posts;
/* Real statuses: GCC warns on MPICH's t_statuses ((MPI_Status*)1) as an array of size 0. */
static MPI_Status t_statuses[8];
static volatile double t_sink;

/* About 20 microseconds of arithmetic: the collective must progress without the program. */
static void t_compute(void) {
  double x = 1.0;
  for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
  t_sink = x;
}

#ifdef T_PERSISTENT
#if defined(OPEN_MPI)
#include <mpi-ext.h> /* Open MPI 4.1: the persistent collectives are MPIX_..._init (pcollreq) */
#define T_INIT(name) MPIX_##name##_init
#else
#define T_INIT(name) MPI_##name##_init
#endif
static const int t_persistent = 1;
#else
static const int t_persistent = 0;
#endif

/* Whether `request` is a persistent collective request of the MPI library's own (not one the
 * library made: ragged_pmpi_request_algorithm names those). */
static inline int t_mpi_persistent(MPI_Request request) {
  const char* (*fn)(MPI_Request) = NULL;
  *(void**)(&fn) = dlsym(RTLD_DEFAULT, "ragged_pmpi_request_algorithm");
  return t_persistent && (fn == NULL || fn(request) == NULL);
}

/* MPICH 4.0.2's MPI_Testall returns MPI_ERR_IN_STATUS, every status MPI_SUCCESS, when it
 * completes one of its own persistent collectives (a plain C program does it: docs/portability.md);
 * those go through MPI_Testsome there instead. */
static inline int t_mpich_persistent_testall_bug(MPI_Request request) {
#if defined(MPICH)
  return t_mpi_persistent(request);
#else
  (void)request;
  return 0;
#endif
}

/* Completes `request` (posted with code `rc`) by the next completion call in the rotation. A
 * persistent request stays, inactive; any other becomes MPI_REQUEST_NULL. */
static inline int t_complete(int rc, MPI_Request* request) {
  if (rc != MPI_SUCCESS) return rc;
  t_check(*request != MPI_REQUEST_NULL, "the post returned a request");
  t_compute();
  MPI_Request pair[2] = {MPI_REQUEST_NULL, *request}; /* the null one must be skipped */
  int index = -1;
  int flag = 0;
  int outcount = 0;
  int indices[2];
  switch (t_posts++ % 8) {
    case 0:
      rc = MPI_Wait(request, MPI_STATUS_IGNORE);
      break;
    case 1:
      while (rc == MPI_SUCCESS && !flag) rc = MPI_Test(request, &flag, MPI_STATUS_IGNORE);
      break;
    case 2:
      rc = MPI_Waitall(1, request, t_statuses);
      break;
    case 3:
      while (rc == MPI_SUCCESS && !flag) rc = MPI_Testany(2, pair, &index, &flag, MPI_STATUS_IGNORE);
      t_check(index == 1, "MPI_Testany completed the collective's request");
      *request = pair[1];
      break;
    case 4:
      rc = MPI_Waitany(2, pair, &index, MPI_STATUS_IGNORE);
      t_check(index == 1, "MPI_Waitany completed the collective's request");
      *request = pair[1];
      break;
    case 5:
      rc = MPI_Waitsome(2, pair, &outcount, indices, t_statuses);
      t_check(outcount == 1 && indices[0] == 1, "MPI_Waitsome completed the collective's request");
      *request = pair[1];
      break;
    case 6:
      if (!t_mpich_persistent_testall_bug(*request)) {
        while (rc == MPI_SUCCESS && !flag) rc = MPI_Testall(2, pair, &flag, t_statuses);
        *request = pair[1];
        break;
      }
      /* fall through */
    default:
      while (rc == MPI_SUCCESS && outcount == 0) {
        rc = MPI_Testsome(2, pair, &outcount, indices, t_statuses);
        if (outcount == MPI_UNDEFINED) break;
      }
      t_check(outcount == 1 && indices[0] == 1, "MPI_Testsome completed the collective's request");
      *request = pair[1];
      break;
  }
  if (t_persistent) {
    t_check(*request != MPI_REQUEST_NULL, "the completed persistent request stays");
  } else {
    t_check(*request == MPI_REQUEST_NULL, "the completed request is MPI_REQUEST_NULL");
  }
  return rc;
}

#ifdef T_PERSISTENT
static char t_outcome[128];

/* What the library says the last start of `request` ran ("native" for the MPI library's own). */
static const char* t_request_algorithm(MPI_Request request) {
  const char* (*fn)(MPI_Request) = NULL;
  *(void**)(&fn) = dlsym(RTLD_DEFAULT, "ragged_pmpi_request_algorithm");
  const char* got = fn != NULL ? fn(request) : NULL;
  snprintf(t_outcome, sizeof t_outcome, "%s", got != NULL ? got : "native");
  return t_outcome;
}

/* A persistent request made with code `rc`: started (MPI_Start or MPI_Startall in turn),
 * completed, named, freed. */
static int t_started(int rc, MPI_Request* request) {
  if (rc != MPI_SUCCESS) return rc;
  t_check(*request != MPI_REQUEST_NULL, "the init returned a request");
  rc = t_posts % 2 == 0 ? MPI_Start(request) : MPI_Startall(1, request);
  rc = t_complete(rc, request);
  t_last_override = t_request_algorithm(*request);
  MPI_Request_free(request);
  return rc;
}
#endif

#ifdef T_PERSISTENT
/* Each MPI_Ixxx(args, &r) of the wrappers below becomes T_INIT(Xxx)(args, MPI_INFO_NULL, &r). */
#define MPI_Iallgather(sb, sc, st, rb, rc, rt, comm, req) \
  T_INIT(Allgather)(sb, sc, st, rb, rc, rt, comm, MPI_INFO_NULL, req)
#define MPI_Iallgatherv(sb, sc, st, rb, rcs, ds, rt, comm, req) \
  T_INIT(Allgatherv)(sb, sc, st, rb, rcs, ds, rt, comm, MPI_INFO_NULL, req)
#define MPI_Iallreduce(sb, rb, c, t, op, comm, req) T_INIT(Allreduce)(sb, rb, c, t, op, comm, MPI_INFO_NULL, req)
#define MPI_Ialltoall(sb, sc, st, rb, rc, rt, comm, req) \
  T_INIT(Alltoall)(sb, sc, st, rb, rc, rt, comm, MPI_INFO_NULL, req)
#define MPI_Ialltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, req) \
  T_INIT(Alltoallv)(sb, scs, sds, st, rb, rcs, rds, rt, comm, MPI_INFO_NULL, req)
#define MPI_Ialltoallw(sb, scs, sds, sts, rb, rcs, rds, rts, comm, req) \
  T_INIT(Alltoallw)(sb, scs, sds, sts, rb, rcs, rds, rts, comm, MPI_INFO_NULL, req)
#define MPI_Ibcast(b, c, t, root, comm, req) T_INIT(Bcast)(b, c, t, root, comm, MPI_INFO_NULL, req)
#define MPI_Ireduce(sb, rb, c, t, op, root, comm, req) T_INIT(Reduce)(sb, rb, c, t, op, root, comm, MPI_INFO_NULL, req)
#define MPI_Igather(sb, sc, st, rb, rc, rt, root, comm, req) \
  T_INIT(Gather)(sb, sc, st, rb, rc, rt, root, comm, MPI_INFO_NULL, req)
#define MPI_Igatherv(sb, sc, st, rb, rcs, ds, rt, root, comm, req) \
  T_INIT(Gatherv)(sb, sc, st, rb, rcs, ds, rt, root, comm, MPI_INFO_NULL, req)
#define MPI_Iscatter(sb, sc, st, rb, rc, rt, root, comm, req) \
  T_INIT(Scatter)(sb, sc, st, rb, rc, rt, root, comm, MPI_INFO_NULL, req)
#define MPI_Iscatterv(sb, scs, ds, st, rb, rc, rt, root, comm, req) \
  T_INIT(Scatterv)(sb, scs, ds, st, rb, rc, rt, root, comm, MPI_INFO_NULL, req)
#define MPI_Ibarrier(comm, req) T_INIT(Barrier)(comm, MPI_INFO_NULL, req)
#define MPI_Iscan(sb, rb, c, t, op, comm, req) T_INIT(Scan)(sb, rb, c, t, op, comm, MPI_INFO_NULL, req)
#define MPI_Iexscan(sb, rb, c, t, op, comm, req) T_INIT(Exscan)(sb, rb, c, t, op, comm, MPI_INFO_NULL, req)
#define MPI_Ireduce_scatter_block(sb, rb, c, t, op, comm, req) \
  T_INIT(Reduce_scatter_block)(sb, rb, c, t, op, comm, MPI_INFO_NULL, req)
#define MPI_Ireduce_scatter(sb, rb, rcs, t, op, comm, req) \
  T_INIT(Reduce_scatter)(sb, rb, rcs, t, op, comm, MPI_INFO_NULL, req)
#define T_POSTED(call)                  \
  do {                                  \
    MPI_Request t_request;              \
    const int t_rc = (call);            \
    return t_started(t_rc, &t_request); \
  } while (0)
#else
#define T_POSTED(call)                   \
  do {                                   \
    MPI_Request t_request;               \
    const int t_rc = (call);             \
    return t_complete(t_rc, &t_request); \
  } while (0)
#endif

static inline int t_allgather(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
                              MPI_Comm comm) {
  T_POSTED(MPI_Iallgather(sb, sc, st, rb, rc, rt, comm, &t_request));
}
static inline int t_allgatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int* rcs, const int* ds,
                               MPI_Datatype rt, MPI_Comm comm) {
  T_POSTED(MPI_Iallgatherv(sb, sc, st, rb, rcs, ds, rt, comm, &t_request));
}
static inline int t_allreduce(const void* sb, void* rb, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  T_POSTED(MPI_Iallreduce(sb, rb, c, t, op, comm, &t_request));
}
static inline int t_alltoall(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
                             MPI_Comm comm) {
  T_POSTED(MPI_Ialltoall(sb, sc, st, rb, rc, rt, comm, &t_request));
}
static inline int t_alltoallv(const void* sb, const int* scs, const int* sds, MPI_Datatype st, void* rb, const int* rcs,
                              const int* rds, MPI_Datatype rt, MPI_Comm comm) {
  T_POSTED(MPI_Ialltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, &t_request));
}
static inline int t_alltoallw(const void* sb, const int* scs, const int* sds, const MPI_Datatype* sts, void* rb,
                              const int* rcs, const int* rds, const MPI_Datatype* rts, MPI_Comm comm) {
  T_POSTED(MPI_Ialltoallw(sb, scs, sds, sts, rb, rcs, rds, rts, comm, &t_request));
}
static inline int t_bcast(void* b, int c, MPI_Datatype t, int root, MPI_Comm comm) {
  T_POSTED(MPI_Ibcast(b, c, t, root, comm, &t_request));
}
static inline int t_reduce(const void* sb, void* rb, int c, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm) {
  T_POSTED(MPI_Ireduce(sb, rb, c, t, op, root, comm, &t_request));
}
static inline int t_gather(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root,
                           MPI_Comm comm) {
  T_POSTED(MPI_Igather(sb, sc, st, rb, rc, rt, root, comm, &t_request));
}
static inline int t_gatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int* rcs, const int* ds,
                            MPI_Datatype rt, int root, MPI_Comm comm) {
  T_POSTED(MPI_Igatherv(sb, sc, st, rb, rcs, ds, rt, root, comm, &t_request));
}
static inline int t_scatter(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root,
                            MPI_Comm comm) {
  T_POSTED(MPI_Iscatter(sb, sc, st, rb, rc, rt, root, comm, &t_request));
}
static inline int t_scatterv(const void* sb, const int* scs, const int* ds, MPI_Datatype st, void* rb, int rc,
                             MPI_Datatype rt, int root, MPI_Comm comm) {
  T_POSTED(MPI_Iscatterv(sb, scs, ds, st, rb, rc, rt, root, comm, &t_request));
}
static inline int t_barrier(MPI_Comm comm) { T_POSTED(MPI_Ibarrier(comm, &t_request)); }
static inline int t_scan(const void* sb, void* rb, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  T_POSTED(MPI_Iscan(sb, rb, c, t, op, comm, &t_request));
}
static inline int t_exscan(const void* sb, void* rb, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  T_POSTED(MPI_Iexscan(sb, rb, c, t, op, comm, &t_request));
}
static inline int t_reduce_scatter_block(const void* sb, void* rb, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  T_POSTED(MPI_Ireduce_scatter_block(sb, rb, c, t, op, comm, &t_request));
}
static inline int t_reduce_scatter(const void* sb, void* rb, const int* rcs, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  T_POSTED(MPI_Ireduce_scatter(sb, rb, rcs, t, op, comm, &t_request));
}
#ifdef T_PERSISTENT
#undef MPI_Iallgather
#undef MPI_Iallgatherv
#undef MPI_Iallreduce
#undef MPI_Ialltoall
#undef MPI_Ialltoallv
#undef MPI_Ialltoallw
#undef MPI_Ibcast
#undef MPI_Ireduce
#undef MPI_Igather
#undef MPI_Igatherv
#undef MPI_Iscatter
#undef MPI_Iscatterv
#undef MPI_Ibarrier
#undef MPI_Iscan
#undef MPI_Iexscan
#undef MPI_Ireduce_scatter_block
#undef MPI_Ireduce_scatter
#endif

#ifdef T_PERSISTENT
/* What only persistent calls can do, with RAGGED_ALLREDUCE=ring and RAGGED_BCAST=linear: one
 * allreduce made once and started five times on new data, each result exact and named "ring";
 * two bcasts on two communicators started together by MPI_Startall, in opposite orders on odd
 * and even ranks, three times. */
static void t_nonblocking_extras(void) {
  setenv("RAGGED_ALLREDUCE", "ring", 1);
  setenv("RAGGED_BCAST", "linear", 1);
  t_reread();
  enum { n = 1000 };
  static int in[n], out[n];
  MPI_Request request;
  T_INIT(Allreduce)(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &request);
  for (int k = 0; k < 5; ++k) {
    for (int i = 0; i < n; ++i) in[i] = t_value(t_rank, i, k);
    t_check(MPI_Start(&request) == MPI_SUCCESS, "start %d of a persistent allreduce", k);
    t_compute();
    t_check(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS && request != MPI_REQUEST_NULL,
            "wait %d of a persistent allreduce leaves the request", k);
    t_check(strcmp(t_request_algorithm(request), "ring") == 0, "start %d ran ring", k);
    long bad = 0;
    for (int i = 0; i < n; ++i) {
      long want = 0;
      for (int r = 0; r < t_size; ++r) want += t_value(r, i, k);
      bad += out[i] != (int)want;
    }
    t_check(bad == 0, "start %d of a persistent allreduce: %ld wrong elements", k, bad);
  }
  MPI_Request_free(&request);

  MPI_Comm a, b;
  PMPI_Comm_dup(MPI_COMM_WORLD, &a);
  PMPI_Comm_dup(MPI_COMM_WORLD, &b);
  static int va[n], vb[n];
  MPI_Request pair[2];
  T_INIT(Bcast)(va, n, MPI_INT, 0, a, MPI_INFO_NULL, &pair[0]);
  T_INIT(Bcast)(vb, n, MPI_INT, 0, b, MPI_INFO_NULL, &pair[1]);
  MPI_Request order[2] = {pair[t_rank % 2], pair[1 - t_rank % 2]};
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < n; ++i) {
      va[i] = t_rank == 0 ? t_value(0, i, 10 + k) : -1;
      vb[i] = t_rank == 0 ? t_value(0, i, 20 + k) : -1;
    }
    t_check(MPI_Startall(2, order) == MPI_SUCCESS, "MPI_Startall %d of two persistent bcasts", k);
    t_check(MPI_Waitall(2, order, t_statuses) == MPI_SUCCESS, "MPI_Waitall %d of two persistent bcasts", k);
    long bad = 0;
    for (int i = 0; i < n; ++i) bad += (va[i] != t_value(0, i, 10 + k)) + (vb[i] != t_value(0, i, 20 + k));
    t_check(bad == 0 && strcmp(t_request_algorithm(order[0]), "linear") == 0,
            "persistent bcasts on two communicators in opposite orders, start %d: %ld wrong elements", k, bad);
  }
  MPI_Request_free(&order[0]);
  MPI_Request_free(&order[1]);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  unsetenv("RAGGED_ALLREDUCE");
  unsetenv("RAGGED_BCAST");
  t_reread();
}
#else
/* What only nonblocking calls can do, with RAGGED_ALLREDUCE=ring and RAGGED_BCAST=linear (a
 * worker per communicator): eight allreduces outstanding on one communicator at once, completed
 * by one MPI_Waitall; two communicators whose collectives the ranks post in opposite orders (odd
 * ranks the second first: a single queue for both would hang); a communicator freed between the
 * post and the wait. Every result exact, every request named by its algorithm. */
static void t_nonblocking_extras(void) {
  setenv("RAGGED_ALLREDUCE", "ring", 1);
  setenv("RAGGED_BCAST", "linear", 1);
  t_reread();
  enum { outstanding = 8, n = 1000 };
  static int in[outstanding][n], out[outstanding][n];
  MPI_Request requests[outstanding];
  for (int k = 0; k < outstanding; ++k) {
    for (int i = 0; i < n; ++i) in[k][i] = t_value(t_rank, i, k);
    MPI_Iallreduce(in[k], out[k], n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[k]);
  }
  t_compute();
  t_check(MPI_Waitall(outstanding, requests, t_statuses) == MPI_SUCCESS && strcmp(t_last(), "ring") == 0,
          "eight outstanding iallreduces complete by one MPI_Waitall");
  for (int k = 0; k < outstanding; ++k) {
    long bad = 0;
    for (int i = 0; i < n; ++i) {
      long want = 0;
      for (int r = 0; r < t_size; ++r) want += t_value(r, i, k);
      bad += out[k][i] != (int)want;
    }
    t_check(bad == 0, "outstanding iallreduce %d: %ld wrong elements", k, bad);
  }

  MPI_Comm a, b;
  PMPI_Comm_dup(MPI_COMM_WORLD, &a);
  PMPI_Comm_dup(MPI_COMM_WORLD, &b);
  int va[n], vb[n];
  for (int i = 0; i < n; ++i) va[i] = t_rank == 0 ? t_value(0, i, 1) : -1, vb[i] = t_rank == 0 ? t_value(0, i, 2) : -1;
  MPI_Request pair[2];
  if (t_rank % 2 == 0) {
    MPI_Ibcast(va, n, MPI_INT, 0, a, &pair[0]);
    MPI_Ibcast(vb, n, MPI_INT, 0, b, &pair[1]);
  } else {
    MPI_Ibcast(vb, n, MPI_INT, 0, b, &pair[1]);
    MPI_Ibcast(va, n, MPI_INT, 0, a, &pair[0]);
  }
  MPI_Comm_free(&b); /* freed before its collective completes */
  t_check(MPI_Waitall(2, pair, t_statuses) == MPI_SUCCESS && strcmp(t_last(), "linear") == 0,
          "ibcasts on two communicators posted in opposite orders");
  long bad = 0;
  for (int i = 0; i < n; ++i) bad += (va[i] != t_value(0, i, 1)) + (vb[i] != t_value(0, i, 2));
  t_check(bad == 0, "ibcasts on two communicators: %ld wrong elements", bad);
  MPI_Comm_free(&a);
  unsetenv("RAGGED_ALLREDUCE");
  unsetenv("RAGGED_BCAST");
  t_reread();
}
#endif

#define MPI_Allgather t_allgather
#define MPI_Allgatherv t_allgatherv
#define MPI_Allreduce t_allreduce
#define MPI_Alltoall t_alltoall
#define MPI_Alltoallv t_alltoallv
#define MPI_Alltoallw t_alltoallw
#define MPI_Bcast t_bcast
#define MPI_Reduce t_reduce
#define MPI_Gather t_gather
#define MPI_Gatherv t_gatherv
#define MPI_Scatter t_scatter
#define MPI_Scatterv t_scatterv
#define MPI_Barrier t_barrier
#define MPI_Scan t_scan
#define MPI_Exscan t_exscan
#define MPI_Reduce_scatter_block t_reduce_scatter_block
#define MPI_Reduce_scatter t_reduce_scatter

#endif
