! mpi.pmpi.npN.fortran_nonblocking: a plain Fortran MPI program (`use mpi`) that calls the
! nonblocking form of every collective the library defines (MPI_IALLREDUCE & co.), for every
! algorithm of the registry forced through RAGGED_<COLLECTIVE> (the list file is the first
! argument) and `auto`, with computation between the post and the completion, completed by
! MPI_WAIT, a loop of MPI_TEST, MPI_WAITALL, MPI_WAITANY or MPI_WAITSOME in turn. Results are checked exactly against integers computed
! here, and the library must name the forced algorithm (or its fallback) after the completion.
#ifdef T_PERSISTENT
! Built as pmpi_fortran_persistent: every nonblocking call becomes its persistent form, made and
! started (persistent_calls.F90), completed as below, then freed; what ran is what the library
! says of the request (fortran_persistent.c).
#define MPI_Iallgather t_iallgather
#define MPI_Iallgatherv t_iallgatherv
#define MPI_Iallreduce t_iallreduce
#define MPI_Ialltoall t_ialltoall
#define MPI_Ialltoallv t_ialltoallv
#define MPI_Ialltoallw t_ialltoallw
#define MPI_Ibcast t_ibcast
#define MPI_Ireduce t_ireduce
#define MPI_Igather t_igather
#define MPI_Igatherv t_igatherv
#define MPI_Iscatter t_iscatter
#define MPI_Iscatterv t_iscatterv
#define MPI_Iscan t_iscan
#define MPI_Iexscan t_iexscan
#define MPI_Ireduce_scatter_block t_ireduce_scatter_block
#define MPI_Ireduce_scatter t_ireduce_scatter
#define MPI_Ibarrier t_ibarrier
#endif
program pmpi_fortran_nonblocking
  use mpi
  use, intrinsic :: iso_c_binding
  implicit none

  include 'fortran_interfaces.inc'
#ifdef T_PERSISTENT
  interface
    subroutine t_note(request) bind(C, name='t_note')
      import :: c_int
      integer(c_int) :: request
    end subroutine
    type(c_ptr) function t_persistent_last() bind(C, name='t_persistent_last')
      import :: c_ptr
    end function
  end interface
