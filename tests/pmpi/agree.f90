! mpi.pmpi.np3.fortran_env_one_rank_differs: a Fortran program's MPI_INIT comes through the
! library too (src/pmpi/fortran.cpp, mpi_init_), so its ranks compare their RAGGED_* settings:
! with one rank forcing another allgather, every rank says so and MPI_ALLGATHER runs natively
! (without the comparison the ranks would run different algorithms and hang). Exits 1 on a
! wrong result.
program pmpi_agree
  use mpi
  implicit none
  integer, parameter :: n = 5
  integer :: ierr, rank, size, r, i, wrong
  integer :: mine(n)
  integer, allocatable :: all(:)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  allocate (all(n * size))
  do i = 1, n
    mine(i) = rank * 1009 + i
  end do
  call MPI_ALLGATHER(mine, n, MPI_INTEGER, all, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  wrong = 0
  do r = 0, size - 1
    do i = 1, n
      if (all(r * n + i) /= r * 1009 + i) wrong = wrong + 1
    end do
  end do
  if (wrong /= 0) write (0, '(a,i0,a,i0,a)') 'rank ', rank, ': WRONG: ', wrong, ' elements'
  deallocate (all)  ! a program's end does not free it: LeakSanitizer would say so
  call MPI_FINALIZE(ierr)
  if (wrong /= 0) stop 1
end program pmpi_agree
