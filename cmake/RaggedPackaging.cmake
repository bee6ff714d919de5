# Debian packages with CPack (docs/packaging.md): `cpack -G DEB` in a build directory, best the
# package preset's (build-package: prefix /usr, platforms not looked up in the source tree).
# One package per install component (CMakeLists.txt, "install"):
#
#   libragged<so>    runtime    the shared libraries: libragged_pmpi.so.<so> (and libragged_core,
#                               _mpi, _sim with BUILD_SHARED_LIBS); Depends from dpkg-shlibdeps
#   libragged-dev    dev        headers, static libraries, .so links, CMake package, pkg-config
#                               files; Depends on the runtime and platforms packages of the same
#                               version and on the -dev packages of MPI and SimGrid
#   ragged-bench     bench      ragged-bench; Depends from dpkg-shlibdeps, and ragged-platforms
#   ragged-platforms platforms  the SimGrid platforms (Architecture: all)
#   ragged-train     train      ragged-train, when it is built (dlib); Depends from dpkg-shlibdeps
#
# Built against Open MPI (the default RAGGED_MPI) the packages depend on Debian's Open MPI; an
# MPICH build gets the same package names with MPICH's dependencies (they conflict with each other
# only through their files).

set(RAGGED_PACKAGE_MAINTAINER "ragged maintainers <maintainers@users.noreply.a-seed-840bf5e2.example>"
    CACHE STRING "Maintainer field of the Debian packages")

set(CPACK_PACKAGE_NAME ragged)
set(CPACK_PACKAGE_VENDOR "ragged")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Each package's Description: the project's description as synopsis (CPack's
# CPACK_PACKAGE_DESCRIPTION_SUMMARY), its component's description as the extended text.
set(CPACK_PACKAGE_CONTACT "${RAGGED_PACKAGE_MAINTAINER}")
set(CPACK_RESOURCE_FILE_README "${PROJECT_SOURCE_DIR}/README.md")
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${RAGGED_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)         # dpkg-shlibdeps (dpkg-dev) for every ELF file
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)   # a shlibs file for the runtime package
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)  # component DEPENDS become "<package> (= version)"

# What the -dev package needs of MPI and SimGrid to compile and link a program.
set(_ragged_dev_depends "")
if(RAGGED_WITH_MPI)
  if(RAGGED_MPI_IMPLEMENTATION STREQUAL "mpich")
    list(APPEND _ragged_dev_depends "libmpich-dev")
  elseif(RAGGED_MPI_IMPLEMENTATION STREQUAL "openmpi")
    list(APPEND _ragged_dev_depends "libopenmpi-dev")
  endif()
endif()
if(RAGGED_WITH_SIMGRID)
  list(APPEND _ragged_dev_depends "libsimgrid-dev (>= 3.30)")
endif()
list(JOIN _ragged_dev_depends ", " _ragged_dev_depends)

# The runtime package exists when there is a shared library to put in it.
set(_ragged_has_runtime OFF)
foreach(_ragged_target IN LISTS RAGGED_INSTALL_TARGETS)
  get_target_property(_ragged_type ${_ragged_target} TYPE)
  if(_ragged_type STREQUAL "SHARED_LIBRARY")
    set(_ragged_has_runtime ON)
  endif()
endforeach()

set(CPACK_COMPONENTS_ALL dev)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libragged-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${_ragged_dev_depends}")
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "cmake, pkg-config")
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "Development files of ragged, a C++20 library of MPI collectives: headers,
static libraries, the CMake package (find_package(ragged)) and the pkg-config
files ragged, ragged-mpi, ragged-sim and ragged-pmpi.")
set(CPACK_COMPONENT_DEV_DEPENDS "")
if(_ragged_has_runtime)
  list(APPEND CPACK_COMPONENTS_ALL runtime)
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME "libragged${RAGGED_SOVERSION}")
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
  set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
      "Shared libraries of ragged: libragged_pmpi.so runs ragged's collectives under
unmodified MPI programs, preloaded or linked ahead of the MPI library.")
  list(APPEND CPACK_COMPONENT_DEV_DEPENDS runtime)
endif()
if(RAGGED_WITH_SIMGRID)
  list(APPEND CPACK_COMPONENTS_ALL platforms)
  set(CPACK_DEBIAN_PLATFORMS_PACKAGE_NAME ragged-platforms)
  set(CPACK_DEBIAN_PLATFORMS_PACKAGE_ARCHITECTURE all)
  set(CPACK_DEBIAN_PLATFORMS_PACKAGE_SHLIBDEPS OFF)
  set(CPACK_COMPONENT_PLATFORMS_DESCRIPTION
      "SimGrid platforms of ragged: the simulated clusters of its sim backend and of
ragged-bench (a 1 GbE cluster, an InfiniBand QDR cluster, two clusters joined
by a backbone).")
  list(APPEND CPACK_COMPONENT_DEV_DEPENDS platforms)
endif()
if(TARGET ragged-bench)
  list(APPEND CPACK_COMPONENTS_ALL bench)
  set(CPACK_DEBIAN_BENCH_PACKAGE_NAME ragged-bench)
  if(RAGGED_WITH_MPI AND RAGGED_MPI_IMPLEMENTATION STREQUAL "mpich")
    set(CPACK_DEBIAN_BENCH_PACKAGE_RECOMMENDS "mpich")
  elseif(RAGGED_WITH_MPI)
    set(CPACK_DEBIAN_BENCH_PACKAGE_RECOMMENDS "openmpi-bin")
  endif()
  set(CPACK_COMPONENT_BENCH_DESCRIPTION
      "Benchmarks of ragged: ragged-bench runs the experiments of ragged's papers on
SimGrid or under mpirun.")
  set(CPACK_COMPONENT_BENCH_DEPENDS "")
  if(RAGGED_WITH_SIMGRID)
    set(CPACK_COMPONENT_BENCH_DEPENDS platforms)
  endif()
endif()
if(TARGET ragged-train)
  list(APPEND CPACK_COMPONENTS_ALL train)
  set(CPACK_DEBIAN_TRAIN_PACKAGE_NAME ragged-train)
  set(CPACK_DEBIAN_TRAIN_PACKAGE_RECOMMENDS "dataset-fashion-mnist, ${CPACK_DEBIAN_BENCH_PACKAGE_RECOMMENDS}")
  set(CPACK_COMPONENT_TRAIN_DESCRIPTION
      "Training example of ragged: ragged-train trains a small CNN on Fashion-MNIST
(dlib) data-parallel under mpirun, the parameters averaged by one ragged
allreduce per minibatch.")
endif()

include(CPack)
