! mpi.pmpi.npN.fortran: a plain Fortran MPI program (`use mpi`, no ragged module or header).
! For every algorithm of the registry (the file named by the first argument, written by
! pmpi_algorithm_list: "collective name fallback" per line) it forces the algorithm through
! RAGGED_<COLLECTIVE> (setenv through ISO_C_BINDING) and calls the collective from Fortran,
! checks the result exactly against integers computed here, and checks that libragged_pmpi.so
! ran the forced algorithm or its fallback (found with dlsym, so the program also works under
! LD_PRELOAD and fails when the library is not there). MPI_IN_PLACE and MPI_BOTTOM are passed
! as Fortran passes them. The tally itself goes through PMPI_ALLREDUCE, never the library.
program pmpi_fortran
  use mpi
  use, intrinsic :: iso_c_binding
  implicit none

  include 'fortran_interfaces.inc'

  integer, parameter :: n = 7
  integer :: ierr, rank, procs, unit, ios, k, passed, failed
  character(len=256) :: path, line
  character(len=24) :: collective
  character(len=64) :: name, fallback
  procedure(last_fn), pointer :: last => null()
  procedure(reread_fn), pointer :: reread => null()
  type(c_funptr) :: fp

  call MPI_Init(ierr)
  call PMPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call PMPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  fp = c_dlsym(c_null_ptr, 'ragged_pmpi_last_algorithm' // c_null_char)
  if (.not. c_associated(fp)) then
    write (0, '(a,i0,a)') 'rank ', rank, ': libragged_pmpi.so is not loaded'
    call PMPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call c_f_procpointer(fp, last)
  ! The library reads RAGGED_* once per process: after each setenv, it is told to read again.
  fp = c_dlsym(c_null_ptr, 'ragged_pmpi_reread_environment' // c_null_char)
  if (.not. c_associated(fp)) then
    write (0, '(a,i0,a)') 'rank ', rank, ': libragged_pmpi.so has no ragged_pmpi_reread_environment'
    call PMPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call c_f_procpointer(fp, reread)
  passed = 0
  failed = 0

  call get_command_argument(1, path)
  open (newunit=unit, file=trim(path), status='old', action='read', iostat=ios)
  if (ios /= 0) then
    write (0, '(2a)') 'cannot open the algorithm list ', trim(path)
    call PMPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  do
    read (unit, '(a)', iostat=ios) line
    if (ios /= 0) exit
    if (len_trim(line) == 0) cycle
    read (line, *) collective, name, fallback
    call force(collective, name)
    call run(collective, name, fallback)
  end do
  close (unit)
  ! auto for every collective, then MPI_BOTTOM with an absolute-address datatype
  do k = 1, 16
    collective = collectives(k)
    call force(collective, 'auto')
    call run(collective, 'auto', '-')
  end do
  call force('bcast', 'binomial')
  call check(bottom_bcast(), 'bcast from MPI_BOTTOM', 'binomial', '-')

  ! every check already agreed across the ranks: the counts are the same everywhere
  if (rank == 0) write (*, '(a,i0,a,i0,a,i0)') 'fortran: ', passed, ' passed, ', failed, ' failed at np ', procs
  call MPI_Finalize(ierr)
  if (failed /= 0) stop 1

contains

  character(len=24) function collectives(k)
    integer, intent(in) :: k
    character(len=24), parameter :: all(16) = [character(len=24) :: 'allgather', 'allreduce', 'bcast', 'reduce', &
                                                'gather', 'scatter', 'gatherv', 'scatterv', 'alltoall', 'alltoallv', &
                                                'scan', 'exscan', 'reduce_scatter_block', 'allgatherv', &
                                                'reduce_scatter', 'alltoallw']
    collectives = all(k)
  end function

  include 'fortran_checks.inc'

  subroutine run(coll, algorithm, fb)
    character(len=*), intent(in) :: coll, algorithm, fb
    integer :: send(n * procs), recv(n * procs), want(n * procs), counts(procs), displs(procs)
    integer :: rcounts(procs), rdispls(procs), stypes(procs), rtypes(procs), i, j, r, root, total
    logical :: ok
    root = procs - 1
    select case (trim(coll))
    case ('allgather')
      send(1:n) = [(v(rank, i), i = 1, n)]
      recv = -1
      call MPI_Allgather(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      want = [((v(r, i), i = 1, n), r = 0, procs - 1)]
      call check(ierr == MPI_SUCCESS .and. all(recv == want), 'allgather', algorithm, fb)
      recv = -1
      recv(rank * n + 1:rank * n + n) = [(v(rank, i), i = 1, n)]
      call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv == want), 'allgather in place', algorithm, fb)
    case ('allreduce')
      send(1:n) = [(v(rank, i), i = 1, n)]
      want(1:n) = [(sum([(v(r, i), r = 0, procs - 1)]), i = 1, n)]
      recv = -1
      call MPI_Allreduce(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == want(1:n)), 'allreduce', algorithm, fb)
      recv(1:n) = send(1:n)
      call MPI_Allreduce(MPI_IN_PLACE, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == want(1:n)), 'allreduce in place', algorithm, fb)
    case ('reduce')
      send(1:n) = [(v(rank, i), i = 1, n)]
      want(1:n) = [(sum([(v(r, i), r = 0, procs - 1)]), i = 1, n)]
      recv = -1
      call MPI_Reduce(send, recv, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
      ok = ierr == MPI_SUCCESS
      if (rank == root) ok = ok .and. all(recv(1:n) == want(1:n))
      call check(ok, 'reduce', algorithm, fb)
      recv(1:n) = send(1:n)
      if (rank == root) then
        call MPI_Reduce(MPI_IN_PLACE, recv, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
        ok = ierr == MPI_SUCCESS .and. all(recv(1:n) == want(1:n))
      else
        call MPI_Reduce(send, recv, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
        ok = ierr == MPI_SUCCESS
      end if
      call check(ok, 'reduce in place', algorithm, fb)
    case ('scan', 'exscan')
      ! rank r gets the sum over ranks 0..r (scan) or 0..r-1 (exscan; rank 0's buffer stays as it was)
      send(1:n) = [(v(rank, i), i = 1, n)]
      j = rank
      if (trim(coll) == 'exscan') j = rank - 1
      want(1:n) = [(sum([(v(r, i), r = 0, j)]), i = 1, n)]
      if (j < 0) want(1:n) = -1
      recv = -1
      if (trim(coll) == 'scan') then
        call MPI_Scan(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      else
        call MPI_Exscan(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      end if
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == want(1:n)), trim(coll), algorithm, fb)
      recv(1:n) = send(1:n)
      if (j < 0) want(1:n) = send(1:n)
      if (trim(coll) == 'scan') then
        call MPI_Scan(MPI_IN_PLACE, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      else
        call MPI_Exscan(MPI_IN_PLACE, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      end if
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == want(1:n)), trim(coll) // ' in place', algorithm, fb)
    case ('reduce_scatter_block')
      ! rank r gets block r of the sum over every rank of its n * procs elements
      send = [(v(rank, i), i = 1, n * procs)]
      want(1:n) = [(sum([(v(r, rank * n + i), r = 0, procs - 1)]), i = 1, n)]
      recv = -1
      call MPI_Reduce_scatter_block(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == want(1:n)) .and. all(recv(n + 1:) == -1), &
                 'reduce_scatter_block', algorithm, fb)
      recv = send
      call MPI_Reduce_scatter_block(MPI_IN_PLACE, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == want(1:n)), 'reduce_scatter_block in place', algorithm, fb)
    case ('reduce_scatter')
      ! rank r gets its mod(r, n) + 1 elements of the sum over every rank of the whole vector
      counts = [(mod(r, n) + 1, r = 0, procs - 1)]
      displs(1) = 0
      do r = 2, procs
        displs(r) = displs(r - 1) + counts(r - 1)
      end do
      total = sum(counts)
      send(1:total) = [(v(rank, i), i = 1, total)]
      want(1:counts(rank + 1)) = [(sum([(v(r, displs(rank + 1) + i), r = 0, procs - 1)]), i = 1, counts(rank + 1))]
      recv = -1
      call MPI_Reduce_scatter(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:counts(rank + 1)) == want(1:counts(rank + 1))) .and. &
                 all(recv(counts(rank + 1) + 1:) == -1), 'reduce_scatter', algorithm, fb)
      recv(1:total) = send(1:total)
      call MPI_Reduce_scatter(MPI_IN_PLACE, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:counts(rank + 1)) == want(1:counts(rank + 1))), &
                 'reduce_scatter in place', algorithm, fb)
    case ('bcast')
      recv(1:n) = -1
      if (rank == root) recv(1:n) = [(v(root, i), i = 1, n)]
      call MPI_Bcast(recv, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == [(v(root, i), i = 1, n)]), 'bcast', algorithm, fb)
    case ('gather')
      send(1:n) = [(v(rank, i), i = 1, n)]
      recv = -1
      want = [((v(r, i), i = 1, n), r = 0, procs - 1)]
      call MPI_Gather(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      ok = ierr == MPI_SUCCESS
      if (rank == 0) ok = ok .and. all(recv == want)
      call check(ok, 'gather', algorithm, fb)
    case ('scatter')
      send = [((v(r, i), i = 1, n), r = 0, procs - 1)]
      recv = -1
      call MPI_Scatter(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:n) == [(v(rank, i), i = 1, n)]), 'scatter', algorithm, fb)
    case ('gatherv', 'scatterv')
      counts = [(mod(r, n) + 1, r = 0, procs - 1)]
      displs(1) = 0
      do r = 2, procs
        displs(r) = displs(r - 1) + counts(r - 1)
      end do
      total = sum(counts)
      want(1:total) = [((v(r, i), i = 1, counts(r + 1)), r = 0, procs - 1)]
      recv = -1
      if (trim(coll) == 'gatherv') then
        send(1:counts(rank + 1)) = [(v(rank, i), i = 1, counts(rank + 1))]
        call MPI_Gatherv(send, counts(rank + 1), MPI_INTEGER, recv, counts, displs, MPI_INTEGER, root, &
                         MPI_COMM_WORLD, ierr)
        ok = ierr == MPI_SUCCESS
        if (rank == root) ok = ok .and. all(recv(1:total) == want(1:total))
      else
        send(1:total) = want(1:total)
        call MPI_Scatterv(send, counts, displs, MPI_INTEGER, recv, counts(rank + 1), MPI_INTEGER, root, &
                          MPI_COMM_WORLD, ierr)
        ok = ierr == MPI_SUCCESS .and. all(recv(1:counts(rank + 1)) == [(v(rank, i), i = 1, counts(rank + 1))])
      end if
      call check(ok, coll, algorithm, fb)
    case ('allgatherv')
      ! every rank gets rank r's mod(r, n) + 1 elements, in reverse rank order one element apart
      counts = [(mod(r, n) + 1, r = 0, procs - 1)]
      displs(procs) = 0
      do r = procs - 1, 1, -1
        displs(r) = displs(r + 1) + counts(r + 1) + 1
      end do
      total = displs(1) + counts(1)
      want(1:total) = -1
      do r = 0, procs - 1
        want(displs(r + 1) + 1:displs(r + 1) + counts(r + 1)) = [(v(r, i), i = 1, counts(r + 1))]
      end do
      send(1:counts(rank + 1)) = [(v(rank, i), i = 1, counts(rank + 1))]
      recv = -1
      call MPI_Allgatherv(send, counts(rank + 1), MPI_INTEGER, recv, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:total) == want(1:total)) .and. all(recv(total + 1:) == -1), &
                 'allgatherv', algorithm, fb)
      recv = -1
      recv(displs(rank + 1) + 1:displs(rank + 1) + counts(rank + 1)) = send(1:counts(rank + 1))
      call MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:total) == want(1:total)), 'allgatherv in place', algorithm, fb)
    case ('alltoall')
      send = [((v(rank, j * n + i), i = 1, n), j = 0, procs - 1)]
      recv = -1
      call MPI_Alltoall(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      want = [((v(r, rank * n + i), i = 1, n), r = 0, procs - 1)]
      call check(ierr == MPI_SUCCESS .and. all(recv == want), 'alltoall', algorithm, fb)
    case ('alltoallv')
      ! rank r sends mod(r + j, 3) elements to rank j
      counts = [(mod(rank + j, 3), j = 0, procs - 1)]
      rcounts = [(mod(r + rank, 3), r = 0, procs - 1)]
      displs(1) = 0
      rdispls(1) = 0
      do j = 2, procs
        displs(j) = displs(j - 1) + counts(j - 1)
        rdispls(j) = rdispls(j - 1) + rcounts(j - 1)
      end do
      do j = 0, procs - 1
        send(displs(j + 1) + 1:displs(j + 1) + counts(j + 1)) = [(v(rank, 100 * j + i), i = 1, counts(j + 1))]
        want(rdispls(j + 1) + 1:rdispls(j + 1) + rcounts(j + 1)) = [(v(j, 100 * rank + i), i = 1, rcounts(j + 1))]
      end do
      recv = -1
      call MPI_Alltoallv(send, counts, displs, MPI_INTEGER, recv, rcounts, rdispls, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      total = sum(rcounts)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:total) == want(1:total)), 'alltoallv', algorithm, fb)
    case ('alltoallw')
      ! alltoallv's blocks, the pair (r, j) typed MPI_INTEGER or MPI_REAL (both 4 bytes, copied
      ! bit for bit), displacements in bytes
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
      call MPI_Alltoallw(send, counts, displs, stypes, recv, rcounts, rdispls, rtypes, MPI_COMM_WORLD, ierr)
      total = sum(rcounts)
      call check(ierr == MPI_SUCCESS .and. all(recv(1:total) == want(1:total)), 'alltoallw', algorithm, fb)
    case ('barrier')
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      call check(ierr == MPI_SUCCESS, 'barrier', algorithm, fb)
    case default
      ! a collective this program does not know: nothing to check
    end select
  end subroutine

  ! MPI_Bcast(MPI_BOTTOM, 1, t) with t addressing a buffer by its absolute address.
  logical function bottom_bcast()
    integer, volatile :: buf(n)
    integer :: t, root, i
    integer(kind=MPI_ADDRESS_KIND) :: address(1)
    integer :: lengths(1)
    root = 0
    buf = -1
    if (rank == root) buf = [(v(root, i), i = 1, n)]
    call MPI_Get_address(buf, address(1), ierr)
    lengths(1) = n
    call MPI_Type_create_hindexed(1, lengths, address, MPI_INTEGER, t, ierr)
    call MPI_Type_commit(t, ierr)
    call MPI_Bcast(MPI_BOTTOM, 1, t, root, MPI_COMM_WORLD, ierr)
    bottom_bcast = ierr == MPI_SUCCESS .and. all(buf == [(v(root, i), i = 1, n)])
    call MPI_Type_free(t, ierr)
  end function

end program
