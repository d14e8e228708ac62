# The layers of docs/architecture.md, checked on every build: a file may
# include only headers of its own layer or of the layers it uses.  The
# public headers of a layer are include/LAYER/vprof/, and each library
# target sees only its own and the lower layers' (CMakeLists.txt), so an
# upward #include "vprof/..." already fails to compile; what the compiler
# cannot refuse is a private header of src/ ("cli/cli.h", every target has
# src/ on its path) or a public header that includes one of a higher
# layer before any file of its own layer includes it.  This checks both,
# and the build depends on it.
#
#   cmake -DROOT=<source dir> [-DSTAMP=<file to touch>] -P cmake/check_layers.cmake
#
# A source file's layer is its top folder's under src/ (DIRS_ below); a
# public header's is the folder include/LAYER/ it lies in.

cmake_minimum_required(VERSION 3.18)

set(LAYERS base input analyses capture views cli)
set(DIRS_base util io json)
set(DIRS_input trace pickle)
set(DIRS_analyses analysis ascend flops memsnap merge exec)
set(DIRS_capture capture)
set(DIRS_views report)
set(DIRS_cli cmd cli)
set(USES_base base)
set(USES_input base input)
set(USES_analyses base input analyses)
set(USES_capture base input capture)
set(USES_views base input analyses views)
set(USES_cli base input analyses capture views cli)

if(NOT ROOT)
  message(FATAL_ERROR "check_layers: give -DROOT=<source dir>")
endif()

function(layer_of_dir dir out)
  set(${out} "" PARENT_SCOPE)
  foreach(l ${LAYERS})
    if(dir IN_LIST DIRS_${l})
      set(${out} ${l} PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# The layer of a public header vprof/NAME.h: the LAYER of include/LAYER/vprof/NAME.h.
function(layer_of_header name out)
  set(${out} "" PARENT_SCOPE)
  file(GLOB found RELATIVE ${ROOT}/include ${ROOT}/include/*/vprof/${name}.h)
  if(found)
    list(GET found 0 first)
    string(REGEX REPLACE "/.*" "" l ${first})
    set(${out} ${l} PARENT_SCOPE)
  endif()
endfunction()

# The layer of an included path ("vprof/x.h" or a private "dir/x.h").
function(layer_of_include inc out)
  set(${out} "" PARENT_SCOPE)
  if(inc MATCHES "^vprof/([A-Za-z0-9_]+)\\.h$")
    layer_of_header(${CMAKE_MATCH_1} l)
    if(NOT l)
      set(l "?")
    endif()
    set(${out} ${l} PARENT_SCOPE)
  elseif(inc MATCHES "^([a-z]+)/" AND IS_DIRECTORY ${ROOT}/src/${CMAKE_MATCH_1})
    layer_of_dir(${CMAKE_MATCH_1} l)
    set(${out} "${l}" PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE sources RELATIVE ${ROOT} ${ROOT}/src/*.c ${ROOT}/src/*.h)
file(GLOB headers RELATIVE ${ROOT} ${ROOT}/include/*/vprof/*.h)
set(failures "")
foreach(f ${sources} ${headers})
  set(own "")
  if(f STREQUAL "src/main.c")
    set(own cli)
  elseif(f MATCHES "^src/([^/]+)/")
    layer_of_dir(${CMAKE_MATCH_1} own)
  elseif(f MATCHES "^include/([^/]+)/vprof/" AND CMAKE_MATCH_1 IN_LIST LAYERS)
    set(own ${CMAKE_MATCH_1})
  endif()
  if(NOT own)
    string(APPEND failures "  ${f}: in no layer (src/DIR with DIR in cmake/check_layers.cmake, or include/LAYER/vprof/)\n")
    continue()
  endif()
  file(STRINGS ${ROOT}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
    layer_of_include(${inc} theirs)
    if(theirs STREQUAL "?")
      string(APPEND failures "  ${f}: includes ${inc}, which is in no include/LAYER/vprof/\n")
    elseif(theirs AND NOT theirs IN_LIST USES_${own})
      string(APPEND failures
        "  ${f} (${own}) includes ${inc} (${theirs}): ${own} uses only ${USES_${own}}\n")
    endif()
  endforeach()
endforeach()

if(failures)
  string(REPLACE ";" " " failures "${failures}")
  message(FATAL_ERROR "upward includes (docs/architecture.md, \"Layers\"):\n${failures}")
endif()
if(STAMP)
  file(TOUCH ${STAMP})
endif()
