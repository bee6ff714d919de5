# Which MPI library ragged builds against (RAGGED_MPI), and how its tests launch ranks.
#
#   openmpi (default)  Open MPI, through Debian's side-by-side wrappers mpicc.openmpi, mpicxx.openmpi,
#                      mpif90.openmpi and mpiexec.openmpi when they exist, else whatever FindMPI finds
#   mpich              MPICH, through mpicc.mpich, mpicxx.mpich, mpif90.mpich and mpiexec.mpich
#   other              FindMPI's own search (MPI_HOME, the mpicc of a loaded module, ...), unchecked
#
# The suffixed wrappers are what Debian installs for each library whichever one the alternatives
# `mpi` and `mpirun` point at, so the choice never depends on (or changes) the machine's default.
# A MPI_<LANG>_COMPILER or MPIEXEC_EXECUTABLE given on the command line wins. For openmpi and
# mpich, the library found must be that one (its mpi.h defines OPEN_MPI or MPICH), or configuring
# fails (with a warning only when RAGGED_MPI was left at its default: a plain build against
# whatever MPI the machine has keeps working). Switching RAGGED_MPI in an existing build
# directory is refused: FindMPI caches its results, so a second MPI needs a build directory of
# its own (the preset mpich uses build-mpich).
#
# Sets, for the tests (docs/portability.md):
#   RAGGED_MPI_IMPLEMENTATION  openmpi, mpich or unknown: what the found mpi.h says
#   RAGGED_MPIEXEC_FLAGS       launcher options every test passes (oversubscription, binding, ...)
# and defines ragged_mpiexec_args(<out> <args>...), which rewrites Open MPI's `-x NAME=VALUE`
# among launcher arguments into the launcher's own spelling (`-genv NAME VALUE` for MPICH's hydra).

if(NOT DEFINED CACHE{RAGGED_MPI} AND NOT DEFINED CACHE{RAGGED_MPI_DEFAULTED})
  # Nobody chose: a plain build on a machine whose only MPI is another one still builds (below).
  set(RAGGED_MPI_DEFAULTED ON CACHE INTERNAL "RAGGED_MPI was not given at the first configure")
endif()
set(RAGGED_MPI "openmpi" CACHE STRING "MPI library to build against: openmpi, mpich or other")
set_property(CACHE RAGGED_MPI PROPERTY STRINGS openmpi mpich other)
if(NOT RAGGED_MPI MATCHES "^(openmpi|mpich|other)$")
  message(FATAL_ERROR "RAGGED_MPI is '${RAGGED_MPI}'; it must be openmpi, mpich or other")
endif()
if(DEFINED CACHE{RAGGED_MPI_CONFIGURED} AND NOT RAGGED_MPI_CONFIGURED STREQUAL RAGGED_MPI)
  message(FATAL_ERROR "This build directory was configured with RAGGED_MPI=${RAGGED_MPI_CONFIGURED}; FindMPI "
                      "cached that library. Configure RAGGED_MPI=${RAGGED_MPI} in a build directory of its own "
                      "(the presets: default in build/, mpich in build-mpich/).")
endif()
set(RAGGED_MPI_CONFIGURED "${RAGGED_MPI}" CACHE INTERNAL "RAGGED_MPI this build directory was configured with")

if(RAGGED_MPI STREQUAL "openmpi" OR RAGGED_MPI STREQUAL "mpich")
  foreach(_lang_wrapper C:mpicc CXX:mpicxx Fortran:mpif90)
    string(REPLACE ":" ";" _pair "${_lang_wrapper}")
    list(GET _pair 0 _lang)
    list(GET _pair 1 _wrapper)
    if(NOT MPI_${_lang}_COMPILER)
      find_program(_ragged_wrapper NAMES ${_wrapper}.${RAGGED_MPI} NO_CACHE)
      if(_ragged_wrapper)
        set(MPI_${_lang}_COMPILER "${_ragged_wrapper}" CACHE FILEPATH "MPI ${_lang} wrapper (RAGGED_MPI=${RAGGED_MPI})")
      endif()
      unset(_ragged_wrapper)
    endif()
  endforeach()
  if(NOT MPIEXEC_EXECUTABLE)
    find_program(_ragged_mpiexec NAMES mpiexec.${RAGGED_MPI} mpirun.${RAGGED_MPI} NO_CACHE)
    if(_ragged_mpiexec)
      set(MPIEXEC_EXECUTABLE "${_ragged_mpiexec}" CACHE FILEPATH "MPI launcher (RAGGED_MPI=${RAGGED_MPI})")
    endif()
    unset(_ragged_mpiexec)
  endif()
  unset(_lang_wrapper)
  unset(_pair)
  unset(_lang)
  unset(_wrapper)
