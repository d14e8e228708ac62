# Cross-compiling for arm64 Linux with Debian's gcc-aarch64-linux-gnu and
# the arm64 multiarch libraries (zlib1g-dev:arm64, libcjson-dev:arm64, ...):
# scripts/cross-check-arm64 builds with it and runs the result under
# qemu-aarch64.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
# Libraries from the arm64 multiarch directory (/usr/lib/aarch64-linux-gnu),
# never the host's; the cross compiler already searches the arm64 headers
# first.  Programs (python3, valgrind) come from the host.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu)
# ctest runs the test programs through the emulator, with the loader and
# libc of the arm64 multiarch tree (libc6:arm64, one version): -L
# /usr/aarch64-linux-gnu would pair the cross loader with the multiarch
# libc, and pthread_create then hangs.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
# No CUDA for arm64 here: the host toolkit would be found and fail to link.
set(CMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit ON)
