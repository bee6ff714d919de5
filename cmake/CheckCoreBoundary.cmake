# Fails when a source of ragged::core (src/core, include/ragged except the backend
# headers) includes MPI or SimGrid: the algorithms must see only Comm and Runtime.
file(GLOB_RECURSE files "${SOURCE_DIR}/src/core/*.cpp" "${SOURCE_DIR}/src/core/*.hpp" "${SOURCE_DIR}/include/ragged/*.hpp")
foreach(f IN LISTS files)
  get_filename_component(name "${f}" NAME)
  if(name STREQUAL "mpi.hpp" OR name STREQUAL "sim.hpp")
    continue()
  endif()
  file(STRINGS "${f}" hits REGEX "#[ \t]*include[ \t]*[<\"](mpi\\.h|simgrid/)")
  if(hits)
    message(FATAL_ERROR "ragged::core must not include MPI or SimGrid: ${f}: ${hits}")
  endif()
endforeach()
