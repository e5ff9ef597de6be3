// Programs' OpenMP threads wait passively unless the user chose otherwise (idle threads spinning
// made laplace2d ~400 ms per call instead of ~0.2 ms on a loaded machine).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "weir/runtime/loader.h"

TEST_CASE("loader: OpenMP wait policy defaults to passive before the first program loads",
          "[runtime][loader]") {
  ::unsetenv("OMP_WAIT_POLICY");
  ::unsetenv("GOMP_SPINCOUNT");
  weir::runtime::default_openmp_wait_policy();
  const char* v = std::getenv("OMP_WAIT_POLICY");
  REQUIRE(v != nullptr);
  CHECK(std::string(v) == "passive");
  // A choice of the user is kept (setenv with overwrite = 0; the default is decided once).
  ::setenv("OMP_WAIT_POLICY", "active", 1);
  weir::runtime::default_openmp_wait_policy();
  CHECK(std::string(std::getenv("OMP_WAIT_POLICY")) == "active");
}
