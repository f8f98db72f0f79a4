# simdjson, for its UTF-8 validation (`simdjson::validate_utf8`): every encode validates its input
# first, and simdjson's SIMD validator (the Keiser-Lemire lookup algorithm, picked at run time for
# the CPU: AVX-512, AVX2, SSE4.2, NEON or plain) is 2.4x faster on the corpus than the byte loop it
# replaced, which was 9% of an encode (docs/TOKENIZERS.md, stop 41).
# Built from Debian's simdjson source package (backends/cmake/DebianSource.cmake), its one-file
# amalgamation, into a static, position-independent library with hidden symbols: the generated
# steps load in NVIDIA containers without it, beside whatever else the server process links.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/DebianSource.cmake)
set(TS_SIMDJSON_VERSION 3.0.1)
ts_debian_source(TS_SIMDJSON main/s/simdjson simdjson_${TS_SIMDJSON_VERSION}.orig.tar.gz
                 156b1bc5eb0561b2bd166b46d191fd3d95a3e709cc63761477d3b7aec2b6e9ed)

set(_ts_simdjson_src "${CMAKE_CURRENT_BINARY_DIR}/simdjson-${TS_SIMDJSON_VERSION}/singleheader")
if(NOT EXISTS "${_ts_simdjson_src}/simdjson.cpp")
  file(ARCHIVE_EXTRACT INPUT "${TS_SIMDJSON_TARBALL}" DESTINATION "${CMAKE_CURRENT_BINARY_DIR}"
       PATTERNS "simdjson-${TS_SIMDJSON_VERSION}/singleheader/simdjson.*")
endif()

add_library(ts_simdjson STATIC "${_ts_simdjson_src}/simdjson.cpp")
set_target_properties(ts_simdjson PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
                                             VISIBILITY_INLINES_HIDDEN ON)
target_compile_features(ts_simdjson PUBLIC cxx_std_17)
target_include_directories(ts_simdjson SYSTEM PUBLIC "${_ts_simdjson_src}")
