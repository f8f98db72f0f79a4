# GoogleTest unit tests of the native components, run by ctest (scripts/test-native.sh, part of
# `npm test`). Configure with -DTS_TESTS=ON. GoogleTest comes from Debian (libgtest-dev, listed
# in backends/DEPENDENCIES.txt, installed by scripts/setup.sh); without it configuring fails.
#
#   ts_add_unit_test(<name> SOURCES <files...> [LIBRARIES <targets...>])
#
# builds <name> from SOURCES with gtest_main and registers each TEST as its own ctest test, named
# "<name>.<Suite>.<Test>". Tests find the assembled tokenizer files through the compile
# definition TS_TEST_TOKENIZERS_DIR (<repo>/.cache/tokenizers) and data next to their sources
# through TS_TEST_SOURCE_DIR.
include_guard(GLOBAL)

find_package(GTest CONFIG QUIET)
if(NOT GTest_FOUND)
  find_package(GTest QUIET)  # FindGTest module: older layouts
endif()
if(NOT TARGET GTest::gtest_main)
  message(FATAL_ERROR "TS_TESTS=ON needs GoogleTest, which was not found. On Debian/Ubuntu: "
                      "apt-get install libgtest-dev (it is listed in backends/DEPENDENCIES.txt; "
                      "`npm run setup` installs it).")
endif()
include(GoogleTest)

set(TS_TEST_TOKENIZERS_DIR "${CMAKE_CURRENT_LIST_DIR}/../../.cache/tokenizers")
cmake_path(NORMAL_PATH TS_TEST_TOKENIZERS_DIR)

function(ts_add_unit_test name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LIBRARIES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "ts_add_unit_test(${name}): SOURCES is required")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE GTest::gtest_main ${ARG_LIBRARIES})
  # One translation unit per few test files: each file parses GoogleTest and the library's headers
  # again, which costs more than its tests (the CI box has 2 cores).
  set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  target_compile_definitions(${name} PRIVATE TS_TEST_TOKENIZERS_DIR="${TS_TEST_TOKENIZERS_DIR}"
                                             TS_TEST_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${name} PRIVATE -Wall -Wextra)
  endif()
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 30)
endfunction()
