// The prelude of generated programs: light headers only (compile time, issue 17), <complex>
// when the code uses complex numbers, the former full set for user-written C++.
#include <catch2/catch.hpp>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"

using namespace weir;
using namespace weir::codegen;

namespace {

bool includes(const std::string& source, const std::string& header) {
  return source.find("#include <" + header + ">\n") != std::string::npos;
}

}  // namespace

TEST_CASE("prelude: a real-valued program includes no heavy standard header", "[codegen][prelude]") {
  auto s = test::map_program("b = a * 2");
  GeneratedCode g = generate_cpu(*s);
  for (const char* h : {"string", "stdexcept", "complex", "algorithm", "vector", "iostream"}) {
    INFO(h);
    CHECK_FALSE(includes(g.source, h));
  }
  for (const char* h : {"cmath", "cstdint", "cstdio", "atomic", "exception"}) {
    INFO(h);
    CHECK(includes(g.source, h));
  }
  // Compiles warning-free (-Wall -Wextra) with the bounds checks' and errors' helpers.
  test::compile_shared(g.source, test::scratch_dir("prelude_light"));
}

TEST_CASE("prelude: <complex> for complex containers, everything for user C++", "[codegen][prelude]") {
  auto s = test::map_program("b = a * 1j");
  s->arrays.at("A").dtype = DataType::scalar(ScalarType::Complex128);
  s->arrays.at("B").dtype = DataType::scalar(ScalarType::Complex128);
  GeneratedCode g = generate_cpu(*s);
  CHECK(includes(g.source, "complex"));
  CHECK_FALSE(includes(g.source, "string"));
  test::compile_shared(g.source, test::scratch_dir("prelude_complex"));

  auto cpp = test::map_program("b = std::max(a, 1.0);", Language::CPP);
  CodegenOptions trusted;
  trusted.trust_code = true;
  GeneratedCode u = generate_cpu(*cpp, trusted);
  for (const char* h : {"string", "stdexcept", "complex", "algorithm"}) {
    INFO(h);
    CHECK(includes(u.source, h));
  }
  test::compile_shared(u.source, test::scratch_dir("prelude_user_code"));
}
