// The prelude of generated programs: light headers only (compile time, issue 17), <complex>
// when the code uses complex numbers, the former full set for user-written C++.
#include <catch2/catch.hpp>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/codegen/cuda_codegen.h"

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

// The prelude is made of real headers (codegen/prelude/, ADR 0032): each compiles on its own,
// warning-free, and generated code carries exactly their text.
namespace {

std::filesystem::path prelude_dir() { return std::filesystem::path(WEIR_SOURCE_DIR) / "codegen" / "prelude"; }

// Compiles a translation unit that includes `header` (syntax and semantic checks only) with the
// tests' warning flags as errors; `extra` adds flags. Returns the compiler's output on failure.
void compile_header(const std::string& header, const std::string& extra, const std::string& name) {
  auto dir = test::scratch_dir("prelude_header_" + name);
  auto cpp = dir / "unit.cpp";
  auto log = dir / "unit.log";
  std::ofstream(cpp) << "#include \"" << (prelude_dir() / header).string() << "\"\n";
  std::string cmd = "g++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror " + extra + " '" + cpp.string() +
                    "' > '" + log.string() + "' 2>&1";
  int rc = std::system(cmd.c_str());
  INFO(header << " with '" << extra << "':\n" << test::read_text(log).substr(0, 4000));
  CHECK(rc == 0);
}

}  // namespace

TEST_CASE("prelude: every header of codegen/prelude compiles on its own", "[codegen][prelude]") {
  for (const char* h : {"weir_faults.h", "weir_numbers.h", "weir_support.h", "weir_complex.h",
                        "weir_profile.h", "weir_dace_compat.h", "weir_stream.h", "weir_blas_threads.h"}) {
    compile_header(h, "", std::string(h) + "_plain");
    compile_header(h, "-fopenmp", std::string(h) + "_openmp");
  }
  // The CUDA parts as the host-emulation harness compiles generated CUDA code.
  const std::string emulation = "-x c++ -DWEIR_CUDA_EMULATION -I'" +
                                (std::filesystem::path(WEIR_SOURCE_DIR) / "codegen" / "emulation").string() +
                                "' -Wno-unused-parameter -Wno-unused-variable";
  compile_header("weir_cuda_head.h", emulation, "cuda_head");
  compile_header("weir_cuda_tail.h", emulation, "cuda_tail");
}

TEST_CASE("prelude: generated code carries the headers' text, the CUDA parts around it",
          "[codegen][prelude]") {
  auto s = test::map_program("b = a // 3.0");
  GeneratedCode g = generate_cpu(*s);
  for (const char* h : {"weir_faults.h", "weir_numbers.h", "weir_support.h"}) {
    INFO(h);
    const std::string text = test::read_text(prelude_dir() / h);
    REQUIRE(text.size() > 1000);
    CHECK(g.source.find(text) != std::string::npos);
  }
  // In this order, before the program's own code.
  const auto at = [&](const char* h) { return g.source.find(test::read_text(prelude_dir() / h)); };
  CHECK(at("weir_faults.h") < at("weir_numbers.h"));
  CHECK(at("weir_numbers.h") < at("weir_support.h"));
  CHECK(at("weir_support.h") < g.source.find("extern \"C\" int weir_run("));
  // Complex helpers only where complex numbers are used, streaming stores only where a map
  // streams a row (tests/codegen/test_streaming_stores.cpp).
  CHECK(g.source.find(test::read_text(prelude_dir() / "weir_complex.h")) == std::string::npos);
  CHECK(g.source.find(test::read_text(prelude_dir() / "weir_stream.h")) == std::string::npos);

  // A CUDA unit: the CUDA head first, the common parts, then the CUDA tail.
  auto gpu = test::map_program("b = a // 3.0", Language::Python, ScheduleType::GPU_Device);
  gpu->arrays.at("A").storage = StorageType::GPU_Global;
  gpu->arrays.at("B").storage = StorageType::GPU_Global;
  GeneratedCode c = generate_cuda(*gpu);
  const auto in_cuda = [&](const char* h) { return c.source.find(test::read_text(prelude_dir() / h)); };
  for (const char* h :
       {"weir_cuda_head.h", "weir_faults.h", "weir_numbers.h", "weir_support.h", "weir_cuda_tail.h"}) {
    INFO(h);
    CHECK(in_cuda(h) != std::string::npos);
  }
  CHECK(in_cuda("weir_cuda_head.h") < in_cuda("weir_faults.h"));
  CHECK(in_cuda("weir_support.h") < in_cuda("weir_cuda_tail.h"));
  CHECK(in_cuda("weir_cuda_tail.h") < c.source.find("__global__"));
}
