# Script-mode helpers of the install.* and package.* tests: run a step or fail with its output,
# and build and run the consumers that know ragged through pkg-config only.

# step(<command>...): runs it, fails the test with its output unless it succeeds; the output is
# left in step_output.
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# expect(<text> <regex> <what>): fails unless text matches.
function(expect text regex what)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected /${regex}/ in:\n${text}")
  endif()
endfunction()

# pkg_config_flags(<out> <module>...): `pkg-config --cflags --libs <modules>` as a list.
function(pkg_config_flags out)
  step(${PKG_CONFIG} --cflags --libs ${ARGN})
  string(STRIP "${step_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

# pkg_config_consumers(<pc dir> <work dir>): with PKG_CONFIG_PATH=<pc dir> and nothing else,
# compiles and runs the find_package consumer's main.cpp against ragged (and ragged-sim), an MPI
# program against ragged-mpi under mpirun, and a plain C MPI program against ragged-pmpi.
# Reads VERSION, CXX, CC, PKG_CONFIG, CONSUMER_DIR, PC_CONSUMER_DIR, WITH_SIM, WITH_MPI,
# WITH_PMPI and MPIEXEC ('|'-separated: launcher, its -n flag and options).
function(pkg_config_consumers pcdir work)
  set(ENV{PKG_CONFIG_PATH} "${pcdir}")
  file(MAKE_DIRECTORY "${work}")
  step(${PKG_CONFIG} --modversion ragged)
  expect("${step_output}" "^${VERSION}" "pkg-config --modversion ragged")

  set(module ragged)
  set(defines "")
  if(WITH_SIM)
    set(module ragged-sim)
    set(defines -DWITH_SIM=1)
  endif()
  pkg_config_flags(flags ${module})
  step(${CXX} -std=c++20 ${defines} "${CONSUMER_DIR}/main.cpp" ${flags} -o "${work}/pc_consumer")
  step("${work}/pc_consumer")
  expect("${step_output}" "consumer ok" "the pkg-config consumer (${module})")
  message(STATUS "pkg-config ${module}: ${step_output}")

  string(REPLACE "|" ";" mpiexec "${MPIEXEC}")
  if(WITH_MPI)
    pkg_config_flags(flags ragged-mpi)
    step(${CXX} -std=c++20 "${PC_CONSUMER_DIR}/mpi_consumer.cpp" ${flags} -o "${work}/pc_mpi_consumer")
    step(${mpiexec} 2 "${work}/pc_mpi_consumer")
    expect("${step_output}" "mpi consumer ok \\(ragged ${VERSION}\\)" "the pkg-config consumer (ragged-mpi)")
    message(STATUS "pkg-config ragged-mpi: ${step_output}")
  endif()
  if(WITH_PMPI)
    step(${PKG_CONFIG} --libs ragged-pmpi)
    # The library must come before MPI's on the link line.
    expect("${step_output}" "-lragged_pmpi .*-l(mpi|mpich)( |\n|$)" "pkg-config --libs ragged-pmpi")
    step(${PKG_CONFIG} --variable=libdir ragged-pmpi)
    string(STRIP "${step_output}" libdir)
    pkg_config_flags(flags ragged-pmpi)
    step(${CC} "${PC_CONSUMER_DIR}/pmpi_consumer.c" ${flags} "-Wl,-rpath,${libdir}" -o "${work}/pc_pmpi_consumer")
    set(ENV{RAGGED_ALLGATHER} ring)  # the launcher passes its environment to the local ranks
    step(${mpiexec} 2 "${work}/pc_pmpi_consumer")
    unset(ENV{RAGGED_ALLGATHER})
    expect("${step_output}" "pmpi consumer ok \\(ran ring\\)" "the pkg-config consumer (ragged-pmpi)")
    message(STATUS "pkg-config ragged-pmpi: ${step_output}")
  endif()
endfunction()

# cmake_consumer(<prefix path> <work dir>): configures, builds and runs the consumer of
# CONSUMER_DIR with find_package(ragged) from <prefix path>. Reads WITH_SIM.
function(cmake_consumer prefix_path work)
  step(${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${work}" "-DCMAKE_PREFIX_PATH=${prefix_path}" "-DWITH_SIM=${WITH_SIM}")
  step(${CMAKE_COMMAND} --build "${work}")
  step("${work}/consumer")
  expect("${step_output}" "consumer ok" "the find_package consumer")
  message(STATUS "find_package: ${step_output}")
endfunction()
