# Cross-builds Triton Studio's native parts for aarch64 Linux (NVIDIA Grace: GH200, GB200, DGX
# Spark) on an x86_64 Debian machine, with Debian packages only: the cross compiler
# (g++-aarch64-linux-gnu) and arm64 libraries installed through multiarch (dpkg
# --add-architecture arm64). `triton-studio build --arch aarch64` passes this file to CMake.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Programs (protoc, …) run on the build machine; libraries and headers come from the cross sysroot
# and the arm64 multiarch folders. Header-only and arch-independent packages (nlohmann-json's CMake
# config under /usr/share) are found where they are.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
