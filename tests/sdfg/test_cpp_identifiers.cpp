// Tests of cpp_identifiers (sdfg/include/weir/sdfg/cpp_identifiers.h), the one scanner of C++
// text: a CPP tasklet's reads and the symbols of generated bounds checks come from it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "weir/sdfg/cpp_identifiers.h"

TEST_CASE("cpp identifiers: in order of first use, once each, outside comments, literals and numbers",
          "[sdfg][code]") {
  const std::string code =
      "int a = b + 1e5 + 0x1F + 2.0f; // c d\n"
      "/* e\n f */ s = \"g \\\" h\" + 'i' + a2.x_1 + b;";
  CHECK(weir::cpp_identifiers(code) == std::vector<std::string>{"int", "a", "b", "s", "a2", "x_1"});
}

TEST_CASE("cpp identifiers: generated bounds checks name their symbols and the prelude's helpers",
          "[sdfg][code]") {
  const std::string checks =
      "if (!weir_in(0, N - 1, 0, __A_size) || weir_max(M, 2) > K) weir_check_bounds(\"A\", N, M);";
  CHECK(weir::cpp_identifiers(checks) == std::vector<std::string>{"if", "weir_in", "N", "__A_size",
                                                                  "weir_max", "M", "K", "weir_check_bounds"});
  CHECK(weir::cpp_identifiers("// only a comment").empty());
  CHECK(weir::cpp_identifiers("x /* unterminated").size() == 1);
}
