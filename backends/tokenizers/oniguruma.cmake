# Oniguruma, the regex engine of tokenizer.json Split / Replace patterns: the engine (and version)
# Hugging Face `tokenizers` runs. It is built from source into a static, position-independent
# library linked into ts_tokenizers, because the generated Triton steps load in NVIDIA containers
# that have no libonig, and Debian's libonig-dev ships only a shared library.
#
# Source: Debian's libonig source package (backends/cmake/DebianSource.cmake). Version 6.9.10 is
# the release HF's `onig` crate (onig_sys 69.9) bundles: the same Unicode 16 property tables
# (\p{L}, \p{N}, ...), so a split matches HF's to the character.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/DebianSource.cmake)
set(TS_ONIGURUMA_VERSION 6.9.10)
ts_debian_source(TS_ONIGURUMA main/libo/libonig libonig_${TS_ONIGURUMA_VERSION}.orig.tar.gz
                 ad92309d0d13eebc27f6592e875f3efbfa3dda2bf6da5952e00f0a2120c921a8)

set(_ts_onig_src "${CMAKE_CURRENT_BINARY_DIR}/oniguruma-${TS_ONIGURUMA_VERSION}")
if(NOT EXISTS "${_ts_onig_src}/CMakeLists.txt")
  file(ARCHIVE_EXTRACT INPUT "${TS_ONIGURUMA_TARBALL}" DESTINATION "${CMAKE_CURRENT_BINARY_DIR}")
endif()

# Oniguruma's own CMake project, as a static library without tests, docs or install extras.
set(CMAKE_POLICY_DEFAULT_CMP0077 NEW)  # let the variables below preset its option()s
set(BUILD_SHARED_LIBS OFF)
set(BUILD_TEST OFF)
set(INSTALL_DOCUMENTATION OFF)
set(ENABLE_POSIX_API OFF)
add_subdirectory("${_ts_onig_src}" "${CMAKE_CURRENT_BINARY_DIR}/oniguruma-build" EXCLUDE_FROM_ALL)
set_target_properties(onig PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
add_library(ts_oniguruma INTERFACE)
target_link_libraries(ts_oniguruma INTERFACE onig)
