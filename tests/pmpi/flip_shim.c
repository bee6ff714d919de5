/* A shim that breaks MPI_Allgather on purpose, to prove that the mpi.pmpi tests can fail: loaded
 * ahead of libragged_pmpi.so (LD_PRELOAD), it calls the library's MPI_Allgather and then flips
 * one bit of the first byte of the result, as a bug in an algorithm would. Every test that runs
 * an allgather must then fail on its own checks (tests/pmpi/CMakeLists.txt, mpi.pmpi.*.flipped_*,
 * through expect_detected.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*allgather_fn)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  static allgather_fn next = NULL;
  if (next == NULL) {
    *(void**)(&next) = dlsym(RTLD_NEXT, "MPI_Allgather");
    if (next == NULL) {
      fprintf(stderr, "flip_shim: no MPI_Allgather after the shim\n");
      abort();
    }
  }
  const int rc = next(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  int size = 0;
  if (rc == MPI_SUCCESS && recvbuf != NULL && recvcount > 0 && PMPI_Type_size(recvtype, &size) == MPI_SUCCESS &&
      size > 0) {
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_true_extent(recvtype, &lb, &extent);
    ((unsigned char*)recvbuf + lb)[0] ^= 1u;
  }
  return rc;
}
