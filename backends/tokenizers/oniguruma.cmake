# Oniguruma, the regex engine of tokenizer.json Split / Replace patterns: the engine (and version)
# Hugging Face `tokenizers` runs. It is built from source into a static, position-independent
# library linked into ts_tokenizers, because the generated Triton steps load in NVIDIA containers
# that have no libonig, and Debian's libonig-dev ships only a shared library.
#
# Source: the upstream tarball as Debian's archive carries it (source package libonig; the
# SHA-256 below is the one Debian's signed index gives), downloaded once into .cache/deps/ from
# the Debian (or Ubuntu, which carries the same tarball) mirror this machine's apt is set up with.
# Version 6.9.10 is the release HF's `onig` crate (onig_sys 69.9) bundles: the same Unicode 16
# property tables (\p{L}, \p{N}, ...), so a split matches HF's to the character.
#
# Offline: put libonig_6.9.10.orig.tar.gz into .cache/deps/ (or pass -DTS_ONIGURUMA_TARBALL=path).
# TS_DEPS_DIR moves that folder: the installed VS Code extension passes its global storage, so
# nothing is written into its install folder.
set(TS_ONIGURUMA_VERSION 6.9.10)
set(TS_ONIGURUMA_SHA256 ad92309d0d13eebc27f6592e875f3efbfa3dda2bf6da5952e00f0a2120c921a8)
# The archive mirror apt uses here (sources.list or deb822 .sources): its pool holds the tarball.
function(_ts_apt_mirror out)
  file(GLOB _files /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
  foreach(_file IN LISTS _files)
    file(STRINGS "${_file}" _lines REGEX "^[ \t]*(URIs:|deb )")
    foreach(_line IN LISTS _lines)
      if(_line MATCHES "(https?://[^ \t]+/(debian|ubuntu))/?([ \t]|$)")
        set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()
_ts_apt_mirror(_ts_mirror)
set(TS_ONIGURUMA_URL "${_ts_mirror}/pool/main/libo/libonig/libonig_${TS_ONIGURUMA_VERSION}.orig.tar.gz"
    CACHE STRING "Where the Oniguruma source tarball is downloaded from when missing")
get_filename_component(_ts_repo_root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(TS_DEPS_DIR "${_ts_repo_root}/.cache/deps" CACHE PATH "Where third-party sources are downloaded to")
set(TS_ONIGURUMA_TARBALL "${TS_DEPS_DIR}/libonig_${TS_ONIGURUMA_VERSION}.orig.tar.gz"
    CACHE FILEPATH "Oniguruma source tarball (downloaded from Debian's archive when missing)")

if(NOT EXISTS "${TS_ONIGURUMA_TARBALL}")
  if(TS_ONIGURUMA_URL MATCHES "^/pool/")
    message(FATAL_ERROR "No Debian or Ubuntu mirror found in apt's sources to download Oniguruma "
                        "${TS_ONIGURUMA_VERSION} from: pass -DTS_ONIGURUMA_URL=<mirror>/pool/main/libo/libonig/"
                        "libonig_${TS_ONIGURUMA_VERSION}.orig.tar.gz, or put the tarball at ${TS_ONIGURUMA_TARBALL}.")
  endif()
  message(STATUS "Downloading Oniguruma ${TS_ONIGURUMA_VERSION} source from Debian's archive")
  file(DOWNLOAD "${TS_ONIGURUMA_URL}" "${TS_ONIGURUMA_TARBALL}.part" EXPECTED_HASH SHA256=${TS_ONIGURUMA_SHA256}
       STATUS _ts_status TLS_VERIFY ON)
  list(GET _ts_status 0 _ts_code)
  if(NOT _ts_code EQUAL 0)
    file(REMOVE "${TS_ONIGURUMA_TARBALL}.part")
    message(FATAL_ERROR "Could not download ${TS_ONIGURUMA_URL} (${_ts_status}). Fetch it by hand (or with "
                        "`apt-get source libonig` from Debian) and put it at ${TS_ONIGURUMA_TARBALL}.")
  endif()
  file(RENAME "${TS_ONIGURUMA_TARBALL}.part" "${TS_ONIGURUMA_TARBALL}")
endif()
file(SHA256 "${TS_ONIGURUMA_TARBALL}" _ts_sha)
if(NOT _ts_sha STREQUAL TS_ONIGURUMA_SHA256)
  message(FATAL_ERROR "${TS_ONIGURUMA_TARBALL} is not Oniguruma ${TS_ONIGURUMA_VERSION} (SHA-256 ${_ts_sha}, "
                      "expected ${TS_ONIGURUMA_SHA256}): delete it to download it again.")
endif()

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
