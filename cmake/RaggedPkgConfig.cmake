# pkg-config files (docs/packaging.md): ragged (ragged::core), ragged-mpi, ragged-sim and
# ragged-pmpi, installed into <libdir>/pkgconfig with the dev component.
#
#   c++ -std=c++20 app.cpp $(pkg-config --cflags --libs ragged-mpi)
#   mpicc app.c $(pkg-config --libs ragged-pmpi)           # the PMPI library ahead of MPI
#
# The prefix is found from the file's own place (${pcfiledir}), so an installed tree still works
# after it is moved (cmake --install --prefix, dpkg-deb -x into a scratch root). ragged's own
# libraries are static unless BUILD_SHARED_LIBS is on: then what they link goes to Libs.private
# and Requires.private, else to Libs and Requires, so that `pkg-config --libs` alone links.

function(_ragged_pc_path out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

# The MPI library as pkg-config knows it, for C or CXX programs: its own module when there is
# one (Open MPI's ompi-c, or ompi-cxx, since Open MPI's mpi.h pulls in its C++ bindings in C++;
# MPICH's mpich), else the flags FindMPI found. Sets RAGGED_PC_MPI_REQUIRES, _CFLAGS and _LIBS.
function(_ragged_pc_mpi lang)
  set(module "")
  if(RAGGED_MPI_IMPLEMENTATION STREQUAL "openmpi" AND lang STREQUAL "CXX")
    set(module ompi-cxx)
  elseif(RAGGED_MPI_IMPLEMENTATION STREQUAL "openmpi")
    set(module ompi-c)
  elseif(RAGGED_MPI_IMPLEMENTATION STREQUAL "mpich")
    set(module mpich)
  endif()
  find_package(PkgConfig QUIET)
  if(module AND PKG_CONFIG_FOUND)
    execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --exists ${module} RESULT_VARIABLE rc)
    if(rc EQUAL 0)
      set(RAGGED_PC_MPI_REQUIRES ${module} PARENT_SCOPE)
      set(RAGGED_PC_MPI_CFLAGS "" PARENT_SCOPE)
      set(RAGGED_PC_MPI_LIBS "" PARENT_SCOPE)
      return()
    endif()
  endif()
  find_package(MPI REQUIRED COMPONENTS ${lang})  # its variables in this function's scope
  set(cflags "")
  foreach(dir IN LISTS MPI_${lang}_INCLUDE_DIRS)
    string(APPEND cflags " -I${dir}")
  endforeach()
  list(JOIN MPI_${lang}_LIBRARIES " " libs)
  set(RAGGED_PC_MPI_REQUIRES "" PARENT_SCOPE)
  set(RAGGED_PC_MPI_CFLAGS "${cflags}" PARENT_SCOPE)
  set(RAGGED_PC_MPI_LIBS " ${libs}" PARENT_SCOPE)
endfunction()

# ragged_pkg_config(<name> DESCRIPTION <text> LIBS <ragged library> [REQUIRES ...] [LINKS ...]
#                   [CFLAGS ...]): REQUIRES and LINKS are what the library needs from others
# (private when it is shared); CFLAGS what a program compiling against it needs.
function(ragged_pkg_config name)
  cmake_parse_arguments(PARSE_ARGV 1 P "" "DESCRIPTION;LIBS;SHARED" "REQUIRES;LINKS;CFLAGS")
  file(RELATIVE_PATH up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" up "${up}")
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(prefix "${CMAKE_INSTALL_PREFIX}")
  else()
    set(prefix "\${pcfiledir}/${up}")
  endif()
  _ragged_pc_path(libdir "${CMAKE_INSTALL_LIBDIR}")
  _ragged_pc_path(includedir "${CMAKE_INSTALL_INCLUDEDIR}")
  list(JOIN P_REQUIRES ", " requires)
  list(JOIN P_LINKS " " links)
  list(JOIN P_CFLAGS " " cflags)
  set(private "")
  if(P_SHARED)
    set(private ".private")
  endif()
  set(text "# pkg-config file of ${PROJECT_NAME} ${PROJECT_VERSION} (cmake/RaggedPkgConfig.cmake)\n")
  string(APPEND text "prefix=${prefix}\nlibdir=${libdir}\nincludedir=${includedir}\n\n")
  string(APPEND text "Name: ${name}\nDescription: ${P_DESCRIPTION}\nVersion: ${PROJECT_VERSION}\n")
  if(PROJECT_HOMEPAGE_URL)
    string(APPEND text "URL: ${PROJECT_HOMEPAGE_URL}\n")
  endif()
  if(P_SHARED)
    # The libraries of the package itself stay public (a program calls them).
    set(public_requires "")
    foreach(r IN LISTS P_REQUIRES)
      if(r MATCHES "^ragged")
        list(APPEND public_requires "${r}")
      endif()
    endforeach()
    list(JOIN public_requires ", " public_requires)
    string(APPEND text "Requires: ${public_requires}\nRequires.private: ${requires}\n")
  else()
    string(APPEND text "Requires: ${requires}\n")
  endif()
  string(APPEND text "Cflags: -I\${includedir}${cflags}\n")
  string(APPEND text "Libs: -L\${libdir} -l${P_LIBS}")
  if(P_SHARED)
    string(APPEND text "\nLibs.private: ${links}\n")
  else()
    string(APPEND text " ${links}\n")
  endif()
  string(REGEX REPLACE " +\n" "\n" text "${text}")
  string(REGEX REPLACE "\nRequires(\\.private)?:\n" "\n" text "${text}")
  file(WRITE "${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc" "${text}")
  install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
          COMPONENT dev)
endfunction()

function(ragged_pkg_config_files)
  get_target_property(core_type ragged_core TYPE)
  set(shared OFF)
  if(core_type STREQUAL "SHARED_LIBRARY")
    set(shared ON)
  endif()
  ragged_pkg_config(ragged DESCRIPTION "${PROJECT_DESCRIPTION} (ragged::core: algorithms, dispatch, registry)"
                    LIBS ragged_core SHARED ${shared} LINKS -pthread)
  if(TARGET ragged_sim)
    ragged_pkg_config(ragged-sim DESCRIPTION "ragged's SimGrid backend (ragged::sim)" LIBS ragged_sim
                      SHARED ${shared} REQUIRES "ragged = ${PROJECT_VERSION}" simgrid)
  endif()
  if(TARGET ragged_mpi)
    _ragged_pc_mpi(CXX)
    # ragged/mpi.hpp includes <mpi.h>: MPI's flags are public either way.
    ragged_pkg_config(ragged-mpi DESCRIPTION "ragged's MPI backend (ragged::mpi, ${RAGGED_MPI_IMPLEMENTATION})"
                      LIBS ragged_mpi SHARED ${shared} REQUIRES "ragged = ${PROJECT_VERSION}" ${RAGGED_PC_MPI_REQUIRES}
                      CFLAGS ${RAGGED_PC_MPI_CFLAGS} LINKS ${RAGGED_PC_MPI_LIBS})
  endif()
  if(TARGET ragged_pmpi)
    _ragged_pc_mpi(C)
    # The PMPI library is shared and holds ragged; it must come before MPI on the link line,
    # which listing MPI as required gives.
    ragged_pkg_config(ragged-pmpi
                      DESCRIPTION "libragged_pmpi: ragged's collectives under unmodified MPI programs (ahead of MPI)"
                      LIBS ragged_pmpi REQUIRES ${RAGGED_PC_MPI_REQUIRES} CFLAGS ${RAGGED_PC_MPI_CFLAGS}
                      LINKS ${RAGGED_PC_MPI_LIBS})
  endif()
endfunction()
