# Plants upward includes in a copy of the sources and shows that
# cmake/check_layers.cmake, which the build runs before any layer, fails
# on each of them and passes on the tree as it is.
#
#   cmake -DROOT=<source dir> -DWORK=<scratch dir> -P tests/layers/upward.cmake
set(check ${ROOT}/cmake/check_layers.cmake)

execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${ROOT} -P ${check}
  RESULT_VARIABLE rc ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the tree itself fails the check:\n${out}")
endif()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(COPY ${ROOT}/src ${ROOT}/include DESTINATION ${WORK})
# base -> views, analyses -> cli, a public header of analyses -> capture.
file(APPEND ${WORK}/src/util/buf.c "#include \"vprof/table.h\"\n")
file(APPEND ${WORK}/src/ascend/stt.c "#include \"cli/cli.h\"\n")
file(APPEND ${WORK}/include/analyses/vprof/gpuwork.h "#include \"vprof/capture.h\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${WORK} -P ${check}
  RESULT_VARIABLE rc ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "the check passed a tree with upward includes")
endif()
foreach(want
    "src/util/buf.c (base) includes vprof/table.h (views): base uses only base"
    "src/ascend/stt.c (analyses) includes cli/cli.h (cli): analyses uses only base input analyses"
    "include/analyses/vprof/gpuwork.h (analyses) includes vprof/capture.h (capture): analyses uses only base input analyses")
  string(FIND "${out}" "${want}" at)
  if(at LESS 0)
    message(FATAL_ERROR "the check did not say '${want}':\n${out}")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
