# Strict warnings for ragged's own targets; errors when RAGGED_WERROR is on.
function(ragged_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
                                           -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
                                           -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  if(RAGGED_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
