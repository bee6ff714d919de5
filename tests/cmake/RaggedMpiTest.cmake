# ragged_mpi_test: a program under mpirun, one ctest test per rank count. Every test that runs
# under the MPI launcher is registered through it (the C++ programs, the C and Fortran programs
# of mpi.pmpi, the soak runs, and the mpi.train jobs through their wrapper script).
#
#   ragged_mpi_test(NAME <test name, {np} standing for the rank count> NP <rank counts>...
#                   TARGET <executable>
#                   [SOURCES <files>... [LIBRARIES <libraries>...] [INCLUDE_DIRECTORIES <dirs>...] [WARNINGS]]
#                   [LAUNCHER_ARGS <launcher options>...] [ARGS <program arguments>...]
#                   [COMMAND_PREFIX <command>...] [WRAPPER <command>...]
#                   [TIMEOUT <seconds>] [ENVIRONMENT <NAME=value>...]
#                   [LABELS <labels>...] [PASS_REGULAR_EXPRESSION <regex>] [SKIP_RETURN_CODE <code>]
#                   [RUN_SERIAL])
#
# With PASS_REGULAR_EXPRESSION the test passes only if the launcher exits 0 (with ABORTS: exits
# with an error code, within TIMEOUT, as a job that an MPI error ended) and the output
# matches (ragged_output_test, tests/cmake/RaggedOutputTest.cmake): CTest's property of that
# name would ignore the exit code. It cannot be combined with SKIP_RETURN_CODE.
#
# With SOURCES it first builds TARGET from them, linked to ragged_mpi, ragged_test_support and
# LIBRARIES (WARNINGS: with ragged_warnings); without, TARGET is an executable built elsewhere
# (ragged-bench, a C program of tests/pmpi, or a test program an earlier call built). Each test runs
#   [COMMAND_PREFIX...] <launcher> <-n> <np> <launcher flags of the MPI implementation>
#                       [LAUNCHER_ARGS...] $<TARGET_FILE:TARGET> ARGS...
# (MPIEXEC_EXECUTABLE and MPIEXEC_NUMPROC_FLAG of FindMPI, ragged_mpiexec_flags of
# cmake/RaggedMPI.cmake: Open MPI's mpirun and MPICH's mpiexec alike) with PROCESSORS <np>.
#
# LAUNCHER_ARGS are written Open MPI's way (`-x NAME=VALUE` for an environment variable of the
# ranks); ragged_mpiexec_args (cmake/RaggedMPI.cmake) gives them the launcher's own spelling.
# COMMAND_PREFIX is a command that gets the whole launcher command line as its last arguments
# and runs it (tests/pmpi/run_report.sh). WRAPPER is a command that gets the launcher alone:
#   WRAPPER... <launcher> <launcher flags of the MPI implementation> [LAUNCHER_ARGS...]
# and starts the ranks itself, adding the rank count and the program (tests/train/run_train_test.sh);
# it names its program itself, so it takes no TARGET or ARGS. {np} in COMMAND_PREFIX and WRAPPER
# stands for the rank count too.
include(${CMAKE_CURRENT_LIST_DIR}/RaggedOutputTest.cmake)

