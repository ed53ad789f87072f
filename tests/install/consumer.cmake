# Installs the fastmv build tree into a scratch prefix, builds examples/ against it
# with find_package(fastmv), and runs the example: what a user's project does.
# Arguments: -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=...
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE status OUTPUT_QUIET)
if(status)
  message(FATAL_ERROR "cmake --install failed: ${status}")
endif()
foreach(step configure build run)
  if(step STREQUAL "configure")
    set(command "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/examples" -B "${WORK_DIR}/build"
        "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix")
  elseif(step STREQUAL "build")
    set(command "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
  else()
    set(command "${WORK_DIR}/build/gemv_example")
  endif()
  execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(status)
    message(FATAL_ERROR "${step} of the consumer project failed (${status}):\n${out}")
  endif()
endforeach()
message(STATUS "installed fastmv works from a consumer project: ${out}")
