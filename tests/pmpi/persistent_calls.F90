! The persistent form of each nonblocking call of nonblocking.f90, for pmpi_fortran_persistent
! (mpi.pmpi.npN.fortran_persistent): t_iallreduce(args, request, ierr) makes the persistent
! request (MPIX_ALLREDUCE_INIT under Open MPI's pcollreq extension, MPI_ALLREDUCE_INIT under
! MPI 4) with MPI_INFO_NULL and starts it with MPI_START. External subroutines in a file of their
! own, so that gfortran does not compare the buffers' types and ranks across their calls.

subroutine t_iallgather(sb, sc, st, rb, rc, rt, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*)
  integer :: sc, st, rc, rt, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Allgather_init(sb, sc, st, rb, rc, rt, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Allgather_init(sb, sc, st, rb, rc, rt, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_iallgatherv(sb, sc, st, rb, rcs, displs, rt, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*), rcs(*), displs(*)
  integer :: sc, st, rt, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Allgatherv_init(sb, sc, st, rb, rcs, displs, rt, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Allgatherv_init(sb, sc, st, rb, rcs, displs, rt, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_iallreduce(sb, rb, count, dt, op, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*)
  integer :: count, dt, op, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Allreduce_init(sb, rb, count, dt, op, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Allreduce_init(sb, rb, count, dt, op, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_ialltoall(sb, sc, st, rb, rc, rt, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*)
  integer :: sc, st, rc, rt, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Alltoall_init(sb, sc, st, rb, rc, rt, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Alltoall_init(sb, sc, st, rb, rc, rt, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_ialltoallv(sb, scs, sdispls, st, rb, rcs, rdispls, rt, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), scs(*), sdispls(*), rb(*), rcs(*), rdispls(*)
  integer :: st, rt, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Alltoallv_init(sb, scs, sdispls, st, rb, rcs, rdispls, rt, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Alltoallv_init(sb, scs, sdispls, st, rb, rcs, rdispls, rt, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_ialltoallw(sb, scs, sdispls, sts, rb, rcs, rdispls, rts, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), scs(*), sdispls(*), sts(*), rb(*), rcs(*), rdispls(*), rts(*)
  integer :: comm, request, ierr
#ifdef T_MPIX
  call MPIX_Alltoallw_init(sb, scs, sdispls, sts, rb, rcs, rdispls, rts, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Alltoallw_init(sb, scs, sdispls, sts, rb, rcs, rdispls, rts, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_ibcast(buf, count, dt, root, comm, request, ierr)
  use mpi
  implicit none
  integer :: buf(*)
  integer :: count, dt, root, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Bcast_init(buf, count, dt, root, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Bcast_init(buf, count, dt, root, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_ireduce(sb, rb, count, dt, op, root, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*)
  integer :: count, dt, op, root, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Reduce_init(sb, rb, count, dt, op, root, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Reduce_init(sb, rb, count, dt, op, root, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_igather(sb, sc, st, rb, rc, rt, root, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*)
  integer :: sc, st, rc, rt, root, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Gather_init(sb, sc, st, rb, rc, rt, root, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Gather_init(sb, sc, st, rb, rc, rt, root, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_igatherv(sb, sc, st, rb, rcs, displs, rt, root, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*), rcs(*), displs(*)
  integer :: sc, st, rt, root, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Gatherv_init(sb, sc, st, rb, rcs, displs, rt, root, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Gatherv_init(sb, sc, st, rb, rcs, displs, rt, root, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_iscatter(sb, sc, st, rb, rc, rt, root, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*)
  integer :: sc, st, rc, rt, root, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Scatter_init(sb, sc, st, rb, rc, rt, root, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Scatter_init(sb, sc, st, rb, rc, rt, root, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_iscatterv(sb, scs, displs, st, rb, rc, rt, root, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), scs(*), displs(*), rb(*)
  integer :: st, rc, rt, root, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Scatterv_init(sb, scs, displs, st, rb, rc, rt, root, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Scatterv_init(sb, scs, displs, st, rb, rc, rt, root, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_iscan(sb, rb, count, dt, op, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*)
  integer :: count, dt, op, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Scan_init(sb, rb, count, dt, op, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Scan_init(sb, rb, count, dt, op, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_iexscan(sb, rb, count, dt, op, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*)
  integer :: count, dt, op, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Exscan_init(sb, rb, count, dt, op, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Exscan_init(sb, rb, count, dt, op, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_ireduce_scatter_block(sb, rb, rc, dt, op, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*)
  integer :: rc, dt, op, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Reduce_scatter_block_init(sb, rb, rc, dt, op, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Reduce_scatter_block_init(sb, rb, rc, dt, op, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_ireduce_scatter(sb, rb, rcs, dt, op, comm, request, ierr)
  use mpi
  implicit none
  integer :: sb(*), rb(*), rcs(*)
  integer :: dt, op, comm, request, ierr
#ifdef T_MPIX
  call MPIX_Reduce_scatter_init(sb, rb, rcs, dt, op, comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Reduce_scatter_init(sb, rb, rcs, dt, op, comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine

subroutine t_ibarrier(comm, request, ierr)
  use mpi
  implicit none
  integer :: comm, request, ierr
#ifdef T_MPIX
  call MPIX_Barrier_init(comm, MPI_INFO_NULL, request, ierr)
#else
  call MPI_Barrier_init(comm, MPI_INFO_NULL, request, ierr)
#endif
  if (ierr == MPI_SUCCESS) call MPI_Start(request, ierr)
end subroutine
