/* For pmpi_fortran_persistent (nonblocking.f90 built with T_PERSISTENT): what the library says a
 * persistent request's last start ran (ragged_pmpi_request_algorithm), noted before the program
 * frees the request, and returned where the program asks for the last algorithm. A persistent
 * request's completion is the MPI library's, which tells the library's thread-local "last"
 * nothing. A request of the MPI library's own (the variable native) is "native". */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

static char t_name[128] = "none";

void t_note(MPI_Fint* request) {
  const char* (*fn)(MPI_Request) = NULL;
  *(void**)(&fn) = dlsym(RTLD_DEFAULT, "ragged_pmpi_request_algorithm");
  const char* name = fn != NULL ? fn(MPI_Request_f2c(*request)) : NULL;
  snprintf(t_name, sizeof t_name, "%s", name != NULL ? name : "native");
}

const char* t_persistent_last(void) { return t_name; }
