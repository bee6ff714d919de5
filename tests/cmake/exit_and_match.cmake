# Runs a test command and passes only if it exits 0 AND its output matches a regular
# expression. CTest's PASS_REGULAR_EXPRESSION alone ignores the exit code: a program that
# printed the expected line and then found wrong results (and exited 1) would pass.
#
#   cmake -DRAGGED_OUTPUT_TEST=<file> -DRAGGED_TIMEOUT=<seconds> -P exit_and_match.cmake
#
# <file> sets `command` (the words of the command), `regex` (CMake syntax, as
# PASS_REGULAR_EXPRESSION) and `expect` (0: exit 0; refuse: exit 1 or 2, a refused input; abort: any non-zero exit code
# within the timeout); tests/cmake/RaggedOutputTest.cmake writes it, so that no quoting of
# a command line can change either. stdout and stderr are matched together, as CTest does, and
# printed. A line saying WRONG (as tests/pmpi's programs and tools/examples print on a result
# that differs) fails the test too.
cmake_minimum_required(VERSION 3.20)

if(NOT DEFINED RAGGED_OUTPUT_TEST OR NOT DEFINED RAGGED_TIMEOUT)
  message(FATAL_ERROR "usage: cmake -DRAGGED_OUTPUT_TEST=<file> -DRAGGED_TIMEOUT=<s> -P exit_and_match.cmake")
endif()
include(${RAGGED_OUTPUT_TEST})
if(NOT command)
  message(FATAL_ERROR "exit_and_match: ${RAGGED_OUTPUT_TEST} names no command")
endif()

execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output
                TIMEOUT ${RAGGED_TIMEOUT})
# The program's own output first, whatever happens next.
message("${output}")
if(expect STREQUAL "refuse")
  # A refusal: exit code 1 or 2, not a signal ("Segmentation fault") or an abort (134).
  if(NOT rc MATCHES "^[12]$")
    message(FATAL_ERROR "exit_and_match: the command ended with '${rc}' (a refusal, 1 or 2, wanted)")
  endif()
elseif(expect STREQUAL "abort")
  # An aborted job: a non-zero exit code, not the timeout of execute_process.
  if(NOT rc MATCHES "^[0-9]+$" OR rc STREQUAL "0")
    message(FATAL_ERROR "exit_and_match: the command ended with '${rc}' (an abort, a non-zero exit code, wanted)")
  endif()
elseif(NOT "${rc}" STREQUAL "0")
  message(FATAL_ERROR "exit_and_match: the command ended with '${rc}' (0 wanted)")
endif()
if(output MATCHES "(^|\n)[^\n]*WRONG")
  message(FATAL_ERROR "exit_and_match: the output has a line saying WRONG")
endif()
if(NOT output MATCHES "${regex}")
  message(FATAL_ERROR "exit_and_match: the output does not match the regular expression of ${RAGGED_OUTPUT_TEST}")
endif()