#endif

  integer, parameter :: n = 7
  integer :: ierr, rank, procs, unit, ios, k, passed, failed, posts
  character(len=256) :: path, line
  character(len=24) :: collective
  character(len=64) :: name, fallback
  character(len=24), parameter :: all_collectives(17) = [character(len=24) :: 'allgather', 'allreduce', 'bcast', &
                                                         'reduce', 'gather', 'scatter', 'gatherv', 'scatterv', &
                                                         'alltoall', 'alltoallv', 'scan', 'exscan', &
                                                         'reduce_scatter_block', 'allgatherv', 'reduce_scatter', &
                                                         'barrier', 'alltoallw']
  procedure(last_fn), pointer :: last => null()
  procedure(reread_fn), pointer :: reread => null()
  type(c_funptr) :: fp

  call MPI_Init(ierr)
  call PMPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call PMPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  fp = c_dlsym(c_null_ptr, 'ragged_pmpi_last_algorithm' // c_null_char)
  if (.not. c_associated(fp)) call PMPI_Abort(MPI_COMM_WORLD, 2, ierr)
  call c_f_procpointer(fp, last)
#ifdef T_PERSISTENT
  last => t_persistent_last
#endif
  fp = c_dlsym(c_null_ptr, 'ragged_pmpi_reread_environment' // c_null_char)
  if (.not. c_associated(fp)) call PMPI_Abort(MPI_COMM_WORLD, 2, ierr)
  call c_f_procpointer(fp, reread)
  passed = 0
  failed = 0
  posts = 0

  call get_command_argument(1, path)
  open (newunit=unit, file=trim(path), status='old', action='read', iostat=ios)
  if (ios /= 0) call PMPI_Abort(MPI_COMM_WORLD, 2, ierr)
  do
    read (unit, '(a)', iostat=ios) line
    if (ios /= 0) exit
    if (len_trim(line) == 0) cycle
    read (line, *) collective, name, fallback
    call force(collective, name)
    call run(collective, name, fallback)
  end do
  close (unit)
  do k = 1, 17
    collective = all_collectives(k)
    call force(collective, 'auto')
    call run(collective, 'auto', '-')
  end do

  if (rank == 0) write (*, '(a,i0,a,i0,a,i0)') 'fortran nonblocking: ', passed, ' passed, ', failed, &
    ' failed at np ', procs
  call MPI_Finalize(ierr)
  if (failed /= 0) stop 1

contains

  include 'fortran_checks.inc'

  ! Computation, then the request completed by MPI_WAIT, MPI_TEST in a loop, MPI_WAITALL,
  ! MPI_WAITANY or MPI_WAITSOME (beside MPI_REQUEST_NULL), in turn.
  subroutine complete(request)
    integer, intent(inout) :: request
    double precision :: x
    integer :: i, reqs(2), index, outcount, indices(2)
    logical :: flag
    x = 1d0
    do i = 1, 20000
      x = x * 1.0000001d0 + 1d-9
    end do
    if (x < 0) write (0, *) x
    posts = posts + 1
    if (ierr /= MPI_SUCCESS) return
    select case (mod(posts, 5))
    case (0)
      call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
    case (1)
      flag = .false.
      do while (.not. flag .and. ierr == MPI_SUCCESS)
        call MPI_Test(request, flag, MPI_STATUS_IGNORE, ierr)
      end do
    case (2)
      reqs = [MPI_REQUEST_NULL, request]
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
      request = reqs(2)
    case (3)
      reqs = [request, MPI_REQUEST_NULL]
      call MPI_Waitany(2, reqs, index, MPI_STATUS_IGNORE, ierr)
      request = reqs(1)
      if (index /= 1) ierr = MPI_ERR_REQUEST
    case default
      reqs = [MPI_REQUEST_NULL, request]
      call MPI_Waitsome(2, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
      request = reqs(2)
      if (outcount /= 1 .or. indices(1) /= 2) ierr = MPI_ERR_REQUEST
    end select
#ifdef T_PERSISTENT
    ! Inactive, not freed: what its start ran, then MPI_REQUEST_FREE.
    if (ierr == MPI_SUCCESS .and. request /= MPI_REQUEST_NULL) then
      call t_note(request)
      call MPI_Request_free(request, ierr)
    end if
#endif
    if (request /= MPI_REQUEST_NULL) ierr = MPI_ERR_REQUEST
  end subroutine

  subroutine run(coll, algorithm, fb)
    character(len=*), intent(in) :: coll, algorithm, fb
    integer :: send(n * procs), recv(n * procs), want(n * procs), counts(procs), displs(procs)
    integer :: rcounts(procs), rdispls(procs), stypes(procs), rtypes(procs), i, j, r, root, total, request
    logical :: ok
    root = procs - 1
    recv = -1
    counts = [(mod(r, n) + 1, r = 0, procs - 1)]
    displs(1) = 0
    do r = 2, procs
      displs(r) = displs(r - 1) + counts(r - 1)
    end do
    total = sum(counts)
    select case (trim(coll))
    case ('allgather')
      send(1:n) = [(v(rank, i), i = 1, n)]
      call MPI_Iallgather(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD, request, ierr)
      call complete(request)
      call check(ierr == MPI_SUCCESS .and. all(recv == [((v(r, i), i = 1, n), r = 0, procs - 1)]), 'iallgather', &
                 algorithm, fb)
    case ('allreduce')
      recv(1:n) = [(v(rank, i), i = 1, n)]
      call MPI_Iallreduce(MPI_IN_PLACE, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
      call complete(request)
      want(1:n) = [(sum([(v(r, i), r = 0, procs - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == want(1:n)), 'iallreduce in place', algorithm, fb)
    case ('reduce')
      send(1:n) = [(v(rank, i), i = 1, n)]
      call MPI_Ireduce(send, recv, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, request, ierr)
      call complete(request)
      ok = ierr == MPI_SUCCESS
      if (rank == root) ok = ok .and. all(recv(1:n) == [(sum([(v(r, i), r = 0, procs - 1)]), i = 1, n)])
      call check(ok, 'ireduce', algorithm, fb)
    case ('scan', 'exscan')
      send(1:n) = [(v(rank, i), i = 1, n)]
      j = rank
      if (trim(coll) == 'exscan') j = rank - 1
      want(1:n) = [(sum([(v(r, i), r = 0, j)]), i = 1, n)]
      if (j < 0) want(1:n) = -1
      if (trim(coll) == 'scan') then
        call MPI_Iscan(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
      else
        call MPI_Iexscan(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
      end if
      call complete(request)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == want(1:n)), 'i' // trim(coll), algorithm, fb)
    case ('reduce_scatter_block')
      send = [(v(rank, i), i = 1, n * procs)]
      call MPI_Ireduce_scatter_block(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
      call complete(request)
      want(1:n) = [(sum([(v(r, rank * n + i), r = 0, procs - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == want(1:n)) .and. all(recv(n + 1:) == -1), &
                 'ireduce_scatter_block', algorithm, fb)
    case ('reduce_scatter')
      send(1:total) = [(v(rank, i), i = 1, total)]
      call MPI_Ireduce_scatter(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
      call complete(request)
      want(1:counts(rank + 1)) = [(sum([(v(r, displs(rank + 1) + i), r = 0, procs - 1)]), i = 1, counts(rank + 1))]
      call check(ierr == MPI_SUCCESS .and. all(recv(1:counts(rank + 1)) == want(1:counts(rank + 1))) .and. &
                 all(recv(counts(rank + 1) + 1:) == -1), 'ireduce_scatter', algorithm, fb)
    case ('bcast')
      if (rank == root) recv(1:n) = [(v(root, i), i = 1, n)]
      call MPI_Ibcast(recv, n, MPI_INTEGER, root, MPI_COMM_WORLD, request, ierr)
      call complete(request)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == [(v(root, i), i = 1, n)]), 'ibcast', algorithm, fb)
    case ('gather')
      send(1:n) = [(v(rank, i), i = 1, n)]
      call MPI_Igather(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, 0, MPI_COMM_WORLD, request, ierr)
      call complete(request)
      ok = ierr == MPI_SUCCESS
      if (rank == 0) ok = ok .and. all(recv == [((v(r, i), i = 1, n), r = 0, procs - 1)])
      call check(ok, 'igather', algorithm, fb)
    case ('scatter')
      send = [((v(r, i), i = 1, n), r = 0, procs - 1)]
      call MPI_Iscatter(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, 0, MPI_COMM_WORLD, request, ierr)
      call complete(request)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == [(v(rank, i), i = 1, n)]), 'iscatter', algorithm, fb)
    case ('gatherv')
      want(1:total) = [((v(r, i), i = 1, counts(r + 1)), r = 0, procs - 1)]
      send(1:counts(rank + 1)) = [(v(rank, i), i = 1, counts(rank + 1))]
      call MPI_Igatherv(send, counts(rank + 1), MPI_INTEGER, recv, counts, displs, MPI_INTEGER, root, &
                        MPI_COMM_WORLD, request, ierr)
      call complete(request)
      ok = ierr == MPI_SUCCESS
      if (rank == root) ok = ok .and. all(recv(1:total) == want(1:total))
      call check(ok, 'igatherv', algorithm, fb)
    case ('scatterv')
      send(1:total) = [((v(r, i), i = 1, counts(r + 1)), r = 0, procs - 1)]
      call MPI_Iscatterv(send, counts, displs, MPI_INTEGER, recv, counts(rank + 1), MPI_INTEGER, root, &
                         MPI_COMM_WORLD, request, ierr)
      call complete(request)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:counts(rank + 1)) == [(v(rank, i), i = 1, counts(rank + 1))]), &
                 'iscatterv', algorithm, fb)
    case ('allgatherv')
      want(1:total) = [((v(r, i), i = 1, counts(r + 1)), r = 0, procs - 1)]
      send(1:counts(rank + 1)) = [(v(rank, i), i = 1, counts(rank + 1))]
      call MPI_Iallgatherv(send, counts(rank + 1), MPI_INTEGER, recv, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, &
                           request, ierr)
      call complete(request)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:total) == want(1:total)) .and. all(recv(total + 1:) == -1), &
                 'iallgatherv', algorithm, fb)
    case ('alltoall')
      send = [((v(rank, j * n + i), i = 1, n), j = 0, procs - 1)]
      call MPI_Ialltoall(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD, request, ierr)
      call complete(request)
      call check(ierr == MPI_SUCCESS .and. all(recv == [((v(r, rank * n + i), i = 1, n), r = 0, procs - 1)]), &
                 'ialltoall', algorithm, fb)
    case ('alltoallv')
      counts = [(mod(rank + j, 3), j = 0, procs - 1)]
      rcounts = [(mod(r + rank, 3), r = 0, procs - 1)]
      rdispls(1) = 0
      do j = 2, procs
        displs(j) = displs(j - 1) + counts(j - 1)
        rdispls(j) = rdispls(j - 1) + rcounts(j - 1)
      end do
      do j = 0, procs - 1
        send(displs(j + 1) + 1:displs(j + 1) + counts(j + 1)) = [(v(rank, 100 * j + i), i = 1, counts(j + 1))]
        want(rdispls(j + 1) + 1:rdispls(j + 1) + rcounts(j + 1)) = [(v(j, 100 * rank + i), i = 1, rcounts(j + 1))]
      end do
      call MPI_Ialltoallv(send, counts, displs, MPI_INTEGER, recv, rcounts, rdispls, MPI_INTEGER, MPI_COMM_WORLD, &
                          request, ierr)
      call complete(request)
      total = sum(rcounts)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:total) == want(1:total)), 'ialltoallv', algorithm, fb)
    case ('alltoallw')
      ! alltoallv's blocks, the pair (r, j) typed MPI_INTEGER or MPI_REAL, displacements in bytes
      counts = [(mod(rank + j, 3), j = 0, procs - 1)]
      rcounts = [(mod(r + rank, 3), r = 0, procs - 1)]
      stypes = [(merge(MPI_INTEGER, MPI_REAL, mod(rank + 2 * j, 2) == 0), j = 0, procs - 1)]
      rtypes = [(merge(MPI_INTEGER, MPI_REAL, mod(r + 2 * rank, 2) == 0), r = 0, procs - 1)]
      displs(1) = 0
      rdispls(1) = 0
      do j = 2, procs
        displs(j) = displs(j - 1) + 4 * counts(j - 1)
        rdispls(j) = rdispls(j - 1) + 4 * rcounts(j - 1)
      end do
      do j = 0, procs - 1
        send(displs(j + 1) / 4 + 1:displs(j + 1) / 4 + counts(j + 1)) = [(v(rank, 100 * j + i), i = 1, counts(j + 1))]
        want(rdispls(j + 1) / 4 + 1:rdispls(j + 1) / 4 + rcounts(j + 1)) = [(v(j, 100 * rank + i), i = 1, rcounts(j + 1))]
      end do
      recv = -1
      call MPI_Ialltoallw(send, counts, displs, stypes, recv, rcounts, rdispls, rtypes, MPI_COMM_WORLD, request, ierr)
      call complete(request)
      total = sum(rcounts)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:total) == want(1:total)), 'ialltoallw', algorithm, fb)
    case ('barrier')
      call MPI_Ibarrier(MPI_COMM_WORLD, request, ierr)
      call complete(request)
      call check(ierr == MPI_SUCCESS, 'ibarrier', algorithm, fb)
    case default
      ! a collective this program does not know: nothing to check
    end select
  end subroutine

end program