function(ragged_mpi_test)
  set(multi NP SOURCES LIBRARIES INCLUDE_DIRECTORIES LAUNCHER_ARGS ARGS COMMAND_PREFIX WRAPPER ENVIRONMENT LABELS)
  cmake_parse_arguments(PARSE_ARGV 0 T "WARNINGS;RUN_SERIAL;ABORTS" "NAME;TARGET;TIMEOUT;PASS_REGULAR_EXPRESSION;SKIP_RETURN_CODE"
                        "${multi}")
  if(T_UNPARSED_ARGUMENTS OR NOT T_NAME OR NOT T_NP)
    message(FATAL_ERROR "ragged_mpi_test: NAME and NP are required (${T_UNPARSED_ARGUMENTS})")
  endif()
  if(DEFINED T_WRAPPER)
    if(T_TARGET OR DEFINED T_ARGS OR DEFINED T_SOURCES OR DEFINED T_COMMAND_PREFIX)
      message(FATAL_ERROR "ragged_mpi_test: ${T_NAME}: a WRAPPER names its program itself "
                          "(no TARGET, SOURCES, ARGS or COMMAND_PREFIX)")
    endif()
  elseif(NOT T_TARGET)
    message(FATAL_ERROR "ragged_mpi_test: ${T_NAME}: TARGET is required (or a WRAPPER)")
  endif()
  if(DEFINED T_PASS_REGULAR_EXPRESSION AND DEFINED T_SKIP_RETURN_CODE)
    message(FATAL_ERROR "ragged_mpi_test: ${T_NAME}: PASS_REGULAR_EXPRESSION cannot be combined with SKIP_RETURN_CODE")
  endif()
  if(NOT DEFINED T_TIMEOUT)
    set(T_TIMEOUT 1500)  # CTest's default
  endif()
  # Leak checks under mpirun too (docs/reliability.md): Open MPI 4.1 leaks from MPI_Init on, much
  # of it in plugins that MPI_Finalize unloads, whose frames LeakSanitizer then cannot name. Stacks
  # are unwound whole (Open MPI and libc keep no frame pointers), so that they reach a frame of
  # libmpi, Open PAL or libevent, which tests/support/lsan_mpi.supp suppresses.
  if("address" IN_LIST RAGGED_SANITIZER)
    list(APPEND T_ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:fast_unwind_on_malloc=0"
         "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/support/lsan_mpi.supp:print_suppressions=0")
  endif()
  list(LENGTH T_NP np_count)
  string(FIND "${T_NAME}" "{np}" np_at)
  if(np_count GREATER 1 AND np_at EQUAL -1)
    message(FATAL_ERROR "ragged_mpi_test: ${T_NAME} runs at several rank counts; its NAME needs {np}")
  endif()
  if(T_SOURCES)
    add_executable(${T_TARGET} ${T_SOURCES})
    target_link_libraries(${T_TARGET} PRIVATE ragged_mpi ragged_test_support ${T_LIBRARIES})
    if(T_INCLUDE_DIRECTORIES)
      target_include_directories(${T_TARGET} PRIVATE ${T_INCLUDE_DIRECTORIES})
    endif()
    if(T_WARNINGS)
      ragged_warnings(${T_TARGET})
    endif()
  endif()
  ragged_mpiexec_flags(flags)
  ragged_mpiexec_args(launcher_args ${T_LAUNCHER_ARGS})
  foreach(np IN LISTS T_NP)
    string(REPLACE "{np}" "${np}" name "${T_NAME}")
    if(DEFINED T_WRAPPER)
      string(REPLACE "{np}" "${np}" wrapper "${T_WRAPPER}")
      set(command ${wrapper} ${MPIEXEC_EXECUTABLE} ${flags} ${launcher_args})
    else()
      string(REPLACE "{np}" "${np}" prefix "${T_COMMAND_PREFIX}")
      set(command ${prefix} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${flags} ${launcher_args}
                  $<TARGET_FILE:${T_TARGET}> ${T_ARGS})
    endif()
    if(DEFINED T_PASS_REGULAR_EXPRESSION AND T_ABORTS)
      ragged_abort_test(${name} ${T_TIMEOUT} "${T_PASS_REGULAR_EXPRESSION}" ${command})
    elseif(DEFINED T_PASS_REGULAR_EXPRESSION)
      ragged_output_test(${name} ${T_TIMEOUT} "${T_PASS_REGULAR_EXPRESSION}" ${command})
    else()
      add_test(NAME ${name} COMMAND ${command})
      set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT})
    endif()
    set_tests_properties(${name} PROPERTIES PROCESSORS ${np})
    # One property at a time, quoted: a list value (two ENVIRONMENT entries) stays one value.
    foreach(property SKIP_RETURN_CODE ENVIRONMENT LABELS)
      if(DEFINED T_${property})
        set_tests_properties(${name} PROPERTIES ${property} "${T_${property}}")
      endif()
    endforeach()
    if(T_RUN_SERIAL)
      set_tests_properties(${name} PROPERTIES RUN_SERIAL ON)
    endif()
  endforeach()
endfunction()
