# Third-party sources as Debian's archive carries them: the upstream tarball of a Debian source
# package, checked against the SHA-256 that Debian's signed index gives, downloaded once into
# TS_DEPS_DIR from the Debian (or Ubuntu) mirror this machine's apt is set up with.
#
# Offline: put the tarball into .cache/deps/ (or pass -DTS_<NAME>_TARBALL=path). TS_DEPS_DIR moves
# that folder: the installed VS Code extension passes its global storage, so nothing is written
# into its install folder.
include_guard(GLOBAL)

get_filename_component(_ts_repo_root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(TS_DEPS_DIR "${_ts_repo_root}/.cache/deps" CACHE PATH "Where third-party sources are downloaded to")

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

# ts_debian_source(PREFIX POOL_DIR FILE SHA256): the verified tarball FILE at ${PREFIX}_TARBALL (a
# cache entry), downloaded from <mirror>/pool/POOL_DIR/FILE (${PREFIX}_URL) when missing.
function(ts_debian_source prefix pool_dir file sha256)
  _ts_apt_mirror(_mirror)
  set(${prefix}_URL "${_mirror}/pool/${pool_dir}/${file}" CACHE STRING "Where ${file} is downloaded from when missing")
  set(${prefix}_TARBALL "${TS_DEPS_DIR}/${file}" CACHE FILEPATH "${file} (downloaded from Debian's archive when missing)")
  set(_url "${${prefix}_URL}")
  set(_tarball "${${prefix}_TARBALL}")
  if(NOT EXISTS "${_tarball}")
    if(_url MATCHES "^/pool/")
      message(FATAL_ERROR "No Debian or Ubuntu mirror found in apt's sources to download ${file} from: pass "
                          "-D${prefix}_URL=<mirror>/pool/${pool_dir}/${file}, or put the tarball at ${_tarball}.")
    endif()
    message(STATUS "Downloading ${file} from Debian's archive")
    file(DOWNLOAD "${_url}" "${_tarball}.part" EXPECTED_HASH SHA256=${sha256} STATUS _status TLS_VERIFY ON)
    list(GET _status 0 _code)
    if(NOT _code EQUAL 0)
      file(REMOVE "${_tarball}.part")
      message(FATAL_ERROR "Could not download ${_url} (${_status}). Fetch it by hand (or with `apt-get source` "
                          "from Debian) and put it at ${_tarball}.")
    endif()
    file(RENAME "${_tarball}.part" "${_tarball}")
  endif()
  file(SHA256 "${_tarball}" _sha)
  if(NOT _sha STREQUAL sha256)
    message(FATAL_ERROR "${_tarball} is not the expected ${file} (SHA-256 ${_sha}, expected ${sha256}): delete "
                        "it to download it again.")
  endif()
endfunction()
