# ctest: weir as an installed CMake package, as a user embeds it. Installs the build tree into a
# fresh prefix (cmake --install), configures examples/embedding on its own against that prefix
# (find_package(weir) + weir::runtime), builds it, runs the installed `weir --version` and the
# example on the embedded backend (the test checks the printed values).
# -D: BUILD_DIR, SOURCE_DIR, WORK (scratch folder), CXX, GENERATOR, LINK_FLAGS (sanitizers).
file(REMOVE_RECURSE ${WORK})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  message("${out}")
endfunction()
# --strip: the debug info of RelWithDebInfo libraries is most of their 400 MB.
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix --strip)
foreach(f bin/weir lib/cmake/weir/weirConfig.cmake lib/cmake/weir/weirConfigVersion.cmake
          include/weir/runtime/dispatch.h)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
step(${WORK}/prefix/bin/weir --version)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/embedding -B ${WORK}/build -G ${GENERATOR}
     -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release
     "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}")
step(${CMAKE_COMMAND} --build ${WORK}/build)
step(${WORK}/build/weir_embedding_example ${SOURCE_DIR}/examples/cartesian/laplacian.py embedded)
file(REMOVE_RECURSE ${WORK})  # passed: give the disk space back
