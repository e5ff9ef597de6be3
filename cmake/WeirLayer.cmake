# weir_add_layer(NAME DEPS...): a static library weir_<NAME> (alias and exported name
# weir::<NAME>) from <layer>/src/**/*.cpp with public headers in <layer>/include/weir/<layer>/.
# Sources are globbed so that adding a file (one concept per file) needs no CMake edit. The
# library and its headers are installed and exported (weirTargets, see cmake/weirConfig.cmake.in).
# weir_library_opt(TARGET): WEIR_LIBRARY_OPT (e.g. -O1), after the build type's flags, on one of
# weir's libraries or its CLI. The sanitizer build sets it: its test sources stay at -O0 (they
# compile in half the time), the code they call runs 4-6x faster (docs/testing.md, "The
# sanitizer job's test time").
function(weir_library_opt target)
  if(WEIR_LIBRARY_OPT)
    target_compile_options(${target} PRIVATE ${WEIR_LIBRARY_OPT})
  endif()
endfunction()

function(weir_add_layer name)
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  set(_inc $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  if(NOT _srcs)
    message(FATAL_ERROR "layer '${name}' has no sources in ${CMAKE_CURRENT_SOURCE_DIR}/src")
  endif()
  add_library(weir_${name} STATIC ${_srcs})
  target_include_directories(weir_${name} PUBLIC ${_inc})
  target_link_libraries(weir_${name} PUBLIC ${ARGN})
  set_target_properties(weir_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set_target_properties(weir_${name} PROPERTIES EXPORT_NAME ${name})
  weir_library_opt(weir_${name})
  add_library(weir::${name} ALIAS weir_${name})
  install(TARGETS weir_${name} EXPORT weirTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# weir_test_no_fuzz_coverage(TARGET): with WEIR_FUZZ, every source is compiled with libFuzzer's
# coverage instrumentation (-fsanitize=fuzzer-no-link), which only the fuzz targets read; a test
# suite's own sources go without it (ASan and UBSan stay): a test source compiles in a quarter
# less CPU time (11.5 -> 8.7 CPU-s, tests/transforms/test_map_fusion.cpp, clang 14 -O0; docs/testing.md,
# "CI and its time", session 36). weir's libraries keep it: the fuzz targets link them.
function(weir_test_no_fuzz_coverage target)
  if(WEIR_FUZZ)
    target_compile_options(${target} PRIVATE -fno-sanitize=fuzzer-no-link)
  endif()
endfunction()

# weir_add_test_suite(NAME DEPS...): one Catch2 executable from tests/<name>/*.cpp, each
# TEST_CASE registered with ctest. Tests run from the repository root so that ../shared resolves.
function(weir_add_test_suite name)
  if(NOT WEIR_TEST_SUITES STREQUAL "all" AND NOT name IN_LIST WEIR_TEST_SUITES)
    return()
  endif()
  file(GLOB _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${name}/*.cpp)
  if(NOT _srcs)
    message(WARNING "test suite '${name}' has no sources in tests/${name}/; skipped")
    return()
  endif()
  # Catch2's main and the shared test helpers compile once for all suites.
  if(NOT TARGET weir_test_main)
    add_library(weir_test_main STATIC ${CMAKE_CURRENT_SOURCE_DIR}/catch_main.cpp
                ${CMAKE_CURRENT_SOURCE_DIR}/support/corpus.cpp
                ${CMAKE_CURRENT_SOURCE_DIR}/support/npy_test.cpp
                ${CMAKE_CURRENT_SOURCE_DIR}/support/weir_test_paths.cpp)
    target_include_directories(weir_test_main PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/support)
    target_link_libraries(weir_test_main PUBLIC Catch2::Catch2)
    # WEIR_SOURCE_DIR, WEIR_BINARY_DIR, WEIR_BIN, WEIR_TEST_PASSES_BIN: read at run time from
    # weir_test_paths.txt (tests/CMakeLists.txt), not compiled in, so that no object depends on
    # where the checkout is (ccache hits across clones).
    target_compile_options(weir_test_main PUBLIC "SHELL:-include weir_test_paths.h")
    weir_test_no_fuzz_coverage(weir_test_main)
  endif()
  # A test name that starts with '-' or '~' reaches Catch's command line (catch_discover_tests
  # passes each name back) as an option or an exclusion: the entry fails or runs nothing. A ';'
  # in a name splits it into two ctest entries that match nothing (both fail under -w NoTests):
  # refused here, before a build (two such names reached a merge in session 33).
  foreach(_src IN LISTS _srcs)
    file(STRINGS ${_src} _bad REGEX "TEST_CASE\\(\"[-~]")
    if(_bad)
      message(FATAL_ERROR "${_src}: a TEST_CASE name starts with '-' or '~', which Catch's command "
                          "line reads as an option or an exclusion: ${_bad}")
    endif()
    file(STRINGS ${_src} _bad REGEX "TEST_CASE\\(\"[^\"]*;")
    if(_bad)
      message(FATAL_ERROR "${_src}: a TEST_CASE name holds a ';', which splits it into two ctest "
                          "entries that run nothing: ${_bad}")
    endif()
  endforeach()
  add_executable(weir_${name}_tests ${_srcs})
  target_link_libraries(weir_${name}_tests PRIVATE weir_test_main ${ARGN})
  weir_test_no_fuzz_coverage(weir_${name}_tests)
  # -w NoTests: an entry that runs no test fails. (A ';' in a test name splits the name ctest
  # passes back, which then matched nothing and passed without running.)
  catch_discover_tests(weir_${name}_tests
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    TEST_PREFIX "${name}: "
    EXTRA_ARGS -w NoTests)
endfunction()
