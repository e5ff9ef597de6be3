# The installed CMake package: `cmake --install BUILD [--prefix P]` puts the `weir` binary in
# P/bin, the layer libraries in P/lib, their public headers in P/include/weir/ and weirConfig.cmake
# (+ version file and the exported targets weir::pycode, weir::sdfg, weir::frontend, weir::transforms,
# weir::codegen, weir::runtime, weir::mesh) in P/lib/cmake/weir, so that
#   find_package(weir 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE weir::runtime)
# builds a program embedding weir (examples/embedding; tested by tests/package).
include(CMakePackageConfigHelpers)
install(TARGETS weir RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(WEIR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/weir)
install(EXPORT weirTargets NAMESPACE weir:: DESTINATION ${WEIR_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/weirConfig.cmake.in
  ${PROJECT_BINARY_DIR}/weirConfig.cmake INSTALL_DESTINATION ${WEIR_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/weirConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/weirConfig.cmake ${PROJECT_BINARY_DIR}/weirConfigVersion.cmake
  DESTINATION ${WEIR_CMAKE_DIR})