endif()

# Which implementation the found mpi.h belongs to (after find_package(MPI ... CXX)).
function(ragged_check_mpi_implementation)
  if(DEFINED CACHE{RAGGED_MPI_IMPLEMENTATION})
    return()
  endif()
  set(_probe "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/ragged_mpi_probe.cpp")
  file(WRITE "${_probe}" "#include <mpi.h>\n#if defined(OPEN_MPI)\n#error RAGGED_IS_OPENMPI\n"
                         "#elif defined(MPICH)\n#error RAGGED_IS_MPICH\n#endif\nint main() { return 0; }\n")
  try_compile(_compiled "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/ragged_mpi_probe" SOURCES "${_probe}"
              LINK_LIBRARIES MPI::MPI_CXX OUTPUT_VARIABLE _out)
  if(_out MATCHES "RAGGED_IS_OPENMPI")
    set(_impl openmpi)
  elseif(_out MATCHES "RAGGED_IS_MPICH")
    set(_impl mpich)
  else()
    set(_impl unknown)
  endif()
  if(NOT RAGGED_MPI STREQUAL "other" AND NOT _impl STREQUAL RAGGED_MPI AND RAGGED_MPI_DEFAULTED)
    message(WARNING "RAGGED_MPI defaults to ${RAGGED_MPI}, but the MPI found (${MPI_CXX_COMPILER}) is ${_impl}: "
                    "building against it. Set RAGGED_MPI to say which MPI to use.")
  elseif(NOT RAGGED_MPI STREQUAL "other" AND NOT _impl STREQUAL RAGGED_MPI)
    message(FATAL_ERROR "RAGGED_MPI=${RAGGED_MPI}, but the MPI found (${MPI_CXX_COMPILER}, mpi.h in "
                        "${MPI_CXX_INCLUDE_DIRS}) is ${_impl}. Install it (Debian: scripts/setup-debian.sh), "
                        "point MPI_CXX_COMPILER at its wrapper, or set RAGGED_MPI=other.")
  endif()
  set(RAGGED_MPI_IMPLEMENTATION "${_impl}" CACHE INTERNAL "The MPI implementation ragged builds against")
  message(STATUS "ragged: MPI is ${_impl} (RAGGED_MPI=${RAGGED_MPI}; ${MPI_CXX_COMPILER}; "
                 "launcher ${MPIEXEC_EXECUTABLE})")
endfunction()

# Launcher options of the tests, per implementation.
function(ragged_mpiexec_flags out)
  if(RAGGED_MPI_IMPLEMENTATION STREQUAL "openmpi")
    # Oversubscribe the 2-core CI machine, no core binding, shared memory and TCP only, and
    # Open MPI 4.1.4's AVX reductions off (wrong for overflowing 8-bit sums, docs/backends/mpi.md).
    # pml ob1 is the one Open MPI selects here anyway; naming it spares every launch opening the
    # other PMLs (UCX): 0.43 s instead of 0.64 s for an MPI_Init and a barrier at np 4.
    set(flags --oversubscribe --bind-to none --mca btl self,vader,tcp --mca pml ob1 --mca op ^avx)
    if("$ENV{USER}" STREQUAL "" OR "$ENV{USER}" STREQUAL "root")
      list(APPEND flags --allow-run-as-root)
    endif()
  else()
    # MPICH's hydra runs as root, oversubscribes and does not bind by default.
    set(flags)
  endif()
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

# ragged_mpiexec_args(<out> args...): `-x NAME=VALUE` pairs become the launcher's spelling.
function(ragged_mpiexec_args out)
  set(result)
  set(pending_x FALSE)
  foreach(arg IN LISTS ARGN)
    if(pending_x)
      set(pending_x FALSE)
      if(RAGGED_MPI_IMPLEMENTATION STREQUAL "openmpi")
        list(APPEND result -x "${arg}")
      else()
        string(FIND "${arg}" "=" eq)
        if(eq LESS 1)
          message(FATAL_ERROR "ragged_mpiexec_args: '-x ${arg}' is not -x NAME=VALUE")
        endif()
        string(SUBSTRING "${arg}" 0 ${eq} name)
        math(EXPR start "${eq} + 1")
        string(SUBSTRING "${arg}" ${start} -1 value)
        list(APPEND result -genv "${name}" "${value}")
      endif()
    elseif(arg STREQUAL "-x")
      set(pending_x TRUE)
    else()
      list(APPEND result "${arg}")
    endif()
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()
