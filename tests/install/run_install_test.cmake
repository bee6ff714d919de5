# Script mode: install, configure the consumer with find_package(ragged), build it, run it.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/consumers.cmake")
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
cmake_consumer("${prefix}" "${WORK_DIR}/build")
