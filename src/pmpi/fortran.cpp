// The Fortran entry points of libragged_pmpi.so (docs/pmpi.md, "Fortran"; docs/portability.md).
//
// With either MPI library this file defines the Fortran symbols of the collectives the library
// intercepts, in the four spellings the MPI libraries export (mpi_bcast_ as gfortran calls it,
// mpi_bcast, mpi_bcast__ and MPI_BCAST), so that a Fortran program linked with the library
// references it (a linker with --as-needed, Debian's default, drops a library the program
// references nothing of). What they do depends on the MPI library's Fortran bindings:
//
// Open MPI (libmpi_mpifh, behind `include 'mpif.h'` and `use mpi`): its bindings call PMPI_
// functions directly, so a library with only the C MPI_ symbols would never see a Fortran
// program. Each entry point converts the handles with MPI_*_f2c, recognises the Fortran
// MPI_IN_PLACE and MPI_BOTTOM by the address of their common blocks (mpi_fortran_in_place_,
// mpi_fortran_bottom_: MPI exports them; a Fortran program's references bind to the same
// object), and calls the library's C entry points, which route the call (collectives.cpp).
//
// MPICH (libmpichfort, and the libraries derived from it): its bindings convert handles and
// sentinels themselves (MPICH's sentinels are other objects) and then call the C MPI_
// functions, which this library defines. Each entry point hands the call to MPICH's own binding
// under its profiling name (pmpi_bcast_, the same code as mpi_bcast_), which converts the
// arguments and calls MPI_Bcast: the library's C entry point.
//
// `use mpi_f08` calls other symbols (mpi_bcast_f08_) and is not intercepted.
#include <mpi.h>

#include <cstddef>
#include <mutex>
#include <set>
#include <vector>

#include "completion.hpp"
#include "pmpi.hpp"

#if defined(OPEN_MPI)
#include <mpi-ext.h>  // OMPI_HAVE_MPI_EXT_PCOLLREQ, MPIX_Allreduce_init & co.
#endif

