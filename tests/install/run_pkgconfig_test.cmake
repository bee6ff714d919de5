# Script mode: installs the build into a fresh prefix and builds programs against it with
# `pkg-config --cflags --libs` alone (PKG_CONFIG_PATH = the prefix's pkgconfig directory).
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/consumers.cmake")
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
if(IS_ABSOLUTE "${LIBDIR}")
  message(FATAL_ERROR "CMAKE_INSTALL_LIBDIR is absolute (${LIBDIR}): the install cannot be moved")
endif()
pkg_config_consumers("${prefix}/${LIBDIR}/pkgconfig" "${WORK_DIR}/consumers")
