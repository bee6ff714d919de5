# ragged_consumer_args(<out>): the -D arguments that tests/install/consumers.cmake reads, for a
# test that runs a script with `cmake -P` (install.pkg_config, package.deb).
function(ragged_consumer_args out)
  set(with_mpi OFF)
  set(with_pmpi OFF)
  set(mpiexec "")
  if(RAGGED_WITH_MPI)
    set(with_mpi ON)
    if(TARGET ragged_pmpi)
      set(with_pmpi ON)
    endif()
    # A list cannot cross the command line as one -D value: '|' separates the words.
    ragged_mpiexec_flags(flags)
    list(JOIN flags "|" flags)
    set(mpiexec "${MPIEXEC_EXECUTABLE}|${flags}|${MPIEXEC_NUMPROC_FLAG}")
    string(REPLACE "||" "|" mpiexec "${mpiexec}")
  endif()
  find_package(PkgConfig QUIET)
  set(${out}
      -DVERSION=${PROJECT_VERSION} -DCXX=${CMAKE_CXX_COMPILER} -DCC=${CMAKE_C_COMPILER}
      -DPKG_CONFIG=${PKG_CONFIG_EXECUTABLE} -DCONSUMER_DIR=${PROJECT_SOURCE_DIR}/tests/install/consumer
      -DPC_CONSUMER_DIR=${PROJECT_SOURCE_DIR}/tests/install/pkgconfig -DWITH_SIM=${RAGGED_WITH_SIMGRID}
      -DWITH_MPI=${with_mpi} -DWITH_PMPI=${with_pmpi} "-DMPIEXEC=${mpiexec}"
      PARENT_SCOPE)
endfunction()
