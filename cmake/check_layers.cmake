# The layers of docs/architecture.md, checked on every build: a file may
# include only headers of its own layer or of the layers it uses.  All
# public headers share include/vprof/, so the compiler alone cannot refuse
# an upward include; this does, and the build depends on it.
#
#   cmake -DROOT=<source dir> [-DSTAMP=<file to touch>] -P cmake/check_layers.cmake
#
# A header's layer is its module's: the directory src/<stem>/, else the
# directory that holds <stem>.c, else src/<prefix>/ for <prefix>_<rest>.h
# (ascend_db.h, trace_writer.h); HEADER_<stem> below names the few that
# are no module's own.  A header none of these places is an error: one
# header per module.

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
set(HEADER_units base)
set(HEADER_mfu analyses)      # src/analysis/run/runmfu.c and src/flops/seqlens.c implement it

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

function(layer_of_header stem out)
  set(${out} "" PARENT_SCOPE)
  if(DEFINED HEADER_${stem})
    set(${out} ${HEADER_${stem}} PARENT_SCOPE)
    return()
  endif()
  if(IS_DIRECTORY ${ROOT}/src/${stem})
    layer_of_dir(${stem} l)
    set(${out} "${l}" PARENT_SCOPE)
    return()
  endif()
  file(GLOB own RELATIVE ${ROOT}/src ${ROOT}/src/*/${stem}.c ${ROOT}/src/*/*/${stem}.c)
  # include/vprof/ holds the library's headers only: a command file of the
  # same name (cmd/kernels.c beside analysis/kernels.c, cmd/mfu.c beside
  # vprof/mfu.h) never owns one.
  list(FILTER own EXCLUDE REGEX "^cmd/")
  if(own)
    list(GET own 0 first)
    # The layer is the top folder's: src/analysis/kernels/kernels.c is analyses.
    string(REGEX REPLACE "/.*" "" dir ${first})
    layer_of_dir(${dir} l)
    set(${out} "${l}" PARENT_SCOPE)
    return()
  endif()
  string(FIND ${stem} "_" us)
  if(us GREATER 0)
    string(SUBSTRING ${stem} 0 ${us} prefix)
    if(IS_DIRECTORY ${ROOT}/src/${prefix})
      layer_of_dir(${prefix} l)
      set(${out} "${l}" PARENT_SCOPE)
    endif()
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
file(GLOB headers RELATIVE ${ROOT} ${ROOT}/include/vprof/*.h)
set(failures "")
foreach(f ${sources} ${headers})
  if(f STREQUAL "src/main.c")
    set(own cli)
  elseif(f MATCHES "^src/([^/]+)/")
    layer_of_dir(${CMAKE_MATCH_1} own)
  else()
    get_filename_component(stem ${f} NAME_WE)
    layer_of_header(${stem} own)
  endif()
  if(NOT own)
    string(APPEND failures "  ${f}: in no layer (name its module in cmake/check_layers.cmake)\n")
    continue()
  endif()
  file(STRINGS ${ROOT}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
    layer_of_include(${inc} theirs)
    if(theirs STREQUAL "?")
      string(APPEND failures "  ${f}: includes ${inc}, a header of no module\n")
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
