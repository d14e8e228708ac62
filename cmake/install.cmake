# Installation and packages, included at the end of the top CMakeLists.txt
# (after every target is defined).
#
#   cmake --install BUILD [--prefix P]   bin/vprof, man pages, completions,
#                                        lib/libvprof-cupti.so where built
#   cmake --build BUILD --target package  vprof-VERSION-Linux-ARCH.deb and .tar.gz
#
# The man pages and the completions are generated from the built binary
# (`vprof help --list`, `vprof help CMD`) by scripts/gen-cli each time the
# binary changes: a new command or option is in them at the next build.
include(GNUInstallDirs)

install(TARGETS vprof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The CUPTI injection library (vprof record), where the CUDA toolkit was
# found.  It goes to the library directory, where `vprof record` looks by
# default (bin/../lib*/libvprof-cupti.so).
if(TARGET vprof-cupti)
  install(TARGETS vprof-cupti LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

option(VPROF_DOCS "Generate man pages and shell completions (needs python3)" ON)
find_package(Python3 COMPONENTS Interpreter)
if(VPROF_DOCS AND Python3_FOUND)
  set(VPROF_MAN_DIR ${CMAKE_BINARY_DIR}/man)
  set(VPROF_COMPLETION_DIR ${CMAKE_BINARY_DIR}/completions)
  add_custom_command(
    OUTPUT ${CMAKE_BINARY_DIR}/cli-docs.stamp
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/gen-cli man $<TARGET_FILE:vprof> ${VPROF_MAN_DIR}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/gen-cli completions $<TARGET_FILE:vprof> ${VPROF_COMPLETION_DIR}
    COMMAND ${CMAKE_COMMAND} -E touch ${CMAKE_BINARY_DIR}/cli-docs.stamp
    DEPENDS vprof ${CMAKE_SOURCE_DIR}/scripts/gen-cli
    COMMENT "Man pages and shell completions from vprof help"
    VERBATIM)
  add_custom_target(vprof-cli-docs ALL DEPENDS ${CMAKE_BINARY_DIR}/cli-docs.stamp)

  install(DIRECTORY ${VPROF_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
    FILES_MATCHING PATTERN "*.1")
  install(FILES ${VPROF_COMPLETION_DIR}/vprof.bash
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME vprof)
  install(FILES ${VPROF_COMPLETION_DIR}/_vprof
    DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
  install(FILES ${VPROF_COMPLETION_DIR}/vprof.fish
    DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
elseif(VPROF_DOCS)
  message(STATUS "python3 not found: no man pages, no shell completions")
endif()

install(FILES ${CMAKE_SOURCE_DIR}/LICENSE ${CMAKE_SOURCE_DIR}/README.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/docs/CHANGELOG.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)

# ---- packages ---------------------------------------------------------
set(CPACK_PACKAGE_NAME vprof)
set(CPACK_PACKAGE_VENDOR "The vprof authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "fast answers from the profiling data of large-model training")
set(CPACK_PACKAGE_DESCRIPTION
  "vprof reads PyTorch/Kineto Chrome traces (any size, streamed at constant memory) and CUDA memory snapshots, and prints where the GPU time and memory went: kernels, communication overlap, steps, memory peaks, MFU; one merged timeline for all ranks.")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR "TGZ")
set(CPACK_SOURCE_GENERATOR "")
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_STRIP_FILES ON)

find_program(VPROF_DPKG dpkg)
if(VPROF_DPKG)
  list(APPEND CPACK_GENERATOR DEB)
  execute_process(COMMAND ${VPROF_DPKG} --print-architecture
    OUTPUT_VARIABLE VPROF_DEB_ARCH OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${VPROF_DEB_ARCH})
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  # No project address exists yet: the maintainer is a setting until then.
  set(VPROF_DEB_MAINTAINER "The vprof authors <vprof@localhost>" CACHE STRING
    "Maintainer field of the .deb")
  set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${VPROF_DEB_MAINTAINER}")
  set(CPACK_DEBIAN_PACKAGE_SECTION devel)
  set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
  # The libraries the binary links, as Debian 12 names them; with
  # dpkg-shlibdeps they get their minimum versions from the binary.
  set(VPROF_DEB_DEPENDS "libc6, zlib1g, libcjson1")
  if(VPROF_HAVE_ISAL)
    string(APPEND VPROF_DEB_DEPENDS ", libisal2")
  endif()
  if(SQLite3_FOUND)
    string(APPEND VPROF_DEB_DEPENDS ", libsqlite3-0")
  endif()
  # CPack's shlibdeps step also runs `file` on every installed file, and
  # stops the whole .deb without it (a fresh Debian has no `file`).
  find_program(VPROF_DPKG_SHLIBDEPS dpkg-shlibdeps)
  find_program(VPROF_FILE_PROGRAM file)
  if(VPROF_DPKG_SHLIBDEPS AND VPROF_FILE_PROGRAM AND NOT VPROF_SANITIZE)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  else()
    set(CPACK_DEBIAN_PACKAGE_DEPENDS ${VPROF_DEB_DEPENDS})
  endif()
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
endif()

include(CPack)
