/* One MPI collective timed under SimGrid's smpirun, for side-by-side comparisons of ragged's
 * algorithms with SMPI's own on the same platform file (tools/smpi/compare, docs/bench.md).
 *
 *   collective <allreduce|allgather|bcast|reduce|alltoall|allgatherv|reduce_scatter> <count> <iterations> [spread]
 *
 * count: floats of the vector (allreduce, bcast, reduce), of one rank's block (allgather,
 * alltoall), or of all the blocks (allgatherv; reduce_scatter: the vector, its blocks spread over the ranks as
 * `ragged-bench select
 * --spread` does: equal, ramp (rank r: r + 1 parts, the default) or one (the middle rank)). Prints "seconds=<the
 * slowest rank's mean time per call>" on rank 0 after checking the result of the last call exactly (integer-valued
 * floats whose pattern differs per rank); exits 1 on a wrong result. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float value(int rank, long i) { return (float)((7 * rank + 13 * i) % 1021 + rank); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc != 4 && argc != 5) {
    if (rank == 0) {
      fprintf(stderr,
              "usage: collective <allreduce|allgather|bcast|reduce|alltoall|allgatherv> <count> <iterations> "
              "[equal|ramp|one]\n");
    }
    MPI_Finalize();
    return 2;
  }
  const char* what = argv[1];
  const long n = atol(argv[2]);
  const int iterations = atoi(argv[3]);
  const int block = !strcmp(what, "allgather") || !strcmp(what, "alltoall");
  const int irregular = !strcmp(what, "allgatherv");
  const int scatters = !strcmp(what, "reduce_scatter"); /* counts as allgatherv's, the vector all of them */
  const char* spread = argc == 5 ? argv[4] : "ramp";
  int* counts = malloc(sizeof(int) * (size_t)p);
  int* displs = malloc(sizeof(int) * (size_t)p);
  long at = 0;
  for (int r = 0; r < p; ++r) {
    if (!strcmp(spread, "one")) {
      counts[r] = r == p / 2 ? (int)n : 0;
    } else if (!strcmp(spread, "equal")) {
      counts[r] = (int)(n / p);
    } else {
      counts[r] = (int)(n * (r + 1) / ((long)p * (p + 1) / 2));
    }
    displs[r] = (int)at;
    at += counts[r];
  }
  const long in_count = !strcmp(what, "alltoall") ? n * p : irregular ? counts[rank] : n;
  const long out_count = block ? n * p : irregular ? at : scatters ? counts[rank] : n;
  float* in = malloc(sizeof(float) * (size_t)(in_count > 0 ? in_count : 1));
  float* out = malloc(sizeof(float) * (size_t)(out_count > 0 ? out_count : 1));
  for (long i = 0; i < in_count; ++i) in[i] = value(rank, i);
  double total = 0;
  for (int it = 0; it < iterations; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (!strcmp(what, "allreduce")) {
      MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(what, "allgather")) {
      MPI_Allgather(in, (int)n, MPI_FLOAT, out, (int)n, MPI_FLOAT, MPI_COMM_WORLD);
    } else if (!strcmp(what, "bcast")) {
      if (rank == 0) memcpy(out, in, sizeof(float) * (size_t)n);
      MPI_Bcast(out, (int)n, MPI_FLOAT, 0, MPI_COMM_WORLD);
    } else if (!strcmp(what, "reduce")) {
      MPI_Reduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    } else if (!strcmp(what, "alltoall")) {
      MPI_Alltoall(in, (int)n, MPI_FLOAT, out, (int)n, MPI_FLOAT, MPI_COMM_WORLD);
    } else if (irregular) {
      MPI_Allgatherv(in, counts[rank], MPI_FLOAT, out, counts, displs, MPI_FLOAT, MPI_COMM_WORLD);
    } else if (scatters) {
      MPI_Reduce_scatter(in, out, counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else {
      if (rank == 0) fprintf(stderr, "collective: unknown collective '%s'\n", what);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    total += MPI_Wtime() - t0;
  }
  int wrong = 0;
  for (long i = 0; i < out_count && !wrong; ++i) {
    double want = 0;
    if (!strcmp(what, "allreduce") || (!strcmp(what, "reduce") && rank == 0)) {
      for (int r = 0; r < p; ++r) want += value(r, i);
    } else if (scatters) {
      for (int r = 0; r < p; ++r) want += value(r, displs[rank] + i);
    } else if (!strcmp(what, "reduce")) {
      break;
    } else if (!strcmp(what, "bcast")) {
      want = value(0, i);
    } else if (!strcmp(what, "allgather")) {
      want = value((int)(i / n), i % n);
    } else if (irregular) {
      int owner = 0;
      while (owner + 1 < p && displs[owner + 1] <= i) ++owner;
      while (counts[owner] == 0) ++owner; /* an empty block shares its displacement with the next */
      want = value(owner, i - displs[owner]);
    } else {
      want = value((int)(i / n), rank * n + i % n);
    }
    wrong = (double)out[i] != want;
  }
  double worst = 0;
  MPI_Reduce(&total, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int any_wrong = 0;
  MPI_Reduce(&wrong, &any_wrong, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (any_wrong) fprintf(stderr, "collective: WRONG RESULT for %s\n", what);
    printf("seconds=%.9g\n", iterations > 0 ? worst / iterations : 0.0);
  }
  free(in);
  free(out);
  free(counts);
  free(displs);
  MPI_Finalize();
  return any_wrong ? 1 : 0;
}
