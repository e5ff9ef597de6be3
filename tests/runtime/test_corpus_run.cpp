// Every inputs/ + expected/ case of ../shared/corpus/dace, run from its SDFG file on the cpu
// backend (code generation, compilation, dlopen), matches DaCe's results with rtol 1e-12.
#include <catch2/catch.hpp>

#include "runtime_test_util.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"

using namespace weir::runtime;

namespace {

void run_corpus_case(const std::string& kernel, const std::string& stage) {
  weir::test::fresh_cache("corpus-" + kernel + "-" + stage);
  auto backend = make_cpu_backend();
  auto program = weir::test::corpus_program(kernel, stage);
  auto args = weir::test::corpus_arguments(kernel);
  run(*backend, program, args);
  CHECK(weir::test::check_expected(kernel, args) >= 1);
}

}  // namespace

#define CORPUS_CASE(kernel, stage)                                                                        \
  TEST_CASE("corpus: " kernel " " stage " runs on cpu and matches expected/", "[runtime][corpus][cpu]") { \
    run_corpus_case(kernel, stage);                                                                       \
  }

CORPUS_CASE("laplace2d", "frontend")
CORPUS_CASE("laplace2d", "simplified")
CORPUS_CASE("laplace2d", "auto_optimized_cpu")
CORPUS_CASE("jacobi_2d", "frontend")
CORPUS_CASE("jacobi_2d", "simplified")
CORPUS_CASE("jacobi_2d", "auto_optimized_cpu")
CORPUS_CASE("hdiff", "frontend")
CORPUS_CASE("hdiff", "simplified")
CORPUS_CASE("hdiff", "auto_optimized_cpu")
// The GPU stages were never run by DaCe; the CPU code generator runs their GPU storage and
// schedules as host memory and parallel loops, and they must give the same results.
CORPUS_CASE("laplace2d", "auto_optimized_gpu")
CORPUS_CASE("jacobi_2d", "auto_optimized_gpu")
CORPUS_CASE("hdiff", "auto_optimized_gpu")

TEST_CASE("corpus: a program runs again with the same library and different sizes",
          "[runtime][corpus][cpu]") {
  weir::test::fresh_cache("corpus-resize");
  auto backend = make_cpu_backend();
  auto program = prepare(*backend, weir::test::corpus_program("hdiff", "simplified"));
  auto args = weir::test::corpus_arguments("hdiff");
  args.values.clear();  // I, J, K are inferred from the shapes
  program->run(args);
  CHECK(weir::test::check_expected("hdiff", args) == 1);
  // Smaller sizes through the same loaded program: init runs again for the new symbols.
  Arguments small;
  small.arrays.emplace("in_field", Allocator::cpu().allocate(weir::ScalarType::Float64, {6, 7, 2}));
  small.arrays.emplace("out_field", Allocator::cpu().allocate(weir::ScalarType::Float64, {2, 3, 2}));
  small.arrays.emplace("coeff", Allocator::cpu().allocate(weir::ScalarType::Float64, {2, 3, 2}));
  program->run(small);
  for (std::int64_t i = 0; i < 12; ++i) CHECK(small.arrays.at("out_field").value_as_double(i) == 0.0);
}
