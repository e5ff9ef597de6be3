// Catch2's main for every suite. Every pass a test runs validates the SDFG after it
// (verify-each, docs/adr/0017), also in the `weir` processes the CLI tests start;
// WEIR_VERIFY_EACH=0 in the environment turns that off.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

int main(int argc, char* argv[]) {
  setenv("WEIR_VERIFY_EACH", "1", 0);
  return Catch::Session().run(argc, argv);
}
