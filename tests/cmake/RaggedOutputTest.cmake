# ragged_output_test: a test that passes only if its command exits 0 and its output (stdout and
# stderr) matches a regular expression, with no line saying WRONG. CTest's
# PASS_REGULAR_EXPRESSION alone would ignore the exit code; no test of ragged uses it.
#
#   ragged_output_test(<name> <timeout seconds> <regex> <command> [args...])
#
# The command runs under tests/cmake/exit_and_match.cmake, which ends it after <timeout> seconds
# (the test's own TIMEOUT is 30 s more, so the message says what happened). The command is not
# add_test's first word, so name an executable target as $<TARGET_FILE:target>.
set(RAGGED_EXIT_AND_MATCH ${CMAKE_CURRENT_LIST_DIR}/exit_and_match.cmake)

function(ragged_output_test name timeout regex)
  ragged_output_test_(${name} ${timeout} "${regex}" 0 ${ARGN})
endfunction()

# ragged_refusal_test(<name> <regex> <command> [args...]): the command must refuse, with an exit
# code of 1 or 2 (not a signal, not a crash), and say why in a line matching <regex>: a bad input
# named on the way in.
function(ragged_refusal_test name regex)
  ragged_output_test_(${name} 60 "${regex}" refuse ${ARGN})
endfunction()

# ragged_abort_test(<name> <timeout> <regex> <command> [args...]): the command (an MPI job) must
# end with a non-zero exit code within <timeout> seconds, as when an MPI error handler aborts
# it, and say why in a line matching <regex>.
function(ragged_abort_test name timeout regex)
  ragged_output_test_(${name} ${timeout} "${regex}" abort ${ARGN})
endfunction()

function(ragged_output_test_ name timeout regex expect)
  if(NOT ARGN)
    message(FATAL_ERROR "ragged_output_test(${name}): no command")
  endif()
  # The command and the regex go to a file, each word a bracket argument: nothing on the way
  # (CMake's own option parsing, list splitting) can change them. file(GENERATE) resolves the
  # command's generator expressions.
  set(spec "set(regex [==[${regex}]==])\nset(expect ${expect})\nset(command")
  foreach(word IN LISTS ARGN)
    string(APPEND spec " [==[${word}]==]")
  endforeach()
  string(APPEND spec ")\n")
  set(file ${PROJECT_BINARY_DIR}/tests/output-tests/${name}.cmake)
  file(GENERATE OUTPUT ${file} CONTENT "${spec}")
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DRAGGED_OUTPUT_TEST=${file} -DRAGGED_TIMEOUT=${timeout} -P
                                ${RAGGED_EXIT_AND_MATCH})
  math(EXPR outer "${timeout} + 30")
  set_tests_properties(${name} PROPERTIES TIMEOUT ${outer})
endfunction()
