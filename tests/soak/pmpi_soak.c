/* Soak through the PMPI library: a plain MPI program (no ragged header)
 * that runs the pap loop -- a randomly late rank, then MPI_Allgather, MPI_Allreduce and
 * MPI_Gather -- for many iterations, checks every result exactly, and checks that its
 * memory did not grow like a leak after the warm-up (a tenth of the iterations): a leak grows in
 * both halves of the rest of the run, so the heap's bytes in use (mallinfo2; the resident size
 * where there is none) must grow by less than half the limit (max growth / 2) in one half at
 * least, and the resident set size by less than 3 x the limit in the whole. A pool's high-water mark
 * (Open MPI's free lists of unexpected fragments, which grow by a chunk the first time more
 * messages wait than ever before and never shrink) steps once, in one half; a run that may
 * take such a step late can allow it, as a number of KiB the whole may grow beyond 3 x the limit.
 * Run with RAGGED_<COLLECTIVE> naming the algorithms to soak.
 *
 *   mpirun -np 4 -x RAGGED_ALLGATHER=bdr pmpi_soak [iterations] [max growth] [warm-up iterations]
 *                                                  [one step, KiB] */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long rss_kib(void) {
  long size = 0, resident = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (f == NULL) return 0;
  if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* The heap's bytes in use (glibc's mallinfo2: every arena's allocated chunks and mmapped
 * blocks), in KiB; -1 where the C library has no mallinfo2. Unlike the resident size it does
 * not grow when freed memory stays mapped (arenas of other threads, fragmentation). */
static long heap_kib(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 m = mallinfo2();
  return (long)((m.uordblks + m.hblkhd) / 1024);
#else
  return -1;
#endif
}

static void sleep_us(long us) {
  struct timespec t = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&t, NULL);
}

enum { count = 257 };

int main(int argc, char** argv) {
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = argc > 1 ? atol(argv[1]) : 10000;
  const double max_growth = argc > 2 ? atof(argv[2]) : 0.01;
  const long warm_up = argc > 3 ? atol(argv[3]) : (iterations / 10 > 100 ? iterations / 10 : 100);
  const long step_kib = argc > 4 ? atol(argv[4]) : 0;
  const int root = size - 1;
  int in[count];
  int* out = malloc(sizeof(int) * count * (size_t)size);
  int* sum = malloc(sizeof(int) * count);
  long wrong = 0, rss_warm = 0, rss_mid = 0, heap_warm = 0, heap_mid = 0;
  const long middle = warm_up + (iterations - warm_up) / 2;
  unsigned seed = 12345; /* the same draws on every rank */
  const double start = MPI_Wtime();
  for (long it = 0; it < iterations; ++it) {
    seed = seed * 1103515245u + 12345u;
    const int late = (int)((seed >> 8) % (unsigned)size);
    if (rank == late) sleep_us((long)((seed >> 16) % 200));
    for (int i = 0; i < count; ++i) in[i] = (int)((it % 1000) * 7 + rank * 1000003L + i);
    MPI_Allgather(in, count, MPI_INT, out, count, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < count; ++i)
        if (out[r * count + i] != (int)((it % 1000) * 7 + r * 1000003L + i)) ++wrong;
    MPI_Allreduce(in, sum, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < count; ++i) {
      long want = 0;
      for (int r = 0; r < size; ++r) want += (it % 1000) * 7 + r * 1000003L + i;
      if (sum[i] != (int)want) ++wrong;
    }
    MPI_Gather(in, count, MPI_INT, out, count, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root)
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < count; ++i)
          if (out[r * count + i] != (int)((it % 1000) * 7 + r * 1000003L + i)) ++wrong;
    if (it + 1 == warm_up) {
      rss_warm = rss_kib();
      heap_warm = heap_kib();
    }
    if (it + 1 == middle) {
      rss_mid = rss_kib();
      heap_mid = heap_kib();
    }
    if (rank == 0 && (it + 1) % 2000 == 0) {
      printf("  %ld/%ld iterations\n", it + 1, iterations);
      fflush(stdout);
    }
  }
  const long rss_end = rss_kib();
  const long heap_end = heap_kib();
  const double growth = rss_warm > 0 ? (double)(rss_end - rss_warm) / (double)rss_warm : 1.0;
  const double step = rss_warm > 0 ? (double)step_kib / (double)rss_warm : 0.0;
  const double first_half = rss_warm > 0 ? (double)(rss_mid - rss_warm) / (double)rss_warm : 1.0;
  const double second_half = rss_mid > 0 ? (double)(rss_end - rss_mid) / (double)rss_mid : 1.0;
  /* A leak is memory in use that grows in both halves: the heap's bytes in use where the C library
   * tells them (the resident size also grows when freed memory stays mapped), else the RSS. */
  const int heap_known = heap_warm > 0 && heap_mid > 0 && heap_end > 0;
  const double heap_first = heap_known ? (double)(heap_mid - heap_warm) / (double)heap_warm : first_half;
  const double heap_second = heap_known ? (double)(heap_end - heap_mid) / (double)heap_mid : second_half;
  const double steady = heap_first < heap_second ? heap_first : heap_second;
  const int ok = wrong == 0 && steady < max_growth / 2 && growth < 3 * max_growth + step;
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!ok || rank == 0) {
    printf(
        "[rank %d] pmpi soak: %ld iterations in %.1f s, %ld wrong elements; RSS %ld KiB after %ld, %ld KiB after "
        "%ld, %ld KiB at the end (%+.3f%%, halves %+.3f%% and %+.3f%%); heap in use %ld, %ld, %ld KiB\n",
        rank, iterations, MPI_Wtime() - start, wrong, rss_warm, warm_up, rss_mid, middle, rss_end, 100 * growth,
        100 * first_half, 100 * second_half, heap_warm, heap_mid, heap_end);
    fflush(stdout);
  }
  free(out);
  free(sum);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