// Every entry point in its four spellings: NAME_ (the definition), NAME, NAME__ and UPPER.
#define RAGGED_FORTRAN_ALIASES(lower, upper, params)                           \
  RAGGED_PMPI_EXPORT void lower params __attribute__((alias(#lower "_")));     \
  RAGGED_PMPI_EXPORT void lower##__ params __attribute__((alias(#lower "_"))); \
  RAGGED_PMPI_EXPORT void upper params __attribute__((alias(#lower "_")));

#if defined(OPEN_MPI)

extern "C" {
// Defined by the MPI library (the Fortran sentinels of Open MPI; common blocks in mpif.h).
extern int mpi_fortran_in_place_ __attribute__((weak));  // absent from MPI libraries without these sentinels
extern int mpi_fortran_bottom_ __attribute__((weak));
}

namespace {

/// A Fortran buffer argument as C sees it: MPI_IN_PLACE and MPI_BOTTOM are recognised by address.
void* buffer(void* f) {
  if (f == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (f == &mpi_fortran_bottom_) return MPI_BOTTOM;
  return f;
}
const void* cbuffer(void* f) { return buffer(f); }

MPI_Comm comm(const MPI_Fint* c) { return MPI_Comm_f2c(*c); }
MPI_Datatype type(const MPI_Fint* t) { return MPI_Type_f2c(*t); }
MPI_Op op(const MPI_Fint* o) { return MPI_Op_f2c(*o); }

/// Sleeps until the library's requests among the Fortran handles `requests[0..count)` are done
/// (completion::await); converts nothing while the library has none.
void await(MPI_Fint count, const MPI_Fint* requests, bool all) {
  if (!ragged::pmpi::completion::tracking() || count <= 0 || requests == nullptr) return;
  std::vector<MPI_Request> c(static_cast<std::size_t>(count));
  for (MPI_Fint i = 0; i < count; ++i) c[static_cast<std::size_t>(i)] = MPI_Request_f2c(requests[i]);
  ragged::pmpi::completion::await(static_cast<int>(count), c.data(), all);
}

}  // namespace

extern "C" {

RAGGED_PMPI_EXPORT void mpi_allgather_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                                       MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* c, MPI_Fint* ierr) {
  *ierr =
      MPI_Allgather(cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), *recvcount, type(recvtype), comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_allgather, MPI_ALLGATHER,
                       (void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_allgatherv_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                                        MPI_Fint* recvcounts, MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* c,
                                        MPI_Fint* ierr) {
  *ierr = MPI_Allgatherv(cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), recvcounts, displs,
                         type(recvtype), comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_allgatherv, MPI_ALLGATHERV,
                       (void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_allreduce_(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* o,
                                       MPI_Fint* c, MPI_Fint* ierr) {
  *ierr = MPI_Allreduce(cbuffer(sendbuf), buffer(recvbuf), *count, type(datatype), op(o), comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_allreduce, MPI_ALLREDUCE,
                       (void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_reduce_(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* o,
                                    MPI_Fint* root, MPI_Fint* c, MPI_Fint* ierr) {
  *ierr = MPI_Reduce(cbuffer(sendbuf), buffer(recvbuf), *count, type(datatype), op(o), *root, comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_reduce, MPI_REDUCE,
                       (void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_scan_(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* o,
                                  MPI_Fint* c, MPI_Fint* ierr) {
  *ierr = MPI_Scan(cbuffer(sendbuf), buffer(recvbuf), *count, type(datatype), op(o), comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_scan, MPI_SCAN, (void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_exscan_(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* o,
                                    MPI_Fint* c, MPI_Fint* ierr) {
  *ierr = MPI_Exscan(cbuffer(sendbuf), buffer(recvbuf), *count, type(datatype), op(o), comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_exscan, MPI_EXSCAN, (void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_reduce_scatter_block_(void* sendbuf, void* recvbuf, MPI_Fint* recvcount, MPI_Fint* datatype,
                                                  MPI_Fint* o, MPI_Fint* c, MPI_Fint* ierr) {
  *ierr = MPI_Reduce_scatter_block(cbuffer(sendbuf), buffer(recvbuf), *recvcount, type(datatype), op(o), comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
                       (void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_reduce_scatter_(void* sendbuf, void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* datatype,
                                            MPI_Fint* o, MPI_Fint* c, MPI_Fint* ierr) {
  *ierr = MPI_Reduce_scatter(cbuffer(sendbuf), buffer(recvbuf), recvcounts, type(datatype), op(o), comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_reduce_scatter, MPI_REDUCE_SCATTER,
                       (void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_bcast_(void* buf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* root, MPI_Fint* c,
                                   MPI_Fint* ierr) {
  *ierr = MPI_Bcast(buffer(buf), *count, type(datatype), *root, comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_bcast, MPI_BCAST, (void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_gather_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                                    MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* c,
                                    MPI_Fint* ierr) {
  *ierr = MPI_Gather(cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), *recvcount, type(recvtype), *root,
                     comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_gather, MPI_GATHER,
                       (void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_scatter_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                                     MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* c,
                                     MPI_Fint* ierr) {
  *ierr = MPI_Scatter(cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), *recvcount, type(recvtype), *root,
                      comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_scatter, MPI_SCATTER,
                       (void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_gatherv_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                                     MPI_Fint* recvcounts, MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* root,
                                     MPI_Fint* c, MPI_Fint* ierr) {
  *ierr = MPI_Gatherv(cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), recvcounts, displs, type(recvtype),
                      *root, comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_gatherv, MPI_GATHERV,
                       (void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                        MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_scatterv_(void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* displs, MPI_Fint* sendtype,
                                      void* recvbuf, MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root,
                                      MPI_Fint* c, MPI_Fint* ierr) {
  *ierr = MPI_Scatterv(cbuffer(sendbuf), sendcounts, displs, type(sendtype), buffer(recvbuf), *recvcount,
                       type(recvtype), *root, comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_scatterv, MPI_SCATTERV,
                       (void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                        MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_alltoall_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                                      MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* c, MPI_Fint* ierr) {
  *ierr =
      MPI_Alltoall(cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), *recvcount, type(recvtype), comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_alltoall, MPI_ALLTOALL,
                       (void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_alltoallv_(void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype,
                                       void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype,
                                       MPI_Fint* c, MPI_Fint* ierr) {
  *ierr = MPI_Alltoallv(cbuffer(sendbuf), sendcounts, sdispls, type(sendtype), buffer(recvbuf), recvcounts, rdispls,
                        type(recvtype), comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_alltoallv, MPI_ALLTOALLV,
                       (void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                        MPI_Fint*))

// MPI_ALLTOALLW's datatypes are arrays of Fortran handles, one per rank of the communicator. Their C
// handles are kept for the life of the process, arrays of equal content in one copy: a nonblocking
// or persistent call's worker reads them after the entry point has returned. The storage grows
// with the distinct arrays a program passes (2 P handles each), never with its calls.
const MPI_Datatype* types(const MPI_Fint* f, const MPI_Fint* c) {
  static std::mutex mutex;
  static std::set<std::vector<MPI_Datatype>> kept;
  int size = 0;
  if (f == nullptr || MPI_Comm_size(comm(c), &size) != MPI_SUCCESS) return nullptr;
  std::vector<MPI_Datatype> converted;
  for (int i = 0; i < size; ++i) converted.push_back(type(&f[i]));
  const std::lock_guard<std::mutex> lock(mutex);
  return kept.insert(std::move(converted)).first->data();
}
/// The send side's types, none for MPI_IN_PLACE (MPI ignores them then).
const MPI_Datatype* send_types(void* sendbuf, const MPI_Fint* f, const MPI_Fint* c) {
  return cbuffer(sendbuf) == MPI_IN_PLACE ? nullptr : types(f, c);
}

RAGGED_PMPI_EXPORT void mpi_alltoallw_(void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtypes,
                                       void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtypes,
                                       MPI_Fint* c, MPI_Fint* ierr) {
  *ierr = MPI_Alltoallw(cbuffer(sendbuf), sendcounts, sdispls, send_types(sendbuf, sendtypes, c), buffer(recvbuf),
                        recvcounts, rdispls, types(recvtypes, c), comm(c));
}
RAGGED_FORTRAN_ALIASES(mpi_alltoallw, MPI_ALLTOALLW,
                       (void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                        MPI_Fint*))

RAGGED_PMPI_EXPORT void mpi_barrier_(MPI_Fint* c, MPI_Fint* ierr) { *ierr = MPI_Barrier(comm(c)); }
RAGGED_FORTRAN_ALIASES(mpi_barrier, MPI_BARRIER, (MPI_Fint*, MPI_Fint*))

// The nonblocking collectives (collectives_nonblocking.cpp): the request goes back to Fortran as
// MPI_Request_c2f of the C one, which MPI_WAIT & co. (Open MPI's own) convert back.
// The nonblocking collectives (MPI_IALLREDUCE & co.) and, where Open MPI has them (its pcollreq
// extension), the persistent ones (MPIX_ALLREDUCE_INIT & co.): each returns MPI_Request_c2f of the C
// request. One line per collective: its name, its Fortran parameters before the request, and the
// C call's arguments before the request.
#define RAGGED_UNPAREN(...) __VA_ARGS__
#define RAGGED_FORTRAN_NONBLOCKING(lower, upper, Name, params, args)                                  \
  RAGGED_PMPI_EXPORT void mpi_i##lower##_(RAGGED_UNPAREN params, MPI_Fint* request, MPI_Fint* ierr) { \
    MPI_Request r = MPI_REQUEST_NULL;                                                                 \
    *ierr = MPI_I##lower(RAGGED_UNPAREN args, &r);                                                    \
    *request = MPI_Request_c2f(r);                                                                    \
  }                                                                                                   \
  RAGGED_FORTRAN_ALIASES(mpi_i##lower, MPI_I##upper, (RAGGED_UNPAREN params, MPI_Fint*, MPI_Fint*))
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define RAGGED_FORTRAN_PERSISTENT(lower, upper, Name, params, args)                                      \
  RAGGED_PMPI_EXPORT void mpix_##lower##_init_(RAGGED_UNPAREN params, MPI_Fint* info, MPI_Fint* request, \
                                               MPI_Fint* ierr) {                                         \
    MPI_Request r = MPI_REQUEST_NULL;                                                                    \
    *ierr = MPIX_##Name##_init(RAGGED_UNPAREN args, MPI_Info_f2c(*info), &r);                            \
    *request = MPI_Request_c2f(r);                                                                       \
  }                                                                                                      \
  RAGGED_FORTRAN_ALIASES(mpix_##lower##_init, MPIX_##upper##_INIT,                                       \
                         (RAGGED_UNPAREN params, MPI_Fint*, MPI_Fint*, MPI_Fint*))
#else
#define RAGGED_FORTRAN_PERSISTENT(lower, upper, Name, params, args)
#endif
#define RAGGED_FORTRAN_REQUESTS(lower, upper, Name, params, args) \
  RAGGED_FORTRAN_NONBLOCKING(lower, upper, Name, params, args)    \
  RAGGED_FORTRAN_PERSISTENT(lower, upper, Name, params, args)

RAGGED_FORTRAN_REQUESTS(allgather, ALLGATHER, Allgather,
                        (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcount,
                         MPI_Fint* recvtype, MPI_Fint* c),
                        (cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), *recvcount, type(recvtype),
                         comm(c)))
RAGGED_FORTRAN_REQUESTS(allgatherv, ALLGATHERV, Allgatherv,
                        (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcounts,
                         MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* c),
                        (cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), recvcounts, displs,
                         type(recvtype), comm(c)))
RAGGED_FORTRAN_REQUESTS(allreduce, ALLREDUCE, Allreduce,
                        (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* o, MPI_Fint* c),
                        (cbuffer(sendbuf), buffer(recvbuf), *count, type(datatype), op(o), comm(c)))
RAGGED_FORTRAN_REQUESTS(alltoall, ALLTOALL, Alltoall,
                        (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcount,
                         MPI_Fint* recvtype, MPI_Fint* c),
                        (cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), *recvcount, type(recvtype),
                         comm(c)))
RAGGED_FORTRAN_REQUESTS(alltoallv, ALLTOALLV, Alltoallv,
                        (void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype, void* recvbuf,
                         MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype, MPI_Fint* c),
                        (cbuffer(sendbuf), sendcounts, sdispls, type(sendtype), buffer(recvbuf), recvcounts, rdispls,
                         type(recvtype), comm(c)))
RAGGED_FORTRAN_REQUESTS(alltoallw, ALLTOALLW, Alltoallw,
                        (void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtypes, void* recvbuf,
                         MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtypes, MPI_Fint* c),
                        (cbuffer(sendbuf), sendcounts, sdispls, send_types(sendbuf, sendtypes, c), buffer(recvbuf),
                         recvcounts, rdispls, types(recvtypes, c), comm(c)))
RAGGED_FORTRAN_REQUESTS(bcast, BCAST, Bcast,
                        (void* buf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* root, MPI_Fint* c),
                        (buffer(buf), *count, type(datatype), *root, comm(c)))
RAGGED_FORTRAN_REQUESTS(reduce, REDUCE, Reduce,
                        (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* o, MPI_Fint* root,
                         MPI_Fint* c),
                        (cbuffer(sendbuf), buffer(recvbuf), *count, type(datatype), op(o), *root, comm(c)))
RAGGED_FORTRAN_REQUESTS(gather, GATHER, Gather,
                        (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcount,
                         MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* c),
                        (cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), *recvcount, type(recvtype),
                         *root, comm(c)))
RAGGED_FORTRAN_REQUESTS(gatherv, GATHERV, Gatherv,
                        (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcounts,
                         MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* c),
                        (cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), recvcounts, displs,
                         type(recvtype), *root, comm(c)))
RAGGED_FORTRAN_REQUESTS(scatter, SCATTER, Scatter,
                        (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcount,
                         MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* c),
                        (cbuffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), *recvcount, type(recvtype),
                         *root, comm(c)))
RAGGED_FORTRAN_REQUESTS(scatterv, SCATTERV, Scatterv,
                        (void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* displs, MPI_Fint* sendtype, void* recvbuf,
                         MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* c),
                        (cbuffer(sendbuf), sendcounts, displs, type(sendtype), buffer(recvbuf), *recvcount,
                         type(recvtype), *root, comm(c)))
RAGGED_FORTRAN_REQUESTS(scan, SCAN, Scan,
                        (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* o, MPI_Fint* c),
                        (cbuffer(sendbuf), buffer(recvbuf), *count, type(datatype), op(o), comm(c)))
RAGGED_FORTRAN_REQUESTS(exscan, EXSCAN, Exscan,
                        (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* o, MPI_Fint* c),
                        (cbuffer(sendbuf), buffer(recvbuf), *count, type(datatype), op(o), comm(c)))
RAGGED_FORTRAN_REQUESTS(reduce_scatter_block, REDUCE_SCATTER_BLOCK, Reduce_scatter_block,
                        (void* sendbuf, void* recvbuf, MPI_Fint* recvcount, MPI_Fint* datatype, MPI_Fint* o,
                         MPI_Fint* c),
                        (cbuffer(sendbuf), buffer(recvbuf), *recvcount, type(datatype), op(o), comm(c)))
RAGGED_FORTRAN_REQUESTS(reduce_scatter, REDUCE_SCATTER, Reduce_scatter,
                        (void* sendbuf, void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* datatype, MPI_Fint* o,
                         MPI_Fint* c),
                        (cbuffer(sendbuf), buffer(recvbuf), recvcounts, type(datatype), op(o), comm(c)))
RAGGED_FORTRAN_REQUESTS(barrier, BARRIER, Barrier, (MPI_Fint * c), (comm(c)))

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
// MPI_START, MPI_STARTALL, MPI_REQUEST_FREE: Open MPI's own call PMPI_Start & co., which would
// start the library's persistent requests without their collective (collectives_persistent.cpp).
RAGGED_PMPI_EXPORT void mpi_start_(MPI_Fint* request, MPI_Fint* ierr) {
  MPI_Request r = MPI_Request_f2c(*request);
  *ierr = MPI_Start(&r);
}
RAGGED_FORTRAN_ALIASES(mpi_start, MPI_START, (MPI_Fint*, MPI_Fint*))
RAGGED_PMPI_EXPORT void mpi_startall_(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* ierr) {
  std::vector<MPI_Request> c(static_cast<std::size_t>(*count > 0 ? *count : 0));
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = MPI_Request_f2c(requests[i]);
  *ierr = MPI_Startall(*count, c.data());
}
RAGGED_FORTRAN_ALIASES(mpi_startall, MPI_STARTALL, (MPI_Fint*, MPI_Fint*, MPI_Fint*))
RAGGED_PMPI_EXPORT void mpi_request_free_(MPI_Fint* request, MPI_Fint* ierr) {
  MPI_Request r = MPI_Request_f2c(*request);
  *ierr = MPI_Request_free(&r);
  if (*ierr == MPI_SUCCESS) *request = MPI_Request_c2f(r);
}
RAGGED_FORTRAN_ALIASES(mpi_request_free, MPI_REQUEST_FREE, (MPI_Fint*, MPI_Fint*))
#endif

// MPI_WAIT, MPI_WAITALL, MPI_WAITANY, MPI_WAITSOME: Open MPI's own call PMPI_Wait & co., which
// poll on the library's requests (completion.hpp): each sleeps on the library's requests among its
// arguments, then hands the call to Open MPI's binding under its profiling name.
extern "C" void pmpi_wait_(MPI_Fint*, MPI_Fint*, MPI_Fint*) __attribute__((weak));
extern "C" void pmpi_waitall_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*) __attribute__((weak));
extern "C" void pmpi_waitany_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*) __attribute__((weak));
extern "C" void pmpi_waitsome_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*) __attribute__((weak));

RAGGED_PMPI_EXPORT void mpi_wait_(MPI_Fint* request, MPI_Fint* status, MPI_Fint* ierr) {
  await(1, request, true);
  pmpi_wait_(request, status, ierr);
}
RAGGED_FORTRAN_ALIASES(mpi_wait, MPI_WAIT, (MPI_Fint*, MPI_Fint*, MPI_Fint*))
RAGGED_PMPI_EXPORT void mpi_waitall_(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* statuses, MPI_Fint* ierr) {
  await(*count, requests, true);
  pmpi_waitall_(count, requests, statuses, ierr);
}
RAGGED_FORTRAN_ALIASES(mpi_waitall, MPI_WAITALL, (MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))
RAGGED_PMPI_EXPORT void mpi_waitany_(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* status,
                                     MPI_Fint* ierr) {
  await(*count, requests, false);
  pmpi_waitany_(count, requests, index, status, ierr);
}
RAGGED_FORTRAN_ALIASES(mpi_waitany, MPI_WAITANY, (MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))
RAGGED_PMPI_EXPORT void mpi_waitsome_(MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices,
                                      MPI_Fint* statuses, MPI_Fint* ierr) {
  await(*incount, requests, false);
  pmpi_waitsome_(incount, requests, outcount, indices, statuses, ierr);
}
RAGGED_FORTRAN_ALIASES(mpi_waitsome, MPI_WAITSOME, (MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

// MPI_FINALIZE: Open MPI's own calls PMPI_Finalize, which would skip the library's MPI_Finalize
// (RAGGED_REPORT's report, freeing the communicators' states). The C entry point does both.
RAGGED_PMPI_EXPORT void mpi_finalize_(MPI_Fint* ierr) { *ierr = MPI_Finalize(); }
RAGGED_FORTRAN_ALIASES(mpi_finalize, MPI_FINALIZE, (MPI_Fint*))

// MPI_INIT and MPI_INIT_THREAD: Open MPI's own call PMPI_Init (with no arguments), which would
// skip the library's MPI_Init: the thread level it asks for, the ranks' agreement on their
// RAGGED_* settings, RAGGED_REPORT's first clock offsets. The C entry points do all of it.
RAGGED_PMPI_EXPORT void mpi_init_(MPI_Fint* ierr) { *ierr = MPI_Init(nullptr, nullptr); }
RAGGED_FORTRAN_ALIASES(mpi_init, MPI_INIT, (MPI_Fint*))
RAGGED_PMPI_EXPORT void mpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  int granted = MPI_THREAD_SINGLE;
  *ierr = MPI_Init_thread(nullptr, nullptr, static_cast<int>(*required), &granted);
  *provided = static_cast<MPI_Fint>(granted);
}
RAGGED_FORTRAN_ALIASES(mpi_init_thread, MPI_INIT_THREAD, (MPI_Fint*, MPI_Fint*, MPI_Fint*))

}  // extern "C"

#elif defined(MPICH)

// MPICH's Fortran bindings under their profiling names, from libmpichfort. Weak: a C program
// never loads libmpichfort, and never calls the entry points below that use them.
#define RAGGED_FORTRAN_FORWARD(lower, upper, params, args)                 \
  extern "C" void p##lower##_ params __attribute__((weak));                \
  extern "C" RAGGED_PMPI_EXPORT void lower##_ params { p##lower##_ args; } \
  extern "C" {                                                             \
  RAGGED_FORTRAN_ALIASES(lower, upper, params)                             \
  }

using F = MPI_Fint;

RAGGED_FORTRAN_FORWARD(mpi_allgather, MPI_ALLGATHER, (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* ierr),
                       (a, b, c, d, e, f, g, ierr))
RAGGED_FORTRAN_FORWARD(mpi_allgatherv, MPI_ALLGATHERV, (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* h, F* ierr),
                       (a, b, c, d, e, f, g, h, ierr))
RAGGED_FORTRAN_FORWARD(mpi_allreduce, MPI_ALLREDUCE, (void* a, void* b, F* c, F* d, F* e, F* f, F* ierr),
                       (a, b, c, d, e, f, ierr))
RAGGED_FORTRAN_FORWARD(mpi_reduce, MPI_REDUCE, (void* a, void* b, F* c, F* d, F* e, F* f, F* g, F* ierr),
                       (a, b, c, d, e, f, g, ierr))
RAGGED_FORTRAN_FORWARD(mpi_bcast, MPI_BCAST, (void* a, F* b, F* c, F* d, F* e, F* ierr), (a, b, c, d, e, ierr))
RAGGED_FORTRAN_FORWARD(mpi_gather, MPI_GATHER, (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* h, F* ierr),
                       (a, b, c, d, e, f, g, h, ierr))
RAGGED_FORTRAN_FORWARD(mpi_scatter, MPI_SCATTER, (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* h, F* ierr),
                       (a, b, c, d, e, f, g, h, ierr))
RAGGED_FORTRAN_FORWARD(mpi_gatherv, MPI_GATHERV, (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* h, F* i, F* ierr),
                       (a, b, c, d, e, f, g, h, i, ierr))
RAGGED_FORTRAN_FORWARD(mpi_scatterv, MPI_SCATTERV,
                       (void* a, F* b, F* c, F* d, void* e, F* f, F* g, F* h, F* i, F* ierr),
                       (a, b, c, d, e, f, g, h, i, ierr))
RAGGED_FORTRAN_FORWARD(mpi_alltoall, MPI_ALLTOALL, (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* ierr),
                       (a, b, c, d, e, f, g, ierr))
RAGGED_FORTRAN_FORWARD(mpi_alltoallv, MPI_ALLTOALLV,
                       (void* a, F* b, F* c, F* d, void* e, F* f, F* g, F* h, F* i, F* ierr),
                       (a, b, c, d, e, f, g, h, i, ierr))
RAGGED_FORTRAN_FORWARD(mpi_alltoallw, MPI_ALLTOALLW,
                       (void* a, F* b, F* c, F* d, void* e, F* f, F* g, F* h, F* i, F* ierr),
                       (a, b, c, d, e, f, g, h, i, ierr))
RAGGED_FORTRAN_FORWARD(mpi_scan, MPI_SCAN, (void* a, void* b, F* c, F* d, F* e, F* f, F* ierr),
                       (a, b, c, d, e, f, ierr))
RAGGED_FORTRAN_FORWARD(mpi_exscan, MPI_EXSCAN, (void* a, void* b, F* c, F* d, F* e, F* f, F* ierr),
                       (a, b, c, d, e, f, ierr))
RAGGED_FORTRAN_FORWARD(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
                       (void* a, void* b, F* c, F* d, F* e, F* f, F* ierr), (a, b, c, d, e, f, ierr))
RAGGED_FORTRAN_FORWARD(mpi_reduce_scatter, MPI_REDUCE_SCATTER, (void* a, void* b, F* c, F* d, F* e, F* f, F* ierr),
                       (a, b, c, d, e, f, ierr))
RAGGED_FORTRAN_FORWARD(mpi_barrier, MPI_BARRIER, (F * a, F* ierr), (a, ierr))
RAGGED_FORTRAN_FORWARD(mpi_iallgather, MPI_IALLGATHER,
                       (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* request, F* ierr),
                       (a, b, c, d, e, f, g, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_iallgatherv, MPI_IALLGATHERV,
                       (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* h, F* request, F* ierr),
                       (a, b, c, d, e, f, g, h, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_iallreduce, MPI_IALLREDUCE, (void* a, void* b, F* c, F* d, F* e, F* f, F* request, F* ierr),
                       (a, b, c, d, e, f, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_ialltoall, MPI_IALLTOALL,
                       (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* request, F* ierr),
                       (a, b, c, d, e, f, g, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_ialltoallv, MPI_IALLTOALLV,
                       (void* a, F* b, F* c, F* d, void* e, F* f, F* g, F* h, F* i, F* request, F* ierr),
                       (a, b, c, d, e, f, g, h, i, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_ialltoallw, MPI_IALLTOALLW,
                       (void* a, F* b, F* c, F* d, void* e, F* f, F* g, F* h, F* i, F* request, F* ierr),
                       (a, b, c, d, e, f, g, h, i, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_ibcast, MPI_IBCAST, (void* a, F* b, F* c, F* d, F* e, F* request, F* ierr),
                       (a, b, c, d, e, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_ireduce, MPI_IREDUCE, (void* a, void* b, F* c, F* d, F* e, F* f, F* g, F* request, F* ierr),
                       (a, b, c, d, e, f, g, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_igather, MPI_IGATHER,
                       (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* h, F* request, F* ierr),
                       (a, b, c, d, e, f, g, h, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_igatherv, MPI_IGATHERV,
                       (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* h, F* i, F* request, F* ierr),
                       (a, b, c, d, e, f, g, h, i, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_iscatter, MPI_ISCATTER,
                       (void* a, F* b, F* c, void* d, F* e, F* f, F* g, F* h, F* request, F* ierr),
                       (a, b, c, d, e, f, g, h, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_iscatterv, MPI_ISCATTERV,
                       (void* a, F* b, F* c, F* d, void* e, F* f, F* g, F* h, F* i, F* request, F* ierr),
                       (a, b, c, d, e, f, g, h, i, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_iscan, MPI_ISCAN, (void* a, void* b, F* c, F* d, F* e, F* f, F* request, F* ierr),
                       (a, b, c, d, e, f, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_iexscan, MPI_IEXSCAN, (void* a, void* b, F* c, F* d, F* e, F* f, F* request, F* ierr),
                       (a, b, c, d, e, f, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK,
                       (void* a, void* b, F* c, F* d, F* e, F* f, F* request, F* ierr),
                       (a, b, c, d, e, f, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_ireduce_scatter, MPI_IREDUCE_SCATTER,
                       (void* a, void* b, F* c, F* d, F* e, F* f, F* request, F* ierr),
                       (a, b, c, d, e, f, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_ibarrier, MPI_IBARRIER, (F * a, F* request, F* ierr), (a, request, ierr))
RAGGED_FORTRAN_FORWARD(mpi_finalize, MPI_FINALIZE, (F * ierr), (ierr))

#endif  // OPEN_MPI, MPICH
