# ragged_mpi_test: a program under mpirun, one ctest test per rank count.
#
#   ragged_mpi_test(NAME <test name, {np} standing for the rank count> NP <rank counts>...
#                   TARGET <executable>
#                   [SOURCES <files>... [LIBRARIES <libraries>...] [INCLUDE_DIRECTORIES <dirs>...] [WARNINGS]]
#                   [ARGS <program arguments>...] [TIMEOUT <seconds>] [ENVIRONMENT <NAME=value>...]
#                   [LABELS <labels>...] [PASS_REGULAR_EXPRESSION <regex>] [SKIP_RETURN_CODE <code>]
#                   [RUN_SERIAL])
#
# With SOURCES it first builds TARGET from them, linked to ragged_mpi, ragged_test_support and
# LIBRARIES (WARNINGS: with ragged_warnings); without, TARGET is an executable built elsewhere
# (ragged-bench, or a test program an earlier call built). Each test runs
#   <launcher> <-n> <np> <launcher flags of the MPI implementation> $<TARGET_FILE:TARGET> ARGS...
# (MPIEXEC_EXECUTABLE and MPIEXEC_NUMPROC_FLAG of FindMPI, ragged_mpiexec_flags of
# cmake/RaggedMPI.cmake: Open MPI's mpirun and MPICH's mpiexec alike) with PROCESSORS <np>.
function(ragged_mpi_test)
  cmake_parse_arguments(PARSE_ARGV 0 T "WARNINGS;RUN_SERIAL" "NAME;TARGET;TIMEOUT;PASS_REGULAR_EXPRESSION;SKIP_RETURN_CODE"
                        "NP;SOURCES;LIBRARIES;INCLUDE_DIRECTORIES;ARGS;ENVIRONMENT;LABELS")
  if(T_UNPARSED_ARGUMENTS OR NOT T_NAME OR NOT T_TARGET OR NOT T_NP)
    message(FATAL_ERROR "ragged_mpi_test: NAME, TARGET and NP are required (${T_UNPARSED_ARGUMENTS})")
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
  foreach(np IN LISTS T_NP)
    string(REPLACE "{np}" "${np}" name "${T_NAME}")
    add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${flags}
                                  $<TARGET_FILE:${T_TARGET}> ${T_ARGS})
    set_tests_properties(${name} PROPERTIES PROCESSORS ${np})
    # One property at a time, quoted: a list value (two ENVIRONMENT entries) stays one value.
    foreach(property TIMEOUT PASS_REGULAR_EXPRESSION SKIP_RETURN_CODE ENVIRONMENT LABELS)
      if(DEFINED T_${property})
        set_tests_properties(${name} PROPERTIES ${property} "${T_${property}}")
      endif()
    endforeach()
    if(T_RUN_SERIAL)
      set_tests_properties(${name} PROPERTIES RUN_SERIAL ON)
    endif()
  endforeach()
endfunction()
