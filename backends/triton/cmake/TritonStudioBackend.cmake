# triton_studio_add_backend(<target> OUTPUT_NAME <backend name> SOURCES <files...> LIBRARIES <targets...>)
#
# Builds a Triton backend library lib<OUTPUT_NAME>.so (OUTPUT_NAME is "triton_<backend>"): only the
# TRITONBACKEND_* entry points are exported, and the TRITONSERVER_* / TRITONBACKEND_* functions it
# calls stay undefined, to be resolved from the tritonserver process that loads it (backends must
# not link libtritonserver). Used by sim-llm in this tree and by every generated step project.
include_guard(GLOBAL)

function(triton_studio_add_backend target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "OUTPUT_NAME" "SOURCES;LIBRARIES")
  if(NOT ARG_OUTPUT_NAME OR NOT ARG_SOURCES)
    message(FATAL_ERROR "triton_studio_add_backend(${target}): OUTPUT_NAME and SOURCES are required")
  endif()
  # Resolved here, not at include time: the caller may be in another directory scope.
  set(ldscript "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/backend.ldscript")
  add_library(${target} SHARED ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES})
  target_compile_features(${target} PRIVATE cxx_std_17)
  # Make cannot have ';', '$', spaces... in a target file name. A model name with such characters
  # is linked under a safe name and copied to lib<OUTPUT_NAME>.so after each build.
  string(REGEX MATCH "^[A-Za-z0-9_.+-]+$" safe_name "${ARG_OUTPUT_NAME}")
  if(safe_name)
    set(link_name "${ARG_OUTPUT_NAME}")
  else()
    set(link_name "ts_backend_link")  # not libtriton_*: that pattern names the result
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND "${CMAKE_COMMAND}" -E copy "$<TARGET_FILE:${target}>"
              "$<TARGET_FILE_DIR:${target}>/lib${ARG_OUTPUT_NAME}.so"
      VERBATIM)
  endif()
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME "${link_name}"
    PREFIX "lib"
    SUFFIX ".so"
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS "${ldscript}")
  target_link_options(${target} PRIVATE "LINKER:--version-script=${ldscript}")
endfunction()
