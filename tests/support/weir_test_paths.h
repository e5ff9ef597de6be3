// Where a test finds the checkout, its build tree and the built `weir` binaries, read at run
// time from `weir_test_paths.txt` at the top of the build tree, found from the test
// executable's folder upwards (tests/CMakeLists.txt writes it at configure time). Compile-time
// definitions of these paths made every test object depend on the clone's location, so that
// ccache missed for all of them in every fresh clone (CI). Force-included into every test
// suite's sources (`-include weir_test_paths.h`, weir_test_main).
#pragma once

namespace weir::test {

/// One path of `weir_test_paths.txt` ("KEY=PATH" lines): `source_dir` (the checkout),
/// `binary_dir` (the build tree), `weir` and `weir_with_test_passes` (the binaries). Read once,
/// on the first call. A missing file or key prints which and where, then exits with status 2
/// (these are called during static initialization, where a test failure cannot be reported).
const char* test_path(const char* key);

}  // namespace weir::test

// The spellings the tests use; each is a `const char*` (std::string(X), fs::path(X), `s + X`).
#define WEIR_SOURCE_DIR (::weir::test::test_path("source_dir"))
#define WEIR_BINARY_DIR (::weir::test::test_path("binary_dir"))
#define WEIR_BIN (::weir::test::test_path("weir"))
#define WEIR_TEST_PASSES_BIN (::weir::test::test_path("weir_with_test_passes"))
