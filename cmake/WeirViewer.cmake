# The viewer bundle (viewer/, docs/adr/0018-viewer.md): when node and npm are present, viewer/
# is built with esbuild into one HTML file, which viewer/build.mjs also writes as a C++ source
# (weir_viewer_bundle) linked into `weir`; `weir view` then works on machines without node.
# Without node/npm (or with -DWEIR_VIEWER=OFF) weir builds with a stub and `weir view` says why.
# -DWEIR_REQUIRE_VIEWER=ON (scripts/test.sh, CI) makes a missing bundle a configure error.
option(WEIR_VIEWER "Embed the viewer page into weir (needs node and npm at build time)" ON)
option(WEIR_REQUIRE_VIEWER "Fail when the viewer bundle cannot be built" OFF)

set(_viewer_dir ${PROJECT_SOURCE_DIR}/viewer)
set(_viewer_out ${PROJECT_BINARY_DIR}/viewer)
set(WEIR_VIEWER_MISSING "")
find_program(WEIR_NODE node)
find_program(WEIR_NPM npm)
if(NOT WEIR_VIEWER)
  set(WEIR_VIEWER_MISSING "weir was configured with -DWEIR_VIEWER=OFF")
elseif(NOT WEIR_NODE OR NOT WEIR_NPM)
  set(WEIR_VIEWER_MISSING "node and npm were not found when weir was configured; install them (scripts/install-deps.sh does) and rebuild")
elseif(NOT EXISTS ${_viewer_dir}/node_modules/.package-lock.json
       OR ${_viewer_dir}/package-lock.json IS_NEWER_THAN ${_viewer_dir}/node_modules/.package-lock.json)
  # The pinned packages (package-lock.json), installed once at configure time; no install
  # scripts (as scripts/install-deps.sh: esbuild's postinstall is not needed to bundle).
  message(STATUS "viewer: npm ci in ${_viewer_dir}")
  execute_process(COMMAND ${WEIR_NPM} ci --no-audit --no-fund --ignore-scripts WORKING_DIRECTORY ${_viewer_dir}
                  RESULT_VARIABLE _npm_rc OUTPUT_QUIET ERROR_VARIABLE _npm_err)
  if(NOT _npm_rc EQUAL 0)
    set(WEIR_VIEWER_MISSING "'npm ci' in viewer/ failed when weir was configured (no registry access?); run it and rebuild")
    message(WARNING "viewer: npm ci failed: ${_npm_err}")
  endif()
endif()

if(WEIR_VIEWER_MISSING STREQUAL "")
  file(GLOB _viewer_srcs CONFIGURE_DEPENDS ${_viewer_dir}/src/*)
  add_custom_command(
    OUTPUT ${_viewer_out}/viewer_bundle.cpp ${_viewer_out}/viewer.html
    COMMAND ${WEIR_NODE} ${_viewer_dir}/build.mjs --out ${_viewer_out}/viewer.html --cpp ${_viewer_out}/viewer_bundle.cpp
    DEPENDS ${_viewer_srcs} ${_viewer_dir}/build.mjs ${_viewer_dir}/package-lock.json
    COMMENT "Bundling the viewer (viewer/src -> viewer.html)" VERBATIM)
  set(WEIR_VIEWER_BUNDLE_SOURCE ${_viewer_out}/viewer_bundle.cpp)
  message(STATUS "viewer: the bundle is embedded into weir")
else()
  if(WEIR_REQUIRE_VIEWER)
    message(FATAL_ERROR "viewer: ${WEIR_VIEWER_MISSING}")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/viewer_bundle_missing.cpp.in ${_viewer_out}/viewer_bundle_missing.cpp @ONLY)
  set(WEIR_VIEWER_BUNDLE_SOURCE ${_viewer_out}/viewer_bundle_missing.cpp)
  message(STATUS "viewer: not embedded (${WEIR_VIEWER_MISSING})")
endif()

# Defined here, where the custom command is (CMake attaches it to targets of this directory).
add_library(weir_viewer_bundle STATIC ${WEIR_VIEWER_BUNDLE_SOURCE})
target_include_directories(weir_viewer_bundle PUBLIC ${PROJECT_SOURCE_DIR}/cli)

# The loopback server of `weir view` (Debian's libcpp-httplib-dev, a compiled library).
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(HTTPLIB IMPORTED_TARGET cpp-httplib)
endif()

# The browser tests (viewer/test/browser.test.mjs: Debian's chromium driven by playwright-core).
# They skip (exit 77) on a machine without chromium or node, except where
# WEIR_REQUIRE_VIEWER_TESTS=1 (scripts/test.sh sets it), where that is a failure.
if(WEIR_BUILD_TESTS)
  enable_testing()
  if(WEIR_NODE)
    add_test(NAME "viewer: browser tests (chromium)"
             COMMAND ${WEIR_NODE} ${_viewer_dir}/test/browser.test.mjs
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  else()
    add_test(NAME "viewer: browser tests (chromium)"
             COMMAND sh -c "if [ \"$WEIR_REQUIRE_VIEWER_TESTS\" = 1 ]; then echo 'viewer tests: node is missing' >&2; exit 1; fi; echo 'viewer tests skipped: node is missing'; exit 77")
  endif()
  set_tests_properties("viewer: browser tests (chromium)" PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "WEIR=$<TARGET_FILE:weir>;WEIR_VIEWER_OUT=${PROJECT_SOURCE_DIR}/out/viewer")
endif()
